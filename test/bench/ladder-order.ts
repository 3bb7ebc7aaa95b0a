// Proves the house bots' strength ordering kiter < brawler < ts-starter < champion by playing them against
// each other in-process (playMatch + strategySeat) and printing a Markdown table.
//
//   npx tsx test/bench/ladder-order.ts [--total 400] [--only champion,ts-starter] [--per-pair 50]
//
// Default split of the 400 matches: the three adjacent pairs carry the ordering claim, so they get 100
// matches each (standard error of a score near 75 % is about 4 points); the three non-adjacent pairs get the
// remaining 100 (34/33/33) to show the ladder is transitive. Within a pair, match i (1-based) uses seed i,
// map MAPS[(i - 1) % 3] and swaps seats every other match, so every map is played from both seats.
// Exit code 1 when an adjacent pair's stronger bot scores 55 % or less (draws count half).
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import type { Strategy } from "../../engine/house/types.ts";
import { MAP_NAMES } from "../../engine/rules.ts";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";

const ORDER = ["kiter", "brawler", "ts-starter", "champion"] as const;
const THRESHOLD = 55;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface PairPlan {
  a: string; // the stronger bot (higher in ORDER)
  b: string;
  matches: number;
  adjacent: boolean;
}

function plan(): PairPlan[] {
  const total = Number(arg("total") ?? 400);
  const perPair = arg("per-pair");
  const only = arg("only")?.split(",");
  const pairs: PairPlan[] = [];
  for (let i = ORDER.length - 1; i > 0; i--) {
    for (let j = i - 1; j >= 0; j--) {
      pairs.push({ a: ORDER[i]!, b: ORDER[j]!, matches: 0, adjacent: i - j === 1 });
    }
  }
  let chosen = pairs;
  if (only) chosen = pairs.filter((p) => only.includes(p.a) && only.includes(p.b));
  if (perPair) {
    for (const p of chosen) p.matches = Number(perPair);
    return chosen;
  }
  if (only) {
    const each = Math.floor(total / chosen.length);
    chosen.forEach((p, k) => {
      p.matches = each + (k < total - each * chosen.length ? 1 : 0);
    });
    return chosen;
  }
  // Adjacent pairs: three quarters of the total; the rest spread over the non-adjacent pairs.
  const adj = chosen.filter((p) => p.adjacent);
  const rest = chosen.filter((p) => !p.adjacent);
  const adjTotal = Math.round((total * 3) / 4);
  adj.forEach((p, k) => {
    p.matches = Math.floor(adjTotal / adj.length) + (k < adjTotal % adj.length ? 1 : 0);
  });
  const restTotal = total - adjTotal;
  rest.forEach((p, k) => {
    p.matches = Math.floor(restTotal / rest.length) + (k < restTotal % rest.length ? 1 : 0);
  });
  return chosen;
}

interface PairResult {
  plan: PairPlan;
  winsA: number;
  winsB: number;
  draws: number;
  reasons: Map<string, number>;
  maps: Map<string, { a: number; b: number; d: number }>;
  ticks: number;
}

const decideMs = new Map<string, { ms: number; calls: number }>();
const rejected = new Map<string, Map<string, number>>();

function timed(s: Strategy): Strategy {
  return {
    ...s,
    create(hello) {
      const decide = s.create(hello);
      const acc = decideMs.get(s.name) ?? { ms: 0, calls: 0 };
      decideMs.set(s.name, acc);
      return (obs) => {
        const t0 = performance.now();
        const t = decide(obs);
        acc.ms += performance.now() - t0;
        acc.calls++;
        return t;
      };
    },
  };
}

async function runPair(p: PairPlan): Promise<PairResult> {
  const res: PairResult = {
    plan: p,
    winsA: 0,
    winsB: 0,
    draws: 0,
    reasons: new Map(),
    maps: new Map(),
    ticks: 0,
  };
  const A = timed(HOUSE_BOTS[p.a]!);
  const B = timed(HOUSE_BOTS[p.b]!);
  for (let i = 1; i <= p.matches; i++) {
    const map = MAP_NAMES[(i - 1) % MAP_NAMES.length]!;
    const swap = i % 2 === 0;
    const seats = swap ? [strategySeat(B), strategySeat(A)] : [strategySeat(A), strategySeat(B)];
    const { match, stats } = await playMatch(
      seats as [ReturnType<typeof strategySeat>, ReturnType<typeof strategySeat>],
      {
        matchId: `ladder-${p.a}-${p.b}-${i}`,
        seed: i,
        map,
      },
    );
    const r = match.result!;
    const aId = swap ? 1 : 0;
    const m = res.maps.get(map) ?? { a: 0, b: 0, d: 0 };
    res.maps.set(map, m);
    if (r.winner === null) {
      res.draws++;
      m.d++;
    } else if (r.winner === aId) {
      res.winsA++;
      m.a++;
    } else {
      res.winsB++;
      m.b++;
    }
    res.reasons.set(r.reason, (res.reasons.get(r.reason) ?? 0) + 1);
    res.ticks += r.finalTick;
    for (const f of stats.fighters) {
      const byReason = rejected.get(f.name) ?? new Map<string, number>();
      rejected.set(f.name, byReason);
      for (const [k, v] of Object.entries(f.rejected)) byReason.set(k, (byReason.get(k) ?? 0) + v);
      byReason.set("_turns", (byReason.get("_turns") ?? 0) + stats.ticks);
    }
  }
  return res;
}

const score = (r: PairResult) => (100 * (r.winsA + r.draws / 2)) / Math.max(1, r.plan.matches);

async function main() {
  const plans = plan();
  const t0 = performance.now();
  const results: PairResult[] = [];
  for (const p of plans) results.push(await runPair(p));
  const secs = (performance.now() - t0) / 1000;
  const total = results.reduce((n, r) => n + r.plan.matches, 0);
  const reasonNames = [...new Set(results.flatMap((r) => [...r.reasons.keys()]))].sort();

  console.log(
    `### House bot ladder order (${total} matches, maps ${MAP_NAMES.join(", ")}, seeds 1..N per pair, seats alternate)\n`,
  );
  console.log(`| Pair (A vs B) | Matches | Wins A / Wins B / Draws | A score % | Avg ticks | End reasons |`);
  console.log(`|---|---:|---|---:|---:|---|`);
  for (const r of results) {
    const reasons = reasonNames
      .filter((k) => r.reasons.has(k))
      .map((k) => `${k} ${r.reasons.get(k)}`)
      .join(", ");
    console.log(
      `| ${r.plan.a} vs ${r.plan.b}${r.plan.adjacent ? "" : " (non-adjacent)"} | ${r.plan.matches} | ${r.winsA} / ${r.winsB} / ${r.draws} | ${score(r).toFixed(1)} | ${(r.ticks / r.plan.matches).toFixed(0)} | ${reasons} |`,
    );
  }
  console.log(`\n#### By map (A wins / B wins / draws)\n`);
  console.log(`| Pair | ${MAP_NAMES.join(" | ")} |`);
  console.log(`|---|${MAP_NAMES.map(() => "---").join("|")}|`);
  for (const r of results) {
    const cells = MAP_NAMES.map((m) => {
      const x = r.maps.get(m);
      return x ? `${x.a} / ${x.b} / ${x.d}` : "-";
    });
    console.log(`| ${r.plan.a} vs ${r.plan.b} | ${cells.join(" | ")} |`);
  }
  const allReasons = new Map<string, number>();
  for (const r of results) for (const [k, v] of r.reasons) allReasons.set(k, (allReasons.get(k) ?? 0) + v);
  console.log(`\nEnd reasons overall: ${[...allReasons].map(([k, v]) => `${k} ${v}`).join(", ")}`);
  console.log(`\n#### Bot health\n`);
  console.log(`| Bot | decide() mean µs | Refused parts per 100 turns (by reason) |`);
  console.log(`|---|---:|---|`);
  for (const name of ORDER) {
    const t = decideMs.get(name);
    const rj = rejected.get(name);
    if (!t || !rj) continue;
    const turns = rj.get("_turns") ?? 1;
    const parts = [...rj]
      .filter(([k]) => k !== "_turns")
      .map(([k, v]) => `${k} ${((100 * v) / turns).toFixed(2)}`)
      .join(", ");
    console.log(`| ${name} | ${((1000 * t.ms) / t.calls).toFixed(1)} | ${parts || "none"} |`);
  }
  console.log(`\n${total} matches in ${secs.toFixed(1)} s. Command: \`npx tsx test/bench/ladder-order.ts\``);

  let ok = true;
  for (const r of results) {
    if (!r.plan.adjacent) continue;
    if (score(r) <= THRESHOLD) {
      ok = false;
      console.error(
        `ORDER FAILED: ${r.plan.a} scored ${score(r).toFixed(1)} % against ${r.plan.b} (needs > ${THRESHOLD} %)`,
      );
    }
  }
  if (!ok) process.exit(1);
  console.log(`\nOrdering holds: every adjacent pair's stronger bot scores above ${THRESHOLD} %.`);
}

await main();
