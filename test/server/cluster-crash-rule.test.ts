// Failover's crash-rule path (issue 36, part 5), on a cluster of real nodes (child processes of `node
// server/main.ts --cluster`, no house bots) with a nats-server this test starts on a free port: a node started with
// --no-failover-journal is killed with SIGKILL in the middle of a match; the match ends by SPEC 3.3's crash rule
// (no result, no `end`, no void row) and its bots, back on another node, are free to queue again at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";
import { botsOn, playing, ratedGames } from "../helpers/slow-bot.ts";
import { TestCluster, until } from "../helpers/test-cluster.ts";

describe("match failover: the crash rule", () => {
  skipAllIf(DATABASE_URL_MISSING);
  const cluster = new TestCluster();
  const nodes = cluster.nodes;

  beforeAll(async () => {
    if (DATABASE_URL_MISSING) return;
    await cluster.start("ladder-crash-rule", 2, ["--no-house-bots", "--reconnect-grace-ms", "30000"]);
  }, 240_000);

  afterAll(() => cluster.stop());

  it("a node with --no-failover-journal killed: its matches end by the crash rule", async () => {
    const plain = await cluster.add("ladder-crash-rule", [
      "--no-house-bots",
      "--reconnect-grace-ms",
      "30000",
      "--no-failover-journal",
    ]);
    const others = nodes.filter((n) => n !== plain);
    const bots = await botsOn(plain, "plain", 2);
    const [id] = await playing(bots);
    plain.proc.kill("SIGKILL");
    await plain.exited;
    // Back on another node, each bot is free at once: it queues and is paired again (its old match is over).
    await Promise.all(bots.map((b, i) => b.reconnect(others[i % 2]!)));
    for (const b of bots) b.client.send({ type: "queue", version: "v1" });
    await until(async () => (bots.every((b) => b.matches.length === 2) ? true : null), "a new match", 30_000);
    // No `end`, no result, no void row (the match is unknown), no rated game.
    for (const b of bots) expect(b.ends.filter((e) => e.match_id === id)).toEqual([]);
    for (const n of others) {
      expect((await fetch(`${n.url}/api/matches/${id}`)).status).toBe(404);
      for (const b of bots) expect(await ratedGames(n, b.name)).toBe(0);
      // It had no lease to take: no node resumed it.
      expect(n.log.some((l) => l.includes(id!) && l.includes("taken over"))).toBe(false);
    }
  }, 120_000);
});
