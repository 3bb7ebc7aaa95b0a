// Ladder membership (SPEC 3.7) and live settings (SPEC 4.6, 8) end to end: every membership transition,
// invitation reuse refused, revocation closing the way to queue, audit entries, and the SPEC's codes for
// wrong credentials and origins; settings with a stale revision (409), a preview that changes nothing, a live
// change of capacity and of a quota that takes effect at once and shows in GET /api, presets that
// round-trip, and all of it surviving a restart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../server/ladders/manifest.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { ladderDef } from "../helpers/ladders.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

const ladder = (id: string, access: "open" | "approval" | "invitation") =>
  ladderDef(id, { description: "", access });
const manifest: Manifest = {
  version: 1,
  ladders: [
    ladder("public", "open"),
    ladder("club", "approval"),
    ladder("vip", "invitation"),
    {
      ...ladder("cup", "open"),
      opens_at: new Date(Date.now() + 3_600_000).toISOString(),
      closes_at: new Date(Date.now() + 7_200_000).toISOString(),
    },
  ],
};

let srv: TestServer;
let root: SignedIn;
let ada: SignedIn;
let bea: SignedIn;
let cy: SignedIn;
let adaBot: string;

const api = (who: SignedIn | null, method: string, path: string, body?: unknown) =>
  call(srv.url, method, path, { token: who?.access ?? null, ...(body !== undefined ? { body } : {}) });

/** Queues on a ladder and returns the first answer: `queued`, or the error code. */
async function queueAnswer(bot: BotClient, ladderId: string): Promise<string> {
  const since = bot.received.length;
  bot.send({ type: "queue", version: "v1", ladder_id: ladderId });
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    const answer = bot.received.slice(since).find((m) => m.type === "queued" || m.type === "error");
    if (answer) return answer.type === "queued" ? "queued" : String(answer.code);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("no answer to queue");
}

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["root@example.com"] }, { manifest });
  [root, ada, bea, cy] = await Promise.all([
    signUp(srv, "root@example.com", "root"),
    signUp(srv, "ada@example.com", "ada"),
    signUp(srv, "bea@example.com", "bea"),
    signUp(srv, "cy@example.com", "cy"),
  ]);
  const made = await api(ada, "POST", "/api/account/bots", { name: "adabot" });
  expect(made.status).toBe(201);
  adaBot = made.body.token as string;
});
afterAll(async () => srv?.stop());

describe("ladder membership", () => {
  const membershipOf = async (who: SignedIn, id: string) => {
    const r = await api(who, "GET", "/api/account/ladders");
    expect(r.status).toBe(200);
    return (r.body as unknown as { id: string; membership: string | null }[]).find((l) => l.id === id)!
      .membership;
  };

  it("approval ladder: null -> pending -> active -> revoked, with the queue following each step", async () => {
    const bot = new BotClient(srv.wsUrl, adaBot);
    await bot.open();
    expect(await membershipOf(ada, "club")).toBeNull();
    expect(await queueAnswer(bot, "club")).toBe("enrollment_required");

    const enrolled = await api(ada, "POST", "/api/account/ladders/club/enrollment", {});
    expect(enrolled.status).toBe(200);
    expect(await membershipOf(ada, "club")).toBe("pending");
    expect(await queueAnswer(bot, "club")).toBe("enrollment_required");
    // Enrolling again while pending changes nothing.
    expect((await api(ada, "POST", "/api/account/ladders/club/enrollment", {})).status).toBe(200);

    const approved = await api(root, "POST", `/api/admin/ladders/club/members/ada/approve`, {
      reason: "known",
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ ladder_id: "club", handle: "ada", membership: "active" });
    // Held in the queue (no pairing on club for now), so the revocation finds it waiting.
    const club = srv.app.ctx.ladders.require("club");
    club.matchmaker.paused = true;
    expect(await queueAnswer(bot, "club")).toBe("queued");

    // Revocation takes the waiting bot out of the queue at once, and closes the way back in.
    const since = bot.received.length;
    const revoked = await api(root, "POST", `/api/admin/ladders/club/members/${ada.id}/revoke`, {
      reason: "cheating",
    });
    expect(revoked.body).toMatchObject({ membership: "revoked", reason: "cheating" });
    expect(await bot.next("error", undefined, 15_000, since)).toMatchObject({ code: "enrollment_required" });
    club.matchmaker.paused = false;
    expect(await queueAnswer(bot, "club")).toBe("enrollment_required");
    const again = await api(ada, "POST", "/api/account/ladders/club/enrollment", {});
    expect(again).toMatchObject({ status: 403, body: { code: "membership_revoked" } });
    // Revoking a revoked member is no change; approving a never-enrolled one is allowed for staff.
    expect((await api(root, "POST", "/api/admin/ladders/club/members/ada/revoke", {})).status).toBe(200);

    const detail = await api(root, "GET", "/api/admin/ladders/club");
    expect(detail.body).toMatchObject({ id: "club", access: "approval" });
    expect((detail.body.members as { handle: string; membership: string }[])[0]).toMatchObject({
      handle: "ada",
      membership: "revoked",
    });
    const audit = await api(root, "GET", "/api/admin/audit?limit=100");
    const kinds = (audit.body as unknown as { kind: string; detail: { ladder?: string } }[])
      .filter((e) => e.detail.ladder === "club")
      .map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(["ladder_enrollment", "ladder_approve", "ladder_revoke"]));
    bot.close();
  });

  it("open ladder: enrollment is active at once", async () => {
    const r = await api(bea, "POST", "/api/account/ladders/public/enrollment", {});
    expect(r.status).toBe(200);
    expect(await membershipOf(bea, "public")).toBe("active");
  });

  it("invitation ladder: a code is needed, used once, and bound invitations fit one account only", async () => {
    const none = await api(bea, "POST", "/api/account/ladders/vip/enrollment", {});
    expect(none).toMatchObject({ status: 403, body: { code: "invitation_required" } });
    const open = await api(root, "POST", "/api/admin/ladders/vip/invitations", {});
    expect(open.status).toBe(201);
    const code = open.body.code as string;
    expect(code).toMatch(/^inv_/);
    const wrong = await api(bea, "POST", "/api/account/ladders/vip/enrollment", {
      invitation: "inv_nonsense",
    });
    expect(wrong).toMatchObject({ status: 403, body: { code: "invalid_invitation" } });

    const used = await api(bea, "POST", "/api/account/ladders/vip/enrollment", { invitation: code });
    expect(used.status).toBe(200);
    expect(await membershipOf(bea, "vip")).toBe("active");
    const reuse = await api(cy, "POST", "/api/account/ladders/vip/enrollment", { invitation: code });
    expect(reuse).toMatchObject({ status: 409, body: { code: "invitation_used" } });

    const forAda = await api(root, "POST", "/api/admin/ladders/vip/invitations", { account: "ada" });
    expect(forAda.body).toMatchObject({ handle: "ada", used_by: null });
    const stolen = await api(cy, "POST", "/api/account/ladders/vip/enrollment", {
      invitation: forAda.body.code as string,
    });
    expect(stolen).toMatchObject({ status: 403, body: { code: "invalid_invitation" } });

    // Listed without codes; deleted by staff; a deleted invitation no longer works.
    const detail = await api(root, "GET", "/api/admin/ladders/vip");
    const listed = detail.body.invitations as { id: string; used_by: string | null }[];
    expect(listed).toHaveLength(2);
    expect(JSON.stringify(detail.body)).not.toContain(code);
    const del = await api(root, "DELETE", `/api/admin/ladders/vip/invitations/${forAda.body.id}`);
    expect(del).toMatchObject({ status: 200, body: { deleted: forAda.body.id } });
    const gone = await api(root, "DELETE", `/api/admin/ladders/vip/invitations/${forAda.body.id}`);
    expect(gone).toMatchObject({ status: 404, body: { code: "no_such_invitation" } });
    const late = await api(ada, "POST", "/api/account/ladders/vip/enrollment", {
      invitation: forAda.body.code,
    });
    expect(late).toMatchObject({ status: 403, body: { code: "invalid_invitation" } });
    // Invitations are for invitation ladders only.
    const notHere = await api(root, "POST", "/api/admin/ladders/club/invitations", {});
    expect(notHere).toMatchObject({ status: 409, body: { code: "not_invitation_ladder" } });
  });

  it("answers the SPEC's codes to wrong credentials, origins and unknown ladders", async () => {
    expect((await api(null, "GET", "/api/account/ladders")).body.code).toBe("missing_authorization");
    const byBotToken = await call(srv.url, "GET", "/api/account/ladders", { token: adaBot });
    expect(byBotToken).toMatchObject({ status: 401, body: { code: "invalid_session" } });
    const foreign = await call(srv.url, "POST", "/api/account/ladders/public/enrollment", {
      token: ada.access,
      body: {},
      headers: { origin: "https://evil.example" },
    });
    expect(foreign).toMatchObject({ status: 403, body: { code: "foreign_origin" } });
    expect((await api(null, "GET", "/api/admin/ladders")).body.code).toBe("admin_required");
    expect(await api(ada, "GET", "/api/admin/ladders")).toMatchObject({
      status: 403,
      body: { code: "not_admin" },
    });
    const approveByPlayer = await api(ada, "POST", "/api/admin/ladders/club/members/bea/approve", {});
    expect(approveByPlayer).toMatchObject({ status: 403, body: { code: "not_admin" } });
    expect(await api(ada, "POST", "/api/account/ladders/nowhere/enrollment", {})).toMatchObject({
      status: 404,
      body: { code: "unknown_ladder" },
    });
    expect(await api(root, "GET", "/api/admin/ladders/nowhere")).toMatchObject({
      status: 404,
      body: { code: "unknown_ladder" },
    });
    expect(await api(root, "POST", "/api/admin/ladders/club/members/nobody/approve", {})).toMatchObject({
      status: 404,
      body: { code: "no_such_account" },
    });
    const bad = await api(ada, "POST", "/api/account/ladders/vip/enrollment", { invitation: 42 });
    expect(bad).toMatchObject({ status: 400, body: { code: "bad_request" } });
    const admins = await api(root, "GET", "/api/admin/ladders");
    expect((admins.body as unknown as { id: string }[]).map((l) => l.id)).toEqual([
      "public",
      "club",
      "vip",
      "cup",
    ]);
  });
});

describe("GET /api/status?ladder=", () => {
  it("lists the house bots on the ladder asked about", async () => {
    type Status = { online: { name: string; house: boolean; ladder_id: string }[] };
    const club = await srv.get<Status>("/api/status?ladder=club");
    const house = club.body.online.filter((b) => b.house);
    expect(house.length).toBeGreaterThan(0);
    expect(new Set(house.map((b) => b.ladder_id))).toEqual(new Set(["club"]));
    const all = await srv.get<Status>("/api/status");
    expect(all.body.online.filter((b) => b.house).map((b) => b.ladder_id)).toContain("public");
  });
});

describe("moving a ladder's window", () => {
  const at = (ms: number) => new Date(Date.now() + ms).toISOString();
  const move = (id: string, body: unknown) => api(root, "PUT", `/api/admin/ladders/${id}/schedule`, body);
  let movedCloses = "";

  it("moves only the future, checks the window, opens on the new time and is audited", async () => {
    expect(await move("public", { opens_at: null, closes_at: at(60_000) })).toMatchObject({
      status: 400,
      body: { code: "invalid_window" },
    });
    // club is open from the start: its opening cannot move, its closing can.
    expect(await move("club", { opens_at: at(60_000), closes_at: null })).toMatchObject({
      status: 409,
      body: { code: "window_started" },
    });
    expect(await move("cup", { opens_at: at(-60_000), closes_at: at(7_200_000) })).toMatchObject({
      status: 409,
      body: { code: "window_past" },
    });
    expect(await move("cup", { opens_at: at(60_000), closes_at: at(30_000) })).toMatchObject({
      status: 400,
      body: { code: "invalid_window" },
    });
    expect(await move("cup", { opens_at: "tomorrow", closes_at: null })).toMatchObject({
      status: 400,
      body: { code: "invalid_window" },
    });
    expect(await move("cup", { opens_at: at(60_000) })).toMatchObject({ status: 400 });
    expect(
      await api(ada, "PUT", "/api/admin/ladders/cup/schedule", { opens_at: null, closes_at: null }),
    ).toMatchObject({ status: 403, body: { code: "not_admin" } });

    movedCloses = at(3_600_000);
    const moved = await move("cup", { opens_at: at(1_500), closes_at: movedCloses });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: "cup", phase: "upcoming", closes_at: movedCloses });
    // The phase job opens it on the new time, without a restart.
    const until = Date.now() + 10_000;
    let phase = "upcoming";
    while (phase !== "open" && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      const listed = await srv.get<{ id: string; phase: string }[]>("/api/ladders");
      phase = listed.body.find((l) => l.id === "cup")!.phase;
    }
    expect(phase).toBe("open");
    expect(await move("cup", { opens_at: at(60_000), closes_at: movedCloses })).toMatchObject({
      status: 409,
      body: { code: "window_started" },
    });
    const audit = await api(root, "GET", "/api/admin/audit?kind=ladder_schedule");
    expect((audit.body as unknown as { subject: string }[]).map((e) => e.subject)).toContain("cup");
  });

  it("keeps a moved window across a restart (checked in the restart test below)", () => {
    expect(srv.app.ctx.ladders.require("cup").def.closes_at).toBe(movedCloses);
  });
});

describe("live settings", () => {
  it("refuses a stale revision, previews without changing, applies at once and shows in GET /api", async () => {
    const s0 = await api(root, "GET", "/api/admin/settings");
    expect(s0.status).toBe(200);
    // Every limit with its bounds, unit, meaning and whether a ladder may set it (the console's form).
    const limits = s0.body.limits as { name: string; min: number; max: number; ladder: boolean }[];
    expect(limits.map((l) => l.name)).toEqual(Object.keys(s0.body.defaults as object));
    expect(limits.find((l) => l.name === "tick_ms")).toMatchObject({
      min: 10,
      max: 600_000,
      unit: "ms",
      ladder: true,
    });
    expect(limits.find((l) => l.name === "maxBotsPerOwner")).toMatchObject({ ladder: false, unit: null });
    const rev0 = s0.body.revision as number;
    const wanted = { global: { maxConcurrentMatches: 7 }, ladders: { club: { matchesPerHourPerBot: 3 } } };

    const preview = await api(root, "POST", "/api/admin/settings/preview", {
      overrides: wanted,
      ladders: ["club"],
    });
    expect(preview.status).toBe(200);
    expect(preview.body.changes).toEqual(
      expect.arrayContaining([
        { ladder: null, limit: "maxConcurrentMatches", from: 320, to: 7 },
        { ladder: "club", limit: "matchesPerHourPerBot", from: 10000, to: 3 },
      ]),
    );
    // The preview changed nothing.
    expect((await api(root, "GET", "/api/admin/settings")).body.revision).toBe(rev0);
    const index0 = await srv.get<{ operational_policy: { maxConcurrentMatches: number } }>("/api");
    expect(index0.body.operational_policy.maxConcurrentMatches).toBe(320);

    const stale = await api(root, "PUT", "/api/admin/settings", { revision: rev0 + 5, overrides: wanted });
    expect(stale).toMatchObject({ status: 409, body: { code: "stale_revision", revision: rev0 } });
    const badLimit = await api(root, "PUT", "/api/admin/settings", {
      revision: rev0,
      overrides: { global: { maxConcurrentMatches: -1 } },
    });
    expect(badLimit.status).toBe(400);
    // Each problem names its field, so the console can show it there.
    expect(badLimit.body.issues).toEqual([
      { path: "global.maxConcurrentMatches", message: expect.stringContaining(">=1") },
    ]);
    const badLadder = await api(root, "PUT", "/api/admin/settings", {
      revision: rev0,
      overrides: { ladders: { nowhere: { tick_ms: 500 } } },
    });
    expect(badLadder).toMatchObject({ status: 404, body: { code: "unknown_ladder" } });
    const perLadderBots = await api(root, "PUT", "/api/admin/settings", {
      revision: rev0,
      overrides: { ladders: { club: { maxBotsPerOwner: 1 } } },
    });
    expect(perLadderBots.status).toBe(400); // bots are shared: their limit is global only

    const put = await api(root, "PUT", "/api/admin/settings", { revision: rev0, overrides: wanted });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ revision: rev0 + 1, overrides: wanted });
    const index1 = await srv.get<{ operational_policy: { maxConcurrentMatches: number } }>("/api");
    expect(index1.body.operational_policy.maxConcurrentMatches).toBe(7);
    expect((await srv.get<{ capacity: { max: number } }>("/api/status")).body.capacity.max).toBe(7);
    expect(srv.app.ctx.settings.limits("club").matchesPerHourPerBot).toBe(3);
    expect(srv.app.ctx.settings.limits("public").matchesPerHourPerBot).toBe(10000);
    // The old revision is now stale.
    expect((await api(root, "PUT", "/api/admin/settings", { revision: rev0, overrides: {} })).status).toBe(
      409,
    );
  });

  it("refuses null overrides as it refuses missing ones, and keeps every live setting", async () => {
    const s = await api(root, "GET", "/api/admin/settings");
    const kept = await api(root, "PUT", "/api/admin/settings", {
      revision: s.body.revision,
      overrides: { global: { matchesPerDayPerOwner: 77 }, ladders: {} },
    });
    expect(kept.status).toBe(200);
    const rev = kept.body.revision as number;
    const missing = await api(root, "PUT", "/api/admin/settings", { revision: rev });
    const nulled = await api(root, "PUT", "/api/admin/settings", { revision: rev, overrides: null });
    expect(missing).toMatchObject({ status: 400, body: { code: "bad_request" } });
    expect(nulled).toMatchObject({ status: 400, body: { code: "bad_request" } });
    expect(String(nulled.body.error)).toContain("overrides");
    const preview = await api(root, "POST", "/api/admin/settings/preview", { overrides: null });
    expect(preview).toMatchObject({ status: 400, body: { code: "bad_request" } });
    const after = await api(root, "GET", "/api/admin/settings");
    expect(after.body).toMatchObject({ revision: rev, overrides: { global: { matchesPerDayPerOwner: 77 } } });
    await api(root, "PUT", "/api/admin/settings", { revision: rev, overrides: {} });
  });

  it("GET /api reports the live limits of the ladder named, the default one when none is", async () => {
    const s = await api(root, "GET", "/api/admin/settings");
    const put = await api(root, "PUT", "/api/admin/settings", {
      revision: s.body.revision,
      overrides: { global: { tick_ms: 900 }, ladders: { club: { tick_ms: 2500, matchesPerHourPerBot: 4 } } },
    });
    expect(put.status).toBe(200);
    type Index = { operational_policy: { ladder: string; tick_ms: number; matchesPerHourPerBot: number } };
    const club = await srv.get<Index>("/api?ladder=club");
    expect(club.status).toBe(200);
    expect(club.body.operational_policy).toMatchObject({
      ladder: "club",
      tick_ms: 2500,
      matchesPerHourPerBot: 4,
    });
    const main = await srv.get<Index>("/api");
    expect(main.body.operational_policy).toMatchObject({
      ladder: "public",
      tick_ms: 900,
      matchesPerHourPerBot: 10000,
    });
    expect((await srv.get<Index>("/api?ladder=public")).body).toEqual(main.body);
    const unknown = await srv.get<{ code: string }>("/api?ladder=nowhere");
    expect(unknown).toMatchObject({ status: 404, body: { code: "unknown_ladder" } });
    const after = await api(root, "GET", "/api/admin/settings");
    await api(root, "PUT", "/api/admin/settings", { revision: after.body.revision, overrides: {} });
  });

  it("a live capacity of one holds back a second match, and raising it lets it start", async () => {
    const s = await api(root, "GET", "/api/admin/settings");
    const one = await api(root, "PUT", "/api/admin/settings", {
      revision: s.body.revision,
      overrides: { global: { maxConcurrentMatches: 1 }, ladders: {} },
    });
    expect(one.status).toBe(200);
    const beaBot = (await api(bea, "POST", "/api/account/bots", { name: "beabot" })).body.token as string;
    const cyBot = (await api(cy, "POST", "/api/account/bots", { name: "cybot" })).body.token as string;
    const adaTwo = (await api(ada, "POST", "/api/account/bots", { name: "adatwo" })).body.token as string;
    const dan = await signUp(srv, "dan@example.com", "dan");
    const danBot = (await api(dan, "POST", "/api/account/bots", { name: "danbot" })).body.token as string;
    const bots = await Promise.all(
      [beaBot, cyBot, adaTwo, danBot].map(async (t) => {
        const b = new BotClient(srv.wsUrl, t);
        await b.open();
        return b;
      }),
    );
    // The first bot's match (against a house bot) runs without turns, so it lasts; the next bot must wait.
    bots[0]!.send({ type: "queue", version: "v1" });
    await bots[0]!.next("hello", undefined, 15_000, 0);
    bots[0]!.send({ type: "ready" });
    bots[2]!.send({ type: "queue", version: "v1" });
    const held = await bots[2]!.next("error", undefined, 15_000, 0);
    expect(held).toMatchObject({ code: "quota_exceeded" });
    expect(String(held.message)).toContain("capacity");
    expect(bots[2]!.received.some((m) => m.type === "hello")).toBe(false);

    const s2 = await api(root, "GET", "/api/admin/settings");
    await api(root, "PUT", "/api/admin/settings", { revision: s2.body.revision, overrides: {} });
    await bots[2]!.next("hello", undefined, 15_000, 0);
    for (const b of bots) b.close();
  });

  it("hourly quota: a live change on one ladder bites there only", async () => {
    const s = await api(root, "GET", "/api/admin/settings");
    await api(root, "PUT", "/api/admin/settings", {
      revision: s.body.revision,
      overrides: { ladders: { club: { matchesPerHourPerBot: 1 } } },
    });
    // Ada is a revoked member of club; approve her again to play there.
    await api(root, "POST", "/api/admin/ladders/club/members/ada/approve", {});
    const t = (await api(ada, "POST", "/api/account/bots", { name: "adaquota" })).body.token as string;
    const bot = new BotClient(srv.wsUrl, t);
    await bot.open();
    const first = bot.playUntilEnd();
    bot.send({ type: "queue", version: "v1", ladder_id: "club" });
    expect((await first).ladder_id).toBe("club");
    const since = bot.received.length;
    bot.send({ type: "queue", version: "v1", ladder_id: "club" });
    expect(await bot.next("error", undefined, 15_000, since)).toMatchObject({ code: "quota_exceeded" });
    // The same bot still plays on public, whose quota is untouched.
    const leaveSince = bot.received.length;
    bot.send({ type: "leave" });
    await new Promise((r) => setTimeout(r, 50));
    const pub = bot.playUntilEnd();
    bot.send({ type: "queue", version: "v1" });
    expect((await pub).ladder_id).toBe("public");
    expect(bot.received.slice(leaveSince).some((m) => m.type === "error" && m.code !== "not_queued")).toBe(
      false,
    );
    bot.close();
  });

  it("presets round-trip, and the settings survive a restart", async () => {
    const s = await api(root, "GET", "/api/admin/settings");
    const mine = { global: { matchesPerDayPerOwner: 123 }, ladders: { vip: { tick_ms: 750 } } };
    const put = await api(root, "PUT", "/api/admin/settings", { revision: s.body.revision, overrides: mine });
    const rev = put.body.revision as number;
    const saved = await api(root, "POST", "/api/admin/settings/presets", {
      revision: rev,
      name: "spring event",
    });
    expect(saved).toMatchObject({ status: 201, body: { name: "spring event", overrides: mine } });
    const stalePreset = await api(root, "POST", "/api/admin/settings/presets", {
      revision: rev - 1,
      name: "x",
    });
    expect(stalePreset.status).toBe(409);
    await api(root, "PUT", "/api/admin/settings", { revision: rev, overrides: {} });
    expect(srv.app.ctx.settings.limits().matchesPerDayPerOwner).toBe(50000);
    const back = await api(root, "PUT", "/api/admin/settings", { revision: rev + 1, preset: "spring event" });
    expect(back.status).toBe(200);
    expect(back.body.overrides).toEqual(mine);
    expect((back.body.presets as { name: string }[]).map((p) => p.name)).toEqual(["spring event"]);

    // A new server on the same database and data dir reads them back.
    await srv.app.close();
    const again = await startServer(
      {
        dataDir: srv.dataDir,
        databaseUrl: srv.databaseUrl,
        anonymousDev: false,
        adminEmails: ["root@example.com"],
      },
      { manifest },
    ).catch(async (err) => {
      throw err;
    });
    try {
      expect(again.app.ctx.settings.current.revision).toBe(rev + 2);
      expect(again.app.ctx.settings.limits().matchesPerDayPerOwner).toBe(123);
      expect(again.app.ctx.settings.limits("vip").tick_ms).toBe(750);
      // The window staff moved outranks the manifest's.
      expect(again.app.ctx.ladders.require("cup").def.closes_at).toBe(
        srv.app.ctx.ladders.require("cup").def.closes_at,
      );
      expect(again.app.ctx.ladders.require("cup").phase).toBe("open");
    } finally {
      await again.app.close();
    }
  });
});
