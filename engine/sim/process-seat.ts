// Bots that are programs speaking the JSON protocol over stdin/stdout: one child process per match, one JSON
// message per line each way, exactly the socket messages. A crash, a hang or garbage never stalls the run.
import { type ChildProcess, spawn } from "node:child_process";
import { basename } from "node:path";
import { createInterface } from "node:readline";
import type { TurnInput } from "../match.ts";
import type { HelloMessageT, MatchStatsT, ObservationT } from "../protocol.ts";
import type { ReplayFighter } from "../replay.ts";
import {
  type BotRunner,
  type BotSpec,
  clip,
  now,
  type SeatNote,
  type SimContext,
  type SimSeat,
} from "./seat-types.ts";

// ---------------------------------------------------------------- programs over stdin/stdout

/** Children still running, killed when the run ends or is interrupted. */
const liveChildren = new Set<ChildProcess>();

function killTree(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (process.platform !== "win32" && child.pid) process.kill(-child.pid, "SIGKILL");
    else child.kill("SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Kills every bot program still running (end of run, Ctrl-C). */
export function killAllBotPrograms(): void {
  for (const c of liveChildren) killTree(c);
  liveChildren.clear();
}

interface Incoming {
  raw: unknown;
  text: string;
}

type Wait = { line: Incoming } | { timeout: true } | { closed: true };

export class ProcessRunner implements BotRunner {
  readonly fighter: ReplayFighter;
  private readonly running = new Set<Promise<void>>();

  constructor(
    readonly spec: BotSpec & { kind: "cmd" },
    private readonly label: string,
    private readonly ctx: SimContext,
  ) {
    const name = commandName(spec.command);
    this.fighter = { name, display_name: name, version: "local" };
  }

  async init(): Promise<void> {}

  seat(matchId: string): SimSeat {
    const seat = new ProcessSeat(this.spec.command, this.fighter, matchId, this.label, this.ctx);
    const done = seat.exited.then(() => {
      this.running.delete(done);
    });
    this.running.add(done);
    return seat;
  }

  async close(): Promise<void> {
    // Programs get a moment to exit on their own after the last end message (and print their last words).
    await Promise.race([Promise.all([...this.running]), new Promise((r) => setTimeout(r, 1000).unref())]);
    killAllBotPrograms();
    await Promise.all([...this.running]);
  }
}

/** A short fighter name for a command line: its script's base name (`python3 bots/x/bot.py` -> `bot`). */
export function commandName(command: string): string {
  const words = command.split(/\s+/).filter((w) => w && !w.startsWith("-"));
  const file = words.find((w) => /[\\/]|\.\w+$/.test(w)) ?? words[0] ?? "cmd";
  const base = basename(file.replace(/^["']|["']$/g, ""));
  const name = base.replace(/\.\w+$/, "") || base;
  return name.slice(0, 24);
}

/** What a program's end-of-match message says to it. */
function endMessage(
  f: number,
  matchId: string,
  end: { winner: number | null; reason: string; stats: MatchStatsT },
) {
  const result =
    end.reason === "voided" || end.reason === "aborted"
      ? "void"
      : end.winner === null
        ? "draw"
        : end.winner === f
          ? "win"
          : "loss";
  return {
    type: "end",
    match_id: matchId,
    winner: end.winner,
    result,
    reason: end.reason,
    final_tick: end.stats.ticks,
    stats: end.stats,
    watch_url: "",
    rating_change: null,
    ladder_id: "public",
  };
}

class ProcessSeat implements SimSeat {
  readonly notes: SeatNote[] = [];
  /** Resolves when the program has exited and its output is drained. */
  readonly exited: Promise<void>;
  private markExited!: () => void;
  private child: ChildProcess | null = null;
  private readonly queue: Incoming[] = [];
  private waiter: ((w: Wait) => void) | null = null;
  private closed = false;
  private finished = false;
  private tick = 0;
  private botId = 0;
  private lastStderr: string[] = [];
  private ignored = 0;
  private late = 0;
  private oversize = 0;

  constructor(
    private readonly command: string,
    readonly fighter: ReplayFighter,
    private readonly matchId: string,
    private readonly label: string,
    private readonly ctx: SimContext,
  ) {
    this.exited = new Promise((r) => {
      this.markExited = r;
    });
  }

  async start(hello: HelloMessageT): Promise<boolean> {
    this.botId = hello.bot_id;
    const child = spawn(this.command, {
      shell: true,
      cwd: this.ctx.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      // Own process group, so the shell and whatever it started are killed together.
      detached: process.platform !== "win32",
    });
    this.child = child;
    liveChildren.add(child);
    child.stdin!.on("error", () => {}); // EPIPE after the program died: noticed through "close"
    createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (l) =>
      this.onLine(l),
    );
    createInterface({ input: child.stderr!, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (l) => {
      this.lastStderr.push(l);
      if (this.lastStderr.length > 5) this.lastStderr.shift();
      this.ctx.log?.(`[${this.label} ${this.fighter.name}] ${l}`);
    });
    child.on("error", (err) => this.onClose(null, null, err));
    child.on("close", (code, signal) => this.onClose(code, signal, null));

    this.send(hello);
    const deadline = now() + hello.deadlines.startup_ms;
    for (;;) {
      const w = await this.next(deadline - now());
      if ("timeout" in w) {
        this.note(
          "no_ready",
          0,
          `did not send ready within the startup window (${hello.deadlines.startup_ms} ms): forfeit`,
        );
        return false;
      }
      if ("closed" in w) return false; // onClose noted the exit
      const msg = w.line.raw as { type?: unknown } | null;
      if (msg && typeof msg === "object" && msg.type === "ready") return true;
      this.ignored++;
      if (this.ignored === 1) this.note("ignored", 0, `ignored a message before ready: ${clip(w.line.text)}`);
    }
  }

  async turn(obs: ObservationT, deadlineMs: number): Promise<TurnInput> {
    this.tick = obs.tick;
    if (this.closed) return { idle: "disconnected", ms: 0 };
    this.send(obs);
    const t0 = now();
    for (;;) {
      const w = await this.next(deadlineMs - (now() - t0));
      if ("timeout" in w) return { idle: "timeout", ms: deadlineMs };
      if ("closed" in w) return { idle: "disconnected", ms: 0 };
      const msg = w.line.raw as { type?: unknown; tick?: unknown } | null;
      // A turn for an earlier tick answers a tick that already timed out: dropped, as it answers nothing now.
      if (
        msg &&
        typeof msg === "object" &&
        msg.type === "turn" &&
        typeof msg.tick === "number" &&
        msg.tick < obs.tick
      ) {
        this.late++;
        continue;
      }
      return { raw: w.line.raw, ms: now() - t0 };
    }
  }

  finish(end: { winner: number | null; reason: string; stats: MatchStatsT }): void {
    this.finished = true;
    if (this.late > 0)
      this.note(
        "late",
        null,
        `${this.late} late turn(s) for earlier ticks dropped (they arrived after the deadline)`,
      );
    if (this.ignored > 1) this.note("ignored", null, `${this.ignored} messages before ready ignored`);
    if (this.oversize > 0)
      this.note(
        "oversize",
        null,
        `${this.oversize} line(s) over max_message_bytes (${this.ctx.maxMessageBytes}) dropped`,
      );
    const child = this.child;
    if (!child) this.markExited();
    if (!child || this.closed) return;
    this.send(endMessage(this.botId, this.matchId, end));
    child.stdin!.end();
    // A program may exit on end or when stdin closes; one that does neither is killed shortly after.
    const timer = setTimeout(() => killTree(child), 1000);
    timer.unref();
  }

  private send(msg: unknown): void {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || stdin.destroyed || stdin.writableEnded) return;
    stdin.write(`${JSON.stringify(msg)}\n`);
  }

  private onLine(text: string): void {
    if (text.trim() === "") return;
    if (Buffer.byteLength(text) > this.ctx.maxMessageBytes) {
      this.oversize++;
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = text; // not JSON: refused as schema by the match, like the server does
    }
    this.deliver({ line: { raw, text } }, () => this.queue.push({ raw, text }));
  }

  private onClose(code: number | null, signal: NodeJS.Signals | null, err: Error | null): void {
    if (this.closed) return;
    this.closed = true;
    if (this.child) liveChildren.delete(this.child);
    if (!this.finished) {
      const how = err
        ? `could not be started (${err.message})`
        : signal
          ? `was killed by ${signal}`
          : `exited with code ${code}`;
      const hint = code === 127 ? " (command not found?)" : "";
      const tail =
        this.lastStderr.length > 0
          ? `; last stderr: ${clip(this.lastStderr[this.lastStderr.length - 1]!)}`
          : "";
      this.note("exit", this.tick, `bot ${this.fighter.name} ${how} at tick ${this.tick}${hint}${tail}`);
    }
    this.deliver({ closed: true }, () => {});
    this.markExited();
  }

  /** Hands an event to the waiting reader, or queues it (lines only). */
  private deliver(w: Wait, otherwise: () => void): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter(w);
    } else otherwise();
  }

  private next(timeoutMs: number): Promise<Wait> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve({ line: queued });
    if (this.closed) return Promise.resolve({ closed: true });
    if (timeoutMs <= 0) return Promise.resolve({ timeout: true });
    return new Promise<Wait>((resolveWait) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolveWait({ timeout: true });
      }, timeoutMs);
      this.waiter = (w) => {
        clearTimeout(timer);
        resolveWait(w);
      };
    });
  }

  private note(kind: SeatNote["kind"], tick: number | null, message: string): void {
    this.notes.push({ kind, match_id: this.matchId, tick, message });
  }
}
