// `npm run bench -- --reads` (issue 38): every public read route on a seeded ladder (test/bench/seed-ladder.ts),
// each against a bare Fastify route serving the same body (test/bench/bare-http.ts), in the same run, by the
// same keep-alive client; the server's start-up time to ready and its peak memory during the reads. Both
// servers run as processes of their own and the client lives in this one, so the ratio, not the absolute
// figure, is what carries over to another machine. The server runs built (build/server/main.js, rebuilt here
// first) with --log-level warn (request lines not logged, as the bare server logs none) and no house bots
// playing, so nothing but the reads runs.
//
// Each shape (default 2000:25000 and 2000:100000; `--shapes A:B,C:D`) is seeded once if its place is empty
// (PGlite in data/, or PostgreSQL with DATABASE_URL), started once to migrate, then measured `--runs` times
// (default 3) with a fresh server each time; each figure is the median with its range. `--only a,b` keeps the
// routes whose label contains one of the words (`--only none`: start-up and memory alone; `--full-fit`: each start
// from a stale rating snapshot, so the full rebuild), `--data-root DIR`
// keeps the PGlite seeds in DIR instead of data/, `--quick` shortens the load windows.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../server/store/sql-store.ts";
import { type Child, startChild } from "../helpers/child-server.ts";
import { parseShape, type SeedShape, seedLadder } from "./seed-ladder.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const CONCURRENCY = 8;

interface Route {
  label: string;
  url: string;
}

const ROUTES: Route[] = [
  { label: "GET /api/matches?limit=50", url: "/api/matches?limit=50" },
  { label: "GET /api/matches?limit=500", url: "/api/matches?limit=500" },
  { label: "GET / (home)", url: "/" },
  { label: "GET /ladder", url: "/ladder" },
  { label: "GET /bot/<player bot>", url: "/bot/seed-bot-0" },
  { label: "GET /bot/<house bot>", url: "/bot/champion" },
  { label: "GET /user/<handle>", url: "/user/seed-user-0" },
  { label: "GET /api/leaderboard", url: "/api/leaderboard" },
  { label: "GET /api/bots/<player bot>", url: "/api/bots/seed-bot-0" },
  { label: "GET /api/bots/<house bot>", url: "/api/bots/champion" },
  { label: "GET /api/users/<handle>", url: "/api/users/seed-user-0" },
];

interface Sample {
  ours: number;
  bare: number;
  bytes: number;
}

/** Requests per second that CONCURRENCY keep-alive clients get from `url` in `ms`. */
async function load(url: string, ms: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const until = performance.now() + ms;
  let done = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { agent }, (res) => {
        res.on("data", () => {});
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`${url}: status ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end();
    });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await one();
        done++;
      }
    }),
  );
  const elapsed = performance.now() - t0;
  agent.destroy();
  return (done * 1000) / elapsed;
}

/** The process's resident memory now and at its peak (VmRSS, VmHWM), in MiB; threads included. */
function rss(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { now: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

async function startServer(place: {
  dataDir: string;
  databaseUrl: string | undefined;
}): Promise<{ child: Child; ms: number }> {
  const t0 = performance.now();
  const child = await startChild(place.dataDir, place.databaseUrl, {
    entry: "build/server/main.js",
    freshCluster: true,
    quietLevel: "warn",
    args: ["--no-house-bots", "--workers", "1", "--max-connections-per-address", "0"],
  });
  return { child, ms: performance.now() - t0 };
}

/**
 * `--full-fit`: makes every saved rating snapshot stale (one result more than the database has), so that the
 * start measures the full rebuild from every stored result, the fallback (server/ratings/book-start.ts).
 */
async function staleSnapshots(place: { dataDir: string; databaseUrl: string | undefined }): Promise<void> {
  const store = await openStore({ dataDir: place.dataDir, databaseUrl: place.databaseUrl });
  try {
    await store.db.exec("UPDATE rating_snapshots SET results = results + 1");
  } finally {
    await store.close();
  }
}

async function stop(child: Child): Promise<void> {
  child.proc.kill("SIGTERM");
  await child.exited;
}

/** A bare server for `pages`; resolves with its base address and how to stop it. */
async function startBare(pages: { url: string; type: string; body: string }[]) {
  const dir = mkdtempSync(join(tmpdir(), "ladder-reads-bare-"));
  const file = join(dir, "pages.json");
  writeFileSync(file, JSON.stringify(pages));
  const proc = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test/bench/bare-http.ts"), file], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buf = "";
    proc.stderr!.on("data", (c: Buffer) => {
      buf += c.toString();
      const m = /\{"port":(\d+)\}/.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    proc.once("exit", (code) => reject(new Error(`bare server exited with ${code}: ${buf}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ShapeResult {
  shape: SeedShape;
  driver: string;
  routes: { label: string; samples: Sample[] }[];
  startupMs: number[];
  /** The server's largest RSS sampled (every 50 ms) while the routes were driven, from ready to the last load. */
  peakRssMiB: number[];
  /** The server's VmHWM at the end: the start included (PGlite's one big compile, docs/performance-reads.md). */
  wholePeakMiB: number[];
}

async function measureShape(
  shape: SeedShape,
  runs: number,
  ms: number,
  routes: Route[],
  dataRoot: string | undefined,
  fullFit = false,
): Promise<ShapeResult> {
  const place = await seedLadder(
    shape,
    dataRoot ? { dataDir: join(dataRoot, `bench-ladder-${shape.bots}-${shape.games}`) } : {},
  );
  // A first start migrates the seeded schema if this build has newer migrations; not measured.
  await stop((await startServer(place)).child);
  const result: ShapeResult = {
    shape,
    driver: place.databaseUrl ? "PostgreSQL" : "PGlite",
    routes: routes.map((r) => ({ label: r.label, samples: [] })),
    startupMs: [],
    peakRssMiB: [],
    wholePeakMiB: [],
  };
  for (let run = 0; run < runs; run++) {
    console.error(`reads: ${shape.bots}:${shape.games} on ${result.driver}, run ${run + 1} of ${runs}`);
    if (fullFit) await staleSnapshots(place);
    const { child, ms: startup } = await startServer(place);
    result.startupMs.push(startup);
    const pid = child.proc.pid!;
    let peakDuring = 0;
    const sampler = setInterval(() => {
      try {
        peakDuring = Math.max(peakDuring, rss(pid).now);
      } catch {}
    }, 50);
    try {
      const pages = [];
      for (const r of routes) {
        const res = await fetch(child.url + r.url);
        if (res.status !== 200) throw new Error(`${r.url}: status ${res.status}`);
        pages.push({
          url: r.url,
          type: res.headers.get("content-type") ?? "text/plain",
          body: await res.text(),
        });
      }
      const bare = await startBare(pages);
      try {
        for (const [i, r] of routes.entries()) {
          await load(bare.url + r.url, 200); // warm-up
          await load(child.url + r.url, 200);
          const b = await load(bare.url + r.url, ms);
          const o = await load(child.url + r.url, ms);
          result.routes[i]!.samples.push({ ours: o, bare: b, bytes: Buffer.byteLength(pages[i]!.body) });
        }
      } finally {
        await bare.stop();
      }
      result.peakRssMiB.push(peakDuring);
      result.wholePeakMiB.push(rss(pid).peak);
    } finally {
      clearInterval(sampler);
      await stop(child);
    }
  }
  return result;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[], f: (v: number) => string) =>
  xs.length > 1 ? ` [${f(Math.min(...xs))}-${f(Math.max(...xs))}]` : "";
const fixed = (d: number) => (v: number) => v.toFixed(d);
const whole = (v: number) => Math.round(v).toLocaleString("en-US");

export function printReads(results: ShapeResult[]): void {
  console.log(
    `\nnode ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown cpu"}), ${new Date().toISOString().slice(0, 10)}, ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(
          " ",
        )}; ${CONCURRENCY} keep-alive clients; median of ${results[0]?.startupMs.length ?? 0} runs [range]`,
  );
  for (const r of results) {
    console.log(`\n### ${r.shape.bots} bots / ${r.shape.games.toLocaleString("en-US")} games, ${r.driver}\n`);
    console.log("| route | body | req/s | bare req/s | ratio to bare | target |");
    console.log("|---|---|---|---|---|---|");
    for (const x of r.routes) {
      const ratios = x.samples.map((s) => s.ours / s.bare);
      const bytes = median(x.samples.map((s) => s.bytes));
      const target = bytes > 300 * 1024 ? 0.3 : 0.5;
      const ours = x.samples.map((s) => s.ours);
      const bare = x.samples.map((s) => s.bare);
      console.log(
        `| ${x.label} | ${(bytes / 1024).toFixed(1)} KB | ${whole(median(ours))}${range(ours, whole)} | ${whole(median(bare))}${range(bare, whole)} | ` +
          `${median(ratios).toFixed(2)}${range(ratios, fixed(2))} | ≥ ${target}${median(ratios) < target ? " (below)" : ""} |`,
      );
    }
    console.log(
      `| start-up to ready | | ${whole(median(r.startupMs))} ms${range(r.startupMs, whole)} | | | |`,
    );
    console.log(
      `| peak RSS during the reads (server, sampled) | | ${whole(median(r.peakRssMiB))} MiB${range(r.peakRssMiB, whole)} | | | ≤ 400 MiB${median(r.peakRssMiB) > 400 ? " (above)" : ""} |`,
    );
    console.log(
      `| peak RSS since spawn, start included (VmHWM) | | ${whole(median(r.wholePeakMiB))} MiB${range(r.wholePeakMiB, whole)} | | | |`,
    );
  }
  // Flatness: each route's requests per second at the smallest shape over its figure at each larger one.
  if (results.length > 1) {
    const small = results[0]!;
    for (const big of results.slice(1)) {
      console.log(
        `\n### flatness: req/s at ${small.shape.games.toLocaleString("en-US")} games over req/s at ${big.shape.games.toLocaleString("en-US")} (target ≤ 1.5)\n`,
      );
      // Two columns: the route's own requests per second, and its ratio to the bare route serving the same body
      // (the figure the targets are stated in): a body that grows with the ladder (the leaderboard's rows) slows
      // the bare route as much, so only the second says whether the route's own cost grew.
      console.log("| route | slowdown, req/s | slowdown, ratio to bare |");
      console.log("|---|---|---|");
      const ratio = (x: ShapeResult["routes"][number]) => median(x.samples.map((v) => v.ours / v.bare));
      for (const [i, x] of big.routes.entries()) {
        const s = median(small.routes[i]!.samples.map((v) => v.ours)) / median(x.samples.map((v) => v.ours));
        const r = ratio(small.routes[i]!) / ratio(x);
        console.log(`| ${x.label} | ${s.toFixed(2)} | ${r.toFixed(2)}${r > 1.5 ? " (above)" : ""} |`);
      }
    }
  }
}

export async function readsBench(argv: string[]): Promise<ShapeResult[]> {
  const arg = (flag: string) => {
    const i = argv.indexOf(flag);
    return i > 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes("--quick");
  const runs = Math.max(1, Number(arg("--runs") ?? (quick ? 1 : 3)));
  const shapes = (arg("--shapes") ?? "2000:25000,2000:100000").split(",").map(parseShape);
  const only = arg("--only")?.split(",");
  const routes = only ? ROUTES.filter((r) => only.some((w) => r.label.includes(w))) : ROUTES;
  // The server is measured as it is deployed: built.
  execFileSync(process.execPath, ["--import", "tsx", "scripts/build-server.ts"], {
    cwd: ROOT,
    stdio: "ignore",
  });
  const results: ShapeResult[] = [];
  const dataRoot = arg("--data-root");
  for (const shape of shapes) {
    results.push(
      await measureShape(
        shape,
        runs,
        quick ? 500 : 1_500,
        routes,
        dataRoot,
        process.argv.includes("--full-fit"),
      ),
    );
    // Each shape's raw figures as soon as it is measured (a long run interrupted keeps what it measured).
    if (shapes.length > 1) console.error(`\n(partial) ${JSON.stringify(results.at(-1))}`);
  }
  return results;
}
