// Probe: serial latency of each read route on a seeded ladder, optionally under --cpu-prof (h38b work tool).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { startChild } from "../helpers/child-server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const [dataDir, dbUrl] = [
  process.argv[2]!,
  process.argv[3] && process.argv[3] !== "-" ? process.argv[3] : undefined,
];
const prof = process.env.PROBE_PROF;
const n = Number(process.env.PROBE_N ?? 20);
if (!process.env.PROBE_NOBUILD)
  execFileSync(process.execPath, ["--import", "tsx", "scripts/build-server.ts"], {
    cwd: ROOT,
    stdio: "inherit",
  });
if (prof) process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${prof}`;
const t0 = performance.now();
const child = await startChild(dataDir, dbUrl, {
  entry: "build/server/main.js",
  freshCluster: true,
  quietLevel: "warn",
  args: ["--no-house-bots", "--workers", "1", "--max-connections-per-address", "0"],
});
delete process.env.NODE_OPTIONS;
const rss = () => {
  const s = readFileSync(`/proc/${child.proc.pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) / 1024;
  return `rss ${kb("VmRSS").toFixed(0)} hwm ${kb("VmHWM").toFixed(0)} MiB`;
};
console.log(`ready in ${Math.round(performance.now() - t0)} ms; ${rss()}`);
const routes = (
  process.env.PROBE_ROUTES ??
  "/api/matches?limit=50,/api/matches?limit=500,/,/ladder,/bot/seed-bot-0,/bot/champion,/user/seed-user-0,/api/leaderboard,/api/bots/seed-bot-0,/api/bots/champion,/api/users/seed-user-0"
).split(",");
const pglog = process.env.PROBE_PGLOG;
let logAt = pglog ? readFileSync(pglog, "utf8").length : 0;
for (const r of routes) {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n + 3; i++) {
    const t = performance.now();
    const res = await fetch(child.url + r);
    const body = await res.text();
    if (i >= 3) ms.push(performance.now() - t);
    bytes = body.length;
  }
  ms.sort((a, b) => a - b);
  if (pglog) {
    const text = readFileSync(pglog, "utf8");
    const lines = text
      .slice(logAt)
      .split("\n")
      .filter((l) => /execute [^:]*:|statement:/.test(l));
    logAt = text.length;
    const counts = new Map<string, number>();
    for (const l of lines) {
      const k = l.replace(/.*(execute [^:]*|statement): /, "").slice(0, 110);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    console.log(`  ${lines.length} statements in ${n + 3} requests`);
    for (const [k, c] of counts) console.log(`    ${c} ${k}`);
  }
  console.log(
    `${r.padEnd(28)} ${(bytes / 1024).toFixed(1).padStart(7)} KB  p50 ${ms[Math.floor(ms.length / 2)]!.toFixed(2).padStart(8)} ms  p90 ${ms[Math.floor(ms.length * 0.9)]!.toFixed(2).padStart(8)} ms  ${rss()}`,
  );
}
child.proc.kill("SIGTERM");
await child.exited;
