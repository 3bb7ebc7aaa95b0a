// The Markdown documents at /docs/<name> name this server, as the HTML guides do: no `{base_url}` or
// `{bot_endpoint}` placeholder is left, and the simulator guide cites no stale release number.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RELEASE } from "../../engine/versions.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("/docs/<name> Markdown addresses", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it("/docs/simulator has this server's address in place of every placeholder", async () => {
    const source = readFileSync("docs/simulator.md", "utf8");
    const placeholders = source.match(/\{base_url\}/g)?.length ?? 0;
    expect(placeholders).toBeGreaterThan(5);
    const text = await (await fetch(`${srv.url}/docs/simulator`)).text();
    expect(text).not.toContain("{base_url}");
    expect(text).not.toContain("{bot_endpoint}");
    expect(text.split(srv.url).length - 1).toBeGreaterThanOrEqual(placeholders);
    expect(text).toContain(`curl -O ${srv.url}/download/arena-sim.mjs`);
  });

  it("names no release but the current one", async () => {
    const text = await (await fetch(`${srv.url}/docs/simulator`)).text();
    const releases = [...text.matchAll(/\b0\.\d{2}\.\d+\b/g)].map((m) => m[0]);
    // The engine version in the example `hello` (0.24.0) is an engine, not a release, number.
    expect(releases.filter((r) => r !== RELEASE && !text.includes(`"engine_version":"${r}"`))).toEqual([]);
  });
});
