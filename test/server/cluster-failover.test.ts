// Match failover (issue 36, part 5): three real nodes (child processes of `node server/main.ts --cluster`, no house
// bots) on one PostgreSQL schema and a nats-server this test starts on a free port. Sixteen matches run on one node,
// whose 32 bots are all connected to it; the node is killed with SIGKILL in the middle of them. Another node sees its
// heartbeat expire, takes each match's lease, re-simulates it from the seed and the journaled inputs, and the bots,
// reconnecting with their tokens to the two other nodes (alternately, so some join through a relay), play on.
// Every match then ends with a replay that verifies with the simulator (its `end` reaches both bots and its result
// is stored once), or ends as SPEC 3.3's crash rule says (no `end`, no result, and a node logged why).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyReplay } from "../../engine/verify.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";
import { SlowBot } from "../helpers/slow-bot.ts";
import { TestCluster, until } from "../helpers/test-cluster.ts";

const MATCHES = 16;
/** Each bot answers each observation after this long, so a match (300 ticks at most) lasts about 12 s. */
const REPLY_MS = 40;
const LEASE = "matchmaker.public";

interface ClusterView {
  node: string;
  leases: { name: string; held: boolean }[];
}
const clusterOf = async (url: string): Promise<ClusterView> =>
  ((await (await fetch(`${url}/api/status`)).json()) as { cluster: ClusterView }).cluster;

describe("match failover: kill -9 of a node in the middle of its matches", () => {
  skipAllIf(DATABASE_URL_MISSING);
  const cluster = new TestCluster();
  const nodes = cluster.nodes;

  beforeAll(async () => {
    if (DATABASE_URL_MISSING) return;
    // A grace long enough for the heartbeat to expire (4 s), the takeover and the reconnects on a loaded machine.
    await cluster.start("ladder-failover", 3, ["--no-house-bots", "--reconnect-grace-ms", "30000"]);
  }, 240_000);

  afterAll(() => cluster.stop());

  it(`each of ${MATCHES} matches continues on another node with a verifying replay, or ends by the crash rule; no result lost or doubled`, async () => {
    // The matches run on a node that does not hold the matchmaker's lease (its death then moves only matches).
    const views = await until(async () => {
      const v = await Promise.all(nodes.map((n) => clusterOf(n.url)));
      return v.some((x) => x.leases.find((l) => l.name === LEASE)?.held) ? v : null;
    }, "the matchmaker's lease");
    const victim = nodes[views.findIndex((v) => !v.leases.find((l) => l.name === LEASE)?.held)]!;
    const others = nodes.filter((n) => n !== victim);

    const bots: SlowBot[] = [];
    for (let i = 0; i < MATCHES * 2; i++) {
      const name = `fo-${i}`;
      const res = await fetch(`${victim.url}/api/bots`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, owner: `${name}-owner` }),
      });
      expect(res.status).toBe(201);
      const bot = new SlowBot(name, ((await res.json()) as { token: string }).token, victim, REPLY_MS);
      await bot.client.open();
      bots.push(bot);
    }
    for (const b of bots) b.client.send({ type: "queue", version: "v1" });
    await until(async () => (bots.every((b) => b.matchId) ? true : null), "every bot in a match", 60_000);
    const ids = [...new Set(bots.map((b) => b.matchId!))];
    expect(ids).toHaveLength(MATCHES);
    // In the middle of the matches: some ticks played, none near its end.
    await until(
      async () =>
        bots.every((b) => b.client.received.filter((m) => m.type === "observation").length >= 20)
          ? true
          : null,
      "twenty ticks of every match",
      30_000,
    );
    expect(bots.every((b) => b.ends.length === 0)).toBe(true);
    victim.proc.kill("SIGKILL");
    await victim.exited;
    // The bots come back, half to each surviving node, as a load balancer would spread them.
    await Promise.all(bots.map((b, i) => b.reconnect(others[i % 2]!)));

    const dump = () => {
      for (const n of others)
        for (const l of n.log) if (/"level":[456]0|taken over/.test(l)) console.log(l.slice(0, 400));
    };
    // Each match ends: both bots get its `end`, or (the crash rule) none does and a node says why.
    const crashed = (id: string) =>
      others.some((n) => n.log.some((l) => l.includes(id) && /crash rule|could not be resumed/.test(l)));
    await until(
      async () =>
        ids.every((id) => {
          const mine = bots.filter((b) => b.matchId === id);
          return mine.every((b) => b.ends.length > 0) || crashed(id);
        })
          ? true
          : null,
      "every match to end",
      120_000,
      500,
    ).catch((err) => {
      dump();
      throw err;
    });

    let resumed = 0;
    for (const id of ids) {
      const mine = bots.filter((b) => b.matchId === id);
      const res = await fetch(`${others[0]!.url}/api/matches/${id}`);
      if (crashed(id)) {
        expect(mine.every((b) => b.ends.length === 0)).toBe(true);
        expect(res.status).toBe(404);
        continue;
      }
      // One `end` per bot, one stored result, and a replay (on the node that took it over) that verifies.
      for (const b of mine) expect(b.ends.map((e) => e.match_id)).toEqual([id]);
      expect(res.status).toBe(200);
      const taker = others.filter((n) => n.log.some((l) => l.includes("match taken over") && l.includes(id)));
      expect(taker).toHaveLength(1);
      const r = await fetch(`${taker[0]!.url}/replays/${id}.jsonl.gz`);
      expect(r.status).toBe(200);
      const end = mine[0]!.ends[0]!;
      expect(verifyReplay(new Uint8Array(await r.arrayBuffer()))).toEqual({
        ok: true,
        matchId: id,
        ticks: end.final_tick,
        winner: end.winner,
        reason: end.reason,
      });
      resumed++;
    }
    // Not one result doubled: the database holds each match id at most once (its primary key), and every bot's
    // rated games count exactly the results stored for it.
    for (const b of bots) {
      const v = (await (await fetch(`${others[1]!.url}/api/bots/${b.name}`)).json()) as {
        versions: { rated_games: number }[];
      };
      const stored = ids.includes(b.matchId!) && b.ends.length > 0 ? 1 : 0;
      expect(v.versions.reduce((n, x) => n + x.rated_games, 0)).toBe(stored);
    }
    console.log(
      `failover: ${resumed} of ${MATCHES} matches resumed and verified, ${MATCHES - resumed} by the crash rule`,
    );
    expect(resumed).toBeGreaterThan(0);
  }, 300_000);
});
