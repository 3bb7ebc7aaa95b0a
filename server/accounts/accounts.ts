// Who is calling, and may they: resolves the credential kinds of SPEC 5 (browser session, agent key, bot
// token, owner key) into an account, and applies the account-wide rules: banned accounts, handles, the
// admin role and the configured admin email list, foreign origins, and the bot socket's admission check.
// Operations name an auth rule (server/kernel/operation.ts) that resolves through session(), registrant(),
// agentBearer(), botBearer() or admin() to a caller or the SPEC's error; nothing else reads Authorization headers.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import { ApiError, errors, type SocketErrorCode } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import type { HitLog } from "../kernel/hit-log.ts";
import { publicBase } from "../public-address.ts";
import type { BotRow, Store } from "../store/types.ts";
import type { AccountRow, AccountStore, OwnerKeyRow } from "./account-store.ts";
import type { TokenVerifier } from "./verifier.ts";

export type Caller =
  | { kind: "session"; account: AccountRow; email: string | null; admin: boolean }
  | { kind: "agent_key"; account: AccountRow; keyId: string; admin: boolean }
  // An OAuth client an account approved, calling the tool endpoint (server/mcp); never an HTTP route's caller.
  | { kind: "mcp_client"; account: AccountRow; clientId: string; grantId: string; admin: false };

/** The client an audit entry names for a change (SPEC 5 rule 8: agent-key use is `agent_key:<id>`). */
export function clientOf(caller: Caller): string {
  if (caller.kind === "agent_key") return `agent_key:${caller.keyId}`;
  if (caller.kind === "mcp_client") return `mcp_client:${caller.clientId}`;
  return `account:${caller.account.id}`;
}

export type Registrant = Caller | { kind: "owner_key"; owner: OwnerKeyRow } | { kind: "anonymous" };
export type AgentCaller = Caller & { kind: "agent_key" };

type Token = { kind: "jwt" | "agent_key" | "bot_token" | "owner_key" | "unknown"; value: string };

/** Classifies a presented secret by its shape; each kind has a distinct prefix, JWTs have three parts. */
export function classify(value: string): Token {
  if (value.startsWith("ak_")) return { kind: "agent_key", value };
  if (value.startsWith("bt_")) return { kind: "bot_token", value };
  if (value.startsWith("ok_")) return { kind: "owner_key", value };
  if (/^[\w-]+\.[\w-]+\.[\w-]*$/.test(value)) return { kind: "jwt", value };
  return { kind: "unknown", value };
}

function bearer(req: FastifyRequest): Token | null {
  const header = req.headers.authorization;
  if (typeof header !== "string" || header.trim() === "") return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return classify(m ? m[1]! : "");
}

/** What the accounts read: the config and store, and the live state of the bots they moderate. */
export interface AccountsDeps {
  config: Config;
  store: Store;
  accountStore: AccountStore;
  /** Where a bot token is looked up (a bot token offered where an account credential belongs). */
  botStore: Pick<Services["botStore"], "botByToken">;
  /** The other nodes' hits of the throttles (cluster mode shares them; absent in unit tests). */
  throttles?: HitLog;
  /** Where a throttle is audited. */
  auditStore: Pick<Services["auditStore"], "audit">;
  /** Closes a connected bot's socket with a connection error (the bot hub). */
  disconnect(botId: string, code: SocketErrorCode): void;
  /** The bot's entry in the live lobby, if it is connected. */
  liveBot(botId: string): { bot: BotRow; conn: { bot: BotRow } | null } | undefined;
  /** Whether the bot is seated in a running match. */
  inMatch(botId: string): boolean;
}

export class Accounts {
  private readonly counters = new Map<string, number[]>();
  private readonly config: Config;
  private readonly store: Store;

  constructor(
    private readonly d: AccountsDeps,
    private readonly verifier: TokenVerifier | null,
  ) {
    this.config = d.config;
    this.store = d.store;
  }

  get enabled(): boolean {
    return this.verifier !== null;
  }

  /**
   * Admin by stored role, or by a confirmed email the configured list names. A listed account never keeps a
   * stored role (fromJwt clears it), so taking its email off the list ends its admin status at once.
   */
  private isAdmin(account: AccountRow, confirmedEmail: string | null): boolean {
    if (account.role === "admin") return true;
    return confirmedEmail !== null && this.config.adminEmails.includes(confirmedEmail);
  }

  configuredAdmin(account: AccountRow): boolean {
    return account.email !== null && this.config.adminEmails.includes(account.email);
  }

  private async fromJwt(token: string): Promise<Caller & { kind: "session" }> {
    if (!this.verifier) throw errors.accountsDisabled();
    const claims = await this.verifier.verify(token);
    // Built-in sessions end when an account is deleted; an external provider's tokens are checked against
    // the deletion time instead (a token from before it cannot make the account anew).
    const made = await this.d.accountStore.ensureAccount(
      claims.sub,
      this.verifier.builtinProvider ? null : (claims.iat ?? 0),
    );
    if (made === "deleted") throw errors.invalidSession("this account was deleted; sign in again");
    let account = made;
    // Keep an email only for accounts the admin list names (SPEC 5.4), and only once the provider says it
    // is confirmed; drop it when the list no longer names it.
    let email: string | null = null;
    let listed = account.email !== null;
    if (this.config.adminEmails.length > 0 || account.email !== null) {
      email = await this.verifier.confirmedEmail(claims, token);
      const keep = email !== null && this.config.adminEmails.includes(email) ? email : null;
      listed ||= keep !== null;
      if (keep !== account.email) {
        await this.d.accountStore.setEmail(account.id, keep);
        account = { ...account, email: keep };
      }
    }
    // A configured admin is one by the list alone: a stored role (which it could once give itself) would
    // outlast its removal from the list. A listed account, now or before, never keeps one.
    if (listed && account.role === "admin") account = await this.d.accountStore.setRole(account.id, "player");
    return { kind: "session", account, email, admin: this.isAdmin(account, email) };
  }

  /** The account behind an agent key (also the tool endpoint's credential), or 401 invalid_token. */
  async fromAgentKey(key: string): Promise<Caller & { kind: "agent_key" }> {
    const found = await this.d.accountStore.useKey(key);
    if (!found) throw errors.invalidAgentKey();
    // A stored email means the list names (or named) the account: it never also holds a stored role.
    if (found.account.email !== null && found.account.role === "admin")
      found.account = await this.d.accountStore.setRole(found.account.id, "player");
    // An agent key carries its account's role; a listed email counts only while the list still names it.
    const email = this.configuredAdmin(found.account) ? found.account.email : null;
    return {
      kind: "agent_key",
      account: found.account,
      keyId: found.key.id,
      admin: this.isAdmin(found.account, email),
    };
  }

  /** Browser routes (SPEC 4.4): a session only; unbanned; a supplied Origin must be this site. */
  async session(req: FastifyRequest, reply: FastifyReply, opts: { handle?: boolean } = {}) {
    reply.header("cache-control", "private, no-store");
    reply.header("vary", "Authorization");
    if (!this.enabled) throw errors.accountsDisabled();
    this.checkOrigin(req);
    const t = bearer(req);
    if (!t) throw errors.missingAuthorization();
    if (t.kind !== "jwt") {
      throw errors.invalidSession(
        t.kind === "bot_token"
          ? "bot tokens cannot use account routes; send the account's access token"
          : t.kind === "agent_key" || t.kind === "owner_key"
            ? "agent keys cannot use this route; send the account's access token from a browser sign-in"
            : "the account session is invalid; sign in again",
      );
    }
    const caller = await this.fromJwt(t.value);
    if (caller.account.banned_at) throw errors.accountBanned();
    if (opts.handle && !caller.account.handle) throw errors.handleRequired();
    return caller;
  }

  /**
   * Registration (SPEC 4.2): AccountBearer or OwnerKey. Legacy owner keys and anonymous registration only on
   * explicit anonymous local ladders.
   */
  async registrant(req: FastifyRequest): Promise<Registrant> {
    const t = bearer(req);
    const ownerHeader = req.headers["x-owner-key"];
    const ownerKey =
      typeof ownerHeader === "string" && ownerHeader !== "" ? classify(ownerHeader.trim()) : null;
    if (!t && !ownerKey) {
      if (this.config.anonymousDev) return { kind: "anonymous" };
      throw errors.authenticationRequired(`${this.config.publicUrl}/account`);
    }
    let caller: Caller;
    if (t) {
      if (t.kind === "bot_token")
        throw errors.wrongCredential("bot tokens cannot register bots; use an account credential");
      if (t.kind === "jwt") caller = await this.fromJwt(t.value);
      else if (t.kind === "agent_key") caller = await this.fromAgentKey(t.value);
      else throw errors.wrongCredential("send an account access token or agent key as Authorization: Bearer");
    } else {
      const k = ownerKey!;
      if (k.kind === "owner_key") {
        const owner = await this.d.accountStore.ownerByKey(k.value);
        if (!owner) throw errors.invalidOwnerKey();
        if (!this.config.anonymousDev)
          throw errors.wrongCredential(
            "legacy owner keys register only on anonymous local ladders; use an agent key",
          );
        return { kind: "owner_key", owner };
      }
      if (k.kind !== "agent_key") throw errors.invalidOwnerKey();
      caller = await this.fromAgentKey(k.value);
    }
    if (caller.account.banned_at) throw errors.accountBanned();
    if (!caller.account.handle) throw errors.handleRequired();
    return caller;
  }

  /** AgentBearer or OwnerKey carrying an agent key (DELETE /api/bots/<name>). */
  async agentBearer(req: FastifyRequest): Promise<AgentCaller> {
    const t = bearer(req);
    const ownerHeader = req.headers["x-owner-key"];
    const k =
      t ?? (typeof ownerHeader === "string" && ownerHeader !== "" ? classify(ownerHeader.trim()) : null);
    if (!k) throw errors.missingAuthorization();
    if (k.kind === "owner_key")
      throw errors.wrongCredential("legacy owner keys cannot delete bots; use an account agent key");
    if (k.kind !== "agent_key")
      throw errors.wrongCredential("send an account agent key as Authorization: Bearer");
    const caller = await this.fromAgentKey(k.value);
    if (caller.account.banned_at) throw errors.accountBanned();
    return caller;
  }

  /** BotBearer (SPEC 4.3): the bot behind the token, or the SPEC's 401; a banned account's bots get 403. */
  async botBearer(req: FastifyRequest): Promise<BotRow> {
    const header = req.headers.authorization;
    if (!header) throw errors.missingAuthorization();
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const bot = m ? await this.d.botStore.botByToken(m[1]!) : null;
    if (!bot) throw errors.invalidToken();
    if ((await this.admit(bot)) === "account_banned") throw errors.accountBanned();
    return bot;
  }

  /** Admin routes (SPEC 4.6): an admin's access token or agent key. */
  async admin(req: FastifyRequest, reply: FastifyReply): Promise<Caller> {
    reply.header("cache-control", "private, no-store");
    reply.header("vary", "Authorization");
    if (!this.enabled) throw errors.accountsDisabled();
    // As the account routes: a page of another site must not drive an admin's browser session here.
    this.checkOrigin(req);
    const t = bearer(req);
    if (!t || (t.kind !== "jwt" && t.kind !== "agent_key")) throw errors.adminRequired();
    let caller: Caller;
    try {
      caller = t.kind === "jwt" ? await this.fromJwt(t.value) : await this.fromAgentKey(t.value);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw errors.adminRequired();
      throw err;
    }
    if (caller.account.banned_at) throw errors.accountBanned();
    if (!caller.admin) throw errors.notAdmin();
    return caller;
  }

  /** Whether an account is an admin now (role, or its stored listed email). */
  adminNow(account: AccountRow): boolean {
    return this.isAdmin(account, this.configuredAdmin(account) ? account.email : null);
  }

  /**
   * Ends every session of an account at the built-in provider (deletion, SPEC 3.6), at once for this
   * server's session cache. A ban does not end sessions: SPEC 3.6 has the banned account's routes answer
   * 403 account_banned (checked on every request) and an unban restore everything.
   */
  async endSessions(accountId: string, reason: "account_deleted"): Promise<void> {
    await this.verifier?.endSessions(accountId, reason);
  }

  /** A supplied Origin must be the ladder's public address (the Host header is the client's to choose). */
  private checkOrigin(req: FastifyRequest): void {
    const origin = req.headers.origin;
    if (typeof origin !== "string" || origin === "") return;
    if (origin !== new URL(publicBase(this.config, req)).origin) throw errors.foreignOrigin();
  }

  /**
   * Sliding-window counter for per-account limits (bot registrations, key creations). Over the limit: 429,
   * and the throttle is audited once per window.
   */
  async throttle(what: string, subject: string, limit: number, windowMs: number): Promise<void> {
    const key = `${what}:${subject}`;
    const now = Date.now();
    const times = (this.counters.get(key) ?? []).filter((t) => now - t < windowMs);
    // In a cluster the account's requests may reach every node: the others' count too.
    if (times.length + (this.d.throttles?.elsewhere(key, windowMs, now) ?? 0) >= limit) {
      this.counters.set(key, times);
      await this.d.auditStore.audit("throttle", subject, { what, limit, window_ms: windowMs });
      throw errors.rateLimited(
        `at most ${limit} ${what} per ${Math.round(windowMs / 60_000)} minutes; try later`,
      );
    }
    times.push(now);
    this.counters.set(key, times);
    this.d.throttles?.hit(key);
  }

  /** SPEC 4.1: a banned account's public profile answers like an unknown user's (404), page and API alike. */
  async hiddenUser(handle: string): Promise<boolean> {
    // Asked on every view of a user page: kept until accounts are written (server/store/sql-store.ts).
    return this.store.rememberAccountRead(`banned:${handle.toLowerCase()}`, async () =>
      Boolean((await this.d.accountStore.accountByHandle(handle))?.banned_at),
    );
  }

  /** The bot socket's admission rule beyond the token (SPEC 1.4, 3.6, 7.2). */
  async admit(bot: BotRow): Promise<SocketErrorCode | null> {
    if (bot.house) return null;
    if (bot.account_id === null) return this.config.anonymousDev ? null : "account_required";
    const account = await this.d.accountStore.account(bot.account_id);
    if (!account) return "account_required";
    if (account.banned_at) return "account_banned";
    return null;
  }

  /** Closes a connected bot's socket with a connection error (moderation, retirement, token changes). */
  disconnect(botId: string, code: SocketErrorCode): void {
    this.d.disconnect(botId, code);
  }

  /** Copies changed bot fields (name, owner, avatar) into the live lobby entry, so matches see them. */
  refreshLive(bot: BotRow): void {
    const p = this.d.liveBot(bot.id);
    if (!p) return;
    Object.assign(p.bot, bot);
    if (p.conn && p.conn.bot !== p.bot) Object.assign(p.conn.bot, bot);
  }

  /** Whether a bot is seated in a running match. */
  inMatch(botId: string): boolean {
    return this.d.inMatch(botId);
  }
}
