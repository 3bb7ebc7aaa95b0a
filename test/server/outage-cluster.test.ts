// A bad day, from outside (issue 20): the real server as a child process, bots playing ranked matches over
// real sockets, and the database taken away under it: a private PostgreSQL cluster stopped for 8 s and started
// again, and kill -9 of the server while results wait in its journal (on that cluster, and on the embedded
// database made unreachable through test/helpers/outage-server.ts). Every match whose `end` a bot received is
// stored afterwards, once, and a restart rebuilds the ratings the live server showed.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect } from "vitest";
import { type Child, startChild } from "../helpers/child-server.ts";
import { CLUSTER_UNAVAILABLE, type Cluster, startCluster } from "../helpers/pg-cluster.ts";
import { BotClient } from "../helpers/server.ts";
import { itUnless } from "../helpers/skips.ts";

type Msg = { type: string; [k: string]: unknown };

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(
  cond: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function register(url: string, name: string): Promise<string> {
  const res = await fetch(`${url}/api/bots`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, owner: `${name}-owner` }),
  });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 201 || !body.token) throw new Error(`registration failed: ${res.status}`);
  return body.token;
}

/** A bot that plays match after match against the house bots, queueing again after `unavailable`. */
class Player {
  readonly ends: Msg[] = [];
  /** In a match now (between its `hello` and its `end`). */
  playing = false;
  private constructor(
    readonly name: string,
    readonly client: BotClient,
  ) {}

  static async start(child: Child, name: string, token: string): Promise<Player> {
    const client = new BotClient(child.wsUrl, token);
    await client.open();
    const p = new Player(name, client);
    const queue = () =>
      client.ws.readyState === client.ws.OPEN && client.send({ type: "queue", version: "v1" });
    client.ws.on("message", (data) => {
      const m = JSON.parse(data.toString()) as Msg;
      if (m.type === "hello") {
        p.playing = true;
        client.send({ type: "ready" });
      }
      // A little thinking time: a match lasts a couple of seconds, so an outage begun mid-match ends it.
      if (m.type === "observation")
        setTimeout(
          () => client.ws.readyState === client.ws.OPEN && client.send({ type: "turn", tick: m.tick }),
          10,
        );
      if (m.type === "end") {
        p.playing = false;
        p.ends.push(m);
        queue();
      }
      if (m.type === "error" && m.code === "unavailable") setTimeout(queue, 200);
    });
    queue();
    return p;
  }

  stop(): void {
    this.client.ws.close();
  }
}

const journalOf = (dataDir: string) => readdirSync(join(dataDir, "journal"));

async function getJson<T>(url: string, path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, body: (await res.json()) as T };
}

/** Every version's rating, deviation and record, for the named bots. */
async function ratings(url: string, names: Iterable<string>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const { body } = await getJson<{ versions: Record<string, unknown>[] }>(url, `/api/bots/${name}`);
    for (const v of body.versions)
      out[`${name}@${v.label}`] = [v.rating, v.rating_deviation, v.wins, v.losses, v.draws];
  }
  return out;
}

/** Each match a bot was told the end of is stored, once, with the result the bot was told. */
async function expectStored(url: string, players: Player[]): Promise<Set<string>> {
  const everyone = new Set<string>();
  for (const p of players) {
    const listed = await getJson<{ id: string }[]>(url, `/api/matches?bot=${p.name}&limit=100`);
    const ids = listed.body.map((m) => m.id);
    expect(new Set(ids).size, `${p.name}: no match listed twice`).toBe(ids.length);
    for (const end of p.ends) {
      expect(ids, `${p.name}: match ${end.match_id} was told and must be stored`).toContain(end.match_id);
      const row = await getJson<{ reason: string; final_tick: number; bots: { name: string }[] }>(
        url,
        `/api/matches/${end.match_id}`,
      );
      expect(row.body).toMatchObject({ reason: end.reason, final_tick: end.final_tick });
      for (const b of row.body.bots) everyone.add(b.name);
    }
  }
  return everyone;
}

async function stopChild(child: Child, signal: NodeJS.Signals): Promise<void> {
  child.proc.kill(signal);
  await child.exited;
}

describe("a database outage during ranked play, seen from outside", () => {
  itUnless(CLUSTER_UNAVAILABLE)(
    "PostgreSQL stopped for 8 s and started again: every told result stored once, ratings equal after a restart",
    async () => {
      const cluster: Cluster = await startCluster();
      cleanup.push(() => cluster.destroy());
      const dataDir = mkdtempSync(join(tmpdir(), "ladder-cluster-"));
      let child = await startChild(dataDir, cluster.url);
      cleanup.push(() => child.proc.kill("SIGKILL"));
      const names = ["pg-out-a", "pg-out-b", "pg-out-c"];
      const players = await Promise.all(
        names.map(async (n) => Player.start(child, n, await register(child.url, n))),
      );
      await until(() => players.every((p) => p.ends.length >= 1), "a first match each");
      // The outage begins while a match runs, so that one ends during it (no new match starts meanwhile).
      await until(() => players.some((p) => p.playing), "a match in progress");
      cluster.stop("fast");
      // The matches running at the stop end during it (bots between matches are refused `unavailable`).
      await until(() => journalOf(dataDir).length >= 1, "a match to end while the database is down");
      await sleep(8_000); // the database stays down a while (matches keep ending meanwhile)
      // Told, journaled, and answered from the journal meanwhile.
      const last = players[0]!.ends.at(-1)!;
      expect((await getJson(child.url, `/api/matches/${last.match_id}`)).status).toBe(200);
      cluster.start();
      await until(() => journalOf(dataDir).length === 0, "the journal to drain", 60_000);
      const atRecovery = players.map((p) => p.ends.length);
      await until(
        () => players.every((p, i) => p.ends.length > atRecovery[i]!),
        "play to go on after the outage",
        60_000,
      );
      for (const p of players) p.stop();
      // The matches of the gone bots end (disqualified after the reconnect grace). A match leaves the running
      // list only after its result is in the rating book and stored or journaled (match-runner finish()).
      await until(
        async () =>
          (await getJson<{ matches: unknown[] }>(child.url, "/api/status")).body.matches.length === 0,
        "the gone bots' matches to end",
      );
      await until(() => journalOf(dataDir).length === 0, "the journal to drain", 60_000);
      const everyone = await expectStored(child.url, players);
      const live = await ratings(child.url, everyone);
      await stopChild(child, "SIGTERM");
      child = await startChild(dataDir, cluster.url);
      expect(await ratings(child.url, everyone)).toEqual(live);
      await stopChild(child, "SIGTERM");
    },
    240_000,
  );

  itUnless(CLUSTER_UNAVAILABLE)(
    "kill -9 while results are journaled (PostgreSQL down): the next start stores them",
    async () => {
      const cluster: Cluster = await startCluster();
      cleanup.push(() => cluster.destroy());
      const dataDir = mkdtempSync(join(tmpdir(), "ladder-cluster-kill-"));
      let child = await startChild(dataDir, cluster.url);
      cleanup.push(() => child.proc.kill("SIGKILL"));
      const names = ["pg-kill-a", "pg-kill-b"];
      const players = await Promise.all(
        names.map(async (n) => Player.start(child, n, await register(child.url, n))),
      );
      await until(() => players.every((p) => p.ends.length >= 1), "a first match each");
      // The outage begins while a match runs, so that one ends during it (no new match starts meanwhile).
      await until(() => players.some((p) => p.playing), "a match in progress");
      cluster.stop("immediate");
      await until(() => journalOf(dataDir).length >= 1, "a result journaled while the database is down");
      await stopChild(child, "SIGKILL");
      for (const p of players) p.stop();
      cluster.start();
      child = await startChild(dataDir, cluster.url);
      expect(journalOf(dataDir)).toEqual([]);
      await expectStored(child.url, players);
      await stopChild(child, "SIGTERM");
    },
    240_000,
  );

  itUnless(null)(
    "kill -9 while results are journaled (embedded database unreachable): the next start stores them",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "ladder-embedded-kill-"));
      let child = await startChild(dataDir, undefined, { entry: "test/helpers/outage-server.ts" });
      cleanup.push(() => child.proc.kill("SIGKILL"));
      const names = ["emb-kill-a", "emb-kill-b"];
      const players = await Promise.all(
        names.map(async (n) => Player.start(child, n, await register(child.url, n))),
      );
      await until(() => players.every((p) => p.ends.length >= 1), "a first match each");
      // The outage begins while a match runs, so that one ends during it (no new match starts meanwhile).
      await until(() => players.some((p) => p.playing), "a match in progress");
      child.proc.kill("SIGUSR2"); // the database becomes unreachable
      await until(() => journalOf(dataDir).length >= 1, "a result journaled while the database is down");
      await stopChild(child, "SIGKILL");
      for (const p of players) p.stop();
      child = await startChild(dataDir, undefined);
      expect(journalOf(dataDir)).toEqual([]);
      await expectStored(child.url, players);
      await stopChild(child, "SIGTERM");
    },
    240_000,
  );
});
