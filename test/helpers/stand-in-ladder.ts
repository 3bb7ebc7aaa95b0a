// A small local stand-in of the ladder's bot socket (SPEC 4.7 and 6), for testing the starter bots end to
// end. It is NOT the ladder server: one process, no database, no matchmaking. Every `queue` is answered with
// `queued` and a match against an in-process house bot, played with the real engine `Match`, so hello,
// observation and end look exactly like the server's. Options script the failures a starter must survive
// (fatal errors, a 1012 restart with a short outage, `replaced`), and everything on the wire is recorded so
// tests can assert on it. Also: helpers to run a starter as a child process and a stdio seat for playMatch.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createInterface } from "node:readline";
import { type WebSocket, WebSocketServer } from "ws";
import { HOUSE_BOTS, houseBot } from "../../engine/house/index.ts";
import type { Decide } from "../../engine/house/types.ts";
import { DEFAULT_DEADLINES, Match, type TurnInput } from "../../engine/match.ts";
import type { EndMessage } from "../../engine/protocol.ts";
import { QueueMessage } from "../../engine/protocol.ts";
import type { ReplayFighter } from "../../engine/replay.ts";
import type { Seat } from "../../engine/sim/play.ts";

type EndMsg = ReturnType<typeof EndMessage.parse>;

export interface StandInOptions {
  /** Bot tokens the handshake accepts. Default ["test-token"]. */
  tokens?: string[];
  /** Window for `ready` after `hello`. Default 3000 ms. */
  startupMs?: number;
  /** Per-turn deadline. Default 1000 ms. */
  tickMs?: number;
  map?: string;
  seed?: number;
  /** House bot name (engine/house HOUSE_BOTS); default the first one. */
  house?: string;
  /** Matches to start in total; later `queue`s get `queued` and then nothing. Default unlimited. */
  maxMatches?: number;
  /** Messages sent right after a connection is accepted (e.g. server_draining, unknown types). */
  sendOnConnect?: object[];
  /** Right after the observation of this tick, send `{type:error, code}` and close (1008). Fires once. */
  fatalErrorAfterTicks?: number;
  fatalErrorCode?: string;
  /** Right after the observation of this tick, send server_draining and close with 1012 "server restarting"; fires once. The next
   * `unavailableAfterRestart` upgrades are then refused with HTTP 503, as while the server is down. */
  restartAfterTicks?: number;
  unavailableAfterRestart?: number;
  /** Right after the observation of this tick, send `replaced` and close (4000). Fires once. */
  replacedAfterTicks?: number;
}

export interface Logged {
  conn: number;
  at: number;
  msg: unknown;
}

/** One upgrade attempt, as the server saw it: `status` 101 when accepted. */
export interface Attempt {
  at: number;
  status: number;
  token: string | null;
}

/** One tick's reply from the bot: the observation's tick and what came back (or a timeout). */
export interface TurnRecord {
  conn: number;
  matchId: string;
  tick: number;
  raw: unknown;
  timedOut: boolean;
}

const CLOSED = Symbol("closed");

interface Conn {
  id: number;
  token: string;
  ws: WebSocket;
  inMatch: boolean;
  /** Resolves the outstanding wait (ready or turn) with the next message, or CLOSED. */
  waiter: ((m: unknown) => void) | null;
}

export class StandInLadder {
  readonly received: Logged[] = [];
  readonly sent: Logged[] = [];
  readonly attempts: Attempt[] = [];
  readonly closes: { conn: number; at: number; code: number; by: "server" | "bot" }[] = [];
  readonly turns: TurnRecord[] = [];
  readonly ends: EndMsg[] = [];
  /** Accepted connections so far. */
  connections = 0;
  matchesStarted = 0;
  private readonly opts: Required<
    Omit<StandInOptions, "fatalErrorAfterTicks" | "restartAfterTicks" | "replacedAfterTicks">
  > &
    StandInOptions;
  private readonly http: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly changed = new EventEmitter();
  private readonly live = new Map<number, Conn>();
  private unavailable = 0;
  private fired = { fatal: false, restart: false, replaced: false };
  private port = 0;

  private constructor(o: StandInOptions) {
    this.opts = {
      tokens: ["test-token"],
      startupMs: 3000,
      tickMs: 1000,
      map: "arena-21",
      seed: 7,
      house: Object.keys(HOUSE_BOTS)[0]!,
      maxMatches: Number.POSITIVE_INFINITY,
      sendOnConnect: [],
      unavailableAfterRestart: 0,
      fatalErrorCode: "suspended",
      ...o,
    };
    this.changed.setMaxListeners(0);
    this.http = createServer((_req, res) => {
      res.writeHead(426).end();
    });
    this.http.on("upgrade", (req, socket, head) => this.upgrade(req, socket as Socket, head));
  }

  static async start(o: StandInOptions = {}): Promise<StandInLadder> {
    const s = new StandInLadder(o);
    await new Promise<void>((resolve) => s.http.listen(0, "127.0.0.1", resolve));
    s.port = (s.http.address() as AddressInfo).port;
    return s;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/bot`;
  }

  /** Messages from bots of a type, in arrival order. */
  from(type: string): Logged[] {
    return this.received.filter((l) => (l.msg as { type?: unknown } | null)?.type === type);
  }

  /** Resolves once `pred` holds (checked on every recorded event); rejects after `timeoutMs`. */
  waitFor(what: string, pred: () => boolean, timeoutMs = 20_000): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!pred()) return;
        clearTimeout(timer);
        this.changed.off("change", check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.changed.off("change", check);
        const tail = this.received.slice(-5).map((l) => JSON.stringify(l.msg));
        reject(new Error(`stand-in: timed out waiting for ${what}; last from bot: ${tail.join(" | ")}`));
      }, timeoutMs);
      this.changed.on("change", check);
    });
  }

  async close(): Promise<void> {
    for (const c of this.live.values()) c.ws.terminate();
    await new Promise<void>((resolve) => {
      this.wss.close();
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }

  private touch(): void {
    this.changed.emit("change");
  }

  // ---- handshake ----

  private upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const auth = req.headers.authorization;
    const token = auth?.startsWith("Bearer ") ? auth.slice(7).trim() : null;
    const refuse = (status: number, code?: string, error?: string): void => {
      this.attempts.push({ at: Date.now(), status, token });
      const body = code ? JSON.stringify({ error, code }) : "";
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      this.touch();
    };
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path !== "/bot") {
      refuse(404);
    } else if (this.unavailable > 0) {
      this.unavailable--; // "down" for a while after a scripted restart
      refuse(503);
    } else if (!auth) {
      refuse(401, "missing_authorization", "Authorization header required");
    } else if (token === null || !this.opts.tokens.includes(token)) {
      refuse(401, "invalid_token", "unknown bot token");
    } else {
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        this.attempts.push({ at: Date.now(), status: 101, token });
        this.accept(ws, token);
      });
    }
  }

  private accept(ws: WebSocket, token: string): void {
    // Same token connecting again: the old socket is told and closed (SPEC 3.2).
    for (const old of this.live.values()) {
      if (old.token === token) {
        this.send(old, { type: "replaced" });
        this.closeConn(old, 4000, "replaced");
      }
    }
    const conn: Conn = { id: ++this.connections, token, ws, inMatch: false, waiter: null };
    this.live.set(conn.id, conn);
    ws.on("message", (data) => this.onMessage(conn, data.toString()));
    ws.on("close", (code) => {
      if (this.live.delete(conn.id)) this.closes.push({ conn: conn.id, at: Date.now(), code, by: "bot" });
      conn.waiter?.(CLOSED);
      this.touch();
    });
    for (const m of this.opts.sendOnConnect) this.send(conn, m);
    this.touch();
  }

  private send(c: Conn, msg: object): void {
    if (c.ws.readyState !== c.ws.OPEN) return;
    c.ws.send(JSON.stringify(msg));
    this.sent.push({ conn: c.id, at: Date.now(), msg });
    this.touch();
  }

  private closeConn(c: Conn, code: number, reason: string): void {
    if (this.live.delete(c.id)) this.closes.push({ conn: c.id, at: Date.now(), code, by: "server" });
    c.ws.close(code, reason);
    c.waiter?.(CLOSED);
    this.touch();
  }

  private onMessage(c: Conn, text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      msg = text;
    }
    this.received.push({ conn: c.id, at: Date.now(), msg });
    this.touch();
    if (c.waiter) {
      // Inside a match the first message after an observation is that tick's reply, whatever it is.
      const w = c.waiter;
      c.waiter = null;
      w(msg);
      return;
    }
    const type = (msg as { type?: unknown } | null)?.type;
    if (type === "queue") {
      const q = QueueMessage.safeParse(msg);
      if (!q.success) {
        this.send(c, { type: "error", code: "schema", message: q.error.message });
        return;
      }
      if (c.inMatch) {
        this.send(c, { type: "error", code: "already_queued", message: "in a match" });
        return;
      }
      this.send(c, {
        type: "queued",
        version: q.data.version,
        estimated_wait_s: 0,
        ...(q.data.ladder_id ? { ladder_id: q.data.ladder_id } : {}),
      });
      if (this.matchesStarted < this.opts.maxMatches) {
        this.matchesStarted++;
        c.inMatch = true;
        void this.playMatch(c, q.data.version, q.data.ladder_id ?? "public").finally(() => {
          c.inMatch = false;
        });
      }
    }
    // leave, late turns and anything else outside a wait: nothing to do here.
  }

  /** Waits for the next message from the bot, up to `ms`; null on timeout, CLOSED when the socket closes. */
  private next(c: Conn, ms: number): Promise<unknown> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        c.waiter = null;
        resolve(null);
      }, ms);
      c.waiter = (m) => {
        clearTimeout(timer);
        c.waiter = null;
        resolve(m);
      };
    });
  }

  // ---- one match ----

  private async playMatch(c: Conn, version: string, ladderId: string): Promise<void> {
    const n = this.matchesStarted;
    const side = (n + 1) % 2; // alternate spawn sides between matches
    const house = houseBot(this.opts.house);
    const matchId = `standin-${n}`;
    const fighters: [ReplayFighter, ReplayFighter] = [
      { name: "starter-under-test", display_name: "Starter under test", version },
      { name: house.name, display_name: house.display_name, version: house.version },
    ];
    if (side === 1) fighters.reverse();
    const match = new Match({
      matchId,
      seed: this.opts.seed + n,
      map: this.opts.map,
      fighters,
      ladderId,
      deadlines: { ...DEFAULT_DEADLINES, startup_ms: this.opts.startupMs, tick_ms: this.opts.tickMs },
    });
    const houseDecide: Decide = house.create(match.hello(1 - side));

    this.send(c, match.hello(side));
    const ready = await this.next(c, this.opts.startupMs);
    if (ready === CLOSED) return match.abort("bot disconnected");
    if ((ready as { type?: unknown } | null)?.type !== "ready") match.forfeit([side]);

    while (!match.over) {
      const tick = match.tick;
      const obs = match.observation(side);
      const houseObs = match.observation(1 - side);
      const deadline = match.deadlineMs(side);
      const t0 = performance.now();
      this.send(c, obs);
      // Scripted failures strike right after an observation, so the bot's turn races the close.
      if (this.script(c, tick)) return match.abort("scripted failure");
      const raw = await this.next(c, deadline);
      const ms = performance.now() - t0;
      // A dropped socket abandons the match here; the real server would wait for a reconnect instead.
      if (raw === CLOSED) return match.abort("bot disconnected");
      this.turns.push({ conn: c.id, matchId, tick, raw, timedOut: raw === null });
      const mine: TurnInput = raw === null ? { idle: "timeout", ms } : { raw, ms };
      const theirs: TurnInput = { raw: houseDecide(houseObs), ms: 0 };
      match.play(side === 0 ? [mine, theirs] : [theirs, mine]);
    }
    const r = match.result!;
    const result =
      r.reason === "voided" || r.reason === "aborted"
        ? "void"
        : r.winner === null
          ? "draw"
          : r.winner === side
            ? "win"
            : "loss";
    const end: EndMsg = {
      type: "end",
      match_id: matchId,
      winner: r.winner,
      result,
      reason: r.reason,
      final_tick: r.finalTick,
      stats: match.stats(),
      watch_url: `http://127.0.0.1:${this.port}/matches/${matchId}`,
      rating_change: null,
      ladder_id: ladderId,
    };
    this.ends.push(end);
    this.send(c, end);
  }

  /** Applies the scripted failures due at this tick; true when the connection is gone. */
  private script(c: Conn, tick: number): boolean {
    const o = this.opts;
    if (o.fatalErrorAfterTicks !== undefined && !this.fired.fatal && tick >= o.fatalErrorAfterTicks) {
      this.fired.fatal = true;
      this.send(c, { type: "error", code: o.fatalErrorCode, message: `scripted ${o.fatalErrorCode}` });
      this.closeConn(c, 1008, o.fatalErrorCode);
      return true;
    }
    if (o.restartAfterTicks !== undefined && !this.fired.restart && tick >= o.restartAfterTicks) {
      this.fired.restart = true;
      this.unavailable = o.unavailableAfterRestart;
      this.send(c, { type: "server_draining", drain_deadline: new Date(Date.now() + 1000).toISOString() });
      this.closeConn(c, 1012, "server restarting");
      return true;
    }
    if (o.replacedAfterTicks !== undefined && !this.fired.replaced && tick >= o.replacedAfterTicks) {
      this.fired.replaced = true;
      this.send(c, { type: "replaced" });
      this.closeConn(c, 4000, "replaced");
      return true;
    }
    return false;
  }
}

// ---- running starters as child processes ----

export interface BotProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything the process wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

export function spawnBot(command: string, args: string[], env: Record<string, string> = {}): BotProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d: string) => {
    out += d;
  });
  // In --stdio mode stdout is the protocol and is read by stdioSeat; otherwise keep it for the log.
  if (!args.includes("--stdio")) {
    child.stdout.on("data", (d: string) => {
      out += d;
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    output: () => out,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/**
 * A playMatch seat for a starter in --stdio mode: writes hello/observation/end as JSON lines and reads the
 * ready/turn lines back, the way the simulator's `cmd:` bridge does. `lines` records every line it read.
 */
export function stdioSeat(bot: BotProcess, name: string, lines: unknown[] = []): Seat {
  const queue: unknown[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  const rl = createInterface({ input: bot.child.stdout });
  rl.on("line", (line) => {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      v = line;
    }
    lines.push(v);
    queue.push(v);
    wake?.();
  });
  rl.on("close", () => {
    ended = true;
    wake?.();
  });
  const nextLine = async (ms: number): Promise<unknown> => {
    const until = Date.now() + ms;
    while (queue.length === 0) {
      if (ended) throw new Error("bot closed stdout");
      const left = until - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(t);
          wake = null;
          resolve();
        };
      });
    }
    return queue.shift();
  };
  let hello: { bot_id: number; match_id: string } | null = null;
  const write = (msg: object): void => {
    bot.child.stdin.write(`${JSON.stringify(msg)}\n`);
  };
  return {
    fighter: { name, display_name: name, version: "test" },
    async start(h) {
      hello = h;
      write(h);
      const r = await nextLine(h.deadlines.startup_ms);
      return (r as { type?: unknown } | null)?.type === "ready";
    },
    async turn(obs, deadlineMs) {
      queue.length = 0; // a reply that came after its deadline must not answer this tick
      const t0 = performance.now();
      write(obs);
      const raw = await nextLine(deadlineMs);
      const ms = performance.now() - t0;
      return raw === null ? { idle: "timeout", ms } : { raw, ms };
    },
    finish({ winner, reason, stats }) {
      const me = hello?.bot_id;
      const result =
        reason === "voided" || reason === "aborted"
          ? "void"
          : winner === null
            ? "draw"
            : winner === me
              ? "win"
              : "loss";
      const matchId = hello?.match_id ?? "stdio";
      write({
        type: "end",
        match_id: matchId,
        winner,
        result,
        reason,
        final_tick: stats.ticks,
        stats,
        watch_url: `http://127.0.0.1/matches/${matchId}`,
        rating_change: null,
        ladder_id: "public",
      });
    },
  };
}
