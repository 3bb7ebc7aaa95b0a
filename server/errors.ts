// The one error catalog: every coded failure the HTTP API, the bot socket and the human socket can report,
// each once, with its HTTP status (null: socket only), its default message, and on the sockets whether the
// connection is closed and whether a client should stop rather than retry (SPEC 7.2). Routes throw ApiError
// (made by the factories below, which take status and code from the catalog); one handler renders
// `{error, code}`; the sockets send `{type: "error", code, message}`; the starter bots' stop lists are
// tested against STOP_CODES.
// Longer than 500 lines: the catalog is one list on purpose (one error catalog: each code has one home, and the
// OpenAPI document, the sockets and the starters read it from here); each entry is a line or two.

export interface CodeSpec {
  /** HTTP status when the code is an HTTP answer; null for socket-only codes. */
  status: number | null;
  message: string;
  /**
   * On a socket: `close` the connection after sending it; `stop`: the client should not retry (reconnect or
   * queue again); `human`: sent on the /human socket only.
   */
  socket?: { close: boolean; stop: boolean; human?: true };
}

export const CODES = {
  bad_request: { status: 400, message: "bad request" },
  invalid_bot: { status: 400, message: "invalid bot" },
  missing_authorization: {
    status: 401,
    message: "send the header Authorization: Bearer <BOT_TOKEN> on the opening handshake",
    socket: { close: true, stop: true },
  },
  invalid_token: {
    status: 401,
    message: "unknown or revoked bot token",
    socket: { close: true, stop: true },
  },
  authentication_required: { status: 401, message: "registering a bot needs an account credential" },
  no_such_bot: { status: 404, message: "no such bot" },
  no_such_match: { status: 404, message: "no such match" },
  no_stats: { status: 404, message: "no stats" },
  no_replay: { status: 404, message: "no replay" },
  no_dump: { status: 404, message: "no dump" },
  unknown_ladder: { status: 404, message: "unknown ladder", socket: { close: false, stop: true } },
  not_found: { status: 404, message: "not found" },
  unknown_release: { status: 404, message: "unknown release" },
  not_built: { status: 404, message: "not built" },
  no_such_version: { status: 404, message: "no such version" },
  bot_limit: { status: 409, message: "bot limit" },
  quota_exceeded: {
    status: 429,
    message: "held back by a limit; still queued",
    socket: { close: false, stop: false },
  },
  bot_moderated: { status: 409, message: "bot moderated" },
  too_large: { status: 413, message: "request body too large" },
  unsupported_media_type: { status: 415, message: "send the body as JSON (application/json, UTF-8)" },
  request_timeout: { status: 408, message: "the request was not sent in time" },
  headers_too_large: { status: 431, message: "the request's headers are too large" },
  uri_too_long: { status: 414, message: "a segment of the address is too long (at most 100 characters)" },
  too_many_connections: { status: 429, message: "too many open connections from this address" },
  server_busy: { status: 503, message: "the server is busy; retry after the seconds in Retry-After" },
  server_draining: {
    status: 503,
    message: "the server is shutting down; no new matches or games start",
    socket: { close: true, stop: false },
  },
  invalid_session: { status: 401, message: "invalid session" },
  auth_unavailable: { status: 503, message: "the identity provider is unavailable; try again shortly" },
  admin_required: {
    status: 401,
    message: "send an admin's access token or agent key as Authorization: Bearer",
  },
  not_admin: { status: 403, message: "this account is not an admin" },
  account_banned: {
    status: 403,
    message: "the bot's account is banned",
    socket: { close: true, stop: true },
  },
  accounts_disabled: { status: 404, message: "this ladder has no accounts" },
  handle_required: { status: 409, message: "handle required" },
  invalid_handle: { status: 400, message: "invalid handle" },
  handle_taken: { status: 409, message: "handle taken" },
  foreign_origin: {
    status: 403,
    message: "requests from another site's pages are refused on account routes",
  },
  invalid_credential: { status: 401, message: "invalid credential" },
  invalid_owner_key: { status: 401, message: "unknown owner key" },
  bot_has_played: { status: 409, message: "bot has played" },
  bot_in_match: { status: 409, message: "bot in match" },
  key_limit: { status: 409, message: "key limit" },
  already_claimed: { status: 409, message: "this bot belongs to another account" },
  unknown_avatar: { status: 400, message: "unknown avatar" },
  own_role: { status: 409, message: "you cannot change your own role" },
  configured_admin: { status: 409, message: "this account is an admin by the configured admin email list" },
  admin_account: { status: 409, message: "admins cannot be banned or deleted; remove the role first" },
  no_such_account: { status: 404, message: "no such account" },
  no_such_key: { status: 404, message: "no such key" },
  owner_taken: { status: 409, message: "owner taken" },
  rate_limited: { status: 429, message: "too many messages", socket: { close: true, stop: false } },
  unavailable: {
    status: 503,
    message: "the database is unavailable for a moment; try again in a few seconds",
    socket: { close: false, stop: false },
  },
  internal: {
    status: 500,
    message: "the server could not handle this message; try again",
    socket: { close: false, stop: false },
  },
  ladder_closed: {
    status: 409,
    message: "this ladder is closed; no ranked match starts on it",
    socket: { close: false, stop: true },
  },
  ladder_disabled: {
    status: 409,
    message: "this ladder is disabled; no ranked match starts on it",
    socket: { close: false, stop: true },
  },
  invitation_required: { status: 403, message: "invitation required" },
  invalid_invitation: {
    status: 403,
    message: "this invitation code is unknown, for another ladder or for another account",
  },
  invitation_used: { status: 409, message: "this invitation has been used already" },
  membership_revoked: { status: 403, message: "membership revoked" },
  invalid_transition: { status: 409, message: "invalid transition" },
  no_such_invitation: { status: 404, message: "no such invitation" },
  not_invitation_ladder: { status: 409, message: "not invitation ladder" },
  stale_revision: { status: 409, message: "the settings changed meanwhile; reload and retry" },
  // The tool endpoint and its OAuth authorization server (SPEC 4.4, 5 rule 8). The OAuth codes are RFC 6749's.
  mcp_consent_required: {
    status: 403,
    message: "the account has not approved this client, or revoked it; ask the owner to approve it again",
  },
  method_not_allowed: { status: 405, message: "method not allowed" },
  mcp_disabled: { status: 404, message: "the tool endpoint is turned off on this ladder" },
  permission_required: {
    status: 403,
    message: "this credential may register bots only; the owner must approve retiring and enrolling",
  },
  insufficient_scope: {
    status: 403,
    message: "this client's approval does not cover this tool; the owner must approve the scope it needs",
  },
  no_such_authorization: { status: 404, message: "no such authorization request, or it has expired" },
  no_such_client: { status: 404, message: "no such approved client" },
  invalid_request: { status: 400, message: "invalid OAuth request" },
  invalid_client: { status: 401, message: "unknown OAuth client" },
  invalid_grant: { status: 400, message: "invalid, used or expired code or refresh token" },
  unsupported_grant_type: { status: 400, message: "unsupported grant type" },
  invalid_scope: { status: 400, message: "unknown scope, or more than was granted" },
  invalid_redirect_uri: { status: 400, message: "invalid redirect URI" },
  invalid_client_metadata: { status: 400, message: "invalid client metadata" },
  no_such_announcement: { status: 404, message: "no such announcement" },
  preview_expired: {
    status: 409,
    message: "the preview is over an hour old; preview again before publishing",
  },
  announcement_discarded: { status: 409, message: "this draft was discarded" },
  email_not_configured: { status: 409, message: "email is not configured (no SMTP server)" },
  window_started: { status: 409, message: "the window has opened: its opening time can no longer move" },
  window_closed: { status: 409, message: "the window has closed: it can no longer move" },
  window_past: { status: 409, message: "a new time must be in the future" },
  invalid_window: { status: 400, message: "closing must follow opening" },
  suspended: { status: null, message: "this bot is suspended", socket: { close: true, stop: true } },
  banned: { status: null, message: "this bot is banned", socket: { close: true, stop: true } },
  retired: { status: null, message: "this bot is retired", socket: { close: true, stop: true } },
  account_required: {
    status: null,
    message: "this bot has no account owner",
    socket: { close: true, stop: true },
  },
  schema: {
    status: null,
    message: "message does not match the protocol schema",
    socket: { close: false, stop: false },
  },
  invalid_version: {
    status: null,
    message: "version label must be 1-32 characters",
    socket: { close: false, stop: false },
  },
  version_retired: {
    status: null,
    message: "this version is retired; queue with another label",
    socket: { close: false, stop: false },
  },
  enrollment_required: {
    status: null,
    message: "this ladder needs an active enrollment: POST /api/account/ladders/<id>/enrollment",
    socket: { close: false, stop: true },
  },
  already_queued: {
    status: null,
    message: "already queued or playing; the version is unchanged",
    socket: { close: false, stop: false },
  },
  not_queued: { status: null, message: "not in the queue", socket: { close: false, stop: false } },
  draining: {
    status: null,
    message: "the server is shutting down; no new matches start",
    socket: { close: false, stop: false },
  },
  replaced: {
    status: null,
    message: "a newer connection with the same token took over",
    socket: { close: true, stop: true },
  },
  match_aborted: {
    status: null,
    message: "the server could not finish this match; it is void and unrated",
    socket: { close: false, stop: false },
  },
  invalid_ticket: {
    status: null,
    message: "missing, used or expired play ticket; get a new one",
    socket: { close: true, stop: true, human: true },
  },
  unknown_opponent: {
    status: null,
    message: "pick an online house bot of the Public ladder: ts-starter, brawler, kiter or champion",
    socket: { close: true, stop: true, human: true },
  },
  capacity: {
    status: null,
    message: "the server is at capacity; try again shortly",
    socket: { close: true, stop: false, human: true },
  },
  // Events (SPEC 3.9, 4.5, 4.6, 7.1).
  unknown_event: { status: 404, message: "unknown event" },
  unknown_achievement: { status: 404, message: "unknown achievement" },
  no_such_award: { status: 404, message: "this account has not earned this achievement" },
  achievement_locked: { status: 403, message: "this achievement has not been earned" },
  achievement_revoked: { status: 403, message: "this award was revoked" },
  flags_unavailable: {
    status: 503,
    message: "flag delivery is unavailable: the operator has not configured flags",
  },
  event_closed: { status: 409, message: "this event is not open" },
  bot_offline: { status: 409, message: "the bot is not connected" },
  request_exists: { status: 409, message: "a pending opponent request exists; cancel it first" },
  request_cooldown: { status: 429, message: "opponent requests are limited to one per 30 seconds" },
  opponents_unavailable: { status: 503, message: "the official opponents are unavailable on this server" },
  // Scrimmages and batch tests (server/scrimmages/).
  opponent_offline: { status: 409, message: "the opponent is not connected" },
  scrimmages_not_allowed: {
    status: 403,
    message: "the opponent's owner does not allow scrimmages against it",
  },
  no_such_scrimmage: { status: 404, message: "no such scrimmage" },
  no_such_batch: { status: 404, message: "no such batch test" },
  no_such_tournament: { status: 404, message: "no such tournament" },
  invalid_image: { status: 400, message: "not a usable image" },
  // Settlement phases (server/settlement/).
  invalid_settlement: { status: 400, message: "invalid settlement" },
  settlement_exists: { status: 409, message: "this ladder already has a settlement that has not ended" },
  no_settlement: { status: 404, message: "no settlement on this ladder" },
  settlement_started: { status: 409, message: "this settlement has begun and runs to its end" },
  settlement_final: { status: 409, message: "the final standings of this settlement are already published" },
  // A queue on a settling ladder with a version the settlement froze out: the socket stays open, the bot is not
  // queued; it may queue that version once the settlement ends (or its frozen version now).
  settlement_frozen: {
    status: null,
    message: "this ladder is settling: versions are frozen until the settlement ends",
    socket: { close: false, stop: false },
  },
} as const satisfies Record<string, CodeSpec>;
export type Code = keyof typeof CODES;

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

/** An ApiError for a catalog code: its status from the catalog, the message given or the catalog's. */
function fail(code: Code, message?: string, extra?: Record<string, unknown>, status?: number): ApiError {
  return new ApiError(status ?? CODES[code].status ?? 400, code, message ?? CODES[code].message, extra);
}

export const errors = {
  badRequest: (message: string) => fail("bad_request", message),
  /** Overrides that fail their schema: 400 `bad_request` with each problem's path for the form that sent them. */
  invalidSettings: (message: string, issues: { path: string; message: string }[]) =>
    fail("bad_request", message, { issues }),
  invalidBot: (message: string) => fail("invalid_bot", message),
  missingAuthorization: () => fail("missing_authorization", "send the header Authorization: Bearer <token>"),
  invalidToken: () => fail("invalid_token", "unknown or revoked bot token"),
  authenticationRequired: (accountUrl: string) =>
    fail("authentication_required", "registering a bot needs an account credential", {
      account_url: accountUrl,
    }),
  noSuchBot: (name: string) => fail("no_such_bot", `no bot named ${JSON.stringify(name)}`),
  noSuchMatch: (id: string) => fail("no_such_match", `no match ${JSON.stringify(id)}`),
  noStats: (id: string) =>
    fail("no_stats", `match ${JSON.stringify(id)} has no stats (voided, or its replay was trimmed)`),
  noReplay: (id: string) => fail("no_replay", `no replay for match ${JSON.stringify(id)}`),
  noDump: (ladder: string, file: string) =>
    fail("no_dump", `no dump ${JSON.stringify(file)} of ladder ${JSON.stringify(ladder)}`),
  unknownLadder: (id: string) => fail("unknown_ladder", `unknown ladder ${JSON.stringify(id)}`),
  notFound: (what: string) => fail("not_found", `${what} not found`),
  /** A simulator wheel of another release (SPEC 1.1): the message names the one that is served. */
  unknownRelease: (requested: string, current: string) =>
    fail("unknown_release", `${requested} is not served; the current simulator wheel is ${current}`),
  notBuilt: (file: string) =>
    fail("not_built", `${file} is not built on this server (run npm run build:sim)`),
  noSuchVersion: (label: string) => fail("no_such_version", `no version ${JSON.stringify(label)}`),
  botLimit: (limit: number) =>
    fail("bot_limit", `an owner may have at most ${limit} bots that are not retired`),
  quotaExceeded: (message: string) => fail("quota_exceeded", message),
  botModerated: (status: string) => fail("bot_moderated", `the bot is ${status}`),
  tooLarge: () => fail("too_large", "request body too large"),
  unsupportedMediaType: (message: string) => fail("unsupported_media_type", message),
  draining: () => fail("server_draining", "the server is shutting down"),

  // Accounts and administration (SPEC 4.2-4.6, 5, 7.1).
  invalidSession: (message = "the account session is invalid; sign in again") =>
    fail("invalid_session", message),
  authUnavailable: () => fail("auth_unavailable", "the identity provider is unavailable; try again shortly"),
  adminRequired: () =>
    fail("admin_required", "send an admin's access token or agent key as Authorization: Bearer"),
  notAdmin: () => fail("not_admin", "this account is not an admin"),
  accountBanned: () => fail("account_banned", "this account is banned"),
  accountsDisabled: () => fail("accounts_disabled", "this ladder has no accounts"),
  handleRequired: () =>
    fail("handle_required", 'choose a handle first: PUT /api/account/handle {"handle": ...}'),
  invalidHandle: (message: string) => fail("invalid_handle", message),
  handleTaken: (handle: string) => fail("handle_taken", `the handle ${JSON.stringify(handle)} is taken`),
  foreignOrigin: () =>
    fail("foreign_origin", "requests from another site's pages are refused on account routes"),
  wrongCredential: (message: string) => fail("invalid_credential", message),
  invalidAgentKey: () => fail("invalid_token", "unknown or revoked agent key"),
  invalidOwnerKey: () => fail("invalid_owner_key", "unknown owner key"),
  botHasPlayed: (name: string) =>
    fail(
      "bot_has_played",
      `${name} has played and cannot be deleted; retire it with DELETE /api/account/bots/${name}`,
    ),
  botInMatch: (name: string) =>
    fail("bot_in_match", `${name} is playing a match; rename it after the match ends`),
  keyLimit: (limit: number) => fail("key_limit", `an account may have at most ${limit} agent keys`),
  alreadyClaimed: () => fail("already_claimed", "this bot belongs to another account"),
  unknownAvatar: (allowed: readonly string[]) =>
    fail("unknown_avatar", `avatar must be null or one of: ${allowed.join(", ")}`),
  ownRole: () => fail("own_role", "you cannot change your own role"),
  configuredAdmin: () =>
    fail("configured_admin", "this account is an admin by the configured admin email list"),
  adminAccount: () => fail("admin_account", "admins cannot be banned or deleted; remove the role first"),
  // SPEC 7.1 names the code for this case without a status; a conflict with the target's state is 409.
  bannedCannotBeAdmin: () =>
    fail("account_banned", "a banned account cannot be made an admin", undefined, 409),
  noSuchAccount: (ref: string) => fail("no_such_account", `no account ${JSON.stringify(ref)}`),
  noSuchKey: (id: string) => fail("no_such_key", `no agent key ${JSON.stringify(id)}`),
  ownerTaken: (name: string) => fail("owner_taken", `the owner name ${JSON.stringify(name)} is taken`),
  rateLimited: (message: string) => fail("rate_limited", message),
  // GET /metrics (the operator's --metrics-token): SPEC 7.1's codes for a missing header and a wrong credential.
  metricsTokenMissing: () =>
    fail("missing_authorization", "send the operator's metrics token as Authorization: Bearer <token>"),
  metricsTokenWrong: () => fail("invalid_credential", "wrong metrics token"),
  internal: () => fail("internal", "internal error"),

  // Ladders, membership and settings (SPEC 3.1, 3.7, 4.4, 4.6).
  ladderClosed: (id: string) =>
    fail("ladder_closed", `the ladder ${id} is closed; it takes no enrollment and starts no match`),
  ladderDisabled: (id: string) => fail("ladder_disabled", `the ladder ${id} is disabled`),
  invitationRequired: (id: string) =>
    fail("invitation_required", `the ladder ${id} is by invitation: send {"invitation": "<code>"}`),
  invalidInvitation: () =>
    fail("invalid_invitation", "this invitation code is unknown, for another ladder or for another account"),
  invitationUsed: () => fail("invitation_used", "this invitation has been used already"),
  membershipRevoked: (id: string) =>
    fail("membership_revoked", `your membership of the ladder ${id} was revoked by its staff`),
  invalidTransition: (from: string | null, to: string) =>
    fail("invalid_transition", `a membership cannot go from ${from ?? "none"} to ${to}`),
  noSuchInvitation: (id: string) =>
    fail("no_such_invitation", `no invitation ${JSON.stringify(id)} on this ladder`),
  notInvitationLadder: (id: string) => fail("not_invitation_ladder", `the ladder ${id} is not by invitation`),
  windowStarted: (id: string) =>
    fail("window_started", `the ladder ${id} has opened: its opening time can no longer move`),
  windowClosed: (id: string) =>
    fail("window_closed", `the ladder ${id} has closed: its window can no longer move`),
  windowPast: (which: string) => fail("window_past", `${which} must be in the future`),
  invalidWindow: (message: string) => fail("invalid_window", message),
  mcpConsentRequired: (message?: string) => fail("mcp_consent_required", message),
  mcpDisabled: () => fail("mcp_disabled"),
  methodNotAllowed: (message: string) => fail("method_not_allowed", message),
  permissionRequired: (tool: string) =>
    fail(
      "permission_required",
      `${tool} needs the owner's approval to manage bots and ladders: create a new agent key, or approve the client again`,
    ),
  /** An OAuth grant without the scope a tool needs (RFC 6750 3.1's name, in the API's `{error, code}`). */
  insufficientScope: (tool: string, needed: string, granted: string) =>
    fail(
      "insufficient_scope",
      `${tool} needs the scope ${needed}; this client was approved for "${granted}" only: ask the owner to approve it again with "${granted} ${needed}"`,
    ),
  invalidScope: (description: string) => fail("invalid_scope", description),
  noSuchAuthorization: () => fail("no_such_authorization"),
  noSuchClient: (id: string) => fail("no_such_client", `no approved client ${JSON.stringify(id)}`),
  invalidRequest: (description: string) => fail("invalid_request", description),
  invalidClient: (description: string) => fail("invalid_client", description),
  invalidGrant: (description: string) => fail("invalid_grant", description),
  unsupportedGrantType: (description: string) => fail("unsupported_grant_type", description),
  invalidRedirectUri: (description: string) => fail("invalid_redirect_uri", description),
  invalidClientMetadata: (description: string) => fail("invalid_client_metadata", description),
  // Events (SPEC 3.9, 4.5, 4.6). SPEC 7.1 names enrollment_required and unknown_opponent without an HTTP
  // status: on the event routes they are 403 (the caller may not) and 400 (a value outside the list).
  unknownEvent: (id: string) => fail("unknown_event", `unknown event ${JSON.stringify(id)}`),
  unknownAchievement: (id: string) =>
    fail("unknown_achievement", `unknown achievement ${JSON.stringify(id)}`),
  noSuchAward: () => fail("no_such_award"),
  achievementLocked: () => fail("achievement_locked"),
  achievementRevoked: () => fail("achievement_revoked"),
  flagsUnavailable: () => fail("flags_unavailable"),
  eventEnrollmentRequired: (ladderId: string) =>
    fail(
      "enrollment_required",
      `this event needs an active enrollment on the ladder ${ladderId}: POST /api/account/ladders/${ladderId}/enrollment`,
      undefined,
      403,
    ),
  eventClosed: (id: string, phase: string) =>
    fail("event_closed", `the event ${id} is ${phase}; opponent requests are taken while it is open`),
  botOffline: (name: string) =>
    fail(
      "bot_offline",
      `${name} is not connected; connect it, then ask again (the request is served when it queues)`,
    ),
  requestExists: () => fail("request_exists"),
  requestCooldown: (seconds: number) =>
    fail("request_cooldown", `one opponent request per 30 seconds; try again in ${seconds} s`, {
      retry_after_s: seconds,
    }),
  opponentsUnavailable: (why: string) =>
    fail("opponents_unavailable", `the official opponents are unavailable: ${why}`),
  opponentOffline: (name: string) =>
    fail(
      "opponent_offline",
      `${name} is not connected; a scrimmage can be asked for only against a bot that is online now`,
    ),
  scrimmagesNotAllowed: (name: string) =>
    fail(
      "scrimmages_not_allowed",
      `the owner of ${name} does not allow scrimmages against it (each bot's owner opts in on its page)`,
    ),
  noSuchScrimmage: (id: string) =>
    fail("no_such_scrimmage", `no scrimmage ${JSON.stringify(id)} for this bot`),
  noSuchBatch: (id: string) => fail("no_such_batch", `no batch test ${JSON.stringify(id)}`),
  invalidSettlement: (message: string) => fail("invalid_settlement", message),
  settlementExists: (ladder: string, id: string) =>
    fail("settlement_exists", `the ladder ${ladder} has settlement ${id}, which has not ended`, { id }),
  noSettlement: (ladder: string) => fail("no_settlement", `the ladder ${ladder} has no settlement`),
  settlementStarted: (ladder: string, id: string) =>
    fail("settlement_started", `settlement ${id} of the ladder ${ladder} has begun and runs to its end`, {
      id,
    }),
  noFinalStandings: (ladder: string) =>
    fail("no_settlement", `the ladder ${ladder} has no published final standings yet`),
  settlementFinal: (id: string) =>
    fail("settlement_final", `the final standings of settlement ${id} are published and cannot change`),
  noSuchTournament: (id: string) => fail("no_such_tournament", `no tournament ${JSON.stringify(id)}`),
  unknownOpponent: (allowed: readonly string[]) =>
    fail(
      "unknown_opponent",
      `opponent must be one of this event's opponents: ${allowed.join(", ")}`,
      undefined,
      400,
    ),
  invalidImage: (message: string) => fail("invalid_image", message),
  imageTooLarge: (message: string) => fail("too_large", message),
  unsupportedImage: (message: string) => fail("unsupported_media_type", message),
  noSuchAnnouncement: (id: string) => fail("no_such_announcement", `no announcement ${JSON.stringify(id)}`),
  previewExpired: () =>
    fail(
      "preview_expired",
      "the preview is over an hour old; preview the announcement again before publishing",
    ),
  announcementDiscarded: () => fail("announcement_discarded", "this draft was discarded; preview a new one"),
  emailNotConfigured: () =>
    fail(
      "email_not_configured",
      "email was asked for, but no SMTP server is configured (--smtp-url); send in game only, or configure SMTP",
    ),
  staleRevision: (current: number) =>
    fail("stale_revision", `the settings changed meanwhile (revision ${current}); reload and retry`, {
      revision: current,
    }),
};

type SocketCode = { [K in Code]: (typeof CODES)[K] extends { socket: object } ? K : never }[Code];
export type SocketErrorCode = SocketCode;

/** Codes sent over the sockets as `{type: "error", code, message}`, with their default messages. */
export const SOCKET_ERRORS = Object.fromEntries(
  Object.entries(CODES)
    .filter(([, spec]) => "socket" in spec)
    .map(([code, spec]) => [code, spec.message]),
) as Record<SocketErrorCode, string>;

/**
 * WebSocket close codes (RFC 6455 7.4.1) and reasons the sockets close with, by what the close means, as
 * `close(...CLOSES.restarting)` takes them; every close of the bot and human sockets takes its code from here
 * (SPEC 3.10 names 1012 "server restarting").
 */
export const CLOSES: Record<"replaced" | "restarting" | "unavailable" | "internal", Close> = {
  /** A newer connection with the same token took over (SPEC 7.2 `replaced`, sent first). */
  replaced: [1000, "replaced"],
  /** Draining ended or the server stops: reconnect with backoff (SPEC 3.10). */
  restarting: [1012, "server restarting"],
  /** The database is unreachable for a moment: try again later. */
  unavailable: [1013, "try again later"],
  /** The server failed on this connection. */
  internal: [1011, "internal error"],
};

/** A close frame's code and reason. */
export type Close = readonly [code: number, reason: string];

/** The close after a socket error from the catalog: policy (1008) with the code as reason, but for the two above. */
export function closeFor(code: SocketErrorCode): Close {
  if (code === "unavailable" || code === "internal") return CLOSES[code];
  return [1008, code];
}

/**
 * Bot-socket codes after which a bot should not reconnect or queue again: retrying cannot help (SPEC 7.2).
 * The starter bots' stop lists are tested against this set.
 */
export const BOT_STOP_CODES: ReadonlySet<string> = new Set(
  Object.entries(CODES as Record<string, CodeSpec>)
    .filter(([, spec]) => spec.socket?.stop && !spec.socket.human)
    .map(([code]) => code),
);
