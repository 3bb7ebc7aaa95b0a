// Command-line configuration: every flag of the issue is accepted and listed by --help, a bad value stops the
// start with a message naming the flag, and without --anonymous-dev the start is refused with a way out.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type Config, ConfigError, parseConfig } from "../../server/config.ts";
import { seedPglite } from "../helpers/pglite-template.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const tsx = join(root, "node_modules", ".bin", "tsx");

/** The ConfigError message parseConfig throws for argv (after --anonymous-dev unless `bare`). */
function failure(argv: string[], env: NodeJS.ProcessEnv = {}, bare = false): string {
  try {
    parseConfig(bare ? argv : ["--anonymous-dev", ...argv], env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`parseConfig accepted ${argv.join(" ")}`);
}

const ISSUE_FLAGS = [
  "port",
  "host",
  "data-dir",
  "database-url",
  "public-url",
  "workers",
  "anonymous-dev",
  "match-interval",
  "max-concurrent",
  "owner-concurrency",
  "hourly-quota",
  "drain-timeout",
  // issue 31: connections idle clients cannot lock, a storm's budget, addresses behind a proxy
  "keep-alive-timeout",
  "upgrades-per-second",
  "trust-proxy",
  "help",
];

describe("parseConfig", () => {
  it("applies the defaults and converts seconds to milliseconds", () => {
    const c = parseConfig(["--anonymous-dev"], {}) as Config;
    expect(c).toMatchObject({
      port: 8080,
      dataDir: "./data",
      anonymousDev: true,
      matchIntervalMs: 300,
      maxConcurrent: 320,
      ownerConcurrency: 40,
      hourlyQuota: 10_000,
      drainTimeoutMs: 600_000,
      pingIntervalMs: 25_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 10_000,
      maxConnectionsPerAddress: 256,
      keepAliveTimeoutMs: 5_000,
      upgradesPerSecond: 200,
      trustProxy: [],
      houseBots: true,
      publicUrl: "http://localhost:8080",
    });
    expect(c.databaseUrl).toBeUndefined();
    expect(c.workers).toBeGreaterThanOrEqual(1);
    expect(Object.isFrozen(c)).toBe(true);
    const d = parseConfig(
      [
        "--anonymous-dev",
        "--port=9000",
        "--match-interval",
        "0.5",
        "--drain-timeout",
        "2",
        "--public-url",
        "https://ladder.example/",
        "--workers",
        "3",
        "--no-house-bots",
      ],
      { DATABASE_URL: "postgres://u@h/db" },
    ) as Config;
    expect(d).toMatchObject({
      port: 9000,
      matchIntervalMs: 500,
      drainTimeoutMs: 2000,
      publicUrl: "https://ladder.example",
      workers: 3,
      houseBots: false,
      databaseUrl: "postgres://u@h/db",
    });
    expect(
      (
        parseConfig(["--anonymous-dev", "--database-url", "postgresql://x/y"], {
          DATABASE_URL: "postgres://a/b",
        }) as Config
      ).databaseUrl,
    ).toBe("postgresql://x/y");
    expect(parseConfig(["--help"], {})).toBe("help");
  });

  it("names the flag of a bad value", () => {
    expect(failure(["--port", "abc"])).toContain("--port");
    expect(failure(["--port", "70000"])).toContain("--port");
    expect(failure(["--workers", "0"])).toContain("--workers");
    expect(failure(["--workers", "1.5"])).toContain("--workers");
    expect(failure(["--tick-ms", "-5"])).toContain("--tick-ms");
    expect(failure(["--tick-ms=-5"])).toContain("--tick-ms");
    expect(failure(["--match-interval", "soon"])).toContain("--match-interval");
    expect(failure(["--max-concurrent", "0"])).toContain("--max-concurrent");
    expect(failure(["--owner-concurrency", "x"])).toContain("--owner-concurrency");
    expect(failure(["--hourly-quota", "0"])).toContain("--hourly-quota");
    expect(failure(["--drain-timeout", "-1"])).toContain("--drain-timeout");
    expect(failure(["--public-url", "not a url"])).toContain("--public-url");
    expect(failure(["--database-url", "mysql://x"])).toContain("--database-url");
    expect(failure([], { DATABASE_URL: "mysql://x" })).toContain("--database-url");
    expect(failure(["--log-level", "loud"])).toContain("--log-level");
    expect(failure(["--headers-timeout", "0"])).toContain("--headers-timeout");
    expect(failure(["--request-timeout", "soon"])).toContain("--request-timeout");
    expect(failure(["--headers-timeout", "40"])).toContain(
      "--headers-timeout must not be longer than --request-timeout",
    );
    expect(failure(["--max-connections", "0"])).toContain("--max-connections");
    expect(failure(["--max-connections-per-address", "-1"])).toContain("--max-connections-per-address");
    expect(failure(["--bogus"])).toContain("--bogus");
    expect(failure(["--port"])).toContain("--port");
    expect(failure(["extra"])).toContain("extra");
  });

  it("refuses to start with neither accounts nor --anonymous-dev, saying how to enable either", () => {
    const message = failure(["--accounts", "none"], {}, true);
    expect(message).toContain("--anonymous-dev");
    expect(message).toContain("--accounts builtin");
    expect(failure(["--accounts", "external"], {}, true)).toContain("--auth-url");
    expect(failure(["--accounts", "sometimes"], {}, true)).toContain("--accounts");
    expect(failure(["--admin-emails", "not-an-email"], {}, true)).toContain("--admin-emails");
  });

  it("serves the built-in identity provider by default, with no --anonymous-dev needed", () => {
    const c = parseConfig([], {}) as Config;
    expect(c.accounts).toBe("builtin");
    expect(c.anonymousDev).toBe(false);
    const admins = parseConfig(["--admin-emails", "A@Example.com, b@example.com"], {}) as Config;
    expect(admins.adminEmails).toEqual(["a@example.com", "b@example.com"]);
  });
});

describe("server/main.ts", () => {
  it("--help prints every flag and exits 0", async () => {
    const { stdout } = await run(tsx, ["server/main.ts", "--help"], { cwd: root });
    for (const flag of ISSUE_FLAGS) expect(stdout).toContain(`--${flag}`);
    expect(stdout).toContain("DATABASE_URL");
  });

  it("a bad flag value, or no accounts and no --anonymous-dev, stops the start with exit code 2", async () => {
    const bad = await run(tsx, ["server/main.ts", "--anonymous-dev", "--port", "abc"], { cwd: root }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toMatch(/^cannot start: .*--port/);
    const env = { ...process.env, DATABASE_URL: "" };
    const noDev = await run(tsx, ["server/main.ts", "--accounts", "none"], { cwd: root, env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(noDev).toMatchObject({ code: 2 });
    expect((noDev as { stderr: string }).stderr).toContain("--anonymous-dev");
  });

  it("an address already in use stops the start with exit code 1, naming the flag, not with a stack trace", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    const dirs: string[] = [];
    const start = (flags: string[]) => {
      const dir = mkdtempSync(join(tmpdir(), "ladder-listen-"));
      dirs.push(dir);
      seedPglite(dir);
      const args = ["server/main.ts", "--anonymous-dev", "--host", "127.0.0.1", "--data-dir", dir, ...flags];
      return run(tsx, args, { cwd: root, env: { ...process.env, DATABASE_URL: "" } }).catch(
        (e: { code: number; stderr: string }) => e,
      );
    };
    try {
      const [main, metrics] = await Promise.all([
        start(["--port", String(port)]),
        start(["--port", "0", "--metrics-listen", `127.0.0.1:${port}`]),
      ]);
      expect(main).toMatchObject({ code: 1 });
      expect((main as { stderr: string }).stderr.trim()).toBe(
        `cannot start: 127.0.0.1:${port} (--host/--port) is already in use by another program`,
      );
      expect(metrics).toMatchObject({ code: 1 });
      expect((metrics as { stderr: string }).stderr.trim()).toBe(
        `cannot start: 127.0.0.1:${port} (--metrics-listen) is already in use by another program`,
      );
    } finally {
      taken.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
});

describe("--smtp-timeout (issue 31, part 8)", () => {
  it("defaults to 30 s, takes seconds (fractions too) and refuses what is not 0.5-600", () => {
    expect((parseConfig(["--anonymous-dev"], {}) as Config).smtpTimeoutMs).toBe(30_000);
    expect((parseConfig(["--anonymous-dev", "--smtp-timeout", "2.5"], {}) as Config).smtpTimeoutMs).toBe(
      2500,
    );
    for (const bad of ["0", "0.1", "601", "soon"])
      expect(failure(["--smtp-timeout", bad])).toContain("--smtp-timeout");
  });
});
