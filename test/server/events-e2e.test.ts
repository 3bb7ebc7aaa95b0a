// A whole event on a shortened window (issue 16): upcoming (preregistration, queue waits, requests refused),
// opening on time, a bot earning each of the five achievements against the official opponents (one through an
// opponent request), reveals, a revocation, reconcile restoring a deleted award but not the revoked one, and
// closing on time (no more earning, the queue refused). The same run is the flag-leak check: every response
// other than a reveal, every log line, the audit table and the error answers are searched for the flag values.
import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../server/ladders/manifest.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { ladderDef } from "../helpers/ladders.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

// The manifest's window is an hour away; once the accounts exist, staff move the opening to a few seconds
// from then (the schedule route), so the test does not depend on how long the set-up takes.
const OPENS_IN_MS = 4_000;
const manifestOpens = new Date(Date.now() + 3_600_000).toISOString();
const closesAt = new Date(Date.now() + 7_200_000).toISOString();
let opensAt = "";

const ACHIEVEMENTS = ["first", "kiter", "two-matches", "version-two", "two-opponents"] as const;
const manifest: Manifest = {
  version: 1,
  ladders: [
    ladderDef("public"),
    ladderDef("cup", { visible: false, opens_at: manifestOpens, closes_at: closesAt }),
  ],
  events: [
    {
      id: "cup-event",
      name: "The cup",
      description: "A test event on a hidden event ladder",
      ladder_id: "cup",
      opens_at: null,
      closes_at: null,
      timezone: "Europe/Berlin",
      enabled: true,
      achievements: [
        { id: "first", name: "First", description: "", condition: { opponent: "official", matches: 1 } },
        { id: "kiter", name: "Kiter", description: "", condition: { opponent: ["kiter"], matches: 1 } },
        { id: "two-matches", name: "Two", description: "", condition: { opponent: "official", matches: 2 } },
        {
          id: "version-two",
          name: "Version two",
          description: "",
          condition: { opponent: "official", version: ["v2"], stats: { ticks: { min: 1 } }, matches: 1 },
        },
        {
          id: "two-opponents",
          name: "Two opponents",
          description: "",
          condition: { opponent: "official", matches: 1, distinct_opponents: 2 },
        },
      ],
      opponents: [
        { kind: "house", name: "kiter", display_name: "Kiter" },
        { kind: "house", name: "brawler", display_name: "Brawler" },
        { kind: "house", name: "ts-starter", display_name: "Starter" },
        { kind: "house", name: "champion", display_name: "Champion" },
      ],
      metadata: null,
      submission_url: null,
      submission_instructions: "",
      flag_mode: "official",
    },
  ],
};

const FLAGS = Object.fromEntries(
  ACHIEVEMENTS.map((a) => [a, `FLAG{${a}-${randomBytes(12).toString("hex")}}`]),
);

let srv: TestServer;
let root: SignedIn;
let ada: SignedIn;
let adaToken: string;
let logText = "";
/** Every response body of this run except the reveals' (the flag-leak check reads them). */
const seen: string[] = [];
const reveals: string[] = [];

async function api(who: SignedIn | null, method: string, path: string, body?: unknown) {
  const r = await call(srv.url, method, path, {
    token: who?.access ?? null,
    ...(body !== undefined ? { body } : {}),
  });
  (path.endsWith("/reveal") && r.status === 200 ? reveals : seen).push(JSON.stringify(r.body));
  return r;
}

async function answer(bot: BotClient, since: number): Promise<Record<string, unknown>> {
  const m = await bot.next("queued", undefined, 15_000, since).catch(() => null);
  const err = bot.received.slice(since).find((x) => x.type === "error");
  return (err ?? m) as Record<string, unknown>;
}

/** Queues on the cup and plays the match it is given to the end (idle turns); returns the end message. */
async function playOne(bot: BotClient, version: string) {
  const since = bot.received.length;
  bot.send({ type: "queue", version, ladder_id: "cup" });
  await bot.next("hello", undefined, 30_000, since);
  const playing = bot.playUntilEnd(undefined, 120_000);
  bot.send({ type: "ready" });
  const end = await playing;
  return end as unknown as { match_id: string };
}

/** Waits until the award listener has stored what the last match earned. */
async function cards(until: (c: Record<string, { earned: boolean }>) => boolean) {
  const stop = Date.now() + 15_000;
  for (;;) {
    const r = await api(ada, "GET", "/api/account/events/cup-event/achievements");
    const byId = Object.fromEntries(
      (r.body.achievements as { id: string; earned: boolean }[]).map((a) => [a.id, a]),
    );
    if (until(byId) || Date.now() > stop) return { view: r.body, byId };
    await new Promise((res) => setTimeout(res, 100));
  }
}

beforeAll(async () => {
  const logStream = new PassThrough();
  logStream.on("data", (c: Buffer) => {
    logText += c.toString();
  });
  srv = await startAccountServer(
    {
      adminEmails: ["root@example.com"],
      logLevel: "debug",
      tickMs: 300,
      eventFlags: JSON.stringify({ "cup-event": FLAGS }),
    },
    { manifest, logStream },
  );
  [root, ada] = await Promise.all([
    signUp(srv, "root@example.com", "root"),
    signUp(srv, "ada@example.com", "ada"),
  ]);
  const made = await api(ada, "POST", "/api/account/bots", { name: "adabot" });
  expect(made.status).toBe(201);
  adaToken = made.body.token as string;
}, 180_000);
afterAll(async () => srv?.stop());

describe("a whole event on a shortened window", () => {
  it("runs from upcoming to closed", { timeout: 300_000 }, async () => {
    // Upcoming: the hidden ladder's event is listed only when named; public data carries no flag.
    const listed = await api(null, "GET", "/api/events");
    expect((listed.body as unknown as { id: string }[]).map((e) => e.id)).not.toContain("cup-event");
    const named = await api(null, "GET", "/api/events?event=cup-event");
    const ev = (named.body as unknown as Record<string, unknown>[]).find((e) => e.id === "cup-event")!;
    expect(ev).toMatchObject({ phase: "upcoming", ready: true, ladder_id: "cup", flag_mode: "official" });
    expect((ev.achievements as unknown[]).length).toBe(5);
    const ladders = await api(null, "GET", "/api/ladders?ladder=cup");
    expect(
      (ladders.body as unknown as { id: string; events: unknown }[]).find((l) => l.id === "cup")?.events,
    ).toEqual([{ id: "cup-event", name: "The cup" }]);

    const announced: { achievementId: string; evidence: string[] }[] = [];
    srv.app.ctx.bus.on("AchievementEarned", (e) => {
      announced.push(e);
    });
    const bot = new BotClient(srv.wsUrl, adaToken);
    await bot.open();
    // Not enrolled: the event queue is refused with enrollment_required (a stop code for the starters).
    let since = bot.received.length;
    bot.send({ type: "queue", version: "v1", ladder_id: "cup" });
    expect(await bot.next("error", undefined, 15_000, since)).toMatchObject({ code: "enrollment_required" });
    const noEnrollment = await api(ada, "POST", "/api/account/events/cup-event/achievements/first/reveal");
    expect(noEnrollment).toMatchObject({ status: 403, body: { code: "enrollment_required" } });

    // Staff move the opening to a few seconds from now (only the future moves).
    opensAt = new Date(Date.now() + OPENS_IN_MS).toISOString();
    const past = await api(root, "PUT", "/api/admin/events/cup-event/schedule", {
      opens_at: new Date(Date.now() - 1_000).toISOString(),
      closes_at: closesAt,
    });
    expect(past).toMatchObject({ status: 409, body: { code: "window_past" } });
    const reversed = await api(root, "PUT", "/api/admin/events/cup-event/schedule", {
      opens_at: closesAt,
      closes_at: opensAt,
    });
    expect(reversed).toMatchObject({ status: 400, body: { code: "invalid_window" } });
    const unknown = await api(root, "PUT", "/api/admin/events/cup-event/schedule", {
      opens_at: opensAt,
      closes_at: closesAt,
      x: 1,
    });
    expect(unknown.status).toBe(400);
    const moved1 = await api(root, "PUT", "/api/admin/events/cup-event/schedule", {
      opens_at: opensAt,
      closes_at: closesAt,
    });
    expect(moved1).toMatchObject({
      status: 200,
      body: { opens_at: opensAt, phase: "upcoming", revision: 2 },
    });

    // Preregistration while upcoming; a request is refused until opening.
    expect((await api(ada, "POST", "/api/account/ladders/cup/enrollment", {})).status).toBe(200);
    const early = await api(ada, "POST", "/api/account/events/cup-event/opponent", {
      bot_id: "adabot",
      opponent: "kiter",
    });
    expect(early).toMatchObject({ status: 409, body: { code: "event_closed" } });
    const locked = await api(ada, "POST", "/api/account/events/cup-event/achievements/first/reveal");
    expect(locked).toMatchObject({ status: 403, body: { code: "achievement_locked" } });

    // Opening on time: the phase job announces it at opens_at (no restart, no poke).
    const opened = new Promise<number>((resolve) =>
      srv.app.ctx.bus.on("EventPhaseChanged", (e) => {
        if (e.eventId === "cup-event" && e.to === "open") resolve(Date.now());
      }),
    );
    const at = await opened;
    expect(at).toBeGreaterThanOrEqual(Date.parse(opensAt));
    expect(at - Date.parse(opensAt)).toBeLessThan(2_000);

    // Match 1 through an opponent request: Kiter, as asked.
    const req = await api(ada, "POST", "/api/account/events/cup-event/opponent", {
      bot_id: "adabot",
      opponent: "kiter",
    });
    expect(req.status).toBe(201);
    expect(req.body.request).toMatchObject({ opponent: "kiter", state: "pending", bot_name: "adabot" });
    const again = await api(ada, "POST", "/api/account/events/cup-event/opponent", {
      bot_id: "adabot",
      opponent: "brawler",
    });
    expect(again).toMatchObject({ status: 409, body: { code: "request_exists" } });
    since = bot.received.length;
    bot.send({ type: "queue", version: "v1", ladder_id: "cup" });
    const hello = await bot.next("hello", undefined, 30_000, since);
    const playing1 = bot.playUntilEnd(undefined, 120_000);
    bot.send({ type: "ready" });
    const end1 = (await playing1) as unknown as { match_id: string; stats: { ticks: number } };
    expect(end1.stats.ticks).toBeGreaterThan(0);
    expect(end1.match_id).toBe(hello.match_id);
    const played1 = await srv.app.ctx.matchStore.match(end1.match_id);
    expect(played1?.bots.map((b) => b.name)).toContain("kiter");
    let c = await cards((x) => x.first!.earned && x.kiter!.earned);
    expect(c.byId.first!.earned && c.byId.kiter!.earned).toBe(true);
    expect(c.byId["two-matches"]!.earned).toBe(false);
    expect(c.view.request).toBeNull();

    // Match 2 against whoever the matchmaker offers that is not Kiter (a request for Brawler, after the cooldown
    // the API refuses a new one within: 429).
    const cooldown = await api(ada, "POST", "/api/account/events/cup-event/opponent", {
      bot_id: "adabot",
      opponent: "brawler",
    });
    expect(cooldown).toMatchObject({ status: 429, body: { code: "request_cooldown" } });
    const bad = await api(ada, "POST", "/api/account/events/cup-event/opponent", {
      bot_id: "adabot",
      opponent: "adabot",
    });
    expect(bad).toMatchObject({ status: 400, body: { code: "unknown_opponent" } });
    await playOne(bot, "v1");
    // Match 3 with version v2.
    await playOne(bot, "v2");
    c = await cards((x) => x["two-matches"]!.earned && x["version-two"]!.earned);
    expect(c.byId["two-matches"]!.earned).toBe(true);
    expect(c.byId["version-two"]!.earned).toBe(true);
    // Two different opponents: play until a second official opponent has been met (the matchmaker picks).
    for (let i = 0; i < 6 && !c.byId["two-opponents"]!.earned; i++) {
      await playOne(bot, "v2");
      c = await cards((x) => x["two-opponents"]!.earned);
    }
    for (const a of ACHIEVEMENTS) expect(c.byId[a]!.earned, a).toBe(true);
    // Each award was announced once on the bus after it was committed (the achievement email listens there).
    expect(announced.map((e) => e.achievementId).sort()).toEqual([...ACHIEVEMENTS].sort());
    expect(announced.every((e) => e.evidence.length > 0 && e.evidence[0]!.includes("/match/"))).toBe(true);
    expect(JSON.stringify(announced)).not.toContain("FLAG{");
    const card = (c.view.achievements as Record<string, unknown>[]).find((a) => a.id === "kiter")!;
    expect(card).toMatchObject({ flag_available: true, revoked_at: null });
    expect((card.evidence as string[])[0]).toMatch(/\/match\//);
    expect(JSON.stringify(c.view)).not.toContain("FLAG{");

    // Reveals: each flag, repeatable, audited without the value.
    for (const a of ACHIEVEMENTS) {
      const r = await api(ada, "POST", `/api/account/events/cup-event/achievements/${a}/reveal`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ event_id: "cup-event", achievement_id: a, flag: FLAGS[a] });
      expect(r.headers.get("cache-control")).toBe("private, no-store");
      expect(r.headers.get("vary")).toMatch(/Authorization/);
    }
    expect(
      (await api(ada, "POST", "/api/account/events/cup-event/achievements/first/reveal")).body.flag,
    ).toBe(FLAGS.first);

    // A revocation: the reveal is refused from then on.
    const revoked = await api(
      root,
      "POST",
      "/api/admin/events/cup-event/accounts/ada/achievements/two-opponents/revoke",
      {
        reason: "shared a flag",
      },
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked).toMatchObject({
      achievement_id: "two-opponents",
      revoked_reason: "shared a flag",
    });
    const afterRevoke = await api(
      ada,
      "POST",
      "/api/account/events/cup-event/achievements/two-opponents/reveal",
    );
    expect(afterRevoke).toMatchObject({ status: 403, body: { code: "achievement_revoked" } });

    // Reconcile: an award lost from storage comes back from the retained facts; the revoked one stays revoked.
    await srv.app.ctx.store.work((u) =>
      u.q.query("DELETE FROM event_awards WHERE event_id = 'cup-event' AND achievement_id = 'kiter'"),
    );
    const dry = await api(root, "POST", "/api/admin/events/cup-event/reconcile", { apply: false });
    expect(dry.status).toBe(200);
    expect(dry.body.missing_awards).toEqual([
      expect.objectContaining({ account_id: ada.id, achievement_id: "kiter" }),
    ]);
    expect(dry.body.applied).toBe(0);
    expect((dry.body.facts as { matches: number }[])[0]!.matches).toBeGreaterThanOrEqual(3);
    const applied = await api(root, "POST", "/api/admin/events/cup-event/reconcile", { apply: true });
    expect(applied.body.applied).toBe(1);
    c = await cards(() => true);
    expect(c.byId.kiter!.earned).toBe(true);
    expect(
      (c.view.achievements as { id: string; revoked_at: string | null }[]).find(
        (a) => a.id === "two-opponents",
      )!.revoked_at,
    ).not.toBeNull();
    const admin = await api(root, "GET", "/api/admin/events");
    const counts = (
      admin.body as unknown as { id: string; counts: { id: string; valid: number; revoked: number }[] }[]
    ).find((e) => e.id === "cup-event")!.counts;
    expect(counts.find((x) => x.id === "two-opponents")).toEqual({
      id: "two-opponents",
      valid: 0,
      revoked: 1,
    });
    expect(counts.find((x) => x.id === "kiter")).toEqual({ id: "kiter", valid: 1, revoked: 0 });

    // Closing on time: moved to two seconds from now, announced on time; the queue is refused afterwards.
    const closeAt = new Date(Date.now() + 2_000).toISOString();
    const moved = await api(root, "PUT", "/api/admin/events/cup-event/schedule", {
      opens_at: opensAt,
      closes_at: closeAt,
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ closes_at: closeAt, phase: "open" });
    const closed = await new Promise<number>((resolve) =>
      srv.app.ctx.bus.on("EventPhaseChanged", (e) => {
        if (e.eventId === "cup-event" && e.to === "closed") resolve(Date.now());
      }),
    );
    expect(closed).toBeGreaterThanOrEqual(Date.parse(closeAt));
    since = bot.received.length;
    bot.send({ type: "queue", version: "v2", ladder_id: "cup" });
    expect(await answer(bot, since)).toMatchObject({ code: "ladder_closed" });
    const late = await api(ada, "POST", "/api/account/events/cup-event/opponent", {
      bot_id: "adabot",
      opponent: "kiter",
    });
    expect(late).toMatchObject({ status: 409, body: { code: "event_closed" } });
    // No more earning: a result that ends after closing adds no facts and no awards.
    const before = await srv.app.ctx.events.tables.factsOf("cup-event", ada.id);
    const stored = await srv.app.ctx.matchStore.match(before[before.length - 1]!.match_id);
    await srv.app.ctx.bus.emit("MatchFinished", {
      match: { ...stored!, id: `${stored!.id}-late`, ended: new Date().toISOString(), stats: null },
      rated: true,
      ratingChange: [null, null],
      accounts: stored!.bots.map((b) => (b.house ? null : ada.id)) as [string | null, string | null],
    });
    expect((await srv.app.ctx.events.tables.factsOf("cup-event", ada.id)).length).toBe(before.length);
    const schedAfter = await api(root, "PUT", "/api/admin/events/cup-event/schedule", {
      opens_at: opensAt,
      closes_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(schedAfter).toMatchObject({ status: 409, body: { code: "window_closed" } });
    bot.close();
  });

  it("leaks no flag: responses other than reveals, log lines, the audit table, mails and errors carry none", async () => {
    expect(reveals.length).toBeGreaterThan(0);
    const audit = await srv.app.ctx.store.work((u) =>
      u.q.query("SELECT kind, subject, detail::text AS d FROM audit"),
    );
    const auditText = JSON.stringify(audit);
    expect(auditText).toContain("event_reveal");
    // The achievement mail (SPEC 6.3) went to the outbox once per award, without the flag.
    const mails = await srv.app.ctx.store.work((u) =>
      u.q.query("SELECT subject, text_body, html_body FROM email_outbox WHERE category = 'achievements'"),
    );
    expect(mails.length).toBeGreaterThanOrEqual(5);
    const mailText = JSON.stringify(mails);
    const pages = await Promise.all(
      ["/events", "/events/cup-event", "/api/events?event=cup-event", "/api/admin/events"].map(async (p) => {
        const r = await fetch(
          `${srv.url}${p}`,
          p.includes("admin") ? { headers: { authorization: `Bearer ${root.access}` } } : {},
        );
        return r.text();
      }),
    );
    expect(logText.length).toBeGreaterThan(1000);
    for (const flag of Object.values(FLAGS)) {
      for (const body of [...seen, ...pages]) expect(body).not.toContain(flag);
      expect(logText).not.toContain(flag);
      expect(auditText).not.toContain(flag);
      expect(mailText).not.toContain(flag);
    }
  });
});
