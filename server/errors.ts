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
  noSuchVersion: (label: string) =>
    new ApiError(404, "no_such_version", `no version ${JSON.stringify(label)}`),
  botLimit: (limit: number) =>
    new ApiError(409, "bot_limit", `an owner may have at most ${limit} bots that are not retired`),
  quotaExceeded: (message: string) => new ApiError(429, "quota_exceeded", message),
  botModerated: (status: string) => new ApiError(409, "bot_moderated", `the bot is ${status}`),
  tooLarge: () => new ApiError(413, "too_large", "request body too large"),
  draining: () => new ApiError(503, "server_draining", "the server is shutting down"),
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
