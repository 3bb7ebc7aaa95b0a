// The front process's side of a running match (server/runner/match-runner.ts), with no worker, socket or
// server: a fake pool channel records what the runner tells the worker and lets a test speak for the worker,
// fake bot connections record what the bots are sent, and vitest's fake timers (performance.now() included)
// are the clock. Covers what only the runner decides: which bot messages count as the seat's answer (SPEC 6.2),
// the per-tick message cap and its notice (SPEC 8), per-seat deadlines, the server's own stalls, and the
// reconnect grace (SPEC 3.3).
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TurnInput } from "../../engine/match.ts";
import type { DeadlinesT } from "../../engine/protocol.ts";
import type { MatchChannel, MatchPool } from "../../pool/pool.ts";
import type { FromWorker, MatchOutcome, MatchSetup, SeatKind, ToWorker } from "../../pool/protocol.ts";
import type { BotConnection } from "../../server/connection/bot-connection.ts";
import type { Participant } from "../../server/lobby/lobby.ts";
import { type RunnerDeps, RunningMatch, type TickJournal } from "../../server/runner/match-runner.ts";

const DEADLINES: DeadlinesT = {
  startup_ms: 1_000,
  tick_ms: 100,
  match_budget_ms: 300_000,
  max_consecutive_failures: 10,
  reconnect_grace_ms: 250,
};

/** The worker's end of one match: what the runner sent, and a way to answer as the worker would. */
class FakeChannel implements MatchChannel {
  readonly key = 1;
  readonly sent: ToWorker[] = [];
  readonly kills: string[] = [];
  private handler: (m: FromWorker) => void = () => {};
  private fail: (err: Error) => void = () => {};
  /** Never resolves here (no test plays a match to its end); rejects when the match is killed, as the pool's. */
  readonly done = new Promise<MatchOutcome>((_, reject) => {
    this.fail = reject;
  });
  /** Records a copy: the runner reuses its tick message (the channel reads it during the call). */
  send(m: ToWorker): void {
    this.sent.push(
      m.t === "tick"
        ? {
            t: "tick",
            tick: m.tick,
            inputs: [...m.inputs],
            ...(m.expired ? { expired: [...m.expired] } : {}),
          }
        : { ...m },
    );
  }
  onMessage(fn: (m: FromWorker) => void): void {
    this.handler = fn;
  }
  kill(why: string): void {
    this.kills.push(why);
    this.fail(new Error(why));
  }
  worker(m: FromWorker): void {
    this.handler(m);
  }
  /** The `tick` messages the runner sent (each resolves one tick). */
  ticks(): Extract<ToWorker, { t: "tick" }>[] {
    return this.sent.filter((m): m is Extract<ToWorker, { t: "tick" }> => m.t === "tick");
  }
}

/** A bot's socket as the runner sees it: everything sent to it, in order. */
class FakeBot {
  readonly sent: string[] = [];
  readonly errors: { code: string; message: string | undefined }[] = [];
  send(msg: string | object): void {
    this.sent.push(typeof msg === "string" ? msg : JSON.stringify(msg));
  }
  sendUtf8(bytes: Uint8Array): void {
    this.sent.push(new TextDecoder().decode(bytes));
  }
  error(code: string, message?: string): void {
    this.errors.push({ code, message });
  }
  get conn(): BotConnection {
    return this as unknown as BotConnection;
  }
}

/** The server's stalls, [start, end) in performance.now() ms, as StallClock reports them. */
class FakeStalls {
  readonly stalls: [number, number][] = [];
  readonly asked: [number, number][] = [];
  stalledWithin(from: number, to: number): number {
    this.asked.push([from, to]);
    let sum = 0;
    for (const [a, b] of this.stalls) sum += Math.max(0, Math.min(b, to) - Math.max(a, from));
    return sum;
  }
}

function participant(id: string, conn: BotConnection | null): Participant {
  return {
    bot: { id, name: id, display_name: id, owner: id, house: false, status: "active", avatar: null },
    conn,
    house: null,
  } as unknown as Participant;
}

interface Harness {
  m: RunningMatch;
  ch: FakeChannel;
  bots: [FakeBot, FakeBot];
  stalls: FakeStalls;
  /** The worker says hello. */
  hello(): void;
  /** The worker sends tick `tick` with these deadlines (observations `obs<tick>-<seat>`). */
  tick(tick: number, deadlineMs?: [number, number]): void;
  /** Both seats ready, hello, start, then tick 0. */
  play(deadlineMs?: [number, number]): void;
}

function harness(
  o: {
    seats?: [SeatKind, SeatKind];
    deadlines?: DeadlinesT;
    messagesPerTick?: number;
    journal?: TickJournal;
    resume?: MatchSetup["resume"];
  } = {},
): Harness {
  const ch = new FakeChannel();
  const bots: [FakeBot, FakeBot] = [new FakeBot(), new FakeBot()];
  const stalls = new FakeStalls();
  const seats = o.seats ?? [{ kind: "remote" }, { kind: "remote" }];
  const deadlines = o.deadlines ?? DEADLINES;
  const setup: MatchSetup = {
    matchId: "m1",
    seed: 1,
    map: "arena-21",
    mode: "ranked",
    ladderId: "public",
    deadlines,
    fighters: [
      { name: "a", display_name: "A", version: "v1" },
      { name: "b", display_name: "B", version: "v1" },
    ],
    seats,
    ...(o.resume ? { resume: o.resume } : {}),
  };
  const deps = {
    pool: { start: () => ch } as unknown as MatchPool,
    log: pino({ level: "silent" }),
    publicUrl: "http://ladder.test",
    messagesPerTick: o.messagesPerTick ?? 5,
    stalls,
    workerTimeoutMs: 60_000,
    onEnd: () => {},
    ...(o.journal ? { journal: () => o.journal } : {}),
  } as unknown as RunnerDeps;
  const m = new RunningMatch(deps, setup, [participant("a", bots[0].conn), participant("b", bots[1].conn)]);
  const enc = new TextEncoder();
  const h: Harness = {
    m,
    ch,
    bots,
    stalls,
    hello: () => ch.worker({ t: "hello", hello: ['{"hello":0}', '{"hello":1}'], thread: 1, tid: null }),
    tick: (tick, deadlineMs = [deadlines.tick_ms, deadlines.tick_ms]) =>
      ch.worker({
        t: "tick",
        tick,
        obs: [0, 1].map((i) => (seats[i]!.kind === "remote" ? enc.encode(`obs${tick}-${i}`) : null)) as [
          Uint8Array | null,
          Uint8Array | null,
        ],
        deadlineMs,
      }),
    play: (deadlineMs) => {
      for (let i = 0; i < 2; i++) if (seats[i]!.kind === "remote") m.fromBot(i, { type: "ready" });
      h.hello();
      h.tick(0, deadlineMs);
    },
  };
  return h;
}

const turn = (tick: number, extra: object = {}) => ({ type: "turn", tick, ...extra });
const raw = (input: TurnInput | null | undefined) => (input && "raw" in input ? input.raw : input);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the startup window", () => {
  it("starts play once hello has been sent and both seats are ready, in either order", () => {
    const h = harness();
    h.m.fromBot(0, { type: "ready" });
    h.m.fromBot(1, { type: "ready" });
    expect(h.ch.sent).toEqual([]);
    expect(h.m.playing).toBe(false);
    h.hello();
    expect(h.bots[0].sent).toEqual(['{"hello":0}']);
    expect(h.bots[1].sent).toEqual(['{"hello":1}']);
    expect(h.ch.sent).toEqual([{ t: "start", ready: [true, true] }]);
    expect(h.m.playing).toBe(true);

    const g = harness();
    g.hello();
    g.m.fromBot(1, { type: "ready" });
    expect(g.ch.sent).toEqual([]);
    g.m.fromBot(0, { type: "ready" });
    expect(g.ch.sent).toEqual([{ t: "start", ready: [true, true] }]);
  });

  it("takes a ready only as a JSON object with type ready: null, text and numbers are ignored, not fatal", () => {
    const h = harness();
    h.hello();
    for (const m of [null, undefined, "ready", '{"type":"ready"}', 0, 7, true, ["ready"], { type: "READY" }])
      h.m.fromBot(0, m);
    h.m.fromBot(1, { type: "ready" });
    expect(h.ch.sent).toEqual([]);
    vi.advanceTimersByTime(DEADLINES.startup_ms - 1);
    expect(h.ch.sent).toEqual([]);
    vi.advanceTimersByTime(1);
    // The window closed with seat 0 not ready: the worker forfeits it.
    expect(h.ch.sent).toEqual([{ t: "start", ready: [false, true] }]);
  });

  it("ignores turns before play: they answer nothing, and do not count against tick 0", () => {
    const h = harness();
    h.hello();
    h.m.fromBot(0, turn(0));
    h.m.fromBot(0, { type: "ready" });
    h.m.fromBot(1, { type: "ready" });
    h.tick(0);
    h.m.fromBot(1, turn(0));
    expect(h.ch.ticks()).toEqual([]);
    h.m.fromBot(0, turn(0, { n: 2 }));
    expect(raw(h.ch.ticks()[0]!.inputs[0])).toEqual(turn(0, { n: 2 }));
  });

  it("resends hello to a bot that reconnects in the startup window, and nothing before hello exists", () => {
    const h = harness();
    const early = new FakeBot();
    h.m.detach(0);
    h.m.attach(0, early.conn);
    expect(early.sent).toEqual([]);
    h.hello();
    expect(h.bots[0].sent).toEqual([]); // the old socket is gone
    expect(early.sent).toEqual(['{"hello":0}']);
    const late = new FakeBot();
    h.m.attach(1, late.conn);
    expect(late.sent).toEqual(['{"hello":1}']);
    expect(h.ch.sent).toEqual([]); // no resume is asked of the worker before play
  });
});

describe("answers during play", () => {
  it("sends each seat its observation and resolves the tick with both answers, without `expired`", () => {
    const h = harness();
    h.play();
    expect(h.bots[0].sent.at(-1)).toBe("obs0-0");
    expect(h.bots[1].sent.at(-1)).toBe("obs0-1");
    h.m.fromBot(0, turn(0, { move: "N" }));
    expect(h.ch.ticks()).toEqual([]);
    h.m.fromBot(1, turn(0));
    expect(h.ch.ticks()).toEqual([
      {
        t: "tick",
        tick: 0,
        inputs: [
          { raw: turn(0, { move: "N" }), ms: 0 },
          { raw: turn(0), ms: 0 },
        ],
      },
    ]);
  });

  it("passes on whatever the bot sent as its answer (text that was not JSON, an unknown type)", () => {
    const h = harness();
    h.play();
    h.m.fromBot(0, "not json");
    h.m.fromBot(1, { type: "ping" });
    expect(h.ch.ticks()[0]!.inputs.map(raw)).toEqual(["not json", { type: "ping" }]);
  });

  it("does not take a ready during play as the answer, nor count it against the per-tick cap", () => {
    const h = harness();
    h.play();
    for (let i = 0; i < 8; i++) h.m.fromBot(0, { type: "ready" });
    h.m.fromBot(1, turn(0));
    expect(h.ch.ticks()).toEqual([]);
    h.m.fromBot(0, turn(0));
    expect(h.ch.ticks()[0]!.inputs.map(raw)).toEqual([turn(0), turn(0)]);
    expect(h.bots[0].errors).toEqual([]);
  });

  it("takes the first answer of a tick and ignores later ones", () => {
    const h = harness();
    h.play();
    h.m.fromBot(0, turn(0, { n: 1 }));
    h.m.fromBot(0, turn(0, { n: 2 }));
    h.m.fromBot(1, turn(0));
    expect(raw(h.ch.ticks()[0]!.inputs[0])).toEqual(turn(0, { n: 1 }));
    expect(h.ch.ticks()).toHaveLength(1);
  });

  it("drops a turn for an earlier tick; a turn for this tick or a later one, or with a tick that is not an integer, is the answer", () => {
    const h = harness();
    h.play();
    h.m.fromBot(0, turn(0));
    h.m.fromBot(1, turn(0));
    h.tick(1);
    h.m.fromBot(1, turn(1));
    h.m.fromBot(0, turn(0)); // late: meant for tick 0
    h.m.fromBot(0, turn(-3));
    expect(h.ch.ticks()).toHaveLength(1);
    h.m.fromBot(0, turn(0.5));
    expect(raw(h.ch.ticks()[1]!.inputs[0])).toEqual(turn(0.5));

    for (const answer of [turn(2), turn(2, { tick: "0" }), { type: "noise", tick: 0 }, { type: "turn" }]) {
      const g = harness();
      g.play();
      g.m.fromBot(0, turn(0));
      g.m.fromBot(1, turn(0));
      g.tick(2);
      g.m.fromBot(1, turn(2));
      g.m.fromBot(0, answer);
      expect(raw(g.ch.ticks()[1]?.inputs[0])).toEqual(answer);
    }
  });

  it("a house seat needs no answer: the tick resolves with the remote seat's, the house input left to the worker", () => {
    const h = harness({ seats: [{ kind: "house", name: "sentinel" }, { kind: "remote" }] });
    h.m.fromBot(1, { type: "ready" });
    expect(h.ch.sent).toEqual([]);
    h.hello();
    expect(h.ch.sent).toEqual([{ t: "start", ready: [true, true] }]);
    h.tick(0);
    expect(h.bots[1].sent.at(-1)).toBe("obs0-1");
    h.m.fromBot(1, turn(0));
    expect(h.ch.ticks()).toEqual([{ t: "tick", tick: 0, inputs: [null, { raw: turn(0), ms: 0 }] }]);
    // No deadline is kept for the house seat: nothing more happens however long the worker takes.
    vi.advanceTimersByTime(10 * DEADLINES.tick_ms);
    expect(h.ch.ticks()).toHaveLength(1);
  });

  it("charges the bot's own reply time: since its observation, less the server's stalls, never below zero", () => {
    const h = harness();
    vi.advanceTimersByTime(5);
    h.play();
    vi.advanceTimersByTime(30);
    h.m.fromBot(0, turn(0));
    h.stalls.stalls.push([40, 50]); // 10 ms of the server's own inside the window
    vi.advanceTimersByTime(20);
    h.m.fromBot(1, turn(0));
    expect(h.ch.ticks()[0]!.inputs.map((i) => i?.ms)).toEqual([30, 40]);
    expect(h.stalls.asked.slice(0, 2)).toEqual([
      [5, 35],
      [5, 55],
    ]);

    const g = harness();
    g.play();
    g.stalls.stalls.push([-100, 100]);
    vi.advanceTimersByTime(10);
    g.m.fromBot(0, turn(0));
    g.m.fromBot(1, turn(0));
    expect(g.ch.ticks()[0]!.inputs.map((i) => i?.ms)).toEqual([0, 0]);
  });
});

describe("the per-tick message cap (messages_per_tick)", () => {
  it("counts every message of the tick: the 5th may still be the answer", () => {
    const h = harness();
    h.play();
    h.m.fromBot(0, turn(0));
    h.m.fromBot(1, turn(0));
    h.tick(1);
    for (let i = 0; i < 4; i++) h.m.fromBot(0, turn(0)); // late, dropped, but counted
    h.m.fromBot(0, turn(1));
    h.m.fromBot(1, turn(1));
    expect(raw(h.ch.ticks()[1]!.inputs[0])).toEqual(turn(1));
    expect(h.bots[0].errors).toEqual([]);
  });

  it("drops the 6th and later messages of a tick, with one rate_limited notice per tick", () => {
    const h = harness();
    h.play();
    h.m.fromBot(0, turn(0));
    h.m.fromBot(1, turn(0));
    h.tick(1);
    for (let i = 0; i < 5; i++) h.m.fromBot(0, turn(0));
    expect(h.bots[0].errors).toEqual([]);
    for (let i = 0; i < 4; i++) h.m.fromBot(0, turn(1)); // over the cap: not the answer
    expect(h.bots[0].errors).toEqual([{ code: "rate_limited", message: "at most 5 messages per tick" }]);
    h.m.fromBot(1, turn(1));
    vi.advanceTimersByTime(DEADLINES.tick_ms);
    expect(h.ch.ticks()[1]!.inputs[0]).toEqual({ idle: "timeout", ms: DEADLINES.tick_ms });

    // A new tick, a new count and a new notice.
    h.tick(2);
    h.m.fromBot(0, turn(2));
    expect(h.bots[0].errors).toHaveLength(1);
    for (let i = 0; i < 10; i++) h.m.fromBot(0, turn(2));
    expect(h.bots[0].errors).toHaveLength(2);
    expect(h.bots[1].errors).toEqual([]);
  });

  it("uses the configured cap", () => {
    const h = harness({ messagesPerTick: 2 });
    h.play();
    h.m.fromBot(0, { type: "ping" });
    h.m.fromBot(0, turn(0));
    h.m.fromBot(0, turn(0));
    expect(h.bots[0].errors).toEqual([{ code: "rate_limited", message: "at most 2 messages per tick" }]);
  });

  it("does not fail on an over-the-cap message from a seat whose socket is gone", () => {
    const h = harness();
    h.play();
    h.m.detach(0);
    for (let i = 0; i < 7; i++) h.m.fromBot(0, { type: "ping" });
    expect(h.bots[0].errors).toEqual([]);
  });

  it("no longer applies once the match is ending", async () => {
    const h = harness();
    h.play();
    await h.m.abandon();
    expect(h.ch.kills).toEqual(["server stopping"]);
    expect(h.m.playing).toBe(false);
    for (let i = 0; i < 10; i++) h.m.fromBot(0, turn(0));
    expect(h.bots[0].errors).toEqual([]);
    expect(h.ch.ticks()).toEqual([]);
  });
});

describe("deadlines", () => {
  it("idles a seat that has not answered as `timeout` exactly at its due time, charged its deadline", () => {
    const h = harness();
    h.play([100, 150]);
    h.m.fromBot(1, turn(0));
    vi.advanceTimersByTime(99);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()).toEqual([
      {
        t: "tick",
        tick: 0,
        inputs: [
          { idle: "timeout", ms: 100 },
          { raw: turn(0), ms: 0 },
        ],
      },
    ]);
    // An answer after the seat idled is not this tick's.
    h.m.fromBot(0, turn(0));
    expect(h.ch.ticks()).toHaveLength(1);
  });

  it("keeps each seat's own due time, and resolves the tick when the last one passes", () => {
    const h = harness();
    h.play([100, 200]);
    vi.advanceTimersByTime(100);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(99);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()).toEqual([
      {
        t: "tick",
        tick: 0,
        inputs: [
          { idle: "timeout", ms: 100 },
          { idle: "timeout", ms: 200 },
        ],
      },
    ]);
    // The seat whose due time came first can still answer until the other's passes.
    const g = harness();
    g.play([200, 100]);
    vi.advanceTimersByTime(150);
    g.m.fromBot(0, turn(0));
    expect(g.ch.ticks()[0]!.inputs).toEqual([
      { raw: turn(0), ms: 150 },
      { idle: "timeout", ms: 100 },
    ]);
  });

  it("counts a due time less than a millisecond away as due (timers wake on a coarser clock)", () => {
    const h = harness();
    h.play([100, 101]);
    vi.advanceTimersByTime(100);
    expect(h.ch.ticks()[0]!.inputs).toEqual([
      { idle: "timeout", ms: 100 },
      { idle: "timeout", ms: 101 },
    ]);
    const g = harness();
    g.play([100, 102]);
    vi.advanceTimersByTime(100);
    expect(g.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(1);
    g.m.fromBot(1, turn(0));
    expect(g.ch.ticks()[0]!.inputs).toEqual([
      { idle: "timeout", ms: 100 },
      { raw: turn(0), ms: 101 },
    ]);
  });

  it("wakes for an earlier due time even when a later one was set first", () => {
    const h = harness();
    h.play([300, 300]);
    h.m.fromBot(0, turn(0));
    h.m.fromBot(1, turn(0));
    h.tick(1, [50, 60]);
    vi.advanceTimersByTime(59);
    expect(h.ch.ticks()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()[1]!.inputs).toEqual([
      { idle: "timeout", ms: 50 },
      { idle: "timeout", ms: 60 },
    ]);
  });

  it("gives a new deadline each tick, from the tick's own start", () => {
    const h = harness();
    h.play([100, 100]);
    vi.advanceTimersByTime(100);
    vi.advanceTimersByTime(30);
    h.tick(1, [100, 40]);
    h.m.fromBot(0, turn(1));
    vi.advanceTimersByTime(39);
    expect(h.ch.ticks()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()[1]!.inputs).toEqual([
      { raw: turn(1), ms: 0 },
      { idle: "timeout", ms: 40 },
    ]);
    expect(h.bots[0].sent.slice(-2)).toEqual(["obs0-0", "obs1-0"]);
  });

  it("does not charge the server's own stalls: a stall inside the tick moves the due time back by as much", () => {
    const h = harness();
    h.play([100, 100]);
    h.m.fromBot(1, turn(0));
    h.stalls.stalls.push([20, 70]);
    vi.advanceTimersByTime(100);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(49);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()[0]!.inputs[0]).toEqual({ idle: "timeout", ms: 100 });
  });

  it("idles a seat whose socket is gone as `disconnected` at its due time, within the grace", () => {
    const h = harness();
    h.play([100, 100]);
    h.m.fromBot(1, turn(0));
    vi.advanceTimersByTime(10);
    h.m.detach(0);
    vi.advanceTimersByTime(89);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()).toEqual([
      {
        t: "tick",
        tick: 0,
        inputs: [
          { idle: "disconnected", ms: 100 },
          { raw: turn(0), ms: 0 },
        ],
      },
    ]);
    h.tick(1);
    expect(h.bots[0].sent.at(-1)).toBe("obs0-0"); // nothing is sent to a socket that is gone
  });

  it("ignores a due time after the match has ended", async () => {
    const h = harness();
    h.play([100, 100]);
    await h.m.abandon();
    vi.advanceTimersByTime(1_000);
    expect(h.ch.ticks()).toEqual([]);
  });
});

describe("the deadline timer", () => {
  // One lazy timer per match (see match-runner.ts): a tick writes due times and the timer wakes at the
  // earliest. None may be left running while the worker computes the next tick, and a later due time must not
  // add a second one. The only other timer here is the worker watchdog's.
  it("keeps at most one deadline timer, and none once the tick is resolved", () => {
    const h = harness();
    h.play([100, 100]);
    expect(vi.getTimerCount()).toBe(2); // the watchdog and the deadline timer
    h.m.fromBot(0, turn(0));
    h.m.fromBot(1, turn(0));
    h.tick(1, [300, 300]); // its due times are later than the pending wake at 100
    h.m.fromBot(1, turn(1));
    expect(vi.getTimerCount()).toBe(2);
    h.m.detach(0); // the grace ends at 250, also later
    expect(vi.getTimerCount()).toBe(2);
    vi.advanceTimersByTime(250);
    expect(h.ch.ticks()).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(1); // resolved: only the watchdog is left
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(1);
  });
});

describe("the reconnect grace (reconnect_grace_ms)", () => {
  it("counts the grace's end, like a due time, as reached when less than a millisecond away", () => {
    const h = harness();
    h.play([1_000, 249]);
    h.m.detach(0); // at 0: the grace ends at 250
    vi.advanceTimersByTime(249);
    expect(h.ch.ticks()).toEqual([
      {
        t: "tick",
        tick: 0,
        inputs: [
          { idle: "disconnected", ms: 1_000 },
          { idle: "timeout", ms: 249 },
        ],
        expired: [0],
      },
    ]);
  });

  it("does not resume a bot that reconnects once the match is ending", async () => {
    const h = harness();
    h.play();
    h.m.detach(0);
    await h.m.abandon();
    const back = new FakeBot();
    h.m.attach(0, back.conn);
    expect(h.ch.sent.filter((m) => m.t === "resume")).toEqual([]);
    expect(back.sent).toEqual([]);
  });

  it("disqualifies a seat gone for reconnect_grace_ms through the tick's `expired`, however many ticks that is", () => {
    const h = harness();
    h.play();
    h.m.fromBot(1, turn(0));
    vi.advanceTimersByTime(10);
    h.m.detach(0); // lost at 10: the grace ends at 260
    vi.advanceTimersByTime(90);
    expect(h.ch.ticks()[0]).toEqual({
      t: "tick",
      tick: 0,
      inputs: [
        { idle: "disconnected", ms: 100 },
        { raw: turn(0), ms: 0 },
      ],
    });
    h.tick(1);
    vi.advanceTimersByTime(100);
    expect(h.ch.ticks()[1]!.inputs[0]).toEqual({ idle: "disconnected", ms: 100 });
    expect(h.ch.ticks()[1]).not.toHaveProperty("expired");
    h.tick(2);
    h.m.fromBot(1, turn(2));
    vi.advanceTimersByTime(59);
    expect(h.ch.ticks()).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()[2]).toEqual({
      t: "tick",
      tick: 2,
      inputs: [
        { idle: "disconnected", ms: 100 },
        { raw: turn(2), ms: 0 },
      ],
      expired: [0],
    });
  });

  it("disqualifies when the grace ends inside a long tick, not at the tick's deadline", () => {
    const h = harness({ deadlines: { ...DEADLINES, tick_ms: 1_000 } });
    h.play();
    h.m.fromBot(0, turn(0));
    vi.advanceTimersByTime(50);
    h.m.detach(1);
    vi.advanceTimersByTime(249);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()).toEqual([
      {
        t: "tick",
        tick: 0,
        inputs: [
          { raw: turn(0), ms: 0 },
          { idle: "disconnected", ms: 1_000 },
        ],
        expired: [1],
      },
    ]);
  });

  it("expires both seats together when both are gone", () => {
    const h = harness({ deadlines: { ...DEADLINES, tick_ms: 1_000 } });
    h.play();
    h.m.detach(0);
    h.m.detach(1);
    vi.advanceTimersByTime(250);
    expect(h.ch.ticks()[0]).toMatchObject({ expired: [0, 1] });
  });

  it("wakes for the grace's end at the start of each tick, also when no seat is connected", () => {
    const h = harness();
    h.play();
    h.m.detach(0);
    h.m.detach(1); // at 0: both graces end at 250
    vi.advanceTimersByTime(100);
    h.tick(1);
    vi.advanceTimersByTime(100);
    h.tick(2); // due at 300
    vi.advanceTimersByTime(49);
    expect(h.ch.ticks()).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()[2]).toEqual({
      t: "tick",
      tick: 2,
      inputs: [
        { idle: "disconnected", ms: 100 },
        { idle: "disconnected", ms: 100 },
      ],
      expired: [0, 1],
    });
  });

  it("counts the grace from the loss even when the socket went in the startup window", () => {
    const h = harness({ deadlines: { ...DEADLINES, tick_ms: 1_000 } });
    h.hello();
    h.m.fromBot(0, { type: "ready" });
    vi.advanceTimersByTime(20);
    h.m.detach(0); // lost at 20: the grace ends at 270
    vi.advanceTimersByTime(30);
    h.m.fromBot(1, { type: "ready" });
    h.tick(0);
    h.m.fromBot(1, turn(0));
    vi.advanceTimersByTime(219);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()[0]).toMatchObject({ expired: [0] });
  });

  it("does not use up the grace with the server's own stalls", () => {
    const h = harness({ deadlines: { ...DEADLINES, tick_ms: 1_000 } });
    h.play();
    h.m.fromBot(1, turn(0));
    h.m.detach(0);
    h.stalls.stalls.push([100, 140]);
    vi.advanceTimersByTime(250);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(39);
    expect(h.ch.ticks()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.ch.ticks()[0]).toMatchObject({ expired: [0], inputs: [{ idle: "disconnected" }, {}] });
  });

  it("is cleared by a reconnect: the seat is asked to resume and then idles as a plain timeout", () => {
    const h = harness();
    h.play();
    h.m.fromBot(1, turn(0));
    vi.advanceTimersByTime(10);
    h.m.detach(0);
    vi.advanceTimersByTime(90);
    h.tick(1);
    h.m.fromBot(1, turn(1));
    const back = new FakeBot();
    vi.advanceTimersByTime(50);
    h.m.attach(0, back.conn);
    expect(h.ch.sent.at(-1)).toEqual({ t: "resume", seat: 0 });
    h.ch.worker({ t: "resume", seat: 0, hello: "hello-again", obs: "obs-again" });
    expect(back.sent).toEqual(["hello-again", "obs-again"]);
    vi.advanceTimersByTime(50);
    expect(h.ch.ticks()[1]).toEqual({
      t: "tick",
      tick: 1,
      inputs: [
        { idle: "timeout", ms: 100 },
        { raw: turn(1), ms: 0 },
      ],
    });
    // Long after the grace would have ended: never disqualified.
    for (let t = 2; t < 6; t++) {
      h.tick(t);
      h.m.fromBot(1, turn(t));
      vi.advanceTimersByTime(100);
    }
    expect(h.ch.ticks()).toHaveLength(6);
    expect(h.ch.ticks().some((m) => m.expired)).toBe(false);
    expect(h.ch.ticks()[5]!.inputs[0]).toEqual({ idle: "timeout", ms: 100 });
  });

  it("sends a resuming seat no observation before its hello, and no observation for a tick it already answered", () => {
    const h = harness();
    h.play();
    h.m.detach(0);
    const back = new FakeBot();
    h.m.attach(0, back.conn);
    h.m.fromBot(0, turn(0));
    h.m.fromBot(1, turn(0));
    h.tick(1);
    expect(back.sent).toEqual([]); // the worker's resume has not come back yet
    h.ch.worker({ t: "resume", seat: 0, hello: "hello-again", obs: "obs1-0" });
    expect(back.sent).toEqual(["hello-again", "obs1-0"]);
    h.tick(2);
    expect(back.sent.at(-1)).toBe("obs2-0");

    const g = harness();
    g.play();
    g.m.detach(1);
    const again = new FakeBot();
    g.m.attach(1, again.conn);
    g.m.fromBot(1, turn(0));
    g.ch.worker({ t: "resume", seat: 1, hello: "hello-again", obs: "obs0-1" });
    expect(again.sent).toEqual(["hello-again"]);
  });
});

describe("the journal hook (cluster failover)", () => {
  it("journals the start, each tick's observations and inputs, and steps the tick only once the append is stored", async () => {
    const log: string[] = [];
    let store: () => void = () => {};
    const journal: TickJournal = {
      started: (ready) => log.push(`start ${ready}`),
      observed: (tick, obs) =>
        log.push(`obs ${tick} ${obs.map((b) => (b ? new TextDecoder().decode(b) : null))}`),
      resolved: (tick, inputs) => {
        log.push(`inputs ${tick} ${inputs.map((i) => JSON.stringify(raw(i)))}`);
        return new Promise<void>((r) => {
          store = r;
        });
      },
      ended: () => log.push("ended"),
    };
    const h = harness({ journal });
    h.play();
    h.m.fromBot(0, turn(0));
    h.m.fromBot(1, turn(0));
    expect(h.ch.ticks()).toHaveLength(0); // not before the journal has it
    store();
    await Promise.resolve();
    expect(h.ch.ticks()).toHaveLength(1);
    expect(log).toEqual([
      "start true,true",
      "obs 0 obs0-0,obs0-1",
      'inputs 0 {"type":"turn","tick":0},{"type":"turn","tick":0}',
    ]);
  });

  it("a resumed match plays at once, its bots away on their grace; one whose re-simulation failed is abandoned", async () => {
    const resume = { ready: [true, true] as [boolean, boolean], ticks: [] };
    const h = harness({ resume });
    h.m.detach(0);
    h.hello();
    expect(h.ch.sent.map((m) => m.t)).toEqual(["start"]);
    const failed = harness({ resume });
    failed.ch.worker({ t: "hello", hello: ["{}", "{}"], thread: 1, tid: null, resumeFailed: "differs" });
    await failed.m.ended;
    expect(failed.ch.kills).toEqual(["server stopping"]);
    expect(failed.bots.flatMap((b) => b.sent)).toEqual([]);
  });
});
