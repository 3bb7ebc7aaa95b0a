// The compiled start (issue 14): `npm start` runs build/server/main.js, plain JavaScript built by
// scripts/build-server.ts, with no TypeScript loader. The server is built here from the current sources, run as
// a child process without tsx, and must serve pages, assets, docs and the API from the repository's files and
// run ranked matches in pool workers loaded from build/server/pool-worker.js.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndMessage } from "../../engine/protocol.ts";
import { verifyReplay } from "../../engine/verify.ts";
import { buildServer, SERVER_BUILD_DIR } from "../../scripts/build-server.ts";
import { MALLOC_TUNABLE, YOUNG_GENERATION_FLAG } from "../../server/memory-tuning.ts";
import { type Child, startChild } from "../helpers/child-server.ts";
import { BotClient } from "../helpers/server.ts";

const BUILT_MAIN = join(SERVER_BUILD_DIR, "main.js");
const BUILT_SERVE = join(SERVER_BUILD_DIR, "serve.js");
const BUILT_WORKER = join(SERVER_BUILD_DIR, "pool-worker.js");

let child: Child | undefined;
let dataDir: string;
const clients: BotClient[] = [];

beforeAll(async () => {
  expect(await buildServer()).toEqual([BUILT_MAIN, BUILT_SERVE, BUILT_WORKER]);
  dataDir = mkdtempSync(join(tmpdir(), "ladder-compiled-"));
  // On an empty data dir: the built server creates its database cluster itself, as a first start does.
  child = await startChild(dataDir, undefined, { entry: "build/server/main.js", freshCluster: true });
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.ws.close();
  if (child && child.proc.exitCode === null) {
    child.proc.kill("SIGTERM");
    await child.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function text(path: string): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(`${child!.url}${path}`);
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

describe("the built server (node build/server/main.js)", () => {
  it("is plain JavaScript, started without tsx, with the built pool worker", () => {
    expect(child!.proc.spawnargs.slice(1, 3)).toEqual(["build/server/main.js", "--anonymous-dev"]);
    expect(child!.proc.spawnargs.join(" ")).not.toContain("tsx");
    for (const f of [BUILT_MAIN, BUILT_SERVE, BUILT_WORKER]) {
      // Relative imports are bundled; what is left are Node built-ins and npm packages.
      const imports = [...readFileSync(f, "utf8").matchAll(/^import .* from "([^"]+)";$/gm)].map(
        (m) => m[1]!,
      );
      expect(imports.length).toBeGreaterThan(0);
      expect(imports.filter((i) => i.startsWith(".") || i.endsWith(".ts") || i.includes("tsx"))).toEqual([]);
    }
    const ready = child!.log.map((l) => l.trim()).find((l) => l.includes('"ladder ready"'));
    expect(JSON.parse(ready!)).toMatchObject({ poolWorker: BUILT_WORKER, database: "pglite" });
  });

  it("runs with the allocator's fixed mmap threshold and a smaller young generation, re-executed in the process it was started as", (ctx) => {
    // server/memory-tuning.ts: Node 22.15 and later can re-execute a process (process.execve); Node 20 cannot.
    if (typeof (process as { execve?: unknown }).execve !== "function")
      ctx.skip(`Node ${process.version} has no process.execve`);
    const environ = readFileSync(`/proc/${child!.proc.pid}/environ`, "utf8").split("\0");
    expect(environ).toContain(`GLIBC_TUNABLES=${MALLOC_TUNABLE}`);
    const cmdline = readFileSync(`/proc/${child!.proc.pid}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain(YOUNG_GENERATION_FLAG);
  });

  it("serves pages, assets, guides, downloads and the API from the repository's files", async () => {
    const home = await text("/");
    expect(home.status).toBe(200);
    expect(home.type).toContain("text/html");
    const asset = /\/assets\/style\.css\?v=[0-9a-f]+/.exec(home.body);
    expect(asset, "the home page links the stylesheet").not.toBeNull();
    const css = await text(asset![0]);
    expect(css.status).toBe(200);
    expect(css.body).toBe(readFileSync(new URL("../../web/style.css", import.meta.url), "utf8"));

    const api = await text("/api");
    expect(api.status).toBe(200);
    expect(JSON.parse(api.body)).toMatchObject({ openapi: `${child!.url}/openapi.json` });
    expect((await text("/openapi.json")).status).toBe(200);

    const guide = await text("/guide/rules");
    expect(guide.status).toBe(200);
    expect(guide.type).toContain("text/html");
    const doc = await text("/docs/rules");
    expect(doc.body).toBe(readFileSync(new URL("../../docs/rules.md", import.meta.url), "utf8"));

    const sim = await fetch(`${child!.url}/download/arena-sim.mjs`);
    expect(sim.status).toBe(200);
    // Compared as bytes in one call: a deep equality of a megabyte blocks this process for seconds on a busy
    // machine, longer than the server's keep-alive timeout (5 s), and the next request would then go out on a
    // connection the server had closed meanwhile (the client's own idle timer could not run to drop it).
    const served = Buffer.from(await sim.arrayBuffer());
    const built = readFileSync(new URL("../../dist/arena-sim.mjs", import.meta.url));
    expect(served.length).toBe(built.length);
    expect(served.equals(built)).toBe(true);

    const ladders = await text("/api/ladders");
    expect(ladders.status).toBe(200);
    expect(ladders.body).toContain('"public"');
  });

  it("plays ranked matches in pool workers loaded from build/", async () => {
    // Two bots at once, so both workers (or one worker with two matches) start matches together.
    const ends = await Promise.all(
      ["built-a", "built-b"].map(async (name) => {
        const res = await fetch(`${child!.url}/api/bots`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name, owner: `owner-${name}` }),
        });
        expect(res.status).toBe(201);
        const { token } = (await res.json()) as { token: string };
        const bot = new BotClient(child!.wsUrl, token);
        clients.push(bot);
        await bot.open();
        const ended = bot.playUntilEnd((o) => ({
          type: "turn",
          tick: o.tick,
          move: (o.moves as { dir: string }[])[0]?.dir,
        }));
        bot.send({ type: "queue", version: "v1" });
        return ended;
      }),
    );
    for (const end of ends) {
      expect(EndMessage.safeParse(end).error).toBeUndefined();
      expect(end.reason).not.toBe("aborted");
      const id = end.match_id as string;
      const replay = await fetch(`${child!.url}/replays/${id}.jsonl.gz`);
      expect(replay.status).toBe(200);
      expect(verifyReplay(new Uint8Array(await replay.arrayBuffer()))).toMatchObject({
        ok: true,
        matchId: id,
      });
    }
    expect(child!.proc.exitCode).toBeNull();
  }, 120_000);
});
