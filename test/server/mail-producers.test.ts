// The mail producers on real data, without SMTP (mail is kept in the outbox, GET /api/admin/emails says so):
// onboarding once per account, achievement and reminder mail once each, incidents warn the admins once, the
// digest's week boundaries, and what makes a version's health bad.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { healthProblems, nextDigestAt, weekStart } from "../../server/mail/producers.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { fighterStats, matchRecord } from "../helpers/match-records.ts";
import type { TestServer } from "../helpers/server.ts";

let srv: TestServer;
let boss: SignedIn;
let ada: SignedIn;

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["boss@prod.test"] });
  boss = await signUp(srv, "boss@prod.test", "boss");
  ada = await signUp(srv, "ada@prod.test", "ada");
}, 60_000);
afterAll(async () => srv?.stop());

const outbox = async () =>
  (await call(srv.url, "GET", "/api/admin/emails", { token: boss.access })).body as {
    mode: string;
    pending: number;
    history: { category: string; state: string; subject: string; text: string }[];
  };

describe("mail producers", () => {
  it("queues one welcome mail per new account, kept in the outbox without SMTP", async () => {
    const p = srv.app.ctx.mail.producers;
    expect(await p.onboarding()).toBe(2);
    expect(await p.onboarding()).toBe(0);
    const o = await outbox();
    expect(o.mode).toBe("outbox");
    expect(o.history.filter((h) => h.category === "onboarding" && h.state === "pending").length).toBe(2);
    expect(o.history.find((h) => h.category === "onboarding")!.text).toContain("/account");
    expect(JSON.stringify(o)).not.toContain("@prod.test");
  });

  it("queues an achievement mail once per award, without a flag, and event reminders once", async () => {
    const p = srv.app.ctx.mail.producers;
    const award = {
      accountId: ada.id,
      eventId: "spring",
      event: "Spring Open",
      achievementId: "first",
      achievement: "First blood",
      bot: "ada-bot",
    };
    expect(await p.achievementEarned(award)).toBe(true);
    expect(await p.achievementEarned(award)).toBe(false);
    const reminder = {
      eventId: "spring",
      name: "Spring Open",
      what: "opens" as const,
      at: "2027-03-01T10:00:00Z",
    };
    expect(await p.remindEvent({ ...reminder, accountIds: [ada.id, boss.id, "acct_gone"] })).toBe(2);
    expect(await p.remindEvent({ ...reminder, accountIds: [ada.id] })).toBe(0);
    const o = await outbox();
    const mail = o.history.find((h) => h.category === "achievements")!;
    expect(mail.subject).toBe("Achievement earned: First blood");
    expect(mail.text).not.toMatch(/flag\{|FLAG/);
    expect(o.history.filter((h) => h.category === "event_reminders").length).toBe(2);
  });

  it("warns the admins once per open incident, audited", async () => {
    const before = (await outbox()).history.filter((h) => h.category === "admin_warnings").length;
    await srv.app.ctx.mail.openIncident("example.org", "temporary refusal: 421 try later");
    await srv.app.ctx.mail.openIncident("example.org", "temporary refusal: 421 try later");
    const after = (await outbox()).history.filter((h) => h.category === "admin_warnings");
    expect(after.length - before).toBe(1);
    const audit = await call(srv.url, "GET", "/api/admin/audit?kind=email_incident", { token: boss.access });
    expect((audit.body as unknown as unknown[]).length).toBe(1);
    const resolved = await call(srv.url, "POST", "/api/admin/emails/incidents/example.org/resolve", {
      token: boss.access,
      body: { reason: "the provider lifted its limit" },
    });
    expect(resolved.status).toBe(200);
    const again = await call(srv.url, "POST", "/api/admin/emails/incidents/example.org/resolve", {
      token: boss.access,
      body: { reason: "twice" },
    });
    expect(again.status).toBe(404);
  });

  it("refuses an email announcement without SMTP, clearly, and stores nothing", async () => {
    const r = await call(srv.url, "POST", "/api/admin/announcements/preview", {
      token: boss.access,
      body: { title: "Hi", body: "there", in_game: true, email: true },
    });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("email_not_configured");
    const list = await call(srv.url, "GET", "/api/admin/announcements", { token: boss.access });
    expect(list.body).toEqual([]);
  });

  it("digests the week before Monday 09:00 UTC; an account without games gets none", async () => {
    expect(await srv.app.ctx.mail.producers.weeklyDigest(Date.now())).toBe(0);
    // Monday 2028-02-28 (a leap year): its week starts that day; the digest is due at 09:00.
    const mon = Date.UTC(2028, 1, 28);
    expect(weekStart(mon + 5 * 3600_000)).toBe(mon);
    expect(weekStart(Date.UTC(2028, 2, 5, 23, 59))).toBe(mon); // Sunday 5 March, same week
    expect(nextDigestAt(mon)).toBe(mon + 9 * 3600_000);
    expect(nextDigestAt(mon + 9 * 3600_000)).toBe(mon + 7 * 86_400_000 + 9 * 3600_000);
  });

  it("calls a version's health bad on idle or refused turns, disqualifications or disconnects, after five games", () => {
    const ok = {
      matches: 10,
      turns: 1000,
      idle_pct: 2,
      refused_pct: 1,
      near_limit_pct: 0,
      idle_pct_by_reason: {},
      refused_pct_by_reason: {},
      reply_ms: { replies: 1000, mean: 5, p50: 4, p95: 9, max: 20 },
      lowest_budget_ms_left: 1000,
      disconnects: 0,
      disqualifications: 0,
      refused_turns: 10,
      idle_turns: 20,
      lost_turns: 30,
      lost_pct: 3,
      refused_parts_by_reason: {},
    };
    expect(healthProblems(ok)).toEqual([]);
    expect(healthProblems(null)).toEqual([]);
    expect(healthProblems({ ...ok, idle_pct: 30, matches: 4 })).toEqual([]);
    expect(healthProblems({ ...ok, idle_pct: 30 })).toHaveLength(1);
    expect(healthProblems({ ...ok, refused_pct: 25, disqualifications: 1, disconnects: 3 })).toHaveLength(3);
  });
  it("mails a version's health once its games show trouble, reading its stats only every fifth game", async () => {
    const { botStore, matchStore } = srv.app.ctx;
    const made = async (name: string) => {
      expect(
        (await call(srv.url, "POST", "/api/account/bots", { token: ada.access, body: { name } })).status,
      ).toBe(201);
      return (await botStore.botByName(name))!;
    };
    const sick = await made("sickly");
    const foe = await made("steady");
    const reads = vi.spyOn(matchStore, "versionStats");
    const health = async () => (await outbox()).history.filter((h) => h.category === "bot_health");
    for (let game = 1; game <= 6; game++) {
      const m = matchRecord(`m_health_${game}`, [
        { id: sick.id, name: "sickly" },
        { id: foe.id, name: "steady" },
      ]);
      // The sick version was disqualified in every game: a problem from its fifth game on.
      m.stats!.fighters[0] = { ...fighterStats(0, "sickly", "v1"), disqualified: true };
      await matchStore.saveMatch(m);
      await srv.app.ctx.mail.producers.onMatchFinished({
        match: m,
        rated: true,
        ratingChange: [0, 0],
        accounts: [ada.id, ada.id],
      });
      if (game === 4) expect(await health()).toEqual([]);
    }
    // Each version was read on its first game and its fifth, not after every game.
    expect(reads.mock.calls.map((c) => c[0])).toEqual([sick.id, foe.id, sick.id, foe.id]);
    reads.mockRestore();
    const mails = await health();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain("sickly");
    expect(mails[0]!.text).toContain("disqualification");
  });
});
