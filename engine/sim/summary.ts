// The summary of a `play` run: results per bot with a Wilson 95 % interval, end reasons, tick counts, stat
// averages from each match's stats, and what went wrong per bot (crashes, hangs, throws, refused parts with the
// first few details). One object for --json, and a plain-text rendering of it.
import { ATTACK_NAMES } from "../rules.ts";
import { VERSIONS, type Versions } from "../versions.ts";
import type { MatchOutcome, RejectionSample, Side } from "./run.ts";
import type { SeatNote } from "./seats.ts";

/** Refusal reasons that mean the bot sent something malformed, as opposed to a legal-but-impossible action. */
const PROTOCOL_REASONS = new Set(["schema", "unknown_attack", "conflicting_moves", "bad_text"]);
const SAMPLES_SHOWN = 8;
const NOTES_SHOWN = 3;

export interface RunConfig {
  a: string;
  b: string;
  matches: number;
  map: string;
  seed: number;
  tick_ms: number;
  startup_ms: number;
}

export interface WeaponSummary {
  uses: number;
  hits: number;
  damage: number;
  /** hits / uses, null when never used. */
  accuracy: number | null;
  uses_per_match: number;
}

export interface BotSummary {
  side: Side;
  spec: string;
  name: string;
  version: string;
  wins: number;
  losses: number;
  draws: number;
  /** wins / decided-or-drawn matches (voided ones excluded); null with no such match. */
  win_rate: number | null;
  win_rate_ci95: [number, number] | null;
  /** (wins + draws / 2) / matches. */
  score: number | null;
  per_match: { damage_dealt: number; damage_taken: number; healed: number; moves: number; dashes: number };
  weapons: Record<string, WeaponSummary>;
  /** Refused parts of accepted turns, totals by reason (stats.rejected). */
  refused_parts: Record<string, number>;
  /** Whole turns refused, totals by reason (stats.refused_turns_by_reason). */
  refused_turns: Record<string, number>;
  server_idles: { timeout: number; disconnected: number };
  disconnects: number;
  disqualified: number;
  forfeits: number;
  reply_ms: { mean: number | null; max: number | null };
  errors: {
    crashes: number;
    timeouts: number;
    throws: number;
    startup_failures: number;
    protocol_refusals: number;
    /** Human-readable lines, also printed in the text summary. */
    lines: string[];
    rejection_samples: RejectionSample[];
  };
}

export interface MatchLine {
  match_id: string;
  seed: number;
  map: string;
  /** The side in fighter 0. */
  fighter0: Side;
  winner: Side | null;
  reason: string;
  ticks: number;
  replay: string | null;
}

export interface Summary {
  simulator: Versions;
  config: RunConfig;
  matches: number;
  draws: number;
  voided: number;
  bots: [BotSummary, BotSummary];
  end_reasons: Record<string, number>;
  ticks: { mean: number | null; min: number | null; max: number | null };
  results: MatchLine[];
  wall_ms: number;
}

/** Wilson score interval for k successes in n trials (z = 1.96 for 95 %). */
export function wilson(k: number, n: number, z = 1.959964): [number, number] {
  if (n === 0) return [0, 1];
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

const add = (into: Record<string, number>, from: Record<string, number | undefined>) => {
  for (const [k, v] of Object.entries(from)) if (v) into[k] = (into[k] ?? 0) + v;
};
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

function botSummary(side: Side, spec: string, outcomes: MatchOutcome[]): BotSummary {
  const counted = outcomes.filter((o) => o.reason !== "voided" && o.reason !== "aborted");
  const wins = counted.filter((o) => o.winner === side).length;
  const draws = counted.filter((o) => o.winner === null).length;
  const losses = counted.length - wins - draws;
  const n = counted.length;
  const fs = outcomes.map((o) => o.fighters[side]);
  const mean = (f: (x: (typeof fs)[number]) => number) =>
    fs.length === 0 ? 0 : round(fs.reduce((s, x) => s + f(x), 0) / fs.length, 2);
  const weapons: Record<string, WeaponSummary> = {};
  for (const name of ATTACK_NAMES) {
    const uses = fs.reduce((s, x) => s + (x.weapons[name]?.uses ?? 0), 0);
    const hits = fs.reduce((s, x) => s + (x.weapons[name]?.hits ?? 0), 0);
    const damage = fs.reduce((s, x) => s + (x.weapons[name]?.damage ?? 0), 0);
    weapons[name] = {
      uses,
      hits,
      damage,
      accuracy: uses === 0 ? null : round(hits / uses),
      uses_per_match: fs.length === 0 ? 0 : round(uses / fs.length, 2),
    };
  }
  const refused_parts: Record<string, number> = {};
  const refused_turns: Record<string, number> = {};
  const idles = { timeout: 0, disconnected: 0 };
  let replies = 0;
  let replyMsTotal = 0;
  let replyMax: number | null = null;
  for (const f of fs) {
    add(refused_parts, f.rejected);
    add(refused_turns, f.refused_turns_by_reason);
    idles.timeout += f.server_idles.timeout ?? 0;
    idles.disconnected += f.server_idles.disconnected ?? 0;
    replies += f.timing.replies;
    replyMsTotal += f.timing.mean_ms * f.timing.replies;
    if (f.timing.replies > 0) replyMax = Math.max(replyMax ?? 0, f.timing.max_ms);
  }
  const notes = outcomes.flatMap((o) => o.notes[side]);
  const samples = outcomes.flatMap((o) => o.rejections[side]);
  const forfeits = outcomes.filter(
    (o) => o.reason === "forfeit" && o.winner !== side && o.winner !== null,
  ).length;
  const disqualified = fs.filter((f) => f.disqualified).length;
  const protocolRefusals =
    Object.entries(refused_parts).reduce((s, [k, v]) => s + (PROTOCOL_REASONS.has(k) ? v : 0), 0) +
    Object.entries(refused_turns).reduce((s, [k, v]) => s + (PROTOCOL_REASONS.has(k) ? v : 0), 0);
  const first = fs[0];
  const name = first?.name ?? spec;
  const summary: BotSummary = {
    side,
    spec,
    name,
    version: first?.version ?? "",
    wins,
    losses,
    draws,
    win_rate: n === 0 ? null : round(wins / n, 4),
    win_rate_ci95: n === 0 ? null : (wilson(wins, n).map((x) => round(x, 4)) as [number, number]),
    score: n === 0 ? null : round((wins + draws / 2) / n, 4),
    per_match: {
      damage_dealt: mean((x) => x.damage_dealt),
      damage_taken: mean((x) => x.damage_taken),
      healed: mean((x) => x.healed),
      moves: mean((x) => x.moves),
      dashes: mean((x) => x.dashes),
    },
    weapons,
    refused_parts,
    refused_turns,
    server_idles: idles,
    disconnects: fs.reduce((s, x) => s + x.disconnects, 0),
    disqualified,
    forfeits,
    reply_ms: {
      mean: replies === 0 ? null : round(replyMsTotal / replies, 3),
      max: replyMax === null ? null : round(replyMax, 3),
    },
    errors: {
      crashes: notes.filter((x) => x.kind === "exit" || x.kind === "worker_crash").length,
      timeouts: idles.timeout,
      throws: notes.reduce((n, x) => n + (x.kind === "throw" ? (x.count ?? 1) : 0), 0),
      startup_failures: forfeits,
      protocol_refusals: protocolRefusals,
      lines: [],
      rejection_samples: pickSamples(samples),
    },
  };
  summary.errors.lines = errorLines(summary, notes, samples, outcomes.length);
  return summary;
}

/** The first few refusals: one of each kind (part and reason), then one of each detail, then repeats. */
function pickSamples(samples: RejectionSample[]): RejectionSample[] {
  const chosen = new Set<number>();
  const keys = [(s: RejectionSample) => `${s.part}/${s.reason}`, (s: RejectionSample) => s.detail, null];
  for (const key of keys) {
    const seen = new Set([...chosen].map((i) => (key ? key(samples[i]!) : "")));
    samples.forEach((s, i) => {
      if (chosen.size >= SAMPLES_SHOWN || chosen.has(i)) return;
      if (key) {
        if (seen.has(key(s))) return;
        seen.add(key(s));
      }
      chosen.add(i);
    });
  }
  return [...chosen].sort((x, y) => x - y).map((i) => samples[i]!);
}

function errorLines(b: BotSummary, notes: SeatNote[], samples: RejectionSample[], matches: number): string[] {
  const lines: string[] = [];
  const group = (kinds: SeatNote["kind"][]) => {
    const sel = notes.filter((n) => kinds.includes(n.kind));
    for (const n of sel.slice(0, NOTES_SHOWN)) lines.push(`${n.match_id}: ${n.message}`);
    if (sel.length > NOTES_SHOWN) lines.push(`... and ${sel.length - NOTES_SHOWN} more like these`);
  };
  group(["exit", "worker_crash"]);
  group(["no_ready", "start_error"]);
  if (b.forfeits > 0)
    lines.push(`forfeited ${b.forfeits} of ${matches} matches (not ready within the startup window)`);
  if (b.server_idles.timeout > 0) {
    const threw = notes.some((n) => n.kind === "throw");
    lines.push(
      `${b.server_idles.timeout} ticks idled as timeout (${threw ? "decide threw, or " : ""}no reply before the deadline)`,
    );
  }
  group(["throw"]);
  if (b.server_idles.disconnected > 0)
    lines.push(`${b.server_idles.disconnected} ticks idled as disconnected`);
  if (b.disqualified > 0)
    lines.push(`disqualified in ${b.disqualified} of ${matches} matches (10 failed ticks in a row)`);
  const refusals = Object.entries({ ...b.refused_turns })
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const parts = Object.entries(b.refused_parts)
    .filter(([k]) => PROTOCOL_REASONS.has(k))
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  if (refusals) lines.push(`refused whole turns: ${refusals}`);
  if (parts) lines.push(`refused turn parts: ${parts}`);
  for (const s of pickSamples(samples)) {
    lines.push(`  tick ${s.tick} (${s.match_id}): ${s.part} refused, ${s.reason}: ${s.detail}`);
  }
  group(["ignored", "oversize", "late"]);
  return lines;
}

export function summarize(config: RunConfig, outcomes: MatchOutcome[], wallMs: number): Summary {
  const end_reasons: Record<string, number> = {};
  for (const o of outcomes) end_reasons[o.reason] = (end_reasons[o.reason] ?? 0) + 1;
  const ticks = outcomes.map((o) => o.ticks);
  return {
    simulator: VERSIONS,
    config,
    matches: outcomes.length,
    draws: outcomes.filter((o) => o.winner === null && o.reason !== "voided" && o.reason !== "aborted")
      .length,
    voided: outcomes.filter((o) => o.reason === "voided" || o.reason === "aborted").length,
    bots: [botSummary("a", config.a, outcomes), botSummary("b", config.b, outcomes)],
    end_reasons,
    ticks: {
      mean: ticks.length === 0 ? null : round(ticks.reduce((s, x) => s + x, 0) / ticks.length, 2),
      min: ticks.length === 0 ? null : Math.min(...ticks),
      max: ticks.length === 0 ? null : Math.max(...ticks),
    },
    results: outcomes.map((o) => ({
      match_id: o.plan.matchId,
      seed: o.plan.seed,
      map: o.plan.map,
      fighter0: o.plan.swapped ? "b" : "a",
      winner: o.winner,
      reason: o.reason,
      ticks: o.ticks,
      replay: o.replay,
    })),
    wall_ms: Math.round(wallMs),
  };
}

// ---------------------------------------------------------------- text rendering

const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null, d = 1) => (x === null ? "-" : x.toFixed(d));
const counts = (r: Record<string, number>) =>
  Object.keys(r).length === 0
    ? "-"
    : Object.entries(r)
        .sort((x, y) => y[1] - x[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join("  ")
      .trimEnd(),
  );
}

export function formatSummary(s: Summary): string {
  const [a, b] = s.bots;
  const label = (x: BotSummary) =>
    `${x.side.toUpperCase()} ${x.name}${x.spec !== x.name ? ` (${x.spec})` : ""}`;
  const maps = s.config.map === "all" ? "all maps" : s.config.map;
  const seeds =
    s.matches <= 1 ? `seed ${s.config.seed}` : `seeds ${s.config.seed}-${s.config.seed + s.matches - 1}`;
  const out: string[] = [];
  out.push(
    `arena-sim ${s.simulator.release} (engine ${s.simulator.engine}, rules ${s.simulator.rules}): ${s.matches} match${s.matches === 1 ? "" : "es"}, ${maps}, ${seeds}, ${(s.wall_ms / 1000).toFixed(1)} s`,
  );
  out.push("");
  out.push(
    ...table([
      ["", "wins", "losses", "draws", "win rate", "95% CI", "score"],
      ...[a, b].map((x) => [
        label(x),
        String(x.wins),
        String(x.losses),
        String(x.draws),
        pct(x.win_rate),
        x.win_rate_ci95 ? `${pct(x.win_rate_ci95[0])}-${pct(x.win_rate_ci95[1])}` : "-",
        pct(x.score),
      ]),
    ]),
  );
  if (s.voided > 0) out.push(`voided: ${s.voided}`);
  out.push("");
  out.push(`end reasons: ${counts(s.end_reasons)}`);
  out.push(`ticks: mean ${num(s.ticks.mean)}, min ${s.ticks.min ?? "-"}, max ${s.ticks.max ?? "-"}`);
  out.push("");
  const acc = (x: BotSummary, w: string) => {
    const ws = x.weapons[w]!;
    return ws.uses === 0 ? "-" : `${pct(ws.accuracy)} of ${num(ws.uses_per_match)}/match`;
  };
  out.push(
    ...table([
      ["per match (mean)", label(a), label(b)],
      ["damage dealt", num(a.per_match.damage_dealt), num(b.per_match.damage_dealt)],
      ["damage taken", num(a.per_match.damage_taken), num(b.per_match.damage_taken)],
      ["healed", num(a.per_match.healed), num(b.per_match.healed)],
      ...ATTACK_NAMES.map((w) => [`accuracy ${w}`, acc(a, w), acc(b, w)]),
      [
        "moves / dashes",
        `${num(a.per_match.moves)} / ${num(a.per_match.dashes)}`,
        `${num(b.per_match.moves)} / ${num(b.per_match.dashes)}`,
      ],
      [
        "reply ms mean / max",
        `${num(a.reply_ms.mean, 2)} / ${num(a.reply_ms.max, 2)}`,
        `${num(b.reply_ms.mean, 2)} / ${num(b.reply_ms.max, 2)}`,
      ],
    ]),
  );
  out.push("");
  out.push("totals over all matches");
  for (const x of [a, b]) {
    out.push(`  ${label(x)}`);
    out.push(`    refused parts: ${counts(x.refused_parts)}`);
    out.push(`    refused turns: ${counts(x.refused_turns)}`);
    out.push(
      `    server idles: timeout ${x.server_idles.timeout}, disconnected ${x.server_idles.disconnected}`,
    );
  }
  out.push("");
  const errs = [a, b].filter((x) => x.errors.lines.length > 0);
  if (errs.length === 0) out.push("errors: none");
  else {
    out.push("errors");
    for (const x of errs) {
      out.push(`  ${label(x)}`);
      for (const l of x.errors.lines) out.push(`    ${l}`);
    }
  }
  return `${out.join("\n")}\n`;
}
