// Piscina worker entry: runs one match per task, many tasks at once per worker. The engine module is
// compiled once per worker thread (engineModule() caches it); each match gets its own instance.
import { type MessagePort, threadId } from "node:worker_threads";
import { houseBot } from "../engine/bots/index.ts";
import type { Decide } from "../engine/bots/types.ts";
import { Match, type TurnInput } from "../engine/match.ts";
import type { FromWorker, MatchOutcome, TaskInput, ToWorker } from "./protocol.ts";

export default function runMatch(input: TaskInput): Promise<MatchOutcome> {
  const { setup } = input;
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
  const send = (m: FromWorker) => port.postMessage(m);
  const obsFor = (f: number) => (house[f] ? null : JSON.stringify(match.observation(f)));

  return new Promise<MatchOutcome>((resolve) => {
    const finish = () => {
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
      send({
        t: "tick",
        tick: match.tick,
        obs: [obsFor(0), obsFor(1)],
        deadlineMs: [match.deadlineMs(0), match.deadlineMs(1)],
      });
    };
    port.on("message", (m: ToWorker) => {
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
          nextTick();
          break;
        }
        case "resume":
          send({
            t: "resume",
            seat: m.seat,
            hello: JSON.stringify(match.hello(m.seat)),
            obs: match.over ? null : obsFor(m.seat),
          });
          break;
        case "abort":
          match.abort(m.why);
          finish();
          break;
      }
    });
    send({
      t: "hello",
      hello: [JSON.stringify(match.hello(0)), JSON.stringify(match.hello(1))],
      thread: threadId,
    });
  });
}
