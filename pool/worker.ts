// Piscina worker entry: runs one match per task, many tasks at once per worker. The engine module is
// compiled once per worker thread (engineModule() caches it); each match gets its own instance.
import { readlinkSync } from "node:fs";
import { MessageChannel, type MessagePort, threadId, workerData } from "node:worker_threads";
import { houseBot } from "../engine/house/index.ts";
import type { Decide } from "../engine/house/types.ts";
import { Match, type TurnInput } from "../engine/match.ts";
import { type LinkHandlers, LinkWriter, readBatch, readRingBatch } from "./link.ts";
import type { FromWorker, MatchOutcome, TaskInput, ToWorker, WorkerHello } from "./protocol.ts";
import { resimulate } from "./resume.ts";
import { createRing, RingReader } from "./ring.ts";
import { Hop, shipTrace, stamp, traceNow, tracing } from "./trace.ts";

// ---- this thread's link to the front process, shared by all its matches (see protocol.ts)

let link: MessagePort | null = null;
/** The front's batches for this thread (see ring.ts); the port carries them only when the ring is full. */
let ring: RingReader | null = null;
/**
 * How long the worker stays blocked on the ring's doorbell before it runs its event loop once (a new match's
 * task, a match's own port and the trace channel arrive there; the front nudges the doorbell after posting a
 * task, so this is only the bound for what it does not know about).
 */
const WAIT_MS = 5;
let pumping = false;

/** A running match as the link reaches it: its control messages, and each tick's turns without a message object
 * (one per match per tick, the per-tick path). */
interface Route {
  control(m: ToWorker): void;
  turns(tick: number, inputs: readonly (TurnInput | null)[], expired: number): void;
}
const routes = new Map<number, Route>();
// Observations are written by each match's observation writer straight into this batch buffer (no object or
// string in between); the batch is moved to the front once per event-loop turn (see link.ts).
const out = new LinkWriter(16 * 1024);
let inBatch = false;
let flushQueued = false;
/** Trace only (pool/trace.ts): when the batch being handled arrived, and the ticks whose observations wait. */
let batchAt = 0;
const tracedTicks: number[] = [];

/**
 * Matches whose tick's replay line waits until the observations are posted (Match.play with deferLine): the
 * bots' clocks start when the observations leave, and the line is not needed before the next tick.
 */
const lineOwed: (() => void)[] = [];

function flush(): void {
  flushQueued = false;
  if (!out.empty && link) post(link);
  for (let i = 0; i < lineOwed.length; i++) lineOwed[i]!();
  lineOwed.length = 0;
}

function post(to: MessagePort): void {
  const batch = out.take();
  to.postMessage(batch, [batch[0]]);
  if (tracing) {
    const at = traceNow();
    for (let i = 0; i < tracedTicks.length; i += 2)
      stamp(tracedTicks[i]!, tracedTicks[i + 1]!, Hop.workerPosted, at);
    tracedTicks.length = 0;
  }
}

/** A batch being handled sends everything it produced in one message; anything else goes out this turn. */
function queueFlush(): void {
  if (!inBatch && !flushQueued) {
    flushQueued = true;
    queueMicrotask(flush);
  }
}

const handlers: LinkHandlers = {
  control: (key, m) => routes.get(key)?.control(m as ToWorker),
  turns: (key, tick, inputs, expired) => routes.get(key)?.turns(tick, inputs, expired),
};

/** A remote seat the front sent nothing for; play() keeps no input, so one shared object does. */
const NO_REPLY: TurnInput = Object.freeze({ idle: "timeout", ms: 0 });

/** Handles one batch from the front, then posts what it produced. */
function handleBatch(read: () => void): void {
  if (tracing) batchAt = traceNow();
  inBatch = true;
  try {
    read();
  } finally {
    inBatch = false;
    flush();
  }
}

/** Handles every batch waiting in the ring, in order; false when there was none. */
function drainRing(): boolean {
  let any = false;
  for (let p = ring?.next(); p; p = ring?.next()) {
    any = true;
    const payload = p;
    handleBatch(() => readRingBatch(payload, handlers));
  }
  return any;
}

/**
 * While this thread has matches it waits for the front's next batch on the ring's doorbell (ring.ts says why),
 * and between waits it lets its event loop run once (setImmediate: after the loop's poll for I/O), so that the
 * promises of ended matches settle and messages on ports are read. With no match left it sleeps in its event
 * loop like any idle thread.
 */
function pump(): void {
  if (routes.size === 0 || !ring) {
    pumping = false;
    return;
  }
  if (!drainRing()) {
    ring.wait(WAIT_MS);
    drainRing();
  }
  setImmediate(pump);
}

function startPump(): void {
  if (pumping || !ring) return;
  pumping = true;
  setImmediate(pump);
}

/** Creates the link on this thread's first match; returns the front's ends to hand over, or null. */
function openLink(): { port: MessagePort; ring: SharedArrayBuffer | null } | null {
  if (link) return null;
  const { port1, port2 } = new MessageChannel();
  const ringBytes = (workerData as { ringBytes?: number } | null)?.ringBytes;
  const sab = ringBytes === 0 ? null : createRing(ringBytes);
  ring = sab ? new RingReader(sab) : null;
  link = port1;
  link.on("message", (batch: unknown[]) => {
    // Everything the front wrote to the ring before this batch comes first (it uses the port only when the
    // ring is full, and the ring again only once it has seen this batch counted).
    drainRing();
    handleBatch(() => readBatch(batch, handlers));
    ring?.tookFromPort();
  });
  return { port: port2, ring: sab };
}

/** This thread's id in the operating system (/proc/thread-self is "<pid>/task/<tid>"); null without /proc. */
const osThreadId: number | null = (() => {
  try {
    return Number(readlinkSync("/proc/thread-self").split("/").at(-1));
  } catch {
    return null;
  }
})();

export default function runMatch(input: TaskInput): Promise<MatchOutcome> {
  const { setup, key } = input;
  const port = input.port as unknown as MessagePort;
  const match = new Match({
    matchId: setup.matchId,
    seed: setup.seed,
    map: setup.map,
    mode: setup.mode,
    ladderId: setup.ladderId,
    deadlines: setup.deadlines,
    fighters: setup.fighters,
  });
  const house: (Decide | null)[] = setup.seats.map((s, f) =>
    s.kind === "house" ? houseBot(s.name).create(match.hello(f)) : null,
  );
  const send = (m: FromWorker) => {
    out.control(key, m);
    queueFlush();
  };
  const write = (f: number, buf: Uint8Array, at: number) => match.writeObservation(f, buf, at);
  // Scratch for each tick's inputs: match.play() keeps neither the array nor its members.
  const inputs: [TurnInput, TurnInput] = [NO_REPLY, NO_REPLY];
  const houseTurns = [
    { raw: null as unknown, ms: 0 },
    { raw: null as unknown, ms: 0 },
  ];
  /** Writes the tick's replay line, after the observations went out (see lineOwed). */
  const recordLine = () => {
    match.recordTick();
    // Not kept past the line: the house bot's turns are garbage once recorded.
    houseTurns[0]!.raw = houseTurns[1]!.raw = null;
  };

  return new Promise<MatchOutcome>((resolve) => {
    const finish = () => {
      routes.delete(key);
      if (tracing) shipTrace(key);
      const r = match.result!;
      const gz = match.replay.gzip();
      const replay = gz.buffer.slice(gz.byteOffset, gz.byteOffset + gz.byteLength) as ArrayBuffer;
      const outcome: MatchOutcome = {
        winner: r.winner,
        reason: r.reason,
        finalTick: r.finalTick,
        stats: match.stats(),
        replay,
      };
      port.close();
      resolve(outcome);
    };
    const nextTick = () => {
      if (match.over) return finish();
      out.observe(key, match.tick, match.deadlineMs(0), match.deadlineMs(1), write, !house[0], !house[1]);
      queueFlush();
    };
    /** Plays a tick from the remote seats' inputs (null for a house seat) and then disqualifies the seats in
     * `expired` (bit 0, bit 1) whose reconnect grace ran out during it. */
    const playTick = (
      tick: number,
      remote: readonly (TurnInput | null)[],
      expired: number,
      replaying = false,
    ) => {
      if (match.over) return;
      if (tick !== match.tick) return; // a stale message after a resume; the front resends
      for (let f = 0; f < 2; f++) {
        const decide = house[f];
        if (!decide) {
          inputs[f] = remote[f] ?? NO_REPLY;
          continue;
        }
        const t0 = performance.now();
        const turn = houseTurns[f]!;
        turn.raw = decide(match.observation(f));
        turn.ms = performance.now() - t0;
        inputs[f] = turn;
      }
      if (tracing) stamp(key, tick, Hop.workerReceived, batchAt);
      match.play(inputs, true);
      if (tracing) stamp(key, tick, Hop.stepped);
      if (replaying) recordLine();
      else lineOwed.push(recordLine);
      inputs[0] = inputs[1] = NO_REPLY; // the match keeps its members until its line is written
      if (expired !== 0) match.disqualify(expired === 3 ? [0, 1] : [expired === 1 ? 0 : 1]);
      if (replaying) return;
      nextTick();
      if (tracing && !match.over) {
        stamp(key, tick, Hop.written);
        tracedTicks.push(key, tick);
      }
    };
    const onMessage = (m: ToWorker) => {
      if (m.t === "peek") {
        // Read-only, cheap (the lines decoded from the replay's bytes), asked for only while someone watches.
        match.recordTick();
        send({ t: "peek", id: m.id, lines: match.replay.linesFrom(m.since) });
        return;
      }
      if (match.over) return;
      switch (m.t) {
        case "start": {
          // A resumed match settled its start in the re-simulation.
          const missing = setup.resume ? [] : m.ready.flatMap((r, f) => (r || house[f] ? [] : [f]));
          if (missing.length > 0) match.forfeit(missing);
          nextTick();
          break;
        }
        case "tick":
          // The link delivers ticks to playTick directly; a tick as a message is the same thing.
          playTick(
            m.tick,
            m.inputs,
            (m.expired ?? []).reduce((bits, f) => bits | (1 << f), 0),
          );
          break;
        case "resume":
          send({
            t: "resume",
            seat: m.seat,
            hello: JSON.stringify(match.hello(m.seat)),
            // A reconnect is rare: its observation is built and stringified the plain way.
            obs: match.over || house[m.seat] ? null : JSON.stringify(match.observation(m.seat)),
          });
          break;
        case "abort":
          match.abort(m.why);
          finish();
          break;
      }
    };
    // After hello the front talks over the link; the match's own port only carries an early abort.
    routes.set(key, { control: onMessage, turns: playTick });
    port.on("message", onMessage);
    const resumeFailed = setup.resume
      ? resimulate(match, setup.resume, [!house[0], !house[1]], (t, inp, x) => playTick(t, inp, x, true))
      : null;
    const front = openLink();
    const hello: WorkerHello = {
      t: "hello",
      hello: [JSON.stringify(match.hello(0)), JSON.stringify(match.hello(1))],
      thread: threadId,
      tid: osThreadId,
    };
    if (front) {
      hello.link = front.port;
      if (front.ring) hello.ring = front.ring;
    }
    if (resumeFailed) hello.resumeFailed = resumeFailed;
    port.postMessage(hello, front ? [front.port] : []);
    startPump();
  });
}
