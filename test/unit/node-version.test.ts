// The Node line check (server/node-version.mjs): which versions package.json's engines accept, the one line an
// unsupported Node stops with, and the check wired into scripts/check-node.mjs (npm's preinstall, predev and
// prestart) and the compiled server's entry point, run by a real Node 20 where this machine has one.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { nodeVersionProblem, SUPPORTED_NODE, satisfies } from "../../server/node-version.mjs";

const root = new URL("../../", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  engines: { node: string };
  scripts: Record<string, string>;
};
const LINE =
  "arena-ladder needs Node 22.13.0 or later on the 22 line, or 24.0.0 or later (engines: ^22.13.0 || >=24.0.0); this is Node 20.18.0. Install a supported Node and run it again.";

describe("supported Node lines", () => {
  it("are package.json's engines, and the npm scripts check them first", () => {
    expect(SUPPORTED_NODE).toBe(pkg.engines.node);
    for (const s of ["preinstall", "predev", "prestart"])
      expect(pkg.scripts[s], s).toMatch(/^node scripts\/check-node\.mjs/);
  });

  it("take 22.13 and later on 22, and 24 on; refuse 20, early 22 and 23", () => {
    for (const v of ["22.13.0", "v22.13.1", "22.23.3", "24.0.0", "24.21.0", "25.2.1"])
      expect(satisfies(v, SUPPORTED_NODE), v).toBe(true);
    for (const v of ["20.18.0", "v20.20.2", "22.12.9", "21.7.3", "23.11.0", "18.0.0", "nonsense"])
      expect(satisfies(v, SUPPORTED_NODE), v).toBe(false);
    expect(nodeVersionProblem("24.21.0")).toBeNull();
    expect(nodeVersionProblem("20.18.0")).toBe(LINE);
  });

  it("scripts/check-node.mjs stops an unsupported version with that one line, and passes this one", () => {
    const bad = spawnSync(process.execPath, ["scripts/check-node.mjs", "20.18.0"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe(`${LINE}\n`);
    expect(spawnSync(process.execPath, ["scripts/check-node.mjs"], { cwd: root }).status).toBe(0);
  });

  // A real Node 20 (the system's, on this machine) running the check and the compiled server.
  const system = "/usr/bin/node";
  const systemVersion = existsSync(system)
    ? execFileSync(system, ["--version"], { encoding: "utf8" }).trim()
    : "";
  const old = systemVersion !== "" && nodeVersionProblem(systemVersion) !== null;
  it.skipIf(!old || !existsSync(`${root}build/server/main.js`))(
    "a real unsupported Node stops the compiled server and npm's check with the one line",
    () => {
      for (const args of [["build/server/main.js"], ["scripts/check-node.mjs"]]) {
        const r = spawnSync(system, args, { cwd: root, encoding: "utf8", timeout: 20_000 });
        expect(r.status, args[0]).toBe(1);
        expect(r.stderr.trim().split("\n"), args[0]).toEqual([nodeVersionProblem(systemVersion)]);
        expect(r.stdout).toBe("");
      }
    },
  );
});
