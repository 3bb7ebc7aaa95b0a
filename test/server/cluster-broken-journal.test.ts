// Failover's broken journal (issue 36, part 5), on a cluster of real nodes (child processes of `node
// server/main.ts --cluster`, no house bots) with a nats-server this test starts on a free port. NATS is frozen
// (SIGSTOP) longer than a journal append may wait for its acknowledgement (2 s) and shorter than a node's
// heartbeat lasts (4 s): the match's node marks the match's journal broken and plays on without it, and once NATS
// is back the match's entry in `arena_matches` says so. When that node is then killed, the other node does not
// resume the match from a journal that is behind what the bots saw: it ends by SPEC 3.3's crash rule (no
// result, no `end`, no void row), and its bots, back on the other node, queue again at once.
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeMatchLease } from "../../server/cluster/journal-codec.ts";
import { MATCHES_BUCKET } from "../../server/cluster/match-journal.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";
import { botsOn, playing, ratedGames } from "../helpers/slow-bot.ts";
import { TestCluster, until } from "../helpers/test-cluster.ts";

/** Longer than an append waits for JetStream (APPEND_MS, 2 s), shorter than a heartbeat lasts (NODE_TTL_MS, 4 s). */
const FREEZE_MS = 2_600;

describe("match failover: a broken journal", () => {
  skipAllIf(DATABASE_URL_MISSING);
  const cluster = new TestCluster();
  const nodes = cluster.nodes;

  beforeAll(async () => {
    if (DATABASE_URL_MISSING) return;
    await cluster.start("ladder-broken-journal", 2, ["--no-house-bots", "--reconnect-grace-ms", "30000"]);
  }, 240_000);

  afterAll(() => cluster.stop());

  it("an append NATS does not acknowledge: the match plays on, and ends by the crash rule when its node dies", async () => {
    const [home, other] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const bots = await botsOn(home, "broken", 2);
    const [id] = (await playing(bots)) as [string];

    const nats = cluster.nats!;
    nats.proc.kill("SIGSTOP");
    await new Promise((r) => setTimeout(r, FREEZE_MS));
    nats.proc.kill("SIGCONT");
    await until(
      async () =>
        home.log.some((l) => l.includes(id) && l.includes("the match journal failed")) ? true : null,
      "the journal given up",
    );
    // Once NATS is back, the match's entry says its journal is behind.
    const nc = await connect({ servers: nats.url });
    try {
      const kv = await new Kvm(nc).open(MATCHES_BUCKET);
      await until(async () => {
        const e = await kv.get(id);
        return e?.operation === "PUT" && decodeMatchLease(e.value)?.broken ? true : null;
      }, "the match's entry marked broken");
    } finally {
      await nc.close();
    }
    // It played on without its journal: still running, ticks still coming.
    const seen = bots[0]!.client.received.length;
    await until(async () => (bots[0]!.client.received.length > seen + 5 ? true : null), "more ticks");
    expect(bots.every((b) => b.ends.length === 0)).toBe(true);

    home.proc.kill("SIGKILL");
    await home.exited;
    await until(
      async () =>
        other.log.some((l) => l.includes(id) && l.includes("its journal is behind")) ? true : null,
      "the other node to end the match by the crash rule",
    );
    expect(other.log.some((l) => l.includes(id) && l.includes("match taken over"))).toBe(false);
    // Back on the other node, each bot is free at once: it queues and is paired again.
    await Promise.all(bots.map((b) => b.reconnect(other)));
    for (const b of bots) b.client.send({ type: "queue", version: "v1" });
    await until(async () => (bots.every((b) => b.matches.length === 2) ? true : null), "a new match", 30_000);
    for (const b of bots) expect(b.ends.filter((e) => e.match_id === id)).toEqual([]);
    expect((await fetch(`${other.url}/api/matches/${id}`)).status).toBe(404);
    for (const b of bots) expect(await ratedGames(other, b.name)).toBe(0);
  }, 120_000);
});
