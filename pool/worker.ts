// Piscina worker entry: runs one match per task, many tasks at once per worker. The engine module is
// compiled once per worker thread (engineModule() caches it); each match gets its own instance.
import { readlinkSync } from "node:fs";
import { MessageChannel, type MessagePort, threadId } from "node:worker_threads";
import { houseBot } from "../engine/bots/index.ts";
import type { Decide } from "../engine/bots/types.ts";
import { Match, type TurnInput } from "../engine/match.ts";
import { type LinkHandlers, LinkWriter, readBatch } from "./link.ts";
import type { FromWorker, MatchOutcome, TaskInput, ToWorker, WorkerHello } from "./protocol.ts";

// ---- this thread's link to the front process, shared by all its matches (see protocol.ts)

let link: MessagePort | null = null;
const routes = new Map<number, (m: ToWorker) => void>();
// Observations are written by each match's observation writer straight into this batch buffer (no object or
// string in between); the batch is moved to the front once per event-loop turn (see link.ts).
const out = new LinkWriter(16 * 1024);
let inBatch = false;
let flushQueued = false;

function flush(): void {
  flushQueued = false;
  if (out.empty || !link) return;
  const batch = out.take();
  link.postMessage(batch, [batch[0]]);
}

/** A batch being handled sends everything it produced in one message; anything else goes out this turn. */
function queueFlush(): void {
  if (!inBatch && !flushQueued) {
    flushQueued = true;
    queueMicrotask(flush);
  }
}

const handlers: LinkHandlers = {
  control: (key, m) => routes.get(key)?.(m as ToWorker),
  turns: (key, tick, inputs, expired) =>
    routes.get(key)?.({
      t: "tick",
      tick,
      inputs: [inputs[0], inputs[1]],
      ...(expired ? { expired: expired === 3 ? [0, 1] : [expired === 1 ? 0 : 1] } : {}),
    }),
};

/** Creates the link on this thread's first match; returns the front's end to hand over, or null. */
function openLink(): MessagePort | null {
  if (link) return null;
  const { port1, port2 } = new MessageChannel();
  link = port1;
  link.on("message", (batch: unknown[]) => {
    inBatch = true;
    try {
      readBatch(batch, handlers);
    } finally {
      inBatch = false;
      flush();
    }
  });
  return port2;
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

  return new Promise<MatchOutcome>((resolve) => {
    const finish = () => {
      routes.delete(key);
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
    const onMessage = (m: ToWorker) => {
      if (m.t === "peek") {
        // Read-only, cheap (the lines are already serialised), and asked for only while someone watches.
        send({ t: "peek", id: m.id, lines: match.replay.linesFrom(m.since) });
        return;
      }
      if (match.over) return;
      switch (m.t) {
        case "start": {
          const missing = m.ready.flatMap((r, f) => (r || house[f] ? [] : [f]));
          if (missing.length > 0) match.forfeit(missing);
          nextTick();
          break;
        }
        case "tick": {
          if (m.tick !== match.tick) return; // a stale message after a resume; the front resends
          const inputs = m.inputs.map((inp, f): TurnInput => {
            const decide = house[f];
            if (!decide) return inp ?? { idle: "timeout", ms: 0 };
            const t0 = performance.now();
            const raw = decide(match.observation(f));
            return { raw, ms: performance.now() - t0 };
          });
          match.play(inputs as [TurnInput, TurnInput]);
          if (m.expired) match.disqualify(m.expired);
          nextTick();
          break;
        }
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
    routes.set(key, onMessage);
    port.on("message", onMessage);
    const front = openLink();
    const hello: WorkerHello = {
      t: "hello",
      hello: [JSON.stringify(match.hello(0)), JSON.stringify(match.hello(1))],
      thread: threadId,
      tid: osThreadId,
    };
    if (front) hello.link = front;
    port.postMessage(hello, front ? [front] : []);
  });
}
