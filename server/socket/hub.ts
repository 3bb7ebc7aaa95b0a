// The bot socket at /bot: authentication on the opening handshake, then for every message the thin pipeline
// rate limit -> decode -> validate -> dispatch, one error code per failure. A message from a bot in a match
// goes to its RunningMatch; queue and leave change its lobby state. Also: replaced connections, Pings and
// the drain notice.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { WebSocketServer } from "ws";
import { type QueuedMessageT, QueueMessage } from "../../engine/protocol.ts";
import { useVersion, VersionLimitError, type VersionStores } from "../bots/versions.ts";
import type { Config } from "../config.ts";
import { BotConnection } from "../connection/bot-connection.ts";
import { headOf, type MessageHead, readHead } from "../connection/message-head.ts";
import { IDLE_MESSAGES_PER_SECOND, MAX_MESSAGE_BYTES, type QueueRefusal } from "../connection/rules.ts";
import { isDbUnavailable } from "../db/db.ts";
import { CLOSES, closeFor, SOCKET_ERRORS, type SocketErrorCode } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import type { Limits } from "../kernel/settings.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import type { RunningMatch } from "../runner/match-runner.ts";
import type { BotRow, Store, VersionRow } from "../store/types.ts";
import { ConnectionSet } from "./connection-set.ts";

/**
 * Why a version label (or other bot-sent text bound for the database) cannot be stored as sent: PostgreSQL
 * text refuses U+0000, and a lone surrogate would be stored as U+FFFD, a different label. Null when fine.
 */
export function unstorableText(s: string): string | null {
  if (s.includes("\u0000")) return "must not contain U+0000";
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s))
    return "must be well-formed Unicode (no lone surrogates)";
  return null;
}

export interface HubDeps {
  config: Config;
  store: Store;
  /** The bot's versions (looked up or created on `queue`). */
  botStore: VersionStores["botStore"];
  /** Where a refused new version is audited. */
  auditStore: Pick<Services["auditStore"], "audit">;
  lobby: Lobby;
  log: Logger;
  /** The live limits (the settings service). */
  limits(): Limits;
  /** The running match a bot plays in, if any. */
  matchOf(botId: string): RunningMatch | undefined;
  estimatedWaitS(p: Participant): number;
  /** Something changed that may allow a pairing. */
  poke(): void;
  /** A socket from this client address offered no token or an unknown one (its address budget pays). */
  authFailed?(addr: string): void;
  /** A socket's token checked out (its unit of the server's unauthenticated-upgrade budget comes back). */
  authenticated?(): void;
  /** The bot a token belongs to (from memory: a connect flood must not become database work). */
  botByToken(token: string): Promise<BotRow | null>;
  /**
   * Whether this bot may queue on the ladder a `queue` names (undefined: the default ladder) with this version
   * label: the ladder's id, or the refusal (unknown ladder, closed, enrollment required, a settlement's freeze)
   * to send back.
   */
  mayQueue(
    bot: BotRow,
    ladderId: string | undefined,
    version: string,
  ): Promise<{ ladderId: string } | QueueRefusal>;
}

/**
 * A match as the hub reaches it for one bot: the running match itself, or in a cluster the relay to a match that
 * runs on another node (server/cluster/remote-seat.ts).
 */
export type SeatedMatch = Pick<RunningMatch, "playing" | "fromSocket" | "seatOf" | "attach" | "detach">;

/** A rule on a bot whose token checked out: a connection error to close with, or null to let it in. */
export type BotGate = (bot: BotRow) => Promise<SocketErrorCode | null>;

export class BotHub {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    clientTracking: false,
  });
  private readonly conns: ConnectionSet;
  private readonly d: HubDeps;
  /** Rules beyond the token that a feature adds (the accounts': no owner account, a banned account). */
  private readonly gates: BotGate[] = [];
  /**
   * Bots refused while connected (token rotated, banned, retired...), with the count of authentications begun
   * before the refusal: a socket whose token lookup began before it must not be let in when the lookup ends.
   */
  private readonly refused = new Map<string, { code: SocketErrorCode; before: number; at: number }>();
  private authentications = 0;
  /** Matches of this node's bots played on other nodes (cluster mode); none on a single server. */
  private elsewhere: ((botId: string) => SeatedMatch | undefined) | null = null;
  private rejoin: ((botId: string) => SeatedMatch | undefined) | null = null;
  private readonly disconnectListeners: ((botId: string, code: SocketErrorCode) => void)[] = [];
  /** The head of the message being handled (read by the runner during the call, never kept). */
  private readonly head: MessageHead = { type: "other", tick: null };

  constructor(d: HubDeps) {
    this.d = d;
    this.conns = new ConnectionSet(d.config.pingIntervalMs);
  }

  get connections(): number {
    return this.conns.size;
  }

  /** `addr`: the client's address (behind a trusted proxy, the forwarded one; server/client-address.ts). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, addr: string): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      // Messages that arrive while the token is being looked up are kept, not lost.
      const early: { data: Buffer; binary: boolean }[] = [];
      const buffer = (data: Buffer, binary: boolean) => early.push({ data, binary });
      ws.on("message", buffer);
      ws.on("error", () => ws.terminate());
      const started = ++this.authentications;
      void this.authenticate(req).then(
        (found) => {
          const late = typeof found === "string" ? undefined : this.refused.get(found.id);
          const bot = late && late.before >= started ? late.code : found;
          // Charged even when the peer has gone already: hanging up early must not make guessing free.
          if (bot === "missing_authorization" || bot === "invalid_token") this.d.authFailed?.(addr);
          else if (typeof bot !== "string") this.d.authenticated?.();
          // The peer may have gone while its token was looked up: a closed socket must not be registered
          // (its close event has passed, so the bot would stay online in the lobby for good).
          if (ws.readyState !== ws.OPEN) return;
          // Accepted after closeAll() (the server is stopping): close it the same way.
          if (this.conns.closing) {
            ws.close(...CLOSES.restarting);
            return;
          }
          if (typeof bot === "string") {
            ws.send(JSON.stringify({ type: "error", code: bot, message: SOCKET_ERRORS[bot] }));
            ws.close(...closeFor(bot));
            setTimeout(() => ws.terminate(), 5_000).unref();
            return;
          }
          ws.off("message", buffer);
          const conn = new BotConnection(ws, bot);
          this.connected(conn);
          ws.on("message", (data: Buffer, binary: boolean) => this.onMessage(conn, data, binary));
          ws.on("close", () => this.disconnected(conn));
          for (const m of early) this.onMessage(conn, m.data, m.binary);
        },
        (err) => {
          // Said on the socket before it closes, so the bot knows to come back (1013: try again later).
          const code = isDbUnavailable(err) ? "unavailable" : "internal";
          this.d.log.error({ err }, "bot authentication failed");
          if (ws.readyState !== ws.OPEN) return;
          ws.send(JSON.stringify({ type: "error", code, message: SOCKET_ERRORS[code] }));
          ws.close(...closeFor(code));
        },
      );
    });
  }

  private async authenticate(req: IncomingMessage) {
    const header = req.headers.authorization;
    const m = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) return "missing_authorization" as const;
    const bot = await this.d.botByToken(m[1]!);
    if (!bot) return "invalid_token" as const;
    if (bot.status !== "active") return bot.status;
    for (const gate of this.gates) {
      const refusal = await gate(bot);
      if (refusal) return refusal;
    }
    return bot;
  }

  private connected(conn: BotConnection): void {
    const { lobby } = this.d;
    const prev = lobby.get(conn.bot.id);
    if (prev?.conn && !prev.conn.closed) {
      const old = prev.conn;
      old.send({ type: "replaced" });
      old.close(...CLOSES.replaced);
      this.conns.delete(old);
    }
    this.conns.add(conn);
    const p = lobby.join(conn.bot, conn);
    const match = this.matchOf(conn.bot.id) ?? this.rejoin?.(conn.bot.id);
    if (match) {
      p.state = "playing";
      match.attach(match.seatOf(conn.bot.id), conn);
    } else if (p.state === "waiting") {
      p.state = "idle"; // a queue does not outlive the connection that made it
    }
  }

  private disconnected(conn: BotConnection): void {
    this.conns.delete(conn);
    const p = this.d.lobby.get(conn.bot.id);
    if (!p || p.conn !== conn) return; // replaced by a newer connection
    p.conn = null;
    const match = this.matchOf(conn.bot.id);
    if (match) match.detach(match.seatOf(conn.bot.id), conn);
    else p.state = "idle";
    this.d.lobby.leaveIfGone(conn.bot.id);
  }

  private onMessage(conn: BotConnection, data: Buffer, binary: boolean): void {
    if (conn.closed) return;
    const p = this.d.lobby.get(conn.bot.id);
    if (!p || p.conn !== conn) return;
    const match = this.matchOf(conn.bot.id);
    // 1. Rate limit. While ticks are played the runner caps messages per tick; otherwise (idle, queued, the
    // startup window, the end of a match) messages per second, so no phase is unlimited.
    if (!match?.playing) {
      const r = conn.rate(IDLE_MESSAGES_PER_SECOND, Date.now());
      if (r === "flood") return void conn.close(...closeFor("rate_limited"));
      if (r === "limited") return;
    }
    // 2. In a match: read the message's type and tick from its bytes, which go on to the pool worker as they
    // came (the worker parses and validates them). Text that is not JSON still reaches the match, where it is
    // refused as `schema`.
    if (match) {
      const head = this.head;
      if (binary) {
        head.type = "other";
        head.tick = null;
      } else if (!readHead(data, head)) Object.assign(head, headOf(decode(data)));
      if (head.type === "queue") return void conn.error("already_queued");
      if (head.type === "leave")
        return void conn.error("not_queued", "playing a match; leave applies to the queue only");
      return void match.fromSocket(match.seatOf(conn.bot.id), head, binary ? null : data);
    }
    // 3. Otherwise decode, validate and dispatch.
    const msg = binary ? null : decode(data);
    const type = msg && typeof msg === "object" ? (msg as { type?: unknown }).type : undefined;
    if (type === "queue") {
      // queue awaits the database: a failure must answer the bot, not become an unhandled rejection (which
      // would stop the process).
      // While the database is unreachable the bot hears a retryable `unavailable` and stays idle; the
      // starters queue again after it with backoff (SPEC 7.2).
      this.queue(conn, p, msg).catch((err: unknown) => {
        const down = isDbUnavailable(err);
        this.d.log.error({ err, bot: conn.bot.name }, "queue failed");
        conn.error(down ? "unavailable" : "internal");
      });
      return;
    }
    if (type === "leave") {
      if (p.state !== "waiting") return void conn.error("not_queued");
      p.state = "idle";
      return;
    }
    if (type === "ready" || type === "turn")
      return void conn.error("schema", `no match is running: ${type} ignored`);
    conn.error("schema", binary ? "binary frames are not part of the protocol" : describe(type));
  }

  private async queue(conn: BotConnection, p: Participant, msg: unknown): Promise<void> {
    const parsed = QueueMessage.safeParse(msg);
    if (!parsed.success) {
      const bad = parsed.error.issues.find((i) => i.path[0] === "version");
      return conn.error(
        bad ? "invalid_version" : "schema",
        bad ? undefined : parsed.error.issues[0]?.message,
      );
    }
    const unstorable = unstorableText(parsed.data.version);
    if (unstorable) return conn.error("invalid_version", `version label ${unstorable}`);
    const admitted = await this.d.mayQueue(conn.bot, parsed.data.ladder_id, parsed.data.version);
    if ("code" in admitted) return conn.error(admitted.code, admitted.message);
    const ladder = admitted.ladderId;
    let version: VersionRow;
    // A bot queues again after every match, nearly always with the same version, and that lookup was most of
    // the statements a busy ladder sent its database. While no bot or version has been written since this
    // socket's last lookup (a retirement is such a write), that row is still what the store holds, and the
    // lookup is skipped. Not while the database is known to be unreachable: then the lookup is made, and
    // fails, so the bot hears `unavailable` as before (issue 20), and the first lookup that succeeds says the
    // database is back. The count is read before the lookup, so a write during it makes the next queue look
    // again.
    const { store } = this.d;
    const generation = store.botWrites.generation;
    const seen = conn.lastVersion;
    if (
      seen !== null &&
      seen.generation === generation &&
      seen.row.label === parsed.data.version &&
      store.reachability.reachable
    )
      version = seen.row;
    else {
      try {
        ({ version } = await useVersion(this.d, this.d.limits(), conn.bot, parsed.data.version));
      } catch (err) {
        if (err instanceof VersionLimitError)
          return conn.error("quota_exceeded", `${err.message} (new_versions_per_day)`);
        throw err;
      }
      conn.lastVersion = { row: version, generation };
    }
    if (version.retired) return conn.error("version_retired");
    if (conn.closed || p.conn !== conn || this.matchOf(conn.bot.id)) return;
    if (p.state !== "waiting") p.queuedAt = Date.now();
    p.state = "waiting";
    p.version = version.label;
    p.ladderId = ladder;
    // ladder_id is echoed when the bot named one (omitted means the default ladder, SPEC 6.2).
    const reply: QueuedMessageT = {
      type: "queued",
      version: version.label,
      estimated_wait_s: this.d.estimatedWaitS(p),
      ...(parsed.data.ladder_id !== undefined ? { ladder_id: ladder } : {}),
    };
    conn.send(reply);
    // A bot claimed by a holder (a scrimmage waiting for it) starts there; any other waits for the matchmaker.
    this.d.lobby.queued(p);
    this.d.poke();
  }

  /** The match a bot plays in: here, or (cluster mode) relayed to another node. */
  private matchOf(botId: string): SeatedMatch | undefined {
    return this.d.matchOf(botId) ?? this.elsewhere?.(botId);
  }

  /** Cluster mode: where a bot whose match runs on another node finds it (its relay). */
  playElsewhereWith(
    find: (botId: string) => SeatedMatch | undefined,
    rejoin?: (botId: string) => SeatedMatch | undefined,
  ): void {
    this.elsewhere = find;
    // Asked only when a socket connects: its match runs on another node than the one it was on before.
    this.rejoin = rejoin ?? null;
  }

  /** Adds a rule every authenticated bot must pass, in the order added (server/accounts/accounts-feature.ts). */
  admitWith(gate: BotGate): void {
    this.gates.push(gate);
  }

  /**
   * Closes a bot's socket with a connection error (moderation, retirement, a new token), and refuses the same
   * way any connection of that bot whose token lookup was already under way.
   */
  disconnect(botId: string, code: SocketErrorCode): void {
    this.disconnectHere(botId, code);
    for (const l of this.disconnectListeners) l(botId, code);
  }

  /** Cluster mode: told of each disconnect asked here, so the node holding the bot's socket closes it too. */
  onDisconnect(listener: (botId: string, code: SocketErrorCode) => void): void {
    this.disconnectListeners.push(listener);
  }

  /** A disconnect on this node only (one another node asked for: it tells the others itself). */
  disconnectHere(botId: string, code: SocketErrorCode): void {
    const now = Date.now();
    if (this.refused.size > 1000)
      for (const [id, r] of this.refused) if (now - r.at > 60_000) this.refused.delete(id);
    this.refused.set(botId, { code, before: this.authentications, at: now });
    this.d.lobby.get(botId)?.conn?.refuse(code);
  }

  /** Shutdown begins: every authenticated socket, and each later one, is told (SPEC 3.10). */
  drain(deadline: string): void {
    this.conns.drain(deadline);
  }

  /** Closes every socket with the restart code; @fastify/websocket's own shutdown would send none. */
  closeAll(): void {
    this.conns.closeAll();
  }
}

/** A text message as JSON when it parses, else the text itself. */
function decode(data: Buffer): unknown {
  const text = data.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(type: unknown): string {
  return type === undefined
    ? "message must be a JSON object with a type"
    : `unknown message type ${JSON.stringify(type)}`;
}
