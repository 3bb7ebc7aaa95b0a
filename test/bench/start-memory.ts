// The server's resident memory through its start, sampled every 20 ms with its log lines (issue 38): where a
// start's peak comes from. `npx tsx test/bench/start-memory.ts DATA_DIR [DATABASE_URL]` (the built server).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const ROOT = new URL("../../", import.meta.url).pathname;
const [dataDir, databaseUrl] = [process.argv[2]!, process.argv[3]];
const t0 = performance.now();
const proc = spawn(
  process.execPath,
  [
    // START_NODE_FLAGS: V8 flags for the server (say --no-wasm-tier-up), to see what they change.
    ...(process.env.START_NODE_FLAGS ?? "").split(" ").filter(Boolean),
    "build/server/main.js",
    "--anonymous-dev",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--data-dir",
    dataDir,
    "--no-house-bots",
    "--workers",
    "1",
    "--log-level",
    "debug",
    ...(databaseUrl ? ["--database-url", databaseUrl] : []),
  ],
  { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
);
const at = () => `${Math.round(performance.now() - t0)}`.padStart(6);
const mem = () => {
  try {
    const s = readFileSync(`/proc/${proc.pid}/status`, "utf8");
    const kb = (k: string) => Math.round(Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) / 1024);
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return { rss: 0, hwm: 0 };
  }
};
let last = 0;
const timer = setInterval(() => {
  const m = mem();
  if (Math.abs(m.rss - last) >= 20) {
    console.log(`${at()} ms  rss ${m.rss} hwm ${m.hwm} MiB`);
    last = m.rss;
  }
}, 20);
let buf = "";
proc.stdout!.on("data", (c: Buffer) => {
  buf += c.toString();
  for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    let msg = line;
    try {
      msg = (JSON.parse(line) as { msg: string }).msg;
    } catch {}
    const m = mem();
    console.log(`${at()} ms  rss ${m.rss} hwm ${m.hwm} MiB  | ${msg.slice(0, 100)}`);
    if (msg === "ladder ready")
      setTimeout(() => {
        clearInterval(timer);
        proc.kill("SIGTERM");
      }, 3000);
  }
});
