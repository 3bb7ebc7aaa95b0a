// What staff and the server's limits decide holds in the whole cluster (issue 36, part 4): two real nodes (child
// processes of `node server/main.ts --cluster`, no house bots) on one PostgreSQL schema, a nats-server this test
// starts on a free port and a real SMTP server on loopback for the sign-ups. A session signed in through one node is
// valid on the other; live settings put through one node are in force on the other (its public policy and its
// refusals); a bot banned, and an account banned, through one node are disconnected from the other with the
// SPEC's codes and refused when they come back; an owner's limit on matches at once counts both nodes' matches; an
// address's socket and sign-in budgets, an account's throttles and an email's password-guessing delay are one budget
// in the cluster, not one per node.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../server/ladders/manifest.ts";
import type { Child } from "../helpers/child-server.ts";
import { ladderDef, openEventDef } from "../helpers/ladders.ts";
import { type Sink, signUpBySmtp, startSink } from "../helpers/mail-sink.ts";
import { BotClient } from "../helpers/server.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";
import { playing, SlowBot } from "../helpers/slow-bot.ts";
import { socketAttempt } from "../helpers/socket-attempt.ts";
import { TestCluster, until } from "../helpers/test-cluster.ts";

const BOSS = "boss@guards.test";
/** Connects per minute from one address (the budget test uses an address of its own, 127.0.0.9). */
const CONNECTS = 12;
/** Requests a minute from one address to the sign-in routes (the test's own sign-ups use a dozen from 127.0.0.1). */
const SIGN_INS = 40;

const EVENT = "guards-cup";
const manifest: Manifest = {
  version: 1,
  ladders: [ladderDef("public")],
  events: [openEventDef(EVENT, "public")],
};

/** A failed password sign-in from `localAddress` (at `nobody<n>@guards.test`, or `email`): the answer's status. */
function signInFrom(
  url: string,
  apikey: string,
  localAddress: string,
  n: number,
  email?: string,
): Promise<number> {
  const body = JSON.stringify({ email: email ?? `nobody${n}@guards.test`, password: "not the password 123" });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/auth/v1/token?grant_type=password`,
      {
        method: "POST",
        localAddress,
        headers: { apikey, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("live settings, bans and address budgets hold in the whole cluster", () => {
  skipAllIf(DATABASE_URL_MISSING);
  const cluster = new TestCluster();
  let sink: Sink;
  let a: Child;
  let b: Child;
  let dir = "";

  beforeAll(async () => {
    if (DATABASE_URL_MISSING) return;
    sink = await startSink();
    dir = mkdtempSync(join(tmpdir(), "ladder-cluster-guards-"));
    const file = join(dir, "ladders.json");
    writeFileSync(file, JSON.stringify(manifest));
    await cluster.start("ladder-cluster-guards", 2, [
      "--no-house-bots",
      "--ladders",
      file,
      "--smtp-url",
      `smtp://127.0.0.1:${sink.port}`,
      "--admin-emails",
      BOSS,
      "--socket-connects-per-minute",
      String(CONNECTS),
      "--socket-auth-failures-per-minute",
      "1000",
      "--auth-rate-limit",
      String(SIGN_INS),
      "--registration-rate-limit",
      "3",
    ]);
    [a, b] = cluster.nodes as [Child, Child];
  }, 240_000);

  afterAll(async () => {
    await cluster.stop();
    await sink?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const call = async (node: Child, method: string, path: string, access: string, body?: unknown) => {
    const res = await fetch(`${node.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${access}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  };

  let boss = "";
  const people = new Map<string, string>();
  /** An account signed up through node A, by handle: its access token. */
  async function person(handle: string): Promise<string> {
    const known = people.get(handle);
    if (known) return known;
    const who = await signUpBySmtp(a.url, sink, `${handle}@guards.test`, handle);
    people.set(handle, who.access);
    return who.access;
  }

  it("a session signed in through one node is valid on the other", async () => {
    boss = (await signUpBySmtp(a.url, sink, BOSS, "boss")).access;
    const ada = await person("ada");
    const there = await call(b, "GET", "/api/account", ada);
    expect(there.status).toBe(200);
    expect(there.body).toMatchObject({ handle: "ada" });
    expect((await call(b, "GET", "/api/admin/settings", boss)).status).toBe(200);
  });

  it("live settings put through one node are in force on the other", async () => {
    const before = await call(b, "GET", "/api/admin/settings", boss);
    const put = await call(a, "PUT", "/api/admin/settings", boss, {
      revision: before.body.revision,
      overrides: { global: { maxConcurrentMatches: 7, maxBotsPerOwner: 1 } },
    });
    expect(put.status).toBe(200);
    const policy = async () =>
      (
        (await (await fetch(`${b.url}/api`)).json()) as {
          operational_policy: { maxConcurrentMatches: number };
        }
      ).operational_policy;
    await until(
      async () => ((await policy()).maxConcurrentMatches === 7 ? true : null),
      "B's new policy",
      5_000,
    );
    expect((await call(b, "GET", "/api/admin/settings", boss)).body.revision).toBe(put.body.revision);
    // One bot per owner now, through either node.
    const ada = await person("ada");
    expect((await call(b, "POST", "/api/account/bots", ada, { name: "adabot" })).status).toBe(201);
    const second = await call(b, "POST", "/api/account/bots", ada, { name: "adabot2" });
    expect(second.body.code).toBe("bot_limit");
    // A stale revision through the other node is refused as on one server.
    const stale = await call(b, "PUT", "/api/admin/settings", boss, {
      revision: before.body.revision,
      overrides: {},
    });
    expect(stale).toMatchObject({ status: 409, body: { code: "stale_revision" } });
  });

  it("staff's edit of an event through one node shows on the other", async () => {
    const put = await call(a, "PUT", `/api/admin/events/${EVENT}/submission`, boss, {
      submission_url: "https://example.com/submit",
      submission_instructions: "Send your bot's name.",
    });
    expect(put.status).toBe(200);
    const there = async () => {
      const res = await fetch(`${b.url}/api/events?event=${EVENT}`);
      const list = (await res.json()) as { id: string; submission_url: string | null }[];
      return list.find((e) => e.id === EVENT)!;
    };
    await until(
      async () => ((await there()).submission_url === "https://example.com/submit" ? true : null),
      "the event's new submission link on B",
      5_000,
    );
  });

  /** Registers a bot for `handle` through node A (settings allow one per owner) and connects it to node B. */
  async function botOnB(handle: string): Promise<{ name: string; token: string; bot: BotClient }> {
    const access = await person(handle);
    const name = `${handle}bot`;
    const made = await call(a, "POST", "/api/account/bots", access, { name });
    expect(made.status).toBe(201);
    const token = made.body.token as string;
    const bot = new BotClient(b.wsUrl, token);
    await bot.open();
    // Connected and known on B: it shows online there.
    await until(
      async () =>
        ((await (await fetch(`${b.url}/api/bots/${name}`)).json()) as { online?: boolean }).online
          ? true
          : null,
      `${name} online on B`,
      5_000,
    );
    return { name, token, bot };
  }

  it("a bot banned through one node is disconnected from the other, and refused there", async () => {
    const { name, token, bot } = await botOnB("bea");
    const banned = bot.next("error", (m) => m.code === "banned");
    expect((await call(a, "POST", `/api/admin/bots/${name}/ban`, boss)).status).toBe(200);
    await banned;
    await bot.closed();
    // Its token was rotated by the ban: the old one is unknown on B now.
    const again = await socketAttempt(b.wsUrl, token);
    expect(again.first?.code).toBe("invalid_token");
  });

  it("an account banned through one node has its bots disconnected from the other, and its routes refused", async () => {
    const { token, bot } = await botOnB("cal");
    const banned = bot.next("error", (m) => m.code === "account_banned");
    expect((await call(a, "POST", "/api/admin/accounts/cal/ban", boss)).status).toBe(200);
    await banned;
    await bot.closed();
    expect((await socketAttempt(b.wsUrl, token)).first?.code).toBe("account_banned");
    const routes = await call(b, "GET", "/api/account", await person("cal"));
    expect(routes).toMatchObject({ status: 403, body: { code: "account_banned" } });
  });

  it("an owner's limit on matches at once counts the matches of every node", async () => {
    const current = await call(a, "GET", "/api/admin/settings", boss);
    const put = await call(a, "PUT", "/api/admin/settings", boss, {
      revision: current.body.revision,
      overrides: { global: { maxBotsPerOwner: 5, maxConcurrentPerOwner: 1 } },
    });
    expect(put.status).toBe(200);
    // The matchmaker's node (H) and the other (O); dan's first bot plays on O, his second queues on H.
    const holder = await until(async () => {
      const views = await Promise.all(
        [a, b].map(async (n) => {
          const st = (await (await fetch(`${n.url}/api/status`)).json()) as {
            cluster: { leases: { name: string; held: boolean }[] };
          };
          return st.cluster.leases.some((l) => l.name === "matchmaker.public" && l.held);
        }),
      );
      return views.filter(Boolean).length === 1 ? (views[0] ? a : b) : null;
    }, "one holder of the public ladder's lease");
    const other = holder === a ? b : a;
    const register = async (handle: string, name: string, node: Child) => {
      const made = await call(a, "POST", "/api/account/bots", await person(handle), { name });
      expect(made.status).toBe(201);
      const bot = new SlowBot(name, made.body.token as string, node, 60);
      await bot.client.open();
      return bot;
    };
    const first = [await register("dan", "dan-one", other), await register("eve", "eve-one", other)];
    const later = [await register("dan", "dan-two", holder), await register("fay", "fay-one", holder)];
    try {
      await playing(first);
      expect(first[0]!.ends).toHaveLength(0);
      // The other node's status counts that match and lists its bots beside its own (its matches are its own).
      const status = await until(async () => {
        const st = (await (await fetch(`${holder.url}/api/status`)).json()) as {
          online: { name: string }[];
          matches: unknown[];
          capacity: { running: number; max: number };
        };
        const names = st.online.map((o) => o.name);
        return st.capacity.running >= 1 && names.includes("dan-one") && names.includes("eve-one") ? st : null;
      }, "the holder's status showing the other node's match and bots");
      expect(status.matches).toHaveLength(0);
      expect(status.online.map((o) => o.name)).toEqual(expect.arrayContaining(["dan-two", "fay-one"]));
      // Dan's second bot is held back while his first plays on the other node, and told why.
      for (const x of later) x.client.send({ type: "queue", version: "v1" });
      await later[0]!.client.next("error", (m) => String(m.message).includes("owner_concurrency"), 10_000);
      expect(first[0]!.ends).toHaveLength(0);
      expect(later[0]!.matchId).toBeUndefined();
      // Once it has ended, the second plays.
      await until(
        async () => (first[0]!.ends.length > 0 ? true : null),
        "the end of dan's first match",
        60_000,
      );
      await until(async () => (later[0]!.matchId ? true : null), "dan's second match", 20_000);
    } finally {
      for (const x of [...first, ...later]) x.client.close();
    }
  }, 120_000);

  it("an address's socket budget is one budget in the cluster, not one per node", async () => {
    const from = { localAddress: "127.0.0.9" };
    // Eight connects through A (each is let in and told its token is missing)...
    for (let i = 0; i < 8; i++)
      expect((await socketAttempt(a.wsUrl, null, from)).first?.code).toBe("missing_authorization");
    // ... reach B within a moment: four more are let in there, and the thirteenth is refused.
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < CONNECTS - 8; i++)
      expect((await socketAttempt(b.wsUrl, null, from)).first?.code).toBe("missing_authorization");
    const over = await socketAttempt(b.wsUrl, null, from);
    expect(over).toMatchObject({ status: 429, body: { code: "rate_limited" } });
    // A (which let in only eight itself) refuses the address too, once B's spends have reached it.
    await new Promise((r) => setTimeout(r, 500));
    expect(await socketAttempt(a.wsUrl, null, from)).toMatchObject({ status: 429 });
  });

  it("an address's sign-in budget is one budget in the cluster, not one per node", async () => {
    const index = (await (await fetch(`${a.url}/api`)).json()) as { accounts: { publishable_key: string } };
    const key = index.accounts.publishable_key;
    const from = "127.0.0.10";
    for (let i = 0; i < 25; i++) expect(await signInFrom(a.url, key, from, i)).not.toBe(429);
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 25; i < SIGN_INS; i++) expect(await signInFrom(b.url, key, from, i)).not.toBe(429);
    expect(await signInFrom(b.url, key, from, SIGN_INS)).toBe(429);
    await new Promise((r) => setTimeout(r, 500));
    expect(await signInFrom(a.url, key, from, SIGN_INS + 1)).toBe(429);
  });

  it("one email's password-guessing delay counts the attempts made through both nodes", async () => {
    const index = (await (await fetch(`${a.url}/api`)).json()) as { accounts: { publishable_key: string } };
    const key = index.accounts.publishable_key;
    const from = "127.0.0.11";
    const email = "guessed@guards.test";
    // Five attempts go through before any delay (GUESS_POLICY.free): three through A, two through B.
    for (let i = 0; i < 3; i++) expect(await signInFrom(a.url, key, from, i, email)).not.toBe(429);
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < 2; i++) expect(await signInFrom(b.url, key, from, i, email)).not.toBe(429);
    expect(await signInFrom(b.url, key, from, 0, email)).toBe(429);
    await new Promise((r) => setTimeout(r, 300));
    expect(await signInFrom(a.url, key, from, 0, email)).toBe(429);
    // Another email from the same address is not delayed.
    expect(await signInFrom(a.url, key, from, 0, "other-guess@guards.test")).not.toBe(429);
  });

  it("an account's throttle on bot registrations counts both nodes", async () => {
    const gil = await person("gil");
    for (const name of ["gil-1", "gil-2"])
      expect((await call(a, "POST", "/api/account/bots", gil, { name })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 500));
    expect((await call(b, "POST", "/api/account/bots", gil, { name: "gil-3" })).status).toBe(201);
    const over = await call(b, "POST", "/api/account/bots", gil, { name: "gil-4" });
    expect(over).toMatchObject({ status: 429, body: { code: "rate_limited" } });
    await new Promise((r) => setTimeout(r, 500));
    expect((await call(a, "POST", "/api/account/bots", gil, { name: "gil-5" })).status).toBe(429);
  });
});
