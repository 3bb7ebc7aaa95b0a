// An independent client against the running server (issue 18): the MCP Inspector's command line
// (`@modelcontextprotocol/inspector-cli`, run as its own Node process, as an operator would run it) lists the
// tools of /mcp and calls two of them with an agent key.
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, startAccountServer } from "../helpers/accounts.ts";
import { agentKey } from "../helpers/mcp.ts";
import type { TestServer } from "../helpers/server.ts";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const INSPECTOR = join(
  dirname(require.resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build",
  "index.js",
);

let srv: TestServer;
let key: string;

beforeAll(async () => {
  srv = await startAccountServer();
  const owner = await signUp(srv, "inspector@example.com", "inspected");
  key = (await agentKey(srv.url, owner.access)).key;
}, 180_000);
afterAll(async () => {
  await srv?.stop();
});

async function inspector(...args: string[]) {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, `${srv.url}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${key}`, ...args],
    // Run from its own build folder: the CLI looks for its package.json relative to the working directory.
    { timeout: 60_000, cwd: dirname(INSPECTOR) },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe("the MCP Inspector CLI", () => {
  it("lists the nineteen tools", async () => {
    const out = (await inspector("--method", "tools/list")) as { tools: { name: string }[] };
    expect(out.tools.map((t) => t.name).sort()).toEqual(
      [
        "cancel_scrimmage",
        "delete_bot",
        "enroll_ladder",
        "get_batch_test",
        "get_agent_guide",
        "get_final_standings",
        "get_settlement",
        "get_tournament",
        "list_tournaments",
        "get_match_diagnostics",
        "list_my_bots",
        "list_my_ladders",
        "list_scrimmages",
        "register_bot",
        "request_scrimmage",
        "retire_bot",
        "set_scrimmage_opt_in",
        "start_batch_test",
        "whoami",
      ].sort(),
    );
  }, 90_000);

  it("calls whoami and register_bot, and shows a tool error's code", async () => {
    const me = (await inspector("--method", "tools/call", "--tool-name", "whoami")) as {
      structuredContent: { handle: string };
    };
    expect(me.structuredContent.handle).toBe("inspected");
    const made = (await inspector(
      "--method",
      "tools/call",
      "--tool-name",
      "register_bot",
      "--tool-arg",
      "name=inspector-bot",
    )) as { structuredContent: { name: string; token: string } };
    expect(made.structuredContent.name).toBe("inspector-bot");
    expect(made.structuredContent.token).toMatch(/^bt_/);
    const taken = (await inspector(
      "--method",
      "tools/call",
      "--tool-name",
      "register_bot",
      "--tool-arg",
      "name=inspector-bot",
    )) as { isError: boolean; structuredContent: { code: string } };
    expect(taken.isError).toBe(true);
    expect(taken.structuredContent.code).toBe("invalid_bot");
  }, 120_000);
});
