#!/usr/bin/env node
// fit-ratings.mjs: recomputes a ladder's ratings, rating deviations and leaderboard scores from its open data
// dumps (gzip JSON Lines of rated results, one game a line: docs/replays-and-data.md), with nothing but Node.js.
// It stands alone on purpose (no imports from the ladder's code, no dependencies): copy it anywhere, point it at
// the dumps, and check the ladder's board, or try another rating rule on the same games.
//
// The model is the ladder's (docs/ladder.md, "Ratings"): a Bradley-Terry fit to all rated games of a ladder,
// draws as half a win, the maximum of the likelihood times a Gaussian prior of 350 rating points around 1500 on
// each version; the house bots' average is pinned at 1500 (everyone's average when a ladder has no house bot);
// the deviation is the rating's standard error relative to that pin (from the full information matrix up to 200
// versions, from its diagonal above, as the ladder does); leaderboard_score = round(rating - 2 * max(deviation,
// 25)); a version is ranked after 30 rated games; the board lists each bot once, at its ranked version that
// played last. Retired versions and bots that left are not in the dumps' lines, so they are not left out here.
//
// usage: node fit-ratings.mjs [--ladder <id>] [--versions] [--json] <dump.jsonl.gz | directory>...
import { createReadStream, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";

const BASE_RATING = 1500;
const SCALE = 400 / Math.LN10; // rating points per unit of natural log-strength
const PRIOR_SD = 350;
const QUALIFYING_GAMES = 30;
const FULL_MATRIX_LIMIT = 200;
const RESULTS = new Map([
  ["1-0", 1],
  ["0-1", 0],
  ["1/2-1/2", 0.5],
]);

function usage(message) {
  process.stderr.write(
    `${message ? `fit-ratings: ${message}\n` : ""}usage: node fit-ratings.mjs [--ladder <id>] [--versions] [--json] <dump.jsonl.gz | directory>...\n`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const o = { ladder: null, versions: false, json: false, paths: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--ladder") o.ladder = argv[++i] ?? usage("--ladder needs an id");
    else if (a === "--versions") o.versions = true;
    else if (a === "--json") o.json = true;
    else if (a === "-h" || a === "--help") usage("");
    else if (a.startsWith("-")) usage(`unknown option ${a}`);
    else o.paths.push(a);
  }
  if (o.paths.length === 0) usage("give at least one dump file or directory");
  return o;
}

/** The dump files named: files as given, directories by their *.jsonl.gz files, in name order (by day). */
function dumpFiles(paths) {
  const out = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      usage(`${p}: no such file or directory`);
    }
    if (st.isDirectory()) {
      for (const f of readdirSync(p).sort()) if (f.endsWith(".jsonl.gz")) out.push(join(p, f));
    } else out.push(p);
  }
  return out;
}

/** Every game in the dumps, once per match id (dumps of consecutive days may overlap), checked line by line. */
async function readGames(files) {
  const games = new Map();
  for (const file of files) {
    const gunzip = createGunzip();
    const lines = createInterface({ input: createReadStream(file).pipe(gunzip), crlfDelay: Infinity });
    let n = 0;
    try {
      for await (const line of lines) {
        n++;
        if (line.trim() === "") continue;
        let g;
        try {
          g = JSON.parse(line);
        } catch {
          throw new Error(`${file} line ${n}: not JSON`);
        }
        const why = invalid(g);
        if (why) throw new Error(`${file} line ${n}: ${why}`);
        games.set(g.match_id, g);
      }
    } catch (err) {
      throw new Error(err.code === "Z_DATA_ERROR" ? `${file}: not gzip (${err.message})` : err.message);
    }
  }
  // In the order they were played: the board shows each bot's version that played last.
  return [...games.values()].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}

function invalid(g) {
  if (!g || typeof g !== "object") return "not an object";
  for (const k of ["match_id", "time", "ladder_id", "map", "result", "reason"])
    if (typeof g[k] !== "string") return `${k} must be a string`;
  if (!RESULTS.has(g.result))
    return `result must be "1-0", "0-1" or "1/2-1/2", not ${JSON.stringify(g.result)}`;
  if (!Array.isArray(g.seats) || g.seats.length !== 2) return "seats must hold two seats";
  for (const s of g.seats) {
    if (!s || typeof s.bot !== "string" || typeof s.version !== "string" || typeof s.house !== "boolean")
      return "each seat needs bot, version (strings) and house (boolean)";
  }
  return null;
}

const keyOf = (seat) => `${seat.bot}@${seat.version}`;

/** The fit: Newton's method on log-strengths, to a guaranteed tolerance (see `tolerance`). */
function fitModel(players, pairs, anchors) {
  const n = players.length;
  const tau2 = (PRIOR_SD / SCALE) ** 2;
  const theta = new Float64Array(n);
  const grad = new Float64Array(n);
  const diag = new Float64Array(n);
  const w = new Float64Array(pairs.length);
  // The log-posterior's curvature is at least 1/tau2 everywhere, so |theta - optimum| <= tau2 |gradient|:
  // stopping under 1e-5 in log-strength is within 0.002 rating points of the optimum.
  const tolerance = 1e-5 / tau2;
  for (let it = 0; it < 200; it++) {
    let top = -Infinity;
    for (let i = 0; i < n; i++) top = Math.max(top, theta[i]);
    const strength = theta.map((t) => Math.exp(t - top));
    for (let i = 0; i < n; i++) {
      grad[i] = -theta[i] / tau2;
      diag[i] = 1 / tau2;
    }
    pairs.forEach((p, k) => {
      const total = strength[p.i] + strength[p.j];
      const pr = total > 0 ? strength[p.i] / total : 0.5;
      const g = p.score - p.games * pr;
      grad[p.i] += g;
      grad[p.j] -= g;
      w[k] = p.games * pr * (1 - pr);
      diag[p.i] += w[k];
      diag[p.j] += w[k];
    });
    if (Math.sqrt(dot(grad, grad)) <= tolerance) break;
    const step =
      n <= 400 ? solve(information(n, pairs, w, diag), grad, n) : cg(n, pairs, w, diag, grad, tolerance / 4);
    for (let i = 0; i < n; i++) theta[i] += Math.max(-2, Math.min(2, step[i]));
  }
  const ref = anchors.length > 0 ? anchors : players.map((_, i) => i);
  const shift = ref.reduce((s, i) => s + theta[i], 0) / ref.length;
  const rating = Array.from(theta, (t) => BASE_RATING + (t - shift) * SCALE);
  const variance =
    n <= FULL_MATRIX_LIMIT
      ? pinnedVariance(information(n, pairs, w, diag), n, ref)
      : Array.from(diag, (d) => 1 / d);
  const deviation = variance.map((v) => Math.sqrt(v) * SCALE);
  return { rating, deviation };
}

function information(n, pairs, w, diag) {
  const m = new Float64Array(n * n);
  pairs.forEach((p, k) => {
    m[p.i * n + p.j] -= w[k];
    m[p.j * n + p.i] -= w[k];
  });
  for (let i = 0; i < n; i++) m[i * n + i] = diag[i];
  return m;
}

function cholesky(m, n) {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = m[i * n + j];
      for (let k = 0; k < j; k++) s -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = i === j ? Math.sqrt(Math.max(s, 1e-12)) : s / l[j * n + j];
    }
  }
  return l;
}

/** Solves L L^T x = b. */
function cholSolve(l, b, n) {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[i * n + k] * y[k];
    y[i] = s / l[i * n + i];
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i];
    for (let k = i + 1; k < n; k++) s -= l[k * n + i] * x[k];
    x[i] = s / l[i * n + i];
  }
  return x;
}

const solve = (m, b, n) => cholSolve(cholesky(m, n), b, n);

/** Jacobi-preconditioned conjugate gradients on the Newton system, for ladders too big for a dense solve. */
function cg(n, pairs, w, diag, g, tolerance) {
  const mul = (v) => {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = v[i] * diag[i];
    pairs.forEach((p, k) => {
      out[p.i] -= w[k] * v[p.j];
      out[p.j] -= w[k] * v[p.i];
    });
    return out;
  };
  const x = new Float64Array(n);
  const r = Float64Array.from(g);
  let z = r.map((v, i) => v / diag[i]);
  const p = Float64Array.from(z);
  let rz = dot(r, z);
  for (let it = 0; it < 5000 && Math.sqrt(dot(r, r)) > tolerance; it++) {
    const q = mul(p);
    const alpha = rz / dot(p, q);
    for (let i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    z = r.map((v, i) => v / diag[i]);
    const next = dot(r, z);
    for (let i = 0; i < n; i++) p[i] = z[i] + (next / rz) * p[i];
    rz = next;
  }
  return x;
}

function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * Var(theta_i - mean over ref) with S the inverse information matrix: S_ii - 2/k (S 1_ref)_i + 1/k^2 1' S 1,
 * the uncertainty of a rating relative to the pinned average (the common level is not a version's own).
 */
function pinnedVariance(info, n, ref) {
  const l = cholesky(info, n);
  const ones = new Float64Array(n);
  for (const j of ref) ones[j] = 1;
  const u = cholSolve(l, ones, n); // S 1_ref
  const k = ref.length;
  const refVar = ref.reduce((s, j) => s + u[j], 0) / (k * k);
  const out = new Array(n);
  for (let c = 0; c < n; c++) {
    const e = new Float64Array(n);
    e[c] = 1;
    const col = cholSolve(l, e, n); // S e_c
    out[c] = Math.max(0, col[c] - (2 * u[c]) / k + refVar);
  }
  return out;
}

/** One ladder's ratings from its games. */
function rate(games) {
  const index = new Map();
  const players = [];
  const house = new Set();
  const count = [];
  const record = [];
  const last = [];
  const idOf = (seat) => {
    const key = keyOf(seat);
    let i = index.get(key);
    if (i === undefined) {
      i = players.length;
      index.set(key, i);
      players.push({ key, bot: seat.bot, version: seat.version });
      count.push(0);
      record.push({ wins: 0, losses: 0, draws: 0 });
      last.push(0);
    }
    if (seat.house) house.add(i);
    return i;
  };
  const cells = new Map();
  games.forEach((g, order) => {
    const a = idOf(g.seats[0]);
    const b = idOf(g.seats[1]);
    if (a === b) return; // a version cannot play itself; the ladder leaves such a record out too
    const s = RESULTS.get(g.result);
    const [i, j, score] = a < b ? [a, b, s] : [b, a, 1 - s];
    const k = `${i},${j}`;
    const cell = cells.get(k) ?? { i, j, games: 0, score: 0 };
    cell.games++;
    cell.score += score;
    cells.set(k, cell);
    count[a]++;
    count[b]++;
    last[a] = last[b] = order + 1;
    const ra = record[a];
    const rb = record[b];
    if (s === 0.5) {
      ra.draws++;
      rb.draws++;
    } else if (s === 1) {
      ra.wins++;
      rb.losses++;
    } else {
      ra.losses++;
      rb.wins++;
    }
  });
  const f = fitModel(
    players,
    [...cells.values()],
    [...house].sort((x, y) => x - y),
  );
  const versions = players.map((p, i) => ({
    bot: p.bot,
    version: p.version,
    house: house.has(i),
    rating: f.rating[i],
    rating_deviation: f.deviation[i],
    leaderboard_score: Math.round(f.rating[i] - 2 * Math.max(f.deviation[i], 25)),
    games: count[i],
    ranked: count[i] >= QUALIFYING_GAMES,
    ...record[i],
    last: last[i],
  }));
  const latest = new Map();
  for (const v of versions) {
    if (!v.ranked) continue;
    const best = latest.get(v.bot);
    if (!best || v.last > best.last) latest.set(v.bot, v);
  }
  const board = [...latest.values()]
    .map((v) => ({ ...v, rating: Math.round(v.rating), rating_deviation: Math.round(v.rating_deviation) }))
    .sort((a, b) => b.leaderboard_score - a.leaderboard_score || a.bot.localeCompare(b.bot))
    .map(({ last: _, ...v }, i) => ({ rank: i + 1, ...v }));
  versions.sort((a, b) => b.leaderboard_score - a.leaderboard_score || a.bot.localeCompare(b.bot));
  return { games: games.length, leaderboard: board, versions: versions.map(({ last: _, ...v }) => v) };
}

function table(rows) {
  const head = ["rank", "bot", "version", "rating", "deviation", "score", "W-L-D", "games"];
  const body = rows.map((r, i) => [
    String(r.rank ?? i + 1),
    `${r.bot}${r.house ? " (house)" : ""}${r.ranked ? "" : " *"}`,
    r.version,
    String(Math.round(r.rating)),
    `±${Math.round(r.rating_deviation)}`,
    String(r.leaderboard_score),
    `${r.wins}-${r.losses}-${r.draws}`,
    String(r.games),
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((row) => row[c].length)));
  const line = (cells) =>
    cells
      .map((x, c) => (c === 1 || c === 2 ? x.padEnd(widths[c]) : x.padStart(widths[c])))
      .join("  ")
      .trimEnd();
  return [line(head), ...body.map(line)].join("\n");
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let games;
  try {
    games = await readGames(dumpFiles(o.paths));
  } catch (err) {
    process.stderr.write(`fit-ratings: ${err.message}\n`);
    process.exit(1);
  }
  const ladders = new Map();
  for (const g of games) {
    if (o.ladder !== null && g.ladder_id !== o.ladder) continue;
    const list = ladders.get(g.ladder_id) ?? [];
    list.push(g);
    ladders.set(g.ladder_id, list);
  }
  if (ladders.size === 0) {
    process.stderr.write(
      `fit-ratings: no games${o.ladder === null ? "" : ` of ladder ${o.ladder}`} in the dumps\n`,
    );
    process.exit(1);
  }
  const out = {};
  for (const [id, list] of [...ladders].sort(([a], [b]) => a.localeCompare(b))) out[id] = rate(list);
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ ladders: out }, null, 2)}\n`);
    return;
  }
  for (const [id, r] of Object.entries(out)) {
    process.stdout.write(`ladder ${id}: ${r.games} rated games, ${r.versions.length} versions\n\n`);
    process.stdout.write(`${table(o.versions ? r.versions : r.leaderboard)}\n\n`);
  }
  process.stdout.write(
    "score = round(rating - 2 * max(deviation, 25)); * fewer than 30 rated games (not ranked)\n",
  );
}

await main();
