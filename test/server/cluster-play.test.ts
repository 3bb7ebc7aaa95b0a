// The cluster's shared queue and cross-node play (issue 36, parts 2-3): three real nodes (child processes of
// `node server/main.ts --cluster`, no house bots) on one PostgreSQL schema and a nats-server this test starts on a
// free port. Bots connected to different nodes are paired by the one matchmaker and play a whole match, one of
// them through NATS; every node then shows the same ratings and leaderboard. A bot playing through NATS that drops
// resumes on its node; a bot that drops resumes through a third node too, whether its socket was on the match's
// node or not. A bot's hourly quota (1 here) holds when it comes back through another node. After kill -9
// of the matchmaker's node, the lease moves within 2 s (the lease's correctness bound, as in cluster.test.ts) and
// the bots that were queued on the other nodes before the kill are all paired by the new holder: none lost, none
// paired twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyReplay } from "../../engine/verify.ts";
import type { Child } from "../helpers/child-server.ts";
import { BotClient } from "../helpers/server.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";
import { TestCluster, until } from "../helpers/test-cluster.ts";

const LEASE = "matchmaker.public";

interface ClusterView {
  node: string;
  leases: { name: string; holder: string | null; held: boolean }[];
}
type Msg = Record<string, unknown> & { type: string };

async function clusterOf(url: string): Promise<ClusterView> {
  const body = (await (await fetch(`${url}/api/status`)).json()) as { cluster?: ClusterView };
  if (!body.cluster) throw new Error(`no cluster in the status of ${url}`);
  return body.cluster;
}

describe("the shared queue and cross-node play", () => {
  skipAllIf(DATABASE_URL_MISSING);
  const cluster = new TestCluster();
  const nodes = cluster.nodes;
  const ids: string[] = [];

  beforeAll(async () => {
    if (DATABASE_URL_MISSING) return;
    await cluster.start("ladder-cluster-play", 3, ["--no-house-bots", "--hourly-quota", "1"]);
    for (const n of nodes) ids.push((await clusterOf(n.url)).node);
  }, 240_000);

  afterAll(() => cluster.stop());

  /** The node holding the ladder's lease, once exactly one of `among` holds it. */
  const holderOf = (among: Child[]) =>
    until(async () => {
      const views = await Promise.all(among.map((n) => clusterOf(n.url)));
      const held = views.flatMap((v, i) => (v.leases.find((l) => l.name === LEASE)?.held ? [among[i]!] : []));
      expect(held.length).toBeLessThanOrEqual(1);
      return held.length === 1 ? held[0]! : null;
    }, "one holder of the public ladder's lease");

  async function connect(node: Child, name: string, owner = `${name}-owner`): Promise<BotClient> {
    const res = await fetch(`${node.url}/api/bots`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, owner }),
    });
    expect(res.status).toBe(201);
    const { token } = (await res.json()) as { token: string };
    tokens.set(name, token);
    return connectAs(node, name);
  }

  const tokens = new Map<string, string>();
  /** A new socket of a registered bot, on `node`. */
  async function connectAs(node: Child, name: string): Promise<BotClient> {
    const bot = new BotClient(node.wsUrl, tokens.get(name)!);
    await bot.open();
    return bot;
  }

  const botView = async (url: string, name: string) => {
    const res = await fetch(`${url}/api/bots/${name}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { versions: unknown[] }).versions;
  };

  /** Both bots play their match to its end (each answers every observation); resolves with the two `end`s. */
  async function playBoth(bots: BotClient[]): Promise<Msg[]> {
    const hellos = (await Promise.all(bots.map((b) => b.queueForMatch()))) as Msg[];
    expect(hellos[0]!.match_id).toBe(hellos[1]!.match_id);
    const ends = Promise.all(bots.map((b) => b.playUntilEnd()));
    for (const b of bots) b.send({ type: "ready" });
    const out = (await ends) as Msg[];
    for (const b of bots) expect(b.received.filter((m) => m.type === "hello")).toHaveLength(1);
    return out;
  }

  it("bots on two nodes other than the matchmaker's are paired and play to the end; every node agrees", async () => {
    const holder = await holderOf(nodes);
    const [a, b] = nodes.filter((n) => n !== holder) as [Child, Child];
    const bots = [await connect(a, "split-a"), await connect(b, "split-b")];
    try {
      const ends = await playBoth(bots);
      expect(ends[0]!.match_id).toBe(ends[1]!.match_id);
      expect(ends[0]!.final_tick).toBe(ends[1]!.final_tick);
      const results = ends.map((e) => e.result).sort();
      expect([
        ["draw", "draw"],
        ["loss", "win"],
      ]).toContainEqual(results);
      expect(ends[0]!.reason).not.toBe("aborted");
      // Every node's lobby lists both bots alike, whichever node holds their sockets (shared-presence.ts).
      const lobby = async (url: string) =>
        ((await (await fetch(`${url}/api/lobby`)).json()) as { name: string; state: string }[]).filter((e) =>
          e.name.startsWith("split-"),
        );
      const lobbies = await until(async () => {
        const all = await Promise.all(nodes.map((n) => lobby(n.url)));
        const same = all.every((l) => JSON.stringify(l) === JSON.stringify(all[0]));
        return same && all[0]!.length === 2 ? all : null;
      }, "the same lobby on every node");
      expect(lobbies[0]!.map((e) => e.state)).toEqual(["idle", "idle"]);
      // The match is stored once (any node reads it), and its replay, on the node that ran it, verifies.
      const id = ends[0]!.match_id as string;
      const m = (await (await fetch(`${holder.url}/api/matches/${id}`)).json()) as { id: string };
      expect(m.id).toBe(id);
      // It ran on one of the two socket nodes, with the other node's bot playing through NATS.
      const placed = [a, b].flatMap((n) =>
        n.log.filter((l) => l.includes("placed match started") && l.includes(id)),
      );
      expect(placed).toHaveLength(1);
      expect(JSON.parse(placed[0]!)).toMatchObject({ match: id, remote: 1 });
      const replays = await Promise.all(
        [a, b].map(async (n) => {
          const r = await fetch(`${n.url}/replays/${id}.jsonl.gz`);
          return r.status === 200 ? new Uint8Array(await r.arrayBuffer()) : null;
        }),
      );
      const replay = replays.find((r) => r !== null);
      expect(replay).toBeDefined();
      expect(verifyReplay(replay!)).toEqual({
        ok: true,
        matchId: id,
        ticks: ends[0]!.final_tick,
        winner: ends[0]!.winner,
        reason: ends[0]!.reason,
      });
    } finally {
      for (const x of bots) x.close();
    }
    const names = ["split-a", "split-b"];
    const expected = await Promise.all(names.map((n) => botView(a.url, n)));
    for (const v of expected) expect(v).toEqual([expect.objectContaining({ rated_games: 1 })]);
    for (const n of nodes)
      await until(async () => {
        const here = await Promise.all(names.map((name) => botView(n.url, name)));
        return JSON.stringify(here) === JSON.stringify(expected) ? here : null;
      }, `the result on ${n.url}`);
    const board = async (url: string) =>
      ((await (await fetch(`${url}/api/leaderboard`)).json()) as { online?: boolean }[]).map(
        ({ online: _, ...r }) => r,
      );
    const boards = await Promise.all(nodes.map((n) => board(n.url)));
    for (const x of boards) expect(x).toEqual(boards[0]);
  }, 120_000);

  it("a bot playing through NATS that drops and reconnects to its node within the grace resumes the match", async () => {
    const holder = await holderOf(nodes);
    const [a, b] = nodes.filter((n) => n !== holder) as [Child, Child];
    const bots = [await connect(a, "resume-a"), await connect(b, "resume-b")];
    const more: BotClient[] = [];
    try {
      const hellos = (await Promise.all(bots.map((x) => x.queueForMatch()))) as Msg[];
      const id = hellos[0]!.match_id as string;
      // The bot whose socket is not on the match's node plays through NATS.
      const runs = (n: Child) => n.log.some((l) => l.includes("placed match started") && l.includes(id));
      await until(async () => ([a, b].some(runs) ? true : null), "the placed match in a node's log");
      const remote = runs(a) ? 1 : 0;
      const [near, far] = [bots[1 - remote]!, bots[remote]!];
      const farNode = remote === 0 ? a : b;
      const nearEnd = near.playUntilEnd();
      const stop = far.autoplay((o) => ((o.tick as number) < 3 ? { type: "turn", tick: o.tick } : undefined));
      for (const x of bots) x.send({ type: "ready" });
      await far.next("observation", (m) => m.tick === 3, 10_000, 0);
      stop();
      far.close();
      await far.closed();
      const back = await connectAs(farNode, remote === 0 ? "resume-a" : "resume-b");
      more.push(back);
      const farEnd = back.playUntilEnd();
      const again = (await back.next("hello", () => true, 10_000, 0)) as Msg;
      expect(again.match_id).toBe(id);
      const ends = (await Promise.all([nearEnd, farEnd])) as Msg[];
      for (const e of ends) expect(e.match_id).toBe(id);
      // It played on after the reconnect (the new socket may come back before the missed tick's deadline, so it
      // need not have idled as disconnected): not disqualified, and it answered ticks after the third.
      const me = hellos[remote]!.bot_id as number;
      const fighters = (
        ends[1]!.stats as { fighters: { disqualified: boolean; timing: { replies: number } }[] }
      ).fighters;
      expect(fighters[me]!.disqualified).toBe(false);
      expect(fighters[me]!.timing.replies).toBeGreaterThan(4);
    } finally {
      for (const x of [...bots, ...more]) x.close();
    }
  }, 120_000);

  // A load balancer sends a reconnecting bot to any node: it resumes its match wherever that runs, through a relay
  // on the node it came back to (server/cluster/failover.ts, rejoin).
  for (const c of [
    { what: "whose socket was on the match's node", prefix: "home", split: false },
    { what: "playing through NATS", prefix: "far", split: true },
  ])
    it(`a bot ${c.what} that drops and reconnects through a third node within the grace resumes the match`, async () => {
      const holder = await holderOf(nodes);
      const [a, b] = nodes.filter((n) => n !== holder) as [Child, Child];
      const homes = [a, c.split ? b : a];
      const bots = [await connect(homes[0]!, `${c.prefix}-a`), await connect(homes[1]!, `${c.prefix}-b`)];
      const more: BotClient[] = [];
      try {
        const hellos = (await Promise.all(bots.map((x) => x.queueForMatch()))) as Msg[];
        const id = hellos[0]!.match_id as string;
        const runs = (n: Child) => n.log.some((l) => l.includes("placed match started") && l.includes(id));
        await until(async () => ([a, b].some(runs) ? true : null), "the placed match in a node's log");
        const matchNode = runs(a) ? a : b;
        // The bot that goes: one whose socket is on another node than the match, if there is one.
        const seat = homes[1] !== matchNode ? 1 : 0;
        const [stay, away] = [bots[1 - seat]!, bots[seat]!];
        const stayEnd = stay.playUntilEnd();
        const stop = away.autoplay((o) =>
          (o.tick as number) < 3 ? { type: "turn", tick: o.tick } : undefined,
        );
        for (const x of bots) x.send({ type: "ready" });
        await away.next("observation", (m) => m.tick === 3, 10_000, 0);
        stop();
        away.close();
        await away.closed();
        // Back through the matchmaker's node, which holds neither the match nor the bot's old socket.
        const back = await connectAs(holder, `${c.prefix}-${seat === 0 ? "a" : "b"}`);
        more.push(back);
        const backEnd = back.playUntilEnd();
        const again = (await back.next("hello", () => true, 10_000, 0)) as Msg;
        expect(again.match_id).toBe(id);
        const ends = (await Promise.all([stayEnd, backEnd])) as Msg[];
        for (const e of ends) expect(e.match_id).toBe(id);
        const me = hellos[seat]!.bot_id as number;
        const fighters = (
          ends[1]!.stats as { fighters: { disqualified: boolean; timing: { replies: number } }[] }
        ).fighters;
        expect(fighters[me]!.disqualified).toBe(false);
        expect(fighters[me]!.timing.replies).toBeGreaterThan(4);
        expect(holder.log.some((l) => l.includes("placed match started") && l.includes(id))).toBe(false);
      } finally {
        for (const x of [...bots, ...more]) x.close();
      }
    }, 120_000);

  it("a quota holds across nodes: a bot that played through one node is refused when it queues on another", async () => {
    const holder = await holderOf(nodes);
    const [a, b] = nodes.filter((n) => n !== holder) as [Child, Child];
    const first = [await connect(a, "quota-a"), await connect(b, "quota-b")];
    try {
      await playBoth(first);
    } finally {
      for (const x of first) x.close();
    }
    // The bot comes back through the other node (one match per hour allowed) and a fresh bot waits with it.
    const again = await connectAs(b, "quota-a");
    const fresh = await connect(a, "quota-c");
    try {
      again.send({ type: "queue", version: "v1" });
      fresh.send({ type: "queue", version: "v1" });
      const err = (await again.next("error", (m) => m.code === "quota_exceeded")) as Msg;
      expect(err.message).toMatch(/hourly_quota/);
      expect(again.received.some((m) => m.type === "hello")).toBe(false);
      expect(fresh.received.some((m) => m.type === "hello")).toBe(false);
    } finally {
      again.close();
      fresh.close();
    }
  }, 120_000);

  it("kill -9 of the matchmaker's node: the lease moves within 2 s; the bots queued elsewhere are all paired, once", async () => {
    const holder = await holderOf(nodes);
    const [a, b] = nodes.filter((n) => n !== holder) as [Child, Child];
    const bots: BotClient[] = [];
    try {
      // Four bots of one owner queue on the two other nodes and wait: bots of one owner never meet.
      const kin: BotClient[] = [];
      for (const [i, n] of [a, a, b, b].entries()) kin.push(await connect(n, `kin-${i}`, "kin"));
      bots.push(...kin);
      for (const x of kin) x.send({ type: "queue", version: "v1" });
      await Promise.all(kin.map((x) => x.next("queued", () => true, 15_000, 0)));
      const [aId, bId] = [(await clusterOf(a.url)).node, (await clusterOf(b.url)).node];
      await until(async () => {
        const seen = (await clusterOf(holder.url)) as ClusterView & {
          nodes: { node: string; queued: number }[];
        };
        const q = (id: string) => seen.nodes.find((x) => x.node === id)?.queued;
        return q(aId) === 2 && q(bId) === 2 ? seen : null;
      }, "the four queued bots in the holder's view");
      const killedAt = Date.now();
      holder.proc.kill("SIGKILL");
      await holder.exited;
      await until(() => holderOf([a, b]).catch(() => null), "a surviving node to take the lease", 10_000, 20);
      expect(Date.now() - killedAt).toBeLessThan(2000);
      for (const x of kin) expect(x.received.some((m) => m.type === "hello")).toBe(false);

      // Four bots of another owner queue, on b and a (the other way round): the new holder pairs each with one
      // of the bots queued before the kill, some of them across the two nodes.
      const foe: BotClient[] = [];
      for (const [i, n] of [b, b, a, a].entries()) foe.push(await connect(n, `foe-${i}`, "foe"));
      bots.push(...foe);
      const playing = Promise.all(bots.map((x) => x.playUntilEnd()));
      for (const x of foe) x.send({ type: "queue", version: "v1" });
      const ends = (await playing) as Msg[];
      // Each bot played exactly one match, each match had exactly two bots, one of each owner.
      for (const x of bots) expect(x.received.filter((m) => m.type === "hello")).toHaveLength(1);
      const byMatch = new Map<string, number>();
      for (const e of ends) byMatch.set(e.match_id as string, (byMatch.get(e.match_id as string) ?? 0) + 1);
      expect([...byMatch.values()]).toEqual([2, 2, 2, 2]);
      for (const e of ends) expect(e.reason).not.toBe("voided");
      const kinMatches = new Set(ends.slice(0, 4).map((e) => e.match_id));
      expect(kinMatches.size).toBe(4);
      // Once in the results too: one rated game each, on both surviving nodes.
      for (const n of [a, b])
        for (const name of ["kin-0", "kin-3", "foe-0", "foe-3"])
          await until(async () => {
            const v = await botView(n.url, name);
            return (v[0] as { rated_games?: number } | undefined)?.rated_games === 1 ? v : null;
          }, `${name}'s one game on ${n.url}`);
    } finally {
      for (const x of bots) x.close();
    }
  }, 120_000);
});
