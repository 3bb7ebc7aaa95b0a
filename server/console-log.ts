// The console of a server started by hand (serve.ts): on a terminal, `--log-format auto` (the default) shows the
// structured log as readable lines and a start-up banner saying where everything is; anywhere else (a file, a
// pipe, a process manager, the tests) the log stays the JSON lines it always was. On the console the request
// lines (Fastify's "incoming request" and "request completed", each request twice at info) count as debug:
// twenty minutes of a local server were 1,060 of them in 1,082 lines, and the sign-up link scrolled away.
import { Writable } from "node:stream";

const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
const LEVEL_VALUES: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};
const REQUEST_LINES = new Set(["incoming request", "request completed"]);
/** Fields every line has, or that the readable form shows otherwise. */
const SKIPPED = new Set(["level", "time", "pid", "hostname", "msg", "reqId"]);

/** Whether the console gets readable lines: asked for, or `auto` on a terminal. */
export function wantsReadableLog(format: "auto" | "pretty" | "json", isTTY: boolean | undefined): boolean {
  return format === "pretty" || (format === "auto" && isTTY === true);
}

/** One JSON log line as a readable one, or null when it is a request line below the configured level. */
export function readableLine(json: string, level: string): string | null {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const msg = String(rec.msg ?? "");
  const request = REQUEST_LINES.has(msg);
  if (request && (LEVEL_VALUES[level] ?? 30) > 20) return null;
  const time = typeof rec.time === "number" ? new Date(rec.time).toISOString().slice(11, 19) : "--:--:--";
  const name = request ? "DEBUG" : (LEVELS[Number(rec.level)] ?? String(rec.level));
  if (request) {
    const req = rec.req as { method?: string; url?: string } | undefined;
    const res = rec.res as { statusCode?: number } | undefined;
    const ms = typeof rec.responseTime === "number" ? ` ${rec.responseTime.toFixed(1)} ms` : "";
    return req
      ? `${time} ${name.padEnd(5)} ${req.method} ${req.url}`
      : `${time} ${name.padEnd(5)} -> ${res?.statusCode ?? "?"}${ms}`;
  }
  const fields = Object.entries(rec)
    .filter(([k]) => !SKIPPED.has(k))
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
  return `${time} ${name.padEnd(5)} ${msg}${fields.length ? `  ${fields.join(" ")}` : ""}`;
}

/** A stream for the logger (AppDeps.logStream) that writes readable lines to `out`. */
export function readableLogStream(out: NodeJS.WritableStream, level: string): Writable {
  let rest = "";
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      const lines = (rest + chunk.toString()).split("\n");
      rest = lines.pop() ?? "";
      for (const l of lines) {
        if (!l) continue;
        const text = readableLine(l, level);
        if (text !== null) out.write(`${text}\n`);
      }
      done();
    },
  });
}

export interface BannerFacts {
  release: string;
  publicUrl: string;
  port: number;
  accounts: "builtin" | "external" | "none";
  anonymousDev: boolean;
  adminEmails: readonly string[];
  /** How mail leaves: through SMTP, into the outbox folder, or not at all (no accounts, no mail). */
  mail: { mode: "smtp" } | { mode: "outbox"; dir: string; development: boolean } | { mode: "none" };
  database: string;
  dataDir: string;
  logLevel: string;
}

/** The start-up banner of the readable console: the addresses, who is admin, where mail goes, what logs show. */
export function startBanner(f: BannerFacts): string {
  const base = f.publicUrl;
  const mail =
    f.mail.mode === "smtp"
      ? "sent through SMTP (--smtp-url)"
      : f.mail.mode === "outbox"
        ? `no SMTP: each email is a file in ${f.mail.dir}/` +
          (f.mail.development ? "; sign-up and password links are also printed here" : "")
        : "none (no accounts)";
  const admins =
    f.accounts === "none"
      ? "none (no accounts)"
      : f.adminEmails.length
        ? `${f.adminEmails.join(", ")} (sign up with that address, then ${base}/admin)`
        : "none yet: start with --admin-emails you@example.com, sign up with it, then open /admin";
  const rows: [string, string][] = [
    ["Site", `${base}/`],
    [
      "Your account",
      f.accounts === "none" ? "none: anyone may register bots (--anonymous-dev)" : `${base}/account`,
    ],
    ["Bot socket", `${base.replace(/^http/, "ws")}/bot`],
    ["Admin", admins],
    ["Mail", mail],
    ["Database", `${f.database} (data in ${f.dataDir})`],
    [
      "Log",
      `readable lines at ${f.logLevel}; request lines at debug (--log-level debug); --log-format json for JSON`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return [
    `Arena Ladder ${f.release} is running on port ${f.port}`,
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
    "Stop with Ctrl+C (a second Ctrl+C stops at once).",
    "",
  ].join("\n");
}
