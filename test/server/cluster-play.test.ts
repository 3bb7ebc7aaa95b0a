// The cluster's shared queue and cross-node play (issue 36, parts 2-3): three real nodes (child processes of
// `node server/main.ts --cluster`, no house bots) on one PostgreSQL schema and a nats-server this test starts on a
// free port. Bots connected to different nodes are paired by the one matchmaker and play a whole match, one of
// them through NATS; every node then shows the same ratings and leaderboard. After kill -9 of the matchmaker's
// node, the lease moves within 2 s (the lease's correctness bound, as in cluster.test.ts) and a bot that was
// queued on another node before the kill is paired by the new holder: none lost, none paired twice.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Child, startChild } from "../helpers/child-server.ts";
import { type Nats, startNats } from "../helpers/nats.ts";
import { BotClient, freshDatabaseUrl } from "../helpers/server.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";

const LEASE = "matchmaker.public";

interface ClusterView {
  node: string;
  leases: { name: string; holder: string | null; held: boolean }[];
}
type Msg = Record<string, unknown> & { type: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(read: () => Promise<T | null>, what: string, timeoutMs = 20_000, everyMs = 100) {
  const t0 = Date.now();
  for (;;) {
    const v = await read();
    if (v !== null) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

async function clusterOf(url: string): Promise<ClusterView> {
  const body = (await (await fetch(`${url}/api/status`)).json()) as { cluster?: ClusterView };
  if (!body.cluster) throw new Error(`no cluster in the status of ${url}`);
  return body.cluster;
}

describe("the shared queue and cross-node play", () => {
  skipAllIf(DATABASE_URL_MISSING);
  let nats: Nats | null = null;
  let db: Awaited<ReturnType<typeof freshDatabaseUrl>> | null = null;
  const nodes: Child[] = [];
  const dirs: string[] = [];
  const ids: string[] = [];

  beforeAll(async () => {
    if (DATABASE_URL_MISSING) return;
    nats = await startNats();
    db = await freshDatabaseUrl();
    for (let i = 0; i < 3; i++) {
      const dir = mkdtempSync(join(tmpdir(), `ladder-cluster-play-${i}-`));
      dirs.push(dir);
      nodes.push(await startChild(dir, db.url, { args: ["--cluster", nats.url, "--no-house-bots"] }));
    }
    for (const n of nodes) ids.push((await clusterOf(n.url)).node);
  }, 240_000);

  afterAll(async () => {
    for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill("SIGKILL");
    await Promise.all(nodes.map((n) => n.exited));
    await nats?.stop();
    await db?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** The node holding the ladder's lease, once exactly one of `among` holds it. */
  const holderOf = (among: Child[]) =>
    until(async () => {
      const views = await Promise.all(among.map((n) => clusterOf(n.url)));
      const held = views.flatMap((v, i) => (v.leases.find((l) => l.name === LEASE)?.held ? [among[i]!] : []));
      expect(held.length).toBeLessThanOrEqual(1);
      return held.length === 1 ? held[0]! : null;
    }, "one holder of the public ladder's lease");

  async function connect(node: Child, name: string): Promise<BotClient> {
    const res = await fetch(`${node.url}/api/bots`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, owner: `${name}-owner` }),
    });
    expect(res.status).toBe(201);
    const { token } = (await res.json()) as { token: string };
    const bot = new BotClient(node.wsUrl, token);
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
      // The match is stored once, and its replay verifies on the node that ran it.
      const id = ends[0]!.match_id as string;
      const m = (await (await fetch(`${holder.url}/api/matches/${id}`)).json()) as { id: string };
      expect(m.id).toBe(id);
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

  it("kill -9 of the matchmaker's node: the lease moves within 2 s and a bot queued elsewhere is paired once", async () => {
    const holder = await holderOf(nodes);
    const [a, b] = nodes.filter((n) => n !== holder) as [Child, Child];
    const bots: BotClient[] = [];
    try {
      // A bot queues on a surviving node and waits (it is alone in the cluster's queue: no house bots).
      const lone = await connect(a, "lone-a");
      bots.push(lone);
      lone.send({ type: "queue", version: "v1" });
      await lone.next("queued");
      const aId = (await clusterOf(a.url)).node;
      await until(async () => {
        const seen = (await clusterOf(holder.url)) as ClusterView & {
          nodes: { node: string; queued: number }[];
        };
        return seen.nodes.find((x) => x.node === aId)?.queued === 1 ? seen : null;
      }, "the lone bot in the holder's view");
      const killedAt = Date.now();
      holder.proc.kill("SIGKILL");
      await holder.exited;
      await until(() => holderOf([a, b]).catch(() => null), "a surviving node to take the lease", 10_000, 20);
      expect(Date.now() - killedAt).toBeLessThan(2000);
      // A bot queues on the other survivor: the new holder pairs it with the bot queued before the kill.
      const late = await connect(b, "late-b");
      bots.push(late);
      await Promise.all([lone.next("hello", () => true, 15_000, 0), late.queueForMatch()]);
      const playing = Promise.all(bots.map((x) => x.playUntilEnd()));
      for (const x of bots) x.send({ type: "ready" });
      const ends = (await playing) as Msg[];
      expect(ends.map((e) => e.reason)).not.toContain("voided");
      expect(ends[0]!.match_id).toBe(ends[1]!.match_id);
      // Once: one hello each, and no other match of either.
      for (const x of bots) expect(x.received.filter((m) => m.type === "hello")).toHaveLength(1);
      const id = ends[0]!.match_id as string;
      for (const n of [a, b])
        await until(async () => {
          const r = await fetch(`${n.url}/api/bots/lone-a`);
          const v = ((await r.json()) as { versions: { rated_games: number }[] }).versions;
          return v[0]?.rated_games === 1 ? v : null;
        }, `the match ${id} counted once on ${n.url}`);
    } finally {
      for (const x of bots) x.close();
    }
  }, 120_000);
});
