// Failover of a node that was cut off, not killed (issue 36, part 5), on one cluster of real nodes (child
// processes of `node server/main.ts --cluster`, no house bots) with a nats-server this test starts on a free port:
// the node is frozen (SIGSTOP) longer than the heartbeat, another node takes its matches, the bots reconnect to
// the other nodes and the matches end once there; the woken node (SIGCONT) abandons its copies and touches
// neither the taker's lease nor its journal (server/cluster/match-journal.ts: only while the lease is its own),
// and the stale sockets it still holds for those bots do not unseat their newer ones (remote-seat.ts). XP_DEBUG=1
// prints each node's last log lines and each bot's last messages when the wait for the ends times out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyReplay } from "../../engine/verify.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";
import { botsOn, playing, ratedGames } from "../helpers/slow-bot.ts";
import { TestCluster, until } from "../helpers/test-cluster.ts";

const LEASE = "matchmaker.public";

interface ClusterView {
  leases: { name: string; held: boolean }[];
}
const clusterOf = async (url: string): Promise<ClusterView> =>
  ((await (await fetch(`${url}/api/status`)).json()) as { cluster: ClusterView }).cluster;

describe("match failover: a node cut off from NATS", () => {
  skipAllIf(DATABASE_URL_MISSING);
  const cluster = new TestCluster();
  const nodes = cluster.nodes;

  beforeAll(async () => {
    if (DATABASE_URL_MISSING) return;
    await cluster.start("ladder-cutoff", 3, ["--no-house-bots", "--reconnect-grace-ms", "30000"]);
  }, 240_000);

  afterAll(() => cluster.stop());

  it("a node cut off from NATS longer than the heartbeat: its matches go on elsewhere and end once", async () => {
    const views = await until(async () => {
      const v = await Promise.all(nodes.map((n) => clusterOf(n.url)));
      return v.some((x) => x.leases.find((l) => l.name === LEASE)?.held) ? v : null;
    }, "the matchmaker's lease");
    const victim = nodes[views.findIndex((v) => !v.leases.find((l) => l.name === LEASE)?.held)]!;
    const others = nodes.filter((n) => n !== victim);
    const bots = await botsOn(victim, "cut", 4);
    const ids = await playing(bots);
    expect(ids).toHaveLength(2);

    // Frozen: its sockets and its NATS connection stay open, but it answers nothing and beats no more.
    victim.proc.kill("SIGSTOP");
    const takenBy = (id: string) =>
      others.filter((n) => n.log.some((l) => l.includes("match taken over") && l.includes(id)));
    try {
      await until(
        async () => (ids.every((id) => takenBy(id).length === 1) ? true : null),
        "both matches taken over",
        30_000,
      );
      await Promise.all(bots.map((b, i) => b.reconnect(others[i % 2]!)));
    } finally {
      victim.proc.kill("SIGCONT");
    }
    try {
      await until(
        async () => (bots.every((b) => b.ends.length > 0) ? true : null),
        "every match to end",
        60_000,
      );
    } finally {
      if (process.env.XP_DEBUG) {
        for (const [i, n] of nodes.entries())
          console.error(
            `NODE ${i}${n === victim ? " (victim)" : ""}`,
            n.log
              .slice(-14)
              .map((l) => l.slice(0, 260))
              .join("\n"),
          );
        for (const b of bots)
          console.error(
            "BOT",
            b.name,
            b.matchId,
            b.ends.length,
            b.client.received
              .slice(-3)
              .map((m) => `${m.type}:${m.tick ?? ""}`)
              .join(","),
            b.client.received.filter((m) => m.type === "hello").length,
          );
      }
    }

    // The woken node gave its copies up rather than finishing them too.
    await until(
      async () =>
        ids.every((id) => victim.log.some((l) => l.includes(id) && l.includes("this copy is abandoned")))
          ? true
          : null,
      "the woken node to abandon its copies",
    );
    for (const id of ids) {
      const mine = bots.filter((b) => b.matchId === id);
      for (const b of mine) expect(b.ends.map((e) => e.match_id)).toEqual([id]);
      const taker = takenBy(id)[0]!;
      const r = await fetch(`${taker.url}/replays/${id}.jsonl.gz`);
      expect(r.status).toBe(200);
      const end = mine[0]!.ends[0]!;
      expect(verifyReplay(new Uint8Array(await r.arrayBuffer()))).toEqual({
        ok: true,
        matchId: id,
        ticks: end.final_tick,
        winner: end.winner,
        reason: end.reason,
      });
    }
    // One result each, on every node (the woken one included).
    for (const n of nodes) for (const b of bots) expect(await ratedGames(n, b.name)).toBe(1);
  }, 180_000);
});
