// The TypeScript starter bot: everything a bot needs to play on the ladder, except the strategy, which lives
// in ./strategy.ts (`createDecide(hello)` returns `decide(observation) => turn`). Change the strategy first;
// this file only carries messages and can usually stay as it is.
//
// Run it against the ladder:
//   ARENA_TOKEN=<bot token> ARENA_URL=<bot endpoint> npx tsx starters/typescript/bot.ts
// or under the offline simulator, which talks JSON lines over stdin/stdout instead of a socket:
//   npx tsx starters/typescript/bot.ts --stdio
//
// Environment:
//   ARENA_TOKEN   the bot token you got at registration (required unless --stdio)
//   ARENA_URL     the ladder's bot endpoint (bot_endpoint in GET /api; the account page's token panel
//                 prints it): ws://localhost:8080/bot for a local server, wss://<host>/bot behind HTTPS
//   BOT_VERSION   version label shown on the ladder (1-32 characters; a new label registers a new version)
//   ARENA_LADDER  ladder to queue on; leave unset for `public`
//
// The protocol in one breath (SPEC section 6): after connecting, send `queue`; the server answers `queued`,
// later `hello` (a match was found) which you accept with `ready`; then every tick brings an `observation`
// that you answer with a `turn` for the same tick, until `end`. Then queue again.
import { createInterface } from "node:readline";
import WebSocket from "ws";
import { createDecide } from "./strategy.ts";

type Decide = ReturnType<typeof createDecide>;
type Hello = Parameters<typeof createDecide>[0];
type Observation = Parameters<Decide>[0];

const TOKEN = process.env.ARENA_TOKEN ?? "";
const URL = process.env.ARENA_URL ?? "ws://localhost:8080/bot";
const VERSION = process.env.BOT_VERSION || "1.0.0";
const LADDER = process.env.ARENA_LADDER || undefined;
const STDIO = process.argv.includes("--stdio");

// Recommended client timings (SPEC section 8, "Other constants").
const HANDSHAKE_TIMEOUT_MS = 10_000;
const PING_INTERVAL_MS = 20_000;
const PONG_DEADLINE_MS = 20_000;
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;

// Errors after which reconnecting cannot help: the token is wrong, or the bot or account may not play, or
// another connection with the same token took over (SPEC 7.2). Reconnecting on `replaced` would make two
// copies of the bot kick each other off forever. Ladder admission and availability errors (unknown, closed or
// disabled ladder, enrollment required) also stop a starter: queueing again would only be refused again.
// The server's catalog (server/errors.ts, BOT_STOP_CODES) is the source; a test keeps this list equal to it.
const STOP_CODES = new Set([
  "missing_authorization",
  "invalid_token",
  "suspended",
  "banned",
  "retired",
  "account_banned",
  "account_required",
  "replaced",
  "enrollment_required",
  "unknown_ladder",
  "ladder_closed",
  "ladder_disabled",
]);

// Errors after which a `queue` was not taken but may be taken later (the server's database is unreachable for
// a moment, or something failed on its side): queue again with the same backoff as reconnecting.
const RETRY_QUEUE_CODES = new Set(["unavailable", "internal"]);

// In --stdio mode stdout carries the protocol, so logs must go to stderr.
const log = (...args: unknown[]): void => (STDIO ? console.error : console.log)(...args);

type Send = (msg: object) => void;

/** What the conversation with the server asks the connection to do next. */
type Verdict = { stop: string } | null;

/**
 * The protocol, independent of the transport: one instance per connection (socket or stdio). It reads
 * server messages and sends the bot's replies. Returns `{stop}` when the bot must stop for good.
 */
class Session {
  private decide: Decide | null = null;
  /** True once the server answered us: the connection works, so the reconnect backoff may start over. */
  healthy = false;
  private requeueDelay = BACKOFF_FIRST_MS;
  private requeueTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly send: Send,
    private readonly queueAfterEnd: boolean,
  ) {}

  queue(): void {
    // `ladder_id` left out means the public ladder.
    this.send({ type: "queue", version: VERSION, ...(LADDER ? { ladder_id: LADDER } : {}) });
  }

  handle(text: string): Verdict {
    let msg: { type?: unknown; [k: string]: unknown };
    try {
      msg = JSON.parse(text);
    } catch {
      log("ignoring a message that is not JSON");
      return null;
    }
    if (msg === null || typeof msg !== "object") return null;
    this.healthy = true;
    switch (msg.type) {
      case "queued":
        this.requeueDelay = BACKOFF_FIRST_MS;
        log(`queued as version ${msg.version} (estimated wait ${msg.estimated_wait_s}s)`);
        return null;
      case "hello":
        // A new match (or the one we are resuming after a reconnect): fresh strategy state, then accept.
        // `ready` must arrive within the startup window (hello.deadlines.startup_ms), so set up quickly.
        log(`match ${msg.match_id}: we are fighter ${msg.bot_id}`);
        this.decide = this.makeDecide(msg as unknown as Hello);
        this.send({ type: "ready" });
        return null;
      case "observation":
        logRejections(msg as unknown as Observation);
        this.send(this.turnFor(msg as unknown as Observation));
        return null;
      case "end": {
        const rating =
          msg.rating_change === null ? "unrated" : `rating ${signed(msg.rating_change as number)}`;
        log(`match ${msg.match_id} over: ${msg.result} (${msg.reason}, ${rating}) ${msg.watch_url}`);
        this.decide = null;
        // The server does not queue us again by itself: ask for the next match.
        if (this.queueAfterEnd) this.queue();
        return null;
      }
      case "error":
        // Queue and match errors such as `quota_exceeded` or `already_queued` are informational: we stay
        // connected (and queued). Only connection errors are fatal.
        log(`server error ${msg.code}: ${msg.message}`);
        if (STOP_CODES.has(String(msg.code))) return { stop: String(msg.code) };
        if (RETRY_QUEUE_CODES.has(String(msg.code)) && this.queueAfterEnd && !this.decide) this.queueLater();
        return null;
      case "replaced":
        log("another connection with this token took over");
        return { stop: "replaced" };
      case "server_draining":
        // The server is shutting down after running matches finish; no reply is needed. It will close the
        // socket with code 1012 and we come back with the usual backoff.
        log(`server draining (matches may run until ${msg.drain_deadline})`);
        return null;
      default:
        // Newer servers may add message types; ignoring unknown ones keeps old bots working.
        return null;
    }
  }

  /** The connection is gone: a pending `queue` must not be sent on it. */
  dispose(): void {
    if (this.requeueTimer) clearTimeout(this.requeueTimer);
    this.requeueTimer = null;
  }

  private queueLater(): void {
    if (this.requeueTimer) return;
    const delay = this.requeueDelay;
    this.requeueDelay = Math.min(delay * 2, BACKOFF_CAP_MS);
    log(`queueing again in ${delay / 1000}s`);
    this.requeueTimer = setTimeout(() => {
      this.requeueTimer = null;
      this.queue();
    }, delay);
  }

  private makeDecide(hello: Hello): Decide | null {
    try {
      return createDecide(hello);
    } catch (err) {
      log("createDecide failed; this match will be played idle:", err);
      return null;
    }
  }

  /** Always answers: a turn that throws becomes an empty (idle) turn rather than a missed deadline. */
  private turnFor(obs: Observation): object {
    // The tick must be the observation's, or the server refuses the whole turn.
    const idle = { type: "turn", tick: obs.tick };
    if (!this.decide) return idle;
    try {
      return { ...this.decide(obs), type: "turn", tick: obs.tick };
    } catch (err) {
      log(`decide failed on tick ${obs.tick}; sending an idle turn:`, err);
      return idle;
    }
  }
}

const signed = (n: number): string => (n >= 0 ? `+${n}` : `${n}`);

/**
 * Prints each part of our last turn the server refused (the observation's `rejected` events, which only we are
 * sent): a mistake shows here on the tick it happens. The match page's diagnostics list them too.
 */
function logRejections(obs: Observation): void {
  for (const e of obs.events as { type: string; part?: string; reason?: string; detail?: string }[]) {
    if (e.type !== "rejected") continue;
    log(`rejected tick ${obs.tick - 1}: ${e.part} ${e.reason}${e.detail ? ` (${e.detail})` : ""}`);
  }
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How one connection ended: `stop` means never reconnect; `healthy` means the server had answered us. */
interface Outcome {
  stop?: string;
  healthy: boolean;
  why: string;
}

/** Opens one socket and plays on it until it closes. */
function connectOnce(): Promise<Outcome> {
  return new Promise((resolve) => {
    const ws = new WebSocket(URL, {
      headers: { Authorization: `Bearer ${TOKEN}` },
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    });
    const session = new Session((msg) => ws.send(JSON.stringify(msg)), true);
    let stop: string | undefined;
    let why = "";
    let pinger: NodeJS.Timeout | undefined;
    let pongTimer: NodeJS.Timeout | undefined;

    // The upgrade was refused with an HTTP status. 401/403 carry a JSON body {error, code}: a refused
    // credential will not become valid by retrying, so they stop the bot. Anything else (502/503 during
    // a restart, for example) is retried with backoff.
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      let done = false;
      const refused = (): void => {
        if (done) return;
        done = true;
        let code: string | undefined;
        try {
          code = JSON.parse(body).code;
        } catch {
          // not JSON: the status alone decides
        }
        why = `upgrade refused with HTTP ${res.statusCode}${code ? ` (${code})` : ""}`;
        if ((code && STOP_CODES.has(code)) || res.statusCode === 401 || res.statusCode === 403) {
          stop = code ?? `http_${res.statusCode}`;
        }
        ws.terminate();
      };
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", refused);
      res.on("close", refused);
    });

    ws.on("open", () => {
      log(`connected to ${URL}`);
      // Our own keepalive: a Ping every 20 s that must be answered within 20 s. Without it a dead link (a
      // laptop going to sleep, a NAT forgetting us) can look open for many minutes.
      pinger = setInterval(() => {
        ws.ping();
        pongTimer ??= setTimeout(() => {
          why = "no pong from the server";
          ws.terminate();
        }, PONG_DEADLINE_MS);
      }, PING_INTERVAL_MS);
      ws.on("pong", () => {
        clearTimeout(pongTimer);
        pongTimer = undefined;
      });
      session.queue();
    });

    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const verdict = session.handle(data.toString());
      if (verdict && !stop) {
        stop = verdict.stop;
        why = `server said ${verdict.stop}`;
        ws.close(1000);
      }
    });

    // Errors are followed by `close`; we only keep the message for the log.
    ws.on("error", (err) => {
      if (!why) why = err.message;
    });

    ws.on("close", (code, reason) => {
      session.dispose();
      clearInterval(pinger);
      clearTimeout(pongTimer);
      if (!why) {
        // 1012 is the server restarting (after `server_draining`): a planned restart, retried like any drop.
        why =
          code === 1012 ? "server restarting (1012)" : `closed (${code}${reason.length ? ` ${reason}` : ""})`;
      }
      resolve({ stop, healthy: session.healthy, why });
    });
  });
}

/** Connects, plays, and reconnects with backoff (1 s doubling to 30 s) until a stop code. */
async function runSocket(): Promise<number> {
  if (!TOKEN) {
    log("ARENA_TOKEN is not set: put your bot token in the environment");
    return 2;
  }
  let delay = BACKOFF_FIRST_MS;
  for (;;) {
    const outcome = await connectOnce();
    if (outcome.stop) {
      log(`stopping for good: ${outcome.why || outcome.stop}`);
      return 1;
    }
    // A connection the server answered counts as a success: the next outage starts again from 1 s.
    if (outcome.healthy) delay = BACKOFF_FIRST_MS;
    log(`${outcome.why}; reconnecting in ${delay / 1000}s`);
    await sleep(delay);
    delay = Math.min(delay * 2, BACKOFF_CAP_MS);
  }
}

/** --stdio: the same messages as JSON lines (one per line) on stdin/stdout, for the simulator's `cmd:` bots.
 * The simulator starts matches itself, so no `queue` is sent. Ends when stdin closes. */
function runStdio(): Promise<number> {
  return new Promise((resolve) => {
    const session = new Session((msg) => process.stdout.write(`${JSON.stringify(msg)}\n`), false);
    const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on("line", (line) => {
      if (line.trim() === "") return;
      const verdict = session.handle(line);
      if (verdict) {
        log(`stopping: ${verdict.stop}`);
        lines.close();
      }
    });
    lines.on("close", () => resolve(0));
  });
}

// No top-level await, so this file also runs where .ts files are treated as CommonJS.
(STDIO ? runStdio() : runSocket()).then((code) => {
  process.exitCode = code;
});
