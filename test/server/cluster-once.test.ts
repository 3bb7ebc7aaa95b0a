// The features on the bus act once per result in a cluster (issue 36, part 4): three real nodes (child processes of
// `node server/main.ts --cluster`, no house bots) on one PostgreSQL schema, a nats-server this test starts on a free
// port and a real SMTP server on loopback (test/helpers/mail-sink.ts) that every node sends through. An event on
// the public ladder is open, its first achievement is earned by finishing any ranked match. Two accounts sign up,
// register their bots and enroll through the matchmaker's node; their bots connect to the two other nodes, so the
// match runs on a node that did not take the enrollments, with one bot playing through NATS. Every node shows the
// same result; each account's achievement is stored once (PostgreSQL) and its achievement email arrives once (the
// SMTP sink), counted after a second match has been taken in by every node and the outbox is empty. Then
// nats-server itself is restarted in the middle of three matches (one on a node with both sockets, two across
// nodes): the nodes reconnect, every match ends once for both its bots, and each result counts once on every node.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../server/ladders/manifest.ts";
import type { Child } from "../helpers/child-server.ts";
import { ladderDef, neverEarned, openEventDef } from "../helpers/ladders.ts";
import { type Sink, signUpBySmtp, startSink } from "../helpers/mail-sink.ts";
import { BotClient } from "../helpers/server.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";
import { SlowBot } from "../helpers/slow-bot.ts";
import { TestCluster, until } from "../helpers/test-cluster.ts";

const LEASE = "matchmaker.public";
const EVENT = "cluster-cup";
type Msg = Record<string, unknown> & { type: string };

/** Finishing one ranked match earns `first`; the other four need more matches than this test plays. */
const manifest: Manifest = {
  version: 1,
  ladders: [ladderDef("public")],
  events: [
    openEventDef(EVENT, "public", {
      name: "The cluster cup",
      achievements: [
        { id: "first", name: "First", description: "", condition: { opponent: "any", matches: 1 } },
        ...["n2", "n3", "n4", "n5"].map(neverEarned),
      ],
    }),
  ],
};

async function clusterOf(url: string): Promise<{ node: string; leases: { name: string; held: boolean }[] }> {
  const body = (await (await fetch(`${url}/api/status`)).json()) as { cluster?: never };
  if (!body.cluster) throw new Error(`no cluster in the status of ${url}`);
  return body.cluster;
}

describe("a three-node cluster acts once per result", () => {
  skipAllIf(DATABASE_URL_MISSING);
  const cluster = new TestCluster();
  const nodes = cluster.nodes;
  let sink: Sink;
  let dir = "";
  let db: pg.Client;

  beforeAll(async () => {
    if (DATABASE_URL_MISSING) return;
    sink = await startSink();
    dir = mkdtempSync(join(tmpdir(), "ladder-cluster-once-"));
    const file = join(dir, "ladders.json");
    writeFileSync(file, JSON.stringify(manifest));
    await cluster.start("ladder-cluster-once", 3, [
      "--no-house-bots",
      "--ladders",
      file,
      "--smtp-url",
      `smtp://127.0.0.1:${sink.port}`,
      // A bot playing through NATS stays seated while nats-server restarts (the last test).
      "--reconnect-grace-ms",
      "10000",
    ]);
    db = new pg.Client({ connectionString: cluster.db!.url! });
    await db.connect();
  }, 240_000);

  afterAll(async () => {
    await db?.end();
    await cluster.stop();
    await sink?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The node holding the public ladder's lease, once exactly one node holds it. */
  const holderOf = () =>
    until(async () => {
      const views = await Promise.all(nodes.map((n) => clusterOf(n.url)));
      const held = views.flatMap((v, i) => (v.leases.find((l) => l.name === LEASE)?.held ? [nodes[i]!] : []));
      return held.length === 1 ? held[0]! : null;
    }, "one holder of the public ladder's lease");

  const count = async (sql: string, args: unknown[] = []) =>
    Number((await db.query(sql, args)).rows[0]!.n as string | number);

  const ratedGames = async (url: string, name: string) => {
    const res = await fetch(`${url}/api/bots/${name}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { versions: { rated_games: number }[] }).versions;
  };

  /** Every node shows each bot with `games` rated games, and all show the same versions (ratings included). */
  async function everyNodeAgrees(names: string[], games: number): Promise<void> {
    let first: string | null = null;
    for (const n of nodes) {
      const seen = await until(
        async () => {
          const here = await Promise.all(names.map((name) => ratedGames(n.url, name)));
          return here.every((v) => v.length === 1 && v[0]!.rated_games === games) ? here : null;
        },
        `${games} rated game(s) of ${names.join(", ")} on ${n.url}`,
      );
      first ??= JSON.stringify(seen);
      expect(JSON.stringify(seen)).toBe(first);
    }
  }

  /** The bots play one match to its end; resolves with their `end`s (one match, both ends agree). */
  async function playBoth(bots: BotClient[]): Promise<Msg[]> {
    const hellos = (await Promise.all(bots.map((b) => b.queueForMatch()))) as Msg[];
    expect(hellos[0]!.match_id).toBe(hellos[1]!.match_id);
    const ends = Promise.all(bots.map((b) => b.playUntilEnd()));
    for (const b of bots) b.send({ type: "ready" });
    const out = (await ends) as Msg[];
    expect(out[0]!.match_id).toBe(out[1]!.match_id);
    expect(out[0]!.final_tick).toBe(out[1]!.final_tick);
    return out;
  }

  it("an event achievement and its email happen once for a match run away from the enrollments' node", async () => {
    const holder = await holderOf();
    const [a, b] = nodes.filter((n) => n !== holder) as [Child, Child];
    // The accounts, their bots and their enrollments, all through the matchmaker's node.
    const people = [] as { email: string; id: string; bot: string; token: string }[];
    for (const name of ["ada", "bob"]) {
      const who = await signUpBySmtp(holder.url, sink, `${name}@once.test`, name);
      const auth = { authorization: `Bearer ${who.access}`, "content-type": "application/json" };
      const made = await fetch(`${holder.url}/api/account/bots`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ name: `${name}bot` }),
      });
      expect(made.status).toBe(201);
      const { token } = (await made.json()) as { token: string };
      const enrolled = await fetch(`${holder.url}/api/account/ladders/public/enrollment`, {
        method: "POST",
        headers: auth,
        body: "{}",
      });
      expect(enrolled.status, await enrolled.text()).toBeLessThan(300);
      people.push({ email: who.email, id: who.id, bot: `${name}bot`, token });
    }
    const names = people.map((p) => p.bot);
    const bots = [new BotClient(a.wsUrl, people[0]!.token), new BotClient(b.wsUrl, people[1]!.token)];
    try {
      for (const x of bots) await x.open();
      const [end] = await playBoth(bots);
      const id = end!.match_id as string;
      expect(end!.reason).not.toBe("aborted");
      // It ran on one of the two socket nodes, never on the node that took the enrollments.
      const ran = [a, b].filter((n) =>
        n.log.some((l) => l.includes("placed match started") && l.includes(id)),
      );
      expect(ran).toHaveLength(1);
      await everyNodeAgrees(names, 1);

      // The achievement is earned (stored) and its email sent, for each account.
      const awards = (accountId: string) =>
        count(
          "SELECT count(*) AS n FROM event_awards WHERE event_id = $1 AND account_id = $2 AND achievement_id = 'first'",
          [EVENT, accountId],
        );
      for (const p of people)
        await until(async () => ((await awards(p.id)) > 0 ? true : null), `${p.email}'s award`, 15_000);
      const mails = (to: string) => sink.of("achievements").filter((m) => m.to === to);
      await sink.until(() => people.every((p) => mails(p.email).length > 0), 15_000);

      // The marker that a duplicate would have arrived by now: a second match of the same bots (earning nothing
      // new), taken in by every node, and an outbox with nothing left to send.
      await playBoth(bots);
      await everyNodeAgrees(names, 2);
      await until(
        async () =>
          (await count("SELECT count(*) AS n FROM email_outbox WHERE state IN ('pending', 'sending')")) === 0
            ? true
            : null,
        "an empty outbox",
      );
      for (const p of people) {
        expect(await awards(p.id)).toBe(1);
        expect(mails(p.email)).toHaveLength(1);
      }
      expect(await count("SELECT count(*) AS n FROM event_awards WHERE event_id = $1", [EVENT])).toBe(2);
      expect(
        await count(
          "SELECT count(*) AS n FROM email_outbox WHERE category = 'achievements' AND state = 'accepted'",
        ),
      ).toBe(2);
      expect(sink.of("achievements")).toHaveLength(2);
    } finally {
      for (const x of bots) x.close();
    }
  }, 180_000);

  it("nats-server restarted in the middle of three matches: every match ends once and counts once everywhere", async () => {
    const holder = await holderOf();
    const [a, b] = nodes.filter((n) => n !== holder) as [Child, Child];
    // One match with both sockets on a (it runs there), two with a socket on a and one on b (one seat through
    // NATS). Each pair queues alone, so the pairs are known.
    const plan: [Child, Child][] = [
      [a, a],
      [a, b],
      [b, a],
    ];
    const bots: SlowBot[][] = [];
    const names: string[] = [];
    try {
      for (const [i, [x, y]] of plan.entries()) {
        const pair: SlowBot[] = [];
        bots.push(pair); // closed at the end, even if a later step fails
        for (const [j, n] of [x, y].entries()) {
          const name = `nats-${i}-${j}`;
          const res = await fetch(`${n.url}/api/bots`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name, owner: `${name}-owner` }),
          });
          expect(res.status).toBe(201);
          // Replies after 40 ms: a match lasts seconds, long enough to restart NATS in its middle.
          const bot = new SlowBot(name, ((await res.json()) as { token: string }).token, n, 40);
          pair.push(bot);
          names.push(name);
          await bot.client.open();
        }
        for (const x of pair) x.client.send({ type: "queue", version: "v1" });
        const hellos = await Promise.all(pair.map((x) => x.client.next("hello", () => true, 15_000, 0)));
        expect(hellos[0]!.match_id).toBe(hellos[1]!.match_id);
      }
      const all = bots.flat().map((x) => x.client);
      const ends = Promise.all(all.map((x) => x.next("end", () => true, 120_000, 0)));
      // Under way: every bot has had an observation; then NATS goes away and comes back on the same store.
      await Promise.all(all.map((x) => x.next("observation", () => true, 15_000, 0)));
      await cluster.nats!.restart();
      const lastTick = (x: BotClient) =>
        x.received.filter((m) => m.type === "observation").at(-1)!.tick as number;
      const atRestart = all.map(lastTick);
      for (const x of all) expect(x.received.some((m) => m.type === "end")).toBe(false);
      const out = (await ends.catch((err: Error) => {
        // What each bot last heard, and the nodes' warnings: enough to tell a lost relay from a stalled match.
        const heard = all.map(
          (x, i) =>
            `${names[i]}: ${x.received
              .slice(-3)
              .map((m) => m.type)
              .join(" ")}`,
        );
        const warned = nodes.map((n) =>
          n.log.filter((l) => /"level":[4-6]0/.test(l)).map((l) => l.slice(0, 300)),
        );
        console.error(`${heard.join("\n")}\n${JSON.stringify(warned, null, 1)}`);
        throw err;
      })) as Msg[];
      // Each bot was in one match and got one end; the two ends of each match agree.
      for (const x of all) {
        expect(x.received.filter((m) => m.type === "hello")).toHaveLength(1);
        expect(x.received.filter((m) => m.type === "end")).toHaveLength(1);
      }
      for (let i = 0; i < plan.length; i++) {
        const [e0, e1] = [out[2 * i]!, out[2 * i + 1]!];
        expect(e0.match_id).toBe(e1.match_id);
        expect(e0.final_tick).toBe(e1.final_tick);
      }
      const ids = out.filter((_, i) => i % 2 === 0).map((e) => e.match_id as string);
      expect(new Set(ids).size).toBe(3);
      // No node took a live node's match over while the beats lapsed (server/cluster/failover.ts).
      for (const n of nodes)
        expect(
          n.log.filter((l) => /match taken over|match not resumed|this copy is abandoned/.test(l)),
        ).toEqual([]);
      // Played on after NATS came back (every bot saw later ticks), to a real end: none aborted, none disqualified.
      for (const [i, x] of all.entries()) expect(lastTick(x)).toBeGreaterThan(atRestart[i]!);
      for (const e of out) {
        expect(e.reason).not.toBe("aborted");
        for (const f of (e.stats as { fighters: { disqualified: boolean }[] }).fighters)
          expect(f.disqualified).toBe(false);
      }
      // The two split pairs' matches had one seat through NATS each; the first ran with both sockets on its node.
      const placed = (id: string) =>
        [a, b].flatMap((n) => n.log.filter((l) => l.includes("placed match started") && l.includes(id)));
      for (const [i, id] of ids.entries()) {
        expect(placed(id)).toHaveLength(1);
        expect(JSON.parse(placed(id)[0]!)).toMatchObject({ match: id, remote: i === 0 ? 0 : 1 });
      }
      // Stored once each, and counted once on every node (each bot one rated game, the same everywhere).
      expect(await count("SELECT count(*) AS n FROM matches WHERE id = ANY($1)", [ids])).toBe(3);
      await everyNodeAgrees(names, 1);
    } finally {
      for (const x of bots.flat()) x.client.close();
    }
  }, 180_000);
});
