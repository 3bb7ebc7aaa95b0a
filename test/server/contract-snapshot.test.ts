// The public contract, pinned (issue 32): `/openapi.json` and the MCP tool list of the real server (accounts
// on, so every route and the tool endpoint exist) must equal the saved copies in test/fixtures/contract/.
// The server's code is being moved feature by feature; a move must not change a route, a schema or a tool.
// When a change to the contract is intended, rewrite the copies and review their diff in the commit:
//   UPDATE_CONTRACT=1 npx vitest run test/server/contract-snapshot.test.ts
// Copies are pretty JSON with keys sorted at every depth (arrays keep their order), so a diff shows only
// what changed. A release bump changes `info.version` and the MCP server version is not compared; the
// OpenAPI document's release is part of the contract, so a release commit rewrites the copy.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, startAccountServer } from "../helpers/accounts.ts";
import { agentKey, keyClient } from "../helpers/mcp.ts";
import type { TestServer } from "../helpers/server.ts";

const DIR = join(import.meta.dirname, "..", "fixtures", "contract");
const UPDATE = process.env.UPDATE_CONTRACT === "1";
const BASE = "http://server.invalid";
const TEST_FILE = "test/server/contract-snapshot.test.ts";

let srv: TestServer;
let client: Client;

beforeAll(async () => {
  srv = await startAccountServer();
  const who = await signUp(srv, "contract-snapshot@example.com", "contract-owner");
  client = await keyClient(srv.url, (await agentKey(srv.url, who.access)).key);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await srv?.stop();
});

/**
 * The one value that varies per run: the server's own address (`http://127.0.0.1:<random port>`), which the
 * document names in `servers[0].url`, `externalDocs.url` and wherever else it appears. It becomes a fixed
 * placeholder. Nothing else in either document varies per run (no generated keys, ids or times appear in
 * them); if something ever does, this test fails and that value gets stripped here, named in this comment.
 */
function strip(value: unknown): unknown {
  if (typeof value === "string") return value.split(srv.url).join(BASE);
  if (Array.isArray(value)) return value.map(strip);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strip(v)]));
  return value;
}

/** Keys sorted at every depth; arrays keep their order (the order of paths' parameters, tools, enums). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  return value;
}

const pretty = (value: unknown) => `${JSON.stringify(sorted(strip(value)), null, 2)}\n`;

/** Up to `max` JSON paths where two values differ, for the failure message. */
function differences(want: unknown, got: unknown, at = "$", out: string[] = [], max = 15): string[] {
  if (out.length >= max) return out;
  const isObj = (v: unknown) => v !== null && typeof v === "object";
  if (isObj(want) && isObj(got) && Array.isArray(want) === Array.isArray(got)) {
    const w = want as Record<string, unknown>;
    const g = got as Record<string, unknown>;
    for (const k of new Set([...Object.keys(w), ...Object.keys(g)])) {
      const path = Array.isArray(want) ? `${at}[${k}]` : `${at}.${k}`;
      if (!(k in g)) out.push(`${path}: removed`);
      else if (!(k in w)) out.push(`${path}: added`);
      else differences(w[k], g[k], path, out, max);
      if (out.length >= max) break;
    }
  } else if (JSON.stringify(want) !== JSON.stringify(got)) {
    out.push(`${at}: ${JSON.stringify(want)?.slice(0, 80)} -> ${JSON.stringify(got)?.slice(0, 80)}`);
  }
  return out;
}

/** Compares (or, with UPDATE_CONTRACT=1, rewrites) one saved copy, byte for byte. */
function matchesSaved(file: string, live: unknown): void {
  const path = join(DIR, file);
  const text = pretty(live);
  if (UPDATE) {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(path, text);
    return;
  }
  expect(existsSync(path), `${path} is missing: run UPDATE_CONTRACT=1 npx vitest run ${TEST_FILE}`).toBe(
    true,
  );
  const saved = readFileSync(path, "utf8");
  if (saved === text) return;
  let where: string[];
  try {
    where = differences(JSON.parse(saved), JSON.parse(text));
  } catch {
    where = ["the saved copy is not valid JSON"];
  }
  if (where.length === 0) where = ["same values, different text (key order, spacing or a final newline)"];
  expect(
    text,
    `the live contract differs from test/fixtures/contract/${file} at:\n  ${where.join("\n  ")}\n` +
      `If the change is intended, run UPDATE_CONTRACT=1 npx vitest run ${TEST_FILE} and commit the new copy.`,
  ).toBe(saved);
}
describe("the public contract stays as saved", () => {
  it("GET /openapi.json equals test/fixtures/contract/openapi.json", async () => {
    const res = await fetch(`${srv.url}/openapi.json`);
    expect(res.status).toBe(200);
    matchesSaved("openapi.json", await res.json());
  });

  it("the MCP tool list (names, descriptions, input schemas, annotations) equals mcp-tools.json", async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    matchesSaved("mcp-tools.json", tools);
  });
});
