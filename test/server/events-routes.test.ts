// The event routes' refusals and the event administration (SPEC 4.5, 4.6, 7.1): every wrong credential kind,
// foreign origins, banned accounts, unknown events and achievements; reveal's 403 and 503; opponent requests'
// 409 and 503; submission and schedule validation; image uploads normalised to WebP, and oversized,
// mislabelled, non-image, truncated and image-bomb uploads refused with a 4xx while the server keeps serving.

import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventDefinition } from "../../server/ladders/event-definition.ts";
import type { Manifest } from "../../server/ladders/manifest.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { ladderDef } from "../helpers/ladders.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(Date.now() + ms).toISOString();
const OPPONENTS: EventDefinition["opponents"] = [
  { kind: "house", name: "kiter", display_name: "Kiter" },
  { kind: "house", name: "brawler", display_name: "Brawler" },
];
const five = (): EventDefinition["achievements"] =>
  ["a", "b", "c", "d", "e"].map((id) => ({
    id,
    name: `Achievement ${id}`,
    description: "",
    condition: { opponent: "official", matches: 1 },
  }));
const event = (id: string, ladder: string, extra: Partial<EventDefinition> = {}): EventDefinition => ({
  id,
  name: `Event ${id}`,
  description: "",
  ladder_id: ladder,
  opens_at: null,
  closes_at: null,
  timezone: "UTC",
  enabled: true,
  achievements: five(),
  opponents: OPPONENTS,
  metadata: null,
  submission_url: null,
  submission_instructions: "",
  flag_mode: "official",
  ...extra,
});
const openedAt = iso(-HOUR);
const manifest: Manifest = {
  version: 1,
  ladders: [
    ladderDef("public"),
    ladderDef("solo", { house_bots: false, opens_at: openedAt, closes_at: iso(HOUR) }),
  ],
  events: [
    event("open-pub", "public", { opens_at: openedAt, closes_at: iso(2 * HOUR) }),
    event("later-pub", "public", { opens_at: iso(HOUR), closes_at: iso(2 * HOUR), flag_mode: "testing" }),
    event("solo-event", "solo"),
  ],
};

let srv: TestServer;
let root: SignedIn;
let ada: SignedIn;
let mallory: SignedIn;
let adaKey: string;
let adaBot: string;

const api = (
  token: string | null,
  method: string,
  path: string,
  o: { body?: unknown; headers?: Record<string, string> } = {},
) => call(srv.url, method, path, { token, ...o });

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["root@example.com"] }, { manifest });
  [root, ada, mallory] = await Promise.all([
    signUp(srv, "root@example.com", "root"),
    signUp(srv, "ada@example.com", "ada"),
    signUp(srv, "mallory@example.com", "mallory"),
  ]);
  adaKey = (await api(ada.access, "POST", "/api/account/keys", { body: {} })).body.key as string;
  adaBot = (await api(ada.access, "POST", "/api/account/bots", { body: { name: "adabot" } })).body
    .token as string;
  for (const who of [ada, mallory])
    expect(
      (await api(who.access, "POST", "/api/account/ladders/public/enrollment", { body: {} })).status,
    ).toBe(200);
  expect((await api(root.access, "POST", "/api/admin/accounts/mallory/ban")).status).toBe(200);
}, 180_000);
afterAll(async () => srv?.stop());

describe("public event data", () => {
  it("lists events of visible ladders with every Event field and no flag or progress", async () => {
    const r = await api(null, "GET", "/api/events");
    expect(r.status).toBe(200);
    const list = r.body as unknown as Record<string, unknown>[];
    expect(list.map((e) => e.id).sort()).toEqual(["later-pub", "open-pub", "solo-event"]);
    const e = list.find((x) => x.id === "open-pub")!;
    for (const k of [
      "id",
      "name",
      "description",
      "ladder_id",
      "ladder",
      "opens_at",
      "closes_at",
      "timezone",
      "enabled",
      "phase",
      "ready",
      "achievements",
      "opponents",
      "metadata",
      "image",
      "submission_url",
      "submission_instructions",
      "flag_mode",
      "revision",
      "unavailable_opponents",
    ])
      expect(e, k).toHaveProperty(k);
    expect(e).toMatchObject({ phase: "open", ready: false, flag_mode: "official" });
    expect(list.find((x) => x.id === "later-pub")).toMatchObject({ phase: "upcoming", ready: true });
    expect(list.find((x) => x.id === "solo-event")).toMatchObject({
      unavailable_opponents: ["kiter", "brawler"],
      ready: false,
    });
    expect(JSON.stringify(list)).not.toMatch(/flag"|progress|earned/);
    expect((await api(null, "GET", "/api/events?event=nope")).status).toBe(404);
    const page = await fetch(`${srv.url}/events/open-pub`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Event open-pub");
    expect((await fetch(`${srv.url}/events/nope`)).status).toBe(404);
  });
});

describe("event routes refuse wrong callers (SPEC 4.5)", () => {
  const path = "/api/account/events/open-pub/achievements";
  it("answers the account with private, uncached cards", async () => {
    const r = await api(ada.access, "GET", path);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(r.headers.get("vary")).toMatch(/Authorization/);
    expect(r.body).toMatchObject({ enrollment: "active", request: null });
    expect((r.body.achievements as unknown[]).length).toBe(5);
  });
  it("refuses no credential, bot tokens, agent keys and other tokens", async () => {
    expect((await api(null, "GET", path)).body.code).toBe("missing_authorization");
    for (const token of [adaBot, adaKey, "ok_legacyownerkey", "mcp_sometoken"]) {
      const r = await api(token, "GET", path);
      expect(r.status, token.slice(0, 3)).toBe(401);
      expect(r.body.code).toBe("invalid_session");
    }
    const reveal = await api(adaKey, "POST", "/api/account/events/open-pub/achievements/a/reveal");
    expect(reveal.status).toBe(401);
  });
  it("refuses foreign origins and banned accounts with 403", async () => {
    const foreign = await api(ada.access, "GET", path, { headers: { origin: "https://evil.example" } });
    expect(foreign).toMatchObject({ status: 403, body: { code: "foreign_origin" } });
    const same = await api(ada.access, "GET", path, { headers: { origin: new URL(srv.url).origin } });
    expect(same.status).toBe(200);
    const banned = await api(mallory.access, "GET", path);
    expect(banned).toMatchObject({ status: 403, body: { code: "account_banned" } });
    const bannedReveal = await api(
      mallory.access,
      "POST",
      "/api/account/events/open-pub/achievements/a/reveal",
    );
    expect(bannedReveal).toMatchObject({ status: 403, body: { code: "account_banned" } });
  });
  it("answers 404 for unknown events and achievements", async () => {
    expect((await api(ada.access, "GET", "/api/account/events/nope/achievements")).body.code).toBe(
      "unknown_event",
    );
    const r = await api(ada.access, "POST", "/api/account/events/open-pub/achievements/zz/reveal");
    expect(r).toMatchObject({ status: 404, body: { code: "unknown_achievement" } });
  });
  it("reveal: 403 while locked, 503 without configured flags, a marked value in testing mode", async () => {
    expect(
      (await api(ada.access, "POST", "/api/account/events/open-pub/achievements/a/reveal")).body.code,
    ).toBe("achievement_locked");
    // Awards stored directly: the earning path itself is the whole-event test's.
    await srv.app.ctx.store.work(async (u) => {
      for (const e of ["open-pub", "later-pub"])
        await srv.app.ctx.events.tables.award(u.q, {
          eventId: e,
          accountId: ada.id,
          achievementId: "a",
          earnedAt: new Date().toISOString(),
          evidence: [],
        });
    });
    const none = await api(ada.access, "POST", "/api/account/events/open-pub/achievements/a/reveal");
    expect(none).toMatchObject({ status: 503, body: { code: "flags_unavailable" } });
    const test = await api(ada.access, "POST", "/api/account/events/later-pub/achievements/a/reveal");
    expect(test.status).toBe(200);
    expect(test.body.flag).toMatch(/^TESTING-ONLY-NOT-A-REAL-FLAG\{later-pub\/a\//);
    const cards = await api(ada.access, "GET", "/api/account/events/later-pub/achievements");
    expect((cards.body.achievements as { id: string; flag_available: boolean }[])[0]).toMatchObject({
      id: "a",
      flag_available: true,
    });
    expect(JSON.stringify(cards.body)).not.toContain("TESTING-ONLY");
  });
  it("opponent requests: 404 bot, 409 offline or closed, 503 without opponents, 400 unknown opponent", async () => {
    const req = (event: string, body: unknown) =>
      api(ada.access, "POST", `/api/account/events/${event}/opponent`, { body });
    expect((await req("open-pub", { bot_id: "nobot", opponent: "kiter" })).body.code).toBe("no_such_bot");
    expect(await req("open-pub", { bot_id: "adabot", opponent: "kiter" })).toMatchObject({
      status: 409,
      body: { code: "bot_offline" },
    });
    expect(await req("open-pub", { bot_id: "adabot", opponent: "champion" })).toMatchObject({
      status: 400,
      body: { code: "unknown_opponent" },
    });
    expect(await req("later-pub", { bot_id: "adabot", opponent: "kiter" })).toMatchObject({
      status: 409,
      body: { code: "event_closed" },
    });
    expect((await req("open-pub", { bot_id: "adabot", opponent: "kiter", extra: 1 })).status).toBe(400);
    expect((await api(ada.access, "POST", "/api/account/ladders/solo/enrollment", { body: {} })).status).toBe(
      200,
    );
    expect(await req("solo-event", { bot_id: "adabot", opponent: "kiter" })).toMatchObject({
      status: 503,
      body: { code: "opponents_unavailable" },
    });
    // Online and valid: 201, then DELETE cancels it.
    const bot = new BotClient(srv.wsUrl, adaBot);
    await bot.open();
    srv.app.ctx.ladders.main.matchmaker.paused = true;
    const made = await req("open-pub", { bot_id: "adabot", opponent: "kiter" });
    expect(made.status).toBe(201);
    expect(made.body.request).toMatchObject({ opponent: "kiter", state: "pending" });
    const cancelled = await api(ada.access, "DELETE", "/api/account/events/open-pub/opponent");
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.request).toBeNull();
    srv.app.ctx.ladders.main.matchmaker.paused = false;
    bot.close();
  });
});

/** A PNG whose header claims `w` x `h` pixels (a decompression bomb's shape), with a valid header checksum. */
async function claimedSize(w: number, h: number): Promise<Buffer> {
  const png = Buffer.from(
    await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } })
      .png()
      .toBuffer(),
  );
  png.writeUInt32BE(w, 16);
  png.writeUInt32BE(h, 20);
  let c = ~0;
  for (const byte of png.subarray(12, 29)) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  png.writeUInt32BE(~c >>> 0, 29);
  return png;
}

describe("event administration (SPEC 4.6)", () => {
  const put = (path: string, body: Buffer | string, type: string, headers: Record<string, string> = {}) =>
    fetch(`${srv.url}${path}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${root.access}`, "content-type": type, ...headers },
      body: typeof body === "string" ? body : new Uint8Array(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  it("lists events with readiness, availability and counts; refuses non-admins", async () => {
    const r = await api(root.access, "GET", "/api/admin/events");
    expect(r.status).toBe(200);
    const e = (r.body as unknown as Record<string, unknown>[]).find((x) => x.id === "open-pub")!;
    expect(e).toMatchObject({
      image_upload_available: true,
      flags_configured: false,
      earning_unavailable: null,
    });
    expect((e.counts as unknown[]).length).toBe(5);
    expect(
      (r.body as unknown as Record<string, unknown>[]).find((x) => x.id === "solo-event")!
        .earning_unavailable,
    ).toMatch(/house_bots/);
    expect((await api(ada.access, "GET", "/api/admin/events")).status).toBe(403);
  });

  it("uploads an image as normalised WebP and deletes it", async () => {
    const png = await sharp({ create: { width: 2400, height: 1200, channels: 3, background: "#3060c0" } })
      .png()
      .toBuffer();
    const r = await put("/api/admin/events/open-pub/image", png, "image/png", {
      "x-arena-image-alt": encodeURIComponent("Blue banner é"),
    });
    expect(r.status).toBe(200);
    const image = r.body.image as { url: string; alt: string; width: number; height: number };
    expect(image).toMatchObject({ alt: "Blue banner é", width: 1600, height: 800 });
    const served = await fetch(image.url.replace(/^https?:\/\/[^/]+/, srv.url));
    expect(served.headers.get("content-type")).toBe("image/webp");
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    expect(meta.format).toBe("webp");
    const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: "#fff" } })
      .jpeg()
      .toBuffer();
    const j = await put("/api/admin/events/open-pub/image", jpeg, "image/jpeg");
    expect(j.body.image).toMatchObject({ alt: "Event open-pub", width: 300, height: 200 });
    const del = await api(root.access, "DELETE", "/api/admin/events/open-pub/image");
    expect(del.body.image).toBeNull();
  });

  it("refuses oversized, mislabelled, non-image, truncated, bomb and other-type uploads with a 4xx", async () => {
    const png = await sharp({ create: { width: 40, height: 40, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const cases: [string, Buffer | string, string, number][] = [
      ["oversized", Buffer.alloc(6 * 1024 * 1024, 1), "image/png", 413],
      ["mislabelled", png, "image/jpeg", 415],
      ["not an image", Buffer.from("hello, not an image at all"), "image/png", 400],
      ["truncated", png.subarray(0, 60), "image/png", 400],
      ["bomb", await claimedSize(60_000, 60_000), "image/png", 413],
      ["gif", Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1"), "image/gif", 415],
      ["json", JSON.stringify({ image: "x" }), "application/json", 415],
    ];
    for (const [what, body, type, status] of cases) {
      const r = await put("/api/admin/events/open-pub/image", body, type);
      expect(r.status, what).toBe(status);
      expect(typeof r.body.error, what).toBe("string");
    }
    // Still serving, still without an image.
    const after = await api(null, "GET", "/api/events?event=open-pub");
    expect(
      (after.body as unknown as { id: string; image: unknown }[]).find((e) => e.id === "open-pub")!.image,
    ).toBeNull();
  });

  it("sets the submission link and instructions with their rules", async () => {
    const path = "/api/admin/events/open-pub/submission";
    const bad = [
      { submission_url: "http://example.com/x", submission_instructions: "" },
      { submission_url: null, submission_instructions: "x".repeat(4001) },
      { submission_url: null },
      { submission_url: null, submission_instructions: "", extra: true },
    ];
    for (const body of bad) expect((await api(root.access, "PUT", path, { body })).status).toBe(400);
    const ok = await api(root.access, "PUT", path, {
      body: { submission_url: "https://example.com/submit", submission_instructions: "Send your writeup." },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      submission_url: "https://example.com/submit",
      submission_instructions: "Send your writeup.",
    });
  });

  it("moves a Public event alone with the window rules, and the edit outranks the manifest on reload", async () => {
    const path = "/api/admin/events/later-pub/schedule";
    const opens = iso(30 * 60_000);
    const closes = iso(3 * HOUR);
    const r = await api(root.access, "PUT", path, { body: { opens_at: opens, closes_at: closes } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ opens_at: opens, closes_at: closes });
    expect(srv.app.ctx.events.view(srv.app.ctx.events.require("open-pub")).closes_at).toBe(
      manifest.events![0]!.closes_at,
    );
    const started = await api(root.access, "PUT", "/api/admin/events/open-pub/schedule", {
      body: { opens_at: iso(HOUR), closes_at: iso(2 * HOUR) },
    });
    expect(started).toMatchObject({ status: 409, body: { code: "window_started" } });
    const closeOnly = await api(root.access, "PUT", "/api/admin/events/open-pub/schedule", {
      body: { opens_at: manifest.events![0]!.opens_at, closes_at: iso(-1000) },
    });
    expect(closeOnly).toMatchObject({ status: 409, body: { code: "window_past" } });
    expect((await api(root.access, "PUT", path, { body: { opens_at: opens } })).status).toBe(400);
    expect(
      (await api(root.access, "PUT", path, { body: { opens_at: "tomorrow", closes_at: closes } })).status,
    ).toBe(400);
    // A restart reads the stored window back over the manifest's.
    await srv.app.ctx.events.load(manifest);
    expect(srv.app.ctx.events.window(srv.app.ctx.events.require("later-pub"))).toEqual({
      opens_at: opens,
      closes_at: closes,
    });
    const audit = await api(root.access, "GET", "/api/admin/audit?kind=event_schedule");
    expect((audit.body as unknown as unknown[]).length).toBeGreaterThan(0);
  });

  it("moving a ladder's window counts a revision of each event on it, by either route, once", async () => {
    const solo = async () =>
      (
        (await api(null, "GET", "/api/events?event=solo-event")).body as unknown as Record<string, unknown>[]
      ).find((e) => e.id === "solo-event")!;
    const before = await solo();
    const closes = iso(90 * 60_000);
    const moved = await api(root.access, "PUT", "/api/admin/ladders/solo/schedule", {
      body: { opens_at: openedAt, closes_at: closes },
    });
    expect(moved.status).toBe(200);
    const after = await solo();
    expect(after).toMatchObject({ closes_at: closes, revision: (before.revision as number) + 1 });
    // The event's own schedule route moves the same window and counts one revision, not two.
    const again = await api(root.access, "PUT", "/api/admin/events/solo-event/schedule", {
      body: { opens_at: openedAt, closes_at: iso(100 * 60_000) },
    });
    expect(again.status).toBe(200);
    expect((await solo()).revision).toBe((before.revision as number) + 2);
  });

  it("stores an event change only with its audit entry (one unit of work)", async () => {
    const q = (sql: string) => srv.app.ctx.store.work((u) => u.q.query(sql));
    const before = (await api(null, "GET", "/api/events?event=open-pub")).body as unknown as Record<
      string,
      unknown
    >[];
    const was = before.find((e) => e.id === "open-pub")!;
    await q(
      "ALTER TABLE audit ADD CONSTRAINT events_uow_test CHECK (kind NOT IN ('event_submission', 'event_revoke')) NOT VALID",
    );
    try {
      const r = await api(root.access, "PUT", "/api/admin/events/open-pub/submission", {
        body: { submission_url: "https://example.com/never", submission_instructions: "never" },
      });
      expect(r.status).toBe(500);
      const revoke = await api(
        root.access,
        "POST",
        "/api/admin/events/open-pub/accounts/ada/achievements/a/revoke",
        {
          body: { reason: "never" },
        },
      );
      expect(revoke.status).toBe(500);
    } finally {
      await q("ALTER TABLE audit DROP CONSTRAINT events_uow_test");
    }
    const after = (await api(null, "GET", "/api/events?event=open-pub")).body as unknown as Record<
      string,
      unknown
    >[];
    const now = after.find((e) => e.id === "open-pub")!;
    expect([now.submission_url, now.revision]).toEqual([was.submission_url, was.revision]);
    const cards = await api(ada.access, "GET", "/api/account/events/open-pub/achievements");
    expect(
      (cards.body.achievements as { id: string; revoked_at: string | null }[])[0]!.revoked_at,
    ).toBeNull();
  });

  it("shows an account's facts and progress, and revokes only awards that exist", async () => {
    const d = await api(root.access, "GET", "/api/admin/events/later-pub/accounts/ada");
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ event_id: "later-pub", account: { handle: "ada" } });
    expect(JSON.stringify(d.body)).not.toContain("TESTING-ONLY");
    const path = "/api/admin/events/later-pub/accounts/ada/achievements";
    expect((await api(root.access, "POST", `${path}/b/revoke`, { body: { reason: "x" } })).body.code).toBe(
      "no_such_award",
    );
    expect((await api(root.access, "POST", `${path}/a/revoke`, { body: { reason: "" } })).status).toBe(400);
    expect(
      (await api(root.access, "POST", `${path}/a/revoke`, { body: { reason: "r".repeat(1001) } })).status,
    ).toBe(400);
    const ok = await api(root.access, "POST", `${path}/a/revoke`, { body: { reason: "flag shared" } });
    expect(ok.body.revoked).toMatchObject({ achievement_id: "a", revoked_reason: "flag shared" });
    expect(
      (await api(ada.access, "POST", "/api/account/events/later-pub/achievements/a/reveal")).body.code,
    ).toBe("achievement_revoked");
    expect((await api(root.access, "GET", "/api/admin/events/later-pub/accounts/nobody")).status).toBe(404);
  });
});
