// The console of a server started by hand (server/console-log.ts): readable lines and a start-up banner on a
// terminal (or --log-format pretty), with the request lines only at debug; JSON lines everywhere else, as
// before. The banner says the addresses, the admin and where mail goes (no SMTP: the outbox folder).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readableLine, startBanner, wantsReadableLog } from "../../server/console-log.ts";
import { startChild } from "../helpers/child-server.ts";

const line = (o: Record<string, unknown>) =>
  JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 1, 9, 5, 7), pid: 1, hostname: "h", ...o });

describe("the readable console", () => {
  it("is for a terminal or when asked; JSON stays for files, pipes and --log-format json", () => {
    expect(wantsReadableLog("auto", true)).toBe(true);
    expect(wantsReadableLog("auto", undefined)).toBe(false);
    expect(wantsReadableLog("auto", false)).toBe(false);
    expect(wantsReadableLog("json", true)).toBe(false);
    expect(wantsReadableLog("pretty", false)).toBe(true);
  });

  it("writes a log line readably, and request lines only at debug or trace", () => {
    expect(readableLine(line({ msg: "ladder ready", port: 8080, database: "pglite" }), "info")).toBe(
      "09:05:07 INFO  ladder ready  port=8080 database=pglite",
    );
    expect(readableLine(line({ level: 40, msg: "odd", unmatched: ["a/b"] }), "info")).toBe(
      '09:05:07 WARN  odd  unmatched=["a/b"]',
    );
    const incoming = line({ msg: "incoming request", reqId: "r1", req: { method: "GET", url: "/api" } });
    const done = line({
      msg: "request completed",
      reqId: "r1",
      res: { statusCode: 200 },
      responseTime: 1.25,
    });
    expect(readableLine(incoming, "info")).toBeNull();
    expect(readableLine(done, "warn")).toBeNull();
    expect(readableLine(incoming, "debug")).toBe("09:05:07 DEBUG GET /api");
    expect(readableLine(done, "trace")).toBe("09:05:07 DEBUG -> 200 1.3 ms");
    expect(readableLine("not json", "info")).toBe("not json");
  });

  it("starts with a banner naming the addresses, the admin and where mail goes", () => {
    const banner = startBanner({
      release: "9.9.9",
      publicUrl: "http://localhost:8080",
      port: 8080,
      accounts: "builtin",
      anonymousDev: false,
      adminEmails: [],
      mail: { mode: "outbox", dir: "data/outbox", development: true },
      database: "pglite",
      dataDir: "data",
      logLevel: "info",
    });
    expect(banner).toContain("Arena Ladder 9.9.9 is running on port 8080");
    expect(banner).toContain("http://localhost:8080/account");
    expect(banner).toContain("ws://localhost:8080/bot");
    expect(banner).toContain("--admin-emails you@example.com");
    expect(banner).toContain(
      "each email is a file in data/outbox/; sign-up and password links are also printed here",
    );
    expect(banner).toContain("request lines at debug");
  });

  it("a server started with --log-format pretty shows the banner and no request lines", {
    timeout: 120_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ladder-console-"));
    const child = await startChild(dataDir, undefined, {
      quietLevel: "warn",
      args: ["--log-format", "pretty"],
    });
    try {
      for (let i = 0; i < 5; i++) expect((await fetch(`${child.url}/api/status`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      const text = child.log.join("\n");
      expect(text).toMatch(/Arena Ladder \S+ is running on port \d+/);
      expect(text).toContain(
        `Mail          no SMTP: each email is a file in ${join(dataDir, "outbox")}/; sign-up and password links are also printed here`,
      );
      expect(text).not.toContain("incoming request");
      expect(text).not.toContain("/api/status");
      expect(child.log.some((l) => l.trim().startsWith('{"level"'))).toBe(false);
    } finally {
      child.proc.kill("SIGTERM");
      await child.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
