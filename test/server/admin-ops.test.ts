// Admin operations of SPEC 4.6: analytics over whole UTC days (every boundary of SPEC 4.6 and 7.1, every day
// present across month and year boundaries and a leap day), the rolling health view with profiling off, the
// overview's announcements, and the replay trim, audited.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyticsRange, parseDay } from "../../server/ops/analytics.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import type { TestServer } from "../helpers/server.ts";

let srv: TestServer;
let boss: SignedIn;
let ada: SignedIn;

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["boss@ops.test"] });
  boss = await signUp(srv, "boss@ops.test", "boss");
  ada = await signUp(srv, "ada@ops.test", "ada");
}, 60_000);
afterAll(async () => srv?.stop());

const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const shift = (d: string, days: number) =>
  new Date(Date.parse(`${d}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const get = (q: string, token = boss.access) => call(srv.url, "GET", `/api/admin/analytics${q}`, { token });

interface Analytics {
  from: string;
  to: string;
  timezone: string;
  signup_tracking_since: string | null;
  summary: { signups: number };
  daily: { date: string; signups: number }[];
  top_bots: unknown[];
  maps: unknown[];
  current: { accounts: number };
}

function consecutive(days: { date: string }[]) {
  for (let i = 1; i < days.length; i++) expect(days[i]!.date).toBe(shift(days[i - 1]!.date, 1));
}

describe("GET /api/admin/analytics", () => {
  it("defaults to the last 30 days through today, every day present, in UTC", async () => {
    const r = await get("");
    expect(r.status).toBe(200);
    const a = r.body as unknown as Analytics;
    expect(a.to).toBe(today());
    expect(a.from).toBe(shift(today(), -29));
    expect(a.timezone).toBe("UTC");
    expect(a.daily.length).toBe(30);
    consecutive(a.daily);
    expect(a.daily.at(-1)!.signups).toBe(2);
    expect(a.summary.signups).toBe(2);
    expect(a.current.accounts).toBe(2);
    expect(a.signup_tracking_since).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(Array.isArray(a.top_bots) && Array.isArray(a.maps)).toBe(true);
  });

  it("keeps every day across a month boundary, a year boundary and a leap day", async () => {
    const leap = (await get("?from=2024-02-27&to=2024-03-02")).body as unknown as Analytics;
    expect(leap.daily.map((d) => d.date)).toEqual([
      "2024-02-27",
      "2024-02-28",
      "2024-02-29",
      "2024-03-01",
      "2024-03-02",
    ]);
    const plain = (await get("?from=2023-02-27&to=2023-03-01")).body as unknown as Analytics;
    expect(plain.daily.map((d) => d.date)).toEqual(["2023-02-27", "2023-02-28", "2023-03-01"]);
    const year = (await get("?from=2025-12-30&to=2026-01-02")).body as unknown as Analytics;
    expect(year.daily.map((d) => d.date)).toEqual(["2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02"]);
    const month = (await get("?from=2024-01-01&to=2024-03-31")).body as unknown as Analytics;
    expect(month.daily.length).toBe(31 + 29 + 31);
    consecutive(month.daily);
    const one = (await get(`?from=${today()}&to=${today()}`)).body as unknown as Analytics;
    expect(one.daily.map((d) => d.date)).toEqual([today()]);
  });

  it("answers every boundary of the range as SPEC 4.6 and 7.1 say", async () => {
    // 366 days is allowed (a leap year's whole span), 367 is not.
    expect((await get("?from=2023-03-01&to=2024-02-29")).status).toBe(200);
    expect(((await get("?from=2023-03-01&to=2024-02-29")).body as unknown as Analytics).daily.length).toBe(
      366,
    );
    expect((await get("?from=2023-02-28&to=2024-02-29")).status).toBe(400);
    expect((await get(`?from=${shift(today(), -365)}`)).status).toBe(200);
    expect((await get(`?from=${shift(today(), -366)}`)).status).toBe(400);
    // Only `to`: the 30 days ending there.
    const onlyTo = (await get("?to=2024-03-01")).body as unknown as Analytics;
    expect(onlyTo.from).toBe("2024-02-01");
    // Today is the latest end; tomorrow is the future.
    expect((await get(`?to=${today()}`)).status).toBe(200);
    const future = await get(`?to=${shift(today(), 1)}`);
    expect(future.status).toBe(400);
    expect(future.body.error).toMatch(/after today/);
    // Reversed.
    const reversed = await get("?from=2024-03-02&to=2024-03-01");
    expect(reversed.status).toBe(400);
    expect(reversed.body.error).toMatch(/from must not be after to/);
    // Invalid dates: no such day, wrong shape.
    for (const bad of [
      "2023-02-29",
      "2024-02-30",
      "2024-13-01",
      "2024-00-10",
      "2024-1-01",
      "yesterday",
      "2024-03-01T00:00:00Z",
      "",
    ])
      expect({ bad, status: (await get(`?from=${encodeURIComponent(bad)}&to=2024-03-31`)).status }).toEqual({
        bad,
        status: 400,
      });
    expect((await get("?to=2024-02-30")).status).toBe(400);
    // Admins only.
    expect((await get("", ada.access)).status).toBe(403);
    expect((await call(srv.url, "GET", "/api/admin/analytics")).status).toBe(401);
  });

  it("checks ranges the same way at any clock (unit)", () => {
    const now = Date.UTC(2024, 1, 29, 23, 59, 59);
    expect(analyticsRange({}, now)).toEqual({
      from: Date.UTC(2024, 0, 31),
      to: Date.UTC(2024, 1, 29),
      days: 30,
    });
    expect(() => analyticsRange({ to: "2024-03-01" }, now)).toThrow(/after today/);
    expect(parseDay("2100-02-29")).toBeNull();
    expect(parseDay("2000-02-29")).toBe(Date.UTC(2000, 1, 29));
  });
});

describe("other admin operations", () => {
  it("reports rolling health with profiling off", async () => {
    await call(srv.url, "GET", "/api/leaderboard");
    const r = await call(srv.url, "GET", "/api/admin/health", { token: boss.access });
    expect(r.status).toBe(200);
    expect(r.body.window_s).toBe(300);
    expect(r.body.profiling).toBe(false);
    const req = r.body.requests as { total: number; by_route: { route: string; count: number }[] };
    expect(req.by_route.some((x) => x.route === "GET /api/leaderboard" && x.count >= 1)).toBe(true);
    expect(r.body).toHaveProperty("event_loop.p99_ms");
    expect(r.body).toHaveProperty("database.mean_ms");
    expect(r.body).toHaveProperty("matches.deadline_misses");
    expect(r.body).toHaveProperty("pool.queued");
    expect(r.body).toHaveProperty("sockets.bot");
  });

  it("trims replays on demand, audited", async () => {
    const r = await call(srv.url, "POST", "/api/admin/replays/trim", { token: boss.access });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ trimmed: 0, kept_per_bot: 200 });
    const audit = await call(srv.url, "GET", "/api/admin/audit?kind=admin", { token: boss.access });
    expect(JSON.stringify(audit.body)).toContain('"trim"');
  });

  it("lists drafts and announcements with delivery counts in the overview; the public list shows published in-game ones", async () => {
    const d = await call(srv.url, "POST", "/api/admin/announcements/preview", {
      token: boss.access,
      body: { title: "Maintenance", body: "Tonight at 22:00 UTC.", in_game: true, email: false },
    });
    expect(d.status).toBe(200);
    const id = String(d.body.id);
    expect((await call(srv.url, "GET", "/api/announcements")).body).toEqual([]);
    const o = await call(srv.url, "GET", "/api/admin/overview", { token: boss.access });
    const listed = (o.body.announcements as { id: string; state: string; delivery: object }[]).find(
      (a) => a.id === id,
    );
    expect(listed?.state).toBe("draft");
    expect(listed?.delivery).toEqual({
      pending: 0,
      sending: 0,
      accepted: 0,
      failed: 0,
      unknown: 0,
      skipped: 0,
    });
    await call(srv.url, "POST", `/api/admin/announcements/${id}/publish`, { token: boss.access });
    const pub = (await call(srv.url, "GET", "/api/announcements")).body as unknown as {
      id: string;
      title: string;
    }[];
    expect(pub.map((a) => a.id)).toEqual([id]);
    expect(Object.keys(pub[0]!).sort()).toEqual(["body", "id", "published", "title"]);
    // Edit: title and body only, audited; archive hides it in game.
    const bad = await call(srv.url, "PUT", `/api/admin/announcements/${id}`, {
      token: boss.access,
      body: { title: "two\nlines", body: "x" },
    });
    expect(bad.status).toBe(400);
    const edited = await call(srv.url, "PUT", `/api/admin/announcements/${id}`, {
      token: boss.access,
      body: { title: "Maintenance moved", body: "Tomorrow at 22:00 UTC." },
    });
    expect(edited.body.title).toBe("Maintenance moved");
    expect(edited.body.published).toBe(
      listed ? (pub[0] as unknown as { published: string }).published : null,
    );
    expect(
      (
        await call(srv.url, "PUT", "/api/admin/announcements/an_none", {
          token: boss.access,
          body: { title: "a", body: "b" },
        })
      ).status,
    ).toBe(404);
    await call(srv.url, "POST", `/api/admin/announcements/${id}/archive`, { token: boss.access });
    expect((await call(srv.url, "GET", "/api/announcements")).body).toEqual([]);
    const del = await call(srv.url, "DELETE", `/api/admin/announcements/${id}`, { token: boss.access });
    expect(del.body).toEqual({ deleted: id });
    const audit = await call(srv.url, "GET", "/api/admin/audit?kind=announcement", { token: boss.access });
    const actions = (audit.body as unknown as { detail: { action: string } }[]).map((e) => e.detail.action);
    expect(actions.sort()).toEqual(["archive", "delete", "edit", "preview", "publish"]);
  });

  it("refuses to publish a draft previewed over an hour ago, and a discarded one", async () => {
    const d = await call(srv.url, "POST", "/api/admin/announcements/preview", {
      token: boss.access,
      body: { title: "Old", body: "old", in_game: true, email: false },
    });
    const id = String(d.body.id);
    await srv.app.ctx.store.work((u) =>
      u.q.query("UPDATE announcements SET previewed = now() - interval '61 minutes' WHERE id = $1", [id]),
    );
    const late = await call(srv.url, "POST", `/api/admin/announcements/${id}/publish`, {
      token: boss.access,
    });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("preview_expired");
    await call(srv.url, "POST", `/api/admin/announcements/${id}/archive`, { token: boss.access });
    const gone = await call(srv.url, "POST", `/api/admin/announcements/${id}/publish`, {
      token: boss.access,
    });
    expect(gone.body.code).toBe("announcement_discarded");
    const none = await call(srv.url, "POST", "/api/admin/announcements/preview", {
      token: boss.access,
      body: { title: "x", body: "y", in_game: false, email: false },
    });
    expect(none.status).toBe(400);
  });
});
