// Engine benchmarks (issue 2): engine step alone in Wasm with both fighters acting, the same workload's
// observation building, and whole simulator matches per second on one core. Each prints its figure and
// the ratio to its target; the workload is recorded from real matches so every mechanic is exercised.
// Issue 13 adds the observations' serialisation: JSON.stringify + TextEncoder against the observation writer.
// `npx tsx test/bench/engine-bench.ts [--quick] [--observations]` runs these alone (the last flag: only that).

import { pathToFileURL } from "node:url";
import { Engine, type EngineTurn } from "../../engine/host.ts";
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import type { Strategy } from "../../engine/house/types.ts";
import { Match, type TurnInput } from "../../engine/match.ts";
import { MAP_NAMES } from "../../engine/rules.ts";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { validateTurn } from "../../engine/turns.ts";
import { scriptedBot } from "../helpers/scripted-bot.ts";

export interface BenchLine {
  name: string;
  value: number;
  unit: string;
  target?: number;
  /** A ceiling rather than a floor (a time per call). */
  lowerIsBetter?: boolean;
}

interface Recorded {
  map: string;
  seed: number;
  inputs: [TurnInput, TurnInput][];
  engineTurns: [EngineTurn, EngineTurn][];
}

/** Records the inputs of real scripted matches (every part kind, some refusals) to replay them fast. */
async function record(count: number): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for (let i = 0; i < count; i++) {
    const map = MAP_NAMES[i % MAP_NAMES.length]!;
    const seed = 1000 + i;
    const { match } = await playMatch(
      [strategySeat(scriptedBot(seed)), strategySeat(scriptedBot(seed * 7))],
      {
        matchId: `bench-${i}`,
        seed,
        map,
      },
    );
    const inputs: [TurnInput, TurnInput][] = [];
    const engineTurns: [EngineTurn, EngineTurn][] = [];
    for (const line of match.replay.linesFrom(1)) {
      const l = JSON.parse(line) as { type: string; tick: number; turns: { raw: unknown }[] };
      if (l.type !== "tick") continue;
      inputs.push([
        { raw: l.turns[0]!.raw, ms: 1 },
        { raw: l.turns[1]!.raw, ms: 1 },
      ]);
      engineTurns.push([
        validateTurn(l.turns[0]!.raw, l.tick).turn,
        validateTurn(l.turns[1]!.raw, l.tick).turn,
      ]);
    }
    out.push({ map, seed, inputs, engineTurns });
  }
  return out;
}

function timeFor(ms: number, body: () => number): { ticks: number; seconds: number } {
  let ticks = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) ticks += body();
  return { ticks, seconds: (performance.now() - t0) / 1000 };
}

export async function engineBench(quick = false): Promise<BenchLine[]> {
  const runMs = quick ? 300 : 2000;
  const work = await record(6);
  const lines: BenchLine[] = [];

  // 1. Engine step alone: host writes both turns, the Wasm resolves the tick, the host reads the event count.
  const step = timeFor(runMs, () => {
    let n = 0;
    for (const r of work) {
      const e = new Engine(r.map, r.seed);
      for (const [a, b] of r.engineTurns) {
        if (e.over) break;
        e.step(a, b);
        n++;
      }
    }
    return n;
  });
  lines.push({
    name: "engine step (Wasm, both fighters acting)",
    value: step.ticks / step.seconds,
    unit: "ticks/s",
    target: 200_000,
  });

  // 2. The same workload through the host's match: validation, step, events, stats, replay line, and both
  // fighters' observations. Reported as the observation-building share alone and as the whole.
  let obsSeconds = 0;
  let obsTicks = 0;
  const full = timeFor(runMs, () => {
    let n = 0;
    for (const r of work) {
      const m = new Match({
        matchId: "b",
        seed: r.seed,
        map: r.map,
        fighters: [
          { name: "a", display_name: "A", version: "1" },
          { name: "b", display_name: "B", version: "1" },
        ],
      });
      for (const input of r.inputs) {
        if (m.over) break;
        const t0 = performance.now();
        m.observation(0);
        m.observation(1);
        obsSeconds += (performance.now() - t0) / 1000;
        obsTicks++;
        m.play(input);
        n++;
      }
    }
    return n;
  });
  lines.push({ name: "observation building (both fighters)", value: obsTicks / obsSeconds, unit: "ticks/s" });
  lines.push({
    name: "host match tick (validate + step + stats + replay + 2 observations)",
    value: full.ticks / full.seconds,
    unit: "ticks/s",
  });

  lines.push(...(await observationBench(quick, work)));

  // 3. Whole simulator matches between house bots on one core.
  const names = Object.keys(HOUSE_BOTS);
  let matches = 0;
  let seed = 1;
  const sim = await (async () => {
    let ticks = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < runMs * 2) {
      const a = HOUSE_BOTS[names[seed % names.length]!]!;
      const b = HOUSE_BOTS[names[(seed + 1 + (seed >> 2)) % names.length]!]!;
      const { match } = await playMatch([strategySeat(a), strategySeat(b)], {
        matchId: `sim-${seed}`,
        seed,
        map: MAP_NAMES[seed % MAP_NAMES.length]!,
      });
      ticks += match.tick;
      matches++;
      seed++;
    }
    return { ticks, seconds: (performance.now() - t0) / 1000 };
  })();
  lines.push({
    name: "simulated matches, house bots (engine + observations + bots)",
    value: sim.ticks / sim.seconds,
    unit: "ticks/s",
    target: 20_000,
  });
  lines.push({
    name: "simulated matches per second (one core)",
    value: matches / sim.seconds,
    unit: "matches/s",
  });

  // 4. A house bot's decision time (the champion, the most expensive): the simulator budget is ~20 µs a
  // call; 200 µs is the ceiling (a timing figure, so here rather than in the unit tests).
  const champion = HOUSE_BOTS.champion!;
  const calls = { ms: 0, n: 0 };
  const timed: Strategy = {
    ...champion,
    create(hello) {
      const decide = champion.create(hello);
      return (obs) => {
        const t0 = performance.now();
        const t = decide(obs);
        calls.ms += performance.now() - t0;
        calls.n++;
        return t;
      };
    },
  };
  for (let i = 0; i < (quick ? 2 : 6); i++) {
    await playMatch([strategySeat(timed), strategySeat(HOUSE_BOTS["ts-starter"]!)], {
      matchId: `decide-${i}`,
      seed: 100 + i,
      map: MAP_NAMES[i % MAP_NAMES.length]!,
    });
  }
  lines.push({
    name: "house bot decision (champion, per call)",
    value: (1000 * calls.ms) / calls.n,
    unit: "µs",
    target: 200,
    lowerIsBetter: true,
  });
  return lines;
}

/**
 * The worker's per-tick serialisation of both observations to UTF-8 bytes, the old way (build the object,
 * JSON.stringify, TextEncoder) against the observation writer (into a scratch buffer, copied out at its exact
 * length, as pool/worker.ts does), on the same recorded matches. Both are timed on the same states, tick by
 * tick and in alternating order, so load from elsewhere on the machine falls on both alike; three rounds, each
 * figure the median of the rounds.
 */
export async function observationBench(quick = false, recorded?: Recorded[]): Promise<BenchLine[]> {
  const runMs = quick ? 300 : 2000;
  const work = recorded ?? (await record(6));
  const utf8 = new TextEncoder();
  let scratch = new Uint8Array(16 * 1024);
  const viaWriter = (m: Match, f: number) => {
    let end = m.writeObservation(f, scratch, 0);
    while (end < 0) {
      scratch = new Uint8Array(scratch.length * 2);
      end = m.writeObservation(f, scratch, 0);
    }
    return scratch.slice(0, end);
  };
  const viaStringify = (m: Match, f: number) => utf8.encode(JSON.stringify(m.observation(f)));
  const rounds: { stringify: number; writer: number }[] = [];
  for (let round = 0; round < 3; round++) {
    let stringifyMs = 0;
    let writerMs = 0;
    let ticks = 0;
    let bytes = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < runMs) {
      for (const r of work) {
        const m = new Match({
          matchId: "b",
          seed: r.seed,
          map: r.map,
          fighters: [
            { name: "a", display_name: "A", version: "1" },
            { name: "b", display_name: "B", version: "1" },
          ],
        });
        for (const input of r.inputs) {
          if (m.over) break;
          const writerFirst = (ticks & 1) === 0;
          for (let k = 0; k < 2; k++) {
            const t = performance.now();
            if ((k === 0) === writerFirst) {
              bytes += viaWriter(m, 0).length + viaWriter(m, 1).length;
              writerMs += performance.now() - t;
            } else {
              bytes -= viaStringify(m, 0).length + viaStringify(m, 1).length;
              stringifyMs += performance.now() - t;
            }
          }
          ticks++;
          m.play(input);
        }
      }
    }
    // Both ways produce the same bytes (test/unit/observation-writer.test.ts); this only guards the benchmark.
    if (bytes !== 0) throw new Error("the writer and JSON.stringify gave different lengths");
    rounds.push({ stringify: ticks / (stringifyMs / 1000), writer: ticks / (writerMs / 1000) });
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const stringify = median(rounds.map((r) => r.stringify));
  const writer = median(rounds.map((r) => r.writer));
  return [
    {
      name: "observations to UTF-8, JSON.stringify + TextEncoder (both fighters)",
      value: stringify,
      unit: "ticks/s",
    },
    { name: "observations to UTF-8, observation writer (both fighters)", value: writer, unit: "ticks/s" },
    {
      name: "observation writer speed-up (median of rounds)",
      value: median(rounds.map((r) => r.writer / r.stringify)),
      unit: "x",
    },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes("--quick");
  const lines = process.argv.includes("--observations")
    ? await observationBench(quick)
    : await engineBench(quick);
  for (const l of lines) console.log(`${l.name}: ${l.value.toFixed(2)} ${l.unit}`);
}
