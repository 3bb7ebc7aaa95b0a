// Both starter bots keep playing through a database outage (issue 20): against the real server, a `queue`
// sent while the database is unreachable is answered `unavailable`, and each starter queues again with backoff
// until it is taken, so both play again once the database is back.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect } from "vitest";
import { type Outage, openOutageStore } from "../helpers/outage.ts";
import { freshDatabaseUrl, startServer, type TestServer } from "../helpers/server.ts";
import { itUnless } from "../helpers/skips.ts";
import { type BotProcess, spawnBot } from "../helpers/stand-in-ladder.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PYTHON = "/usr/bin/python3";
const websocketsMissing =
  spawnSync(PYTHON, ["-c", "import websockets"]).status === 0
    ? null
    : `python3-websockets is not importable by ${PYTHON} (apt-get install python3-websockets)`;

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

async function until(cond: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("the starters through a database outage", () => {
  itUnless(websocketsMissing)(
    "both starters queue again after `unavailable` and play once the database is back",
    async () => {
      const db = await freshDatabaseUrl();
      const dataDir = mkdtempSync(join(tmpdir(), "ladder-starters-outage-"));
      const place = { dataDir, ...(db.url ? { databaseUrl: db.url } : {}) };
      const {
        store,
        outage,
      }: { store: Awaited<ReturnType<typeof openOutageStore>>["store"]; outage: Outage } =
        await openOutageStore(place);
      const srv: TestServer = await startServer(
        { ...place, tickMs: 200, startupMs: 2000 },
        { store, results: { retryMinMs: 50, retryMaxMs: 200 } },
      );
      cleanup.push(
        () => rmSync(dataDir, { recursive: true, force: true }),
        () => db.drop(),
        () => srv.app.close(),
      );

      const starters = [
        {
          name: "ts-outage",
          command: process.execPath,
          args: ["--import", "tsx", `${root}starters/typescript/bot.ts`],
        },
        { name: "py-outage", command: PYTHON, args: [`${root}starters/python/starter_bot.py`] },
      ];
      const procs: BotProcess[] = [];
      for (const s of starters) {
        const token = await srv.register(s.name, `${s.name}-owner`);
        const p = spawnBot(s.command, s.args, { ARENA_TOKEN: token, ARENA_URL: srv.wsUrl });
        procs.push(p);
        cleanup.push(() => p.kill());
      }
      // Matches of a bot that the database holds (journaled ones are left out: the database is the test).
      const stored = async (name: string) =>
        (await srv.app.ctx.matchStore.matches({ botName: name, limit: 1000 })).length;
      const played = async (min: number) => {
        for (const s of starters) if ((await stored(s.name)) < min) return false;
        return true;
      };

      await until(() => played(1), "a first match of each starter", 60_000);
      // The database goes away while both starters are in a match, so each one's next `queue` is the one refused.
      // (Taken down at a random moment, a starter already waiting in the queue just waits out the outage: its
      // pairing needs the database too, and it is never refused.)
      const inMatch = (name: string) =>
        [...srv.app.ctx.matches.values()].some((m) => m.seats.some((s) => s.participant.bot.name === name));
      await until(async () => starters.every((s) => inMatch(s.name)), "both starters in a match", 60_000);
      outage.down = true;
      await until(
        async () => procs.every((p) => p.output().includes("unavailable")),
        "a refused queue of each starter",
        30_000,
      );
      outage.down = false;
      const before = await Promise.all(starters.map((s) => stored(s.name)));
      await until(
        async () => {
          const now = await Promise.all(starters.map((s) => stored(s.name)));
          return now.every((n, i) => n >= before[i]! + 2);
        },
        "two more matches of each starter after the outage",
        60_000,
      );
      for (const [i, p] of procs.entries()) {
        expect(p.output(), starters[i]!.name).toContain("unavailable");
        expect(p.output(), starters[i]!.name).toContain("queueing again");
      }
    },
    180_000,
  );
});
