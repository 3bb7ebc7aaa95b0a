// The one error catalog: every coded failure the HTTP API and the bot socket can report, with its status.
// Routes throw ApiError (made by the factories below); one handler renders `{error, code}`.

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly extra: Record<string, unknown> | undefined;
  constructor(status: number, code: string | undefined, message: string, extra?: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }
  body(): Record<string, unknown> {
    return { error: this.message, ...(this.code ? { code: this.code } : {}), ...(this.extra ?? {}) };
  }
}

export const errors = {
  badRequest: (message: string) => new ApiError(400, "bad_request", message),
  invalidBot: (message: string) => new ApiError(400, "invalid_bot", message),
  missingAuthorization: () =>
    new ApiError(401, "missing_authorization", "send the header Authorization: Bearer <token>"),
  invalidToken: () => new ApiError(401, "invalid_token", "unknown or revoked bot token"),
  authenticationRequired: (accountUrl: string) =>
    new ApiError(401, "authentication_required", "registering a bot needs an account credential", {
      account_url: accountUrl,
    }),
  noSuchBot: (name: string) => new ApiError(404, "no_such_bot", `no bot named ${JSON.stringify(name)}`),
  noSuchMatch: (id: string) => new ApiError(404, "no_such_match", `no match ${JSON.stringify(id)}`),
  noStats: (id: string) =>
    new ApiError(
      404,
      "no_stats",
      `match ${JSON.stringify(id)} has no stats (voided, or its replay was trimmed)`,
    ),
  noReplay: (id: string) => new ApiError(404, "no_replay", `no replay for match ${JSON.stringify(id)}`),
  unknownLadder: (id: string) => new ApiError(404, "unknown_ladder", `unknown ladder ${JSON.stringify(id)}`),
  notFound: (what: string) => new ApiError(404, "not_found", `${what} not found`),
  /** A simulator wheel of another release (SPEC 1.1): the message names the one that is served. */
  unknownRelease: (requested: string, current: string) =>
    new ApiError(
      404,
      "unknown_release",
      `${requested} is not served; the current simulator wheel is ${current}`,
    ),
  notBuilt: (file: string) =>
    new ApiError(404, "not_built", `${file} is not built on this server (run npm run build:sim)`),
  noSuchVersion: (label: string) =>
    new ApiError(404, "no_such_version", `no version ${JSON.stringify(label)}`),
  botLimit: (limit: number) =>
    new ApiError(409, "bot_limit", `an owner may have at most ${limit} bots that are not retired`),
  quotaExceeded: (message: string) => new ApiError(429, "quota_exceeded", message),
  botModerated: (status: string) => new ApiError(409, "bot_moderated", `the bot is ${status}`),
  tooLarge: () => new ApiError(413, "too_large", "request body too large"),
  draining: () => new ApiError(503, "server_draining", "the server is shutting down"),

  // Accounts and administration (SPEC 4.2-4.6, 5, 7.1).
  invalidSession: (message = "the account session is invalid; sign in again") =>
    new ApiError(401, "invalid_session", message),
  authUnavailable: () =>
    new ApiError(503, "auth_unavailable", "the identity provider is unavailable; try again shortly"),
  adminRequired: () =>
    new ApiError(401, "admin_required", "send an admin's access token or agent key as Authorization: Bearer"),
  notAdmin: () => new ApiError(403, "not_admin", "this account is not an admin"),
  accountBanned: () => new ApiError(403, "account_banned", "this account is banned"),
  accountsDisabled: () => new ApiError(404, "accounts_disabled", "this ladder has no accounts"),
  handleRequired: () =>
    new ApiError(409, "handle_required", 'choose a handle first: PUT /api/account/handle {"handle": ...}'),
  invalidHandle: (message: string) => new ApiError(400, "invalid_handle", message),
  handleTaken: (handle: string) =>
    new ApiError(409, "handle_taken", `the handle ${JSON.stringify(handle)} is taken`),
  foreignOrigin: () =>
    new ApiError(403, "foreign_origin", "requests from another site's pages are refused on account routes"),
  wrongCredential: (message: string) => new ApiError(401, "invalid_credential", message),
  invalidAgentKey: () => new ApiError(401, "invalid_token", "unknown or revoked agent key"),
  invalidOwnerKey: () => new ApiError(401, "invalid_owner_key", "unknown owner key"),
  botHasPlayed: (name: string) =>
    new ApiError(
      409,
      "bot_has_played",
      `${name} has played and cannot be deleted; retire it with DELETE /api/account/bots/${name}`,
    ),
  botInMatch: (name: string) =>
    new ApiError(409, "bot_in_match", `${name} is playing a match; rename it after the match ends`),
  keyLimit: (limit: number) =>
    new ApiError(409, "key_limit", `an account may have at most ${limit} agent keys`),
  alreadyClaimed: () => new ApiError(409, "already_claimed", "this bot belongs to another account"),
  unknownAvatar: (allowed: readonly string[]) =>
    new ApiError(400, "unknown_avatar", `avatar must be null or one of: ${allowed.join(", ")}`),
  ownRole: () => new ApiError(409, "own_role", "you cannot change your own role"),
  configuredAdmin: () =>
    new ApiError(409, "configured_admin", "this account is an admin by the configured admin email list"),
  adminAccount: () =>
    new ApiError(409, "admin_account", "admins cannot be banned or deleted; remove the role first"),
  bannedCannotBeAdmin: () => new ApiError(409, "account_banned", "a banned account cannot be made an admin"),
  noSuchAccount: (ref: string) => new ApiError(404, "no_such_account", `no account ${JSON.stringify(ref)}`),
  noSuchKey: (id: string) => new ApiError(404, "no_such_key", `no agent key ${JSON.stringify(id)}`),
  ownerTaken: (name: string) =>
    new ApiError(409, "owner_taken", `the owner name ${JSON.stringify(name)} is taken`),
  rateLimited: (message: string) => new ApiError(429, "rate_limited", message),
  internal: () => new ApiError(500, "internal", "internal error"),
};

/** Codes sent over the bot socket as `{type: "error", code, message}`. */
export const SOCKET_ERRORS = {
  missing_authorization: "send the header Authorization: Bearer <BOT_TOKEN> on the opening handshake",
  invalid_token: "unknown or revoked bot token",
  suspended: "this bot is suspended",
  banned: "this bot is banned",
  retired: "this bot is retired",
  account_banned: "the bot's account is banned",
  account_required: "this bot has no account owner",
  schema: "message does not match the protocol schema",
  invalid_version: "version label must be 1-32 characters",
  version_retired: "this version is retired; queue with another label",
  unknown_ladder: "unknown ladder",
  already_queued: "already queued or playing; the version is unchanged",
  not_queued: "not in the queue",
  rate_limited: "too many messages",
  quota_exceeded: "held back by a limit; still queued",
  draining: "the server is shutting down; no new matches start",
  internal: "the server could not handle this message; try again",
} as const;
export type SocketErrorCode = keyof typeof SOCKET_ERRORS;
