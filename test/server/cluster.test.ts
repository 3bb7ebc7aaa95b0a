// Cluster mode, first steps (issue 36): three real nodes (child processes of `node server/main.ts --cluster`) on
// one PostgreSQL schema and a nats-server this test starts on a free port. Every node lists all three with their
// figures in GET /api/status and /metrics; one node at a time holds a ladder's matchmaker lease, and after kill -9
// of its node the lease moves to another node within 2 s (the lease's TTL of 1 s plus one attempt interval: the
// bound is the lease's correctness property, not a speed). PGlite refuses --cluster with one line.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../server/config.ts";
import { freePort } from "../helpers/ports.ts";
import { BotClient, startServer } from "../helpers/server.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";
import { TestCluster, until } from "../helpers/test-cluster.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const TOKEN = "cluster-test-metrics-token";
const LEASE = "matchmaker.public";

interface ClusterView {
  node: string;
  nodes: { node: string; sockets: { bot: number; human: number }; matches: number; leases: string[] }[];
  leases: { name: string; holder: string | null; held: boolean }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function clusterOf(url: string): Promise<ClusterView> {
  const res = await fetch(`${url}/api/status`);
  const body = (await res.json()) as { cluster?: ClusterView };
  if (!body.cluster) throw new Error(`no cluster in the status of ${url}`);
  return body.cluster;
}

describe("--cluster with the embedded database", () => {
  it("is refused at start with one line saying PGlite is single-node", () => {
    expect(() => parseConfig(["--anonymous-dev", "--cluster", "nats://127.0.0.1:4222"], {})).toThrow(
      ConfigError,
    );
    const dir = mkdtempSync(join(tmpdir(), "ladder-cluster-pglite-"));
    const env = { ...process.env };
    delete env.DATABASE_URL;
    const r = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "server/main.ts",
        "--anonymous-dev",
        "--data-dir",
        dir,
        "--cluster",
        "nats://127.0.0.1:1",
      ],
      { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 },
    );
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--cluster needs PostgreSQL .*PGlite database is single-node/);
  }, 60_000);

  it("takes only a NATS address", () => {
    expect(() =>
      parseConfig(["--anonymous-dev", "--cluster", "http://x:1"], { DATABASE_URL: "postgres://h/db" }),
    ).toThrow(/--cluster must be a NATS address/);
  });
});

describe("a single server", () => {
  it("never loads the NATS client nor msgpackr", () => {
    const run = (control: boolean) => {
      const dir = mkdtempSync(join(tmpdir(), "ladder-cluster-imports-"));
      const env = { ...process.env };
      delete env.DATABASE_URL;
      const r = spawnSync(
        process.execPath,
        ["--import", "tsx", "test/helpers/single-node-imports.ts", dir, ...(control ? ["control"] : [])],
        { cwd: ROOT, env, encoding: "utf8", timeout: 90_000 },
      );
      rmSync(dir, { recursive: true, force: true });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { loaded: string[]; statusKeys: string[] };
    };
    const single = run(false);
    expect(single.loaded).toEqual([]);
    expect(single.statusKeys).not.toContain("cluster");
    // The control: the same hook sees the packages once the cluster's node module is loaded.
    expect(run(true).loaded).toEqual(
      expect.arrayContaining(["@nats-io/transport-node", "@nats-io/kv", "msgpackr"]),
    );
  }, 180_000);

  it("has no cluster in its status", async () => {
    const s = await startServer();
    try {
      const { body } = await s.get<Record<string, unknown>>("/api/status");
      expect(body).toHaveProperty("draining", false);
      expect(body).not.toHaveProperty("cluster");
      expect(s.app.ctx.cluster).toBeNull();
    } finally {
      await s.stop();
    }
  }, 60_000);
});

describe("three nodes on one PostgreSQL and NATS", () => {
  skipAllIf(DATABASE_URL_MISSING);
  const cluster = new TestCluster();
  const nodes = cluster.nodes;

  beforeAll(async () => {
    if (DATABASE_URL_MISSING) return;
    await cluster.start("ladder-cluster", 3, ["--metrics-token", TOKEN]);
  }, 240_000);

  afterAll(() => cluster.stop());

  it("a node that cannot reach NATS does not start, and says so in one line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ladder-cluster-nonats-"));
    const port = await freePort();
    const r = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "server/main.ts",
        "--anonymous-dev",
        "--port",
        "0",
        "--data-dir",
        dir,
        "--database-url",
        cluster.db!.url!,
        "--cluster",
        `nats://127.0.0.1:${port}`,
      ],
      { cwd: ROOT, encoding: "utf8", timeout: 60_000 },
    );
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`^cannot start: cannot reach NATS at nats://127\\.0\\.0\\.1:${port} \\(--cluster\\)`),
      ),
    ]);
  }, 60_000);

  it("every node lists all three, with each node's figures", async () => {
    const ids = await Promise.all(nodes.map(async (n) => (await clusterOf(n.url)).node));
    expect(new Set(ids).size).toBe(3);
    for (const n of nodes)
      await until(async () => {
        const c = await clusterOf(n.url);
        return c.nodes.length === 3 ? c : null;
      }, `three nodes in ${n.url}'s status`);
    for (const n of nodes)
      expect((await clusterOf(n.url)).nodes.map((x) => x.node).sort()).toEqual([...ids].sort());

    // A bot registered through the first node and connected to the second: the third sees its socket there.
    const res = await fetch(`${nodes[0]!.url}/api/bots`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "cluster-sock", owner: "cluster-owner" }),
    });
    const { token } = (await res.json()) as { token: string };
    const bot = new BotClient(nodes[1]!.wsUrl, token);
    await bot.open();
    try {
      await until(async () => {
        const seen = (await clusterOf(nodes[2]!.url)).nodes.find((x) => x.node === ids[1]);
        return seen?.sockets.bot === 1 ? seen : null;
      }, "the second node's bot socket in the third node's view");
      const others = (await clusterOf(nodes[2]!.url)).nodes.filter((x) => x.node !== ids[1]);
      for (const o of others) expect(o.sockets.bot).toBe(0);

      // /metrics of the first node: the three nodes and the second node's socket (once its own view, read at its
      // own heartbeat, has it).
      await until(async () => {
        const seen = (await clusterOf(nodes[0]!.url)).nodes.find((x) => x.node === ids[1]);
        return seen?.sockets.bot === 1 ? seen : null;
      }, "the second node's bot socket in the first node's view");
      const m = await fetch(`${nodes[0]!.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(m.status).toBe(200);
      const text = await m.text();
      expect(text).toMatch(/^arena_cluster_nodes 3$/m);
      expect(text).toContain(`arena_cluster_node_bot_sockets{node="${ids[1]}"} 1`);
      expect(text).toContain(`arena_cluster_node_bot_sockets{node="${ids[0]}"} 0`);
      expect(text).toMatch(/^arena_cluster_lease_held\{lease="matchmaker\.public"\} [01]$/m);
    } finally {
      bot.close();
    }
  }, 60_000);

  const botView = async (url: string, name: string) => {
    const res = await fetch(`${url}/api/bots/${name}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { versions: unknown[] }).versions;
  };

  /**
   * Two new bots play one rated match on the node holding the ladder's lease (both sockets there, so it runs
   * there; cross-node play is cluster-play.test.ts): the second leaves once the match is under way and forfeits
   * after the reconnect grace.
   * `meanwhile` runs once the match has begun and before it ends. Resolves with the holder and its bots' pages.
   */
  async function playOne(names: string[], meanwhile: () => Promise<void> = async () => {}) {
    const holder = await until(async () => {
      const views = await Promise.all(nodes.map((n) => clusterOf(n.url)));
      const i = views.findIndex((v) => v.leases.find((l) => l.name === LEASE)?.held);
      return i >= 0 ? nodes[i]! : null;
    }, "a holder of the public ladder's lease");
    const bots: BotClient[] = [];
    try {
      for (const name of names) {
        const res = await fetch(`${holder.url}/api/bots`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name, owner: `${name}-owner` }),
        });
        const { token } = (await res.json()) as { token: string };
        const bot = new BotClient(holder.wsUrl, token);
        bots.push(bot);
        await bot.open();
      }
      const hellos = await Promise.all(bots.map((b) => b.queueForMatch()));
      for (const h of hellos) expect(h.type).toBe("hello");
      const end = bots[0]!.playUntilEnd();
      for (const b of bots) b.send({ type: "ready" });
      await bots[1]!.next("observation");
      await meanwhile();
      bots[1]!.close();
      expect(await end).toMatchObject({ type: "end", result: "win" });
    } finally {
      for (const b of bots) b.close();
    }
    const onHolder = await Promise.all(names.map((name) => botView(holder.url, name)));
    for (const v of onHolder) expect(v).toEqual([expect.objectContaining({ rated_games: 1 })]);
    return { holder, onHolder };
  }

  /** Every node shows the bots' pages as `expected` (the same ratings, deviations, records and health). */
  async function sameEverywhere(names: string[], expected: unknown[][]): Promise<void> {
    for (const n of nodes)
      await until(async () => {
        const here = await Promise.all(names.map((name) => botView(n.url, name)));
        return JSON.stringify(here) === JSON.stringify(expected) ? here : null;
      }, `the result on ${n.url}`);
  }

  it("a match played on one node counts on every node: the same ratings, records and leaderboard", async () => {
    const names = ["shared-a", "shared-b"];
    const { onHolder } = await playOne(names);
    // Every other node took the result in from the stream.
    await sameEverywhere(names, onHolder);
    const board = async (url: string) => {
      const res = await fetch(`${url}/api/leaderboard`);
      const rows = (await res.json()) as { online?: boolean }[];
      return rows.map(({ online: _, ...r }) => r);
    };
    const boards = await Promise.all(nodes.map((n) => board(n.url)));
    for (const b of boards) expect(b).toEqual(boards[0]);
  }, 90_000);

  it("a result committed while NATS is down reaches every node, once, after NATS restarts", async () => {
    const names = ["outage-a", "outage-b"];
    // NATS dies mid-match: the match ends and commits to PostgreSQL meanwhile, its publication waits.
    const { holder, onHolder } = await playOne(names, () => cluster.nats!.kill());
    const others = nodes.filter((n) => n !== holder);
    for (const n of others)
      expect(await Promise.all(names.map((name) => botView(n.url, name).catch(() => null)))).not.toEqual(
        onHolder,
      );
    await cluster.nats!.restart();
    await sameEverywhere(names, onHolder);
    // Once: still one rated game each, on every node, a while later.
    await sleep(1500);
    await sameEverywhere(names, onHolder);
  }, 90_000);

  it("one node holds a ladder's lease, and kill -9 of it moves the lease within 2 s", async () => {
    // Exactly one holder, and every node names it.
    const holder = await until(async () => {
      const views = await Promise.all(nodes.map((n) => clusterOf(n.url)));
      const leases = views.map((v) => v.leases.find((l) => l.name === LEASE)!);
      const holders = views.filter((_, i) => leases[i]!.held);
      if (holders.length !== 1) return null;
      const id = holders[0]!.node;
      return leases.every((l) => l.holder === id) ? id : null;
    }, "one holder of the public ladder's lease, named by every node");
    const views = await Promise.all(nodes.map((n) => clusterOf(n.url)));
    const nodeUrls = new Map(views.map((v, i) => [v.node, nodes[i]!.url]));
    const victim = nodes[views.findIndex((v) => v.node === holder)]!;
    const survivors = nodes.filter((n) => n !== victim);
    // Its own heartbeat says so too.
    expect(views[0]!.nodes.find((x) => x.node === holder)?.leases).toContain(LEASE);

    const killedAt = Date.now();
    victim.proc.kill("SIGKILL");
    await victim.exited;
    const next = await until(
      async () => {
        const vs = await Promise.all(survivors.map((n) => clusterOf(n.url)));
        const held = vs.filter((v) => v.leases.find((l) => l.name === LEASE)?.held);
        expect(held.length).toBeLessThanOrEqual(1); // never two holders at once
        return held.length === 1 ? held[0]!.node : null;
      },
      "a surviving node to take the lease",
      10_000,
      20,
    );
    const movedMs = Date.now() - killedAt;
    expect(next).not.toBe(holder);
    expect(movedMs).toBeLessThan(2000);

    // The new holder pairs: two bots queued on its node are matched.
    const nextNode = survivors.find((n) => n.url === nodeUrls.get(next))!;
    const bots: BotClient[] = [];
    try {
      const hellos = await Promise.all(
        ["after-a", "after-b"].map(async (name) => {
          const res = await fetch(`${nextNode.url}/api/bots`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name, owner: `${name}-owner` }),
          });
          const { token } = (await res.json()) as { token: string };
          const bot = new BotClient(nextNode.wsUrl, token);
          bots.push(bot);
          await bot.open();
          return bot.queueForMatch();
        }),
      );
      for (const h of hellos) expect(h.type).toBe("hello");
    } finally {
      for (const b of bots) b.close();
    }

    // The dead node drops out of the survivors' lists once its heartbeat expires.
    for (const n of survivors)
      await until(async () => {
        const c = await clusterOf(n.url);
        return c.nodes.length === 2 && !c.nodes.some((x) => x.node === holder) ? c : null;
      }, "the killed node to leave the list");
  }, 60_000);
});
