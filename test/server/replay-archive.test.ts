// An owner's replays in one archive (issue 35, server/replay-share/archive.ts): GET
// /api/account/bots/<name>/replays answers a zip holding exactly the bot's stored replays that pass the version
// and opponent filters (none of another bot's, none trimmed), each byte for byte the served replay, and each
// verifies with the simulator. Only the owner's session gets it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { houseBot } from "../../engine/house/index.ts";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { matchRecord } from "../helpers/match-records.ts";
import type { TestServer } from "../helpers/server.ts";
import { runCli } from "../sim/helpers.ts";

describe("an owner's replay archive", () => {
  let srv: TestServer;
  let alice: SignedIn;
  let bob: SignedIn;
  const tmp = mkdtempSync(join(tmpdir(), "replay-archive-"));
  /** Every stored match: id, alpha's version (or null when alpha did not play) and the opponent. */
  const stored: { id: string; version: string | null; opponent: string; trimmed: boolean }[] = [];
  const served = new Map<string, Buffer>();

  const register = async (who: SignedIn, name: string) => {
    const r = await fetch(`${srv.url}/api/account/bots`, {
      method: "POST",
      headers: { authorization: `Bearer ${who.access}`, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    expect(r.status).toBe(201);
  };

  beforeAll(async () => {
    srv = await startAccountServer();
    alice = await signUp(srv, "alice@example.com", "alice");
    bob = await signUp(srv, "bob@example.com", "bob");
    await register(alice, "alpha");
    await register(bob, "beta");
    await register(bob, "gamma");
    const { store, botStore, matchStore, replays } = srv.app.ctx;
    const id = async (name: string) => (await botStore.botByName(name))!.id;
    const plan: [string, string, string, string, boolean][] = [
      // [fighter 0, its version, fighter 1, its version, trimmed]
      ["alpha", "v1", "beta", "b1", false],
      ["beta", "b1", "alpha", "v1", false],
      ["alpha", "v2", "beta", "b2", false],
      ["alpha", "v1", "gamma", "g1", false],
      ["gamma", "g1", "alpha", "v2", false],
      ["alpha", "v2", "beta", "b2", true],
      ["beta", "b2", "gamma", "g1", false],
    ];
    let n = 0;
    for (const [a, av, b, bv, trimmed] of plan) {
      const matchId = `arch-${n++}`;
      const { match } = await playMatch(
        [strategySeat(houseBot("brawler")), strategySeat(houseBot("kiter"))],
        { matchId, seed: 11 + n, map: "arena-21" },
      );
      const file = await replays.write(matchId, match.replay.gzip());
      await matchStore.saveMatch(
        matchRecord(
          matchId,
          [
            { id: await id(a), name: a, version: av },
            { id: await id(b), name: b, version: bv },
          ],
          { replay_file: file, ended: new Date(Date.UTC(2026, 10, 1, 0, n)).toISOString() },
        ),
      );
      if (trimmed) await store.db.query("UPDATE matches SET replay_trimmed = true WHERE id = $1", [matchId]);
      const alphaSeat = a === "alpha" ? av : b === "alpha" ? bv : null;
      stored.push({ id: matchId, version: alphaSeat, opponent: a === "alpha" ? b : a, trimmed });
      if (!trimmed)
        served.set(
          matchId,
          Buffer.from(await (await fetch(`${srv.url}/replays/${matchId}.jsonl.gz`)).arrayBuffer()),
        );
    }
  }, 120_000);
  afterAll(async () => {
    await srv?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  async function archive(token: string | null, query = "") {
    const res = await fetch(`${srv.url}/api/account/bots/alpha/replays${query}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  const expected = (f: (m: (typeof stored)[number]) => boolean) =>
    stored
      .filter((m) => m.version !== null && !m.trimmed && f(m))
      .map((m) => `${m.id}.jsonl.gz`)
      .sort();

  it("holds exactly the filtered replays, each the served file, and each verifies", async () => {
    const cases: [string, (m: (typeof stored)[number]) => boolean][] = [
      ["", () => true],
      ["?version=v1", (m) => m.version === "v1"],
      ["?opponent=beta", (m) => m.opponent === "beta"],
      ["?opponent=BETA&version=v2", (m) => m.opponent === "beta" && m.version === "v2"],
      ["?version=v2&opponent=gamma", (m) => m.opponent === "gamma" && m.version === "v2"],
      ["?version=v9", () => false],
    ];
    for (const [query, f] of cases) {
      const { res, bytes } = await archive(alice.access, query);
      expect(res.status, query).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/zip");
      expect(res.headers.get("content-disposition")).toMatch(
        /^attachment; filename="alpha[^"]*-replays\.zip"$/,
      );
      const files = unzipSync(new Uint8Array(bytes));
      expect(Object.keys(files).sort(), query).toEqual(expected(f));
      for (const [name, body] of Object.entries(files))
        expect(Buffer.compare(Buffer.from(body), served.get(name.replace(".jsonl.gz", ""))!)).toBe(0);
    }
    // Every replay of the whole archive verifies with the simulator (rebuilt from its inputs, byte for byte).
    const all = unzipSync(new Uint8Array((await archive(alice.access)).bytes));
    expect(Object.keys(all)).toHaveLength(5);
    for (const [name, body] of Object.entries(all)) {
      const path = join(tmp, name);
      writeFileSync(path, body);
      const r = await runCli(["verify", path]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
    }
  }, 120_000);

  it("the bot page carries the download form, hidden until its script finds the signed-in owner", async () => {
    const page = await (await fetch(`${srv.url}/bot/alpha`)).text();
    expect(page).toMatch(/<section id="owner-replays"[^>]* data-bot="alpha" hidden>/);
    expect(page).toContain('<option value="">all</option>');
    expect(page).toMatch(/<script type="module" src="\/assets\/bot-replays\.js\?v=[0-9a-f]+"><\/script>/);
  });

  it("is the owner's only: another account's session gets 404, no session 401, a bad filter 400", async () => {
    expect((await archive(bob.access)).res.status).toBe(404);
    expect((await archive(null)).res.status).toBe(401);
    const bad = await archive(alice.access, "?opponent=not%20a%20name");
    expect(bad.res.status).toBe(400);
    expect(JSON.parse(bad.bytes.toString()).code).toBe("bad_request");
  });
});
