// Version regression alerts (issue 33, part 5) on the real server with a real SMTP sink on loopback. Three bots
// of two accounts, each with versions v1 and v2 declared in that order through GET/POST /api/me/versions:
// - ada-weak: v2 is deliberately weakened (6 wins in 29 against the house bots where v1 won 28 of 40);
// - ada-equal: v2 is as strong as v1 (the same record);
// - bea-weak: weakened like ada-weak, but bea opted out of bot-health mail.
// The earlier games are saved through the store and recorded in the ladder's real rating book, and announced
// as MatchFinished, exactly as the runner does (as insight-matchups.test.ts does); v2 stays one game short of
// the 30 that make it judged. Then each v2 plays one real match on the live server (the weak ones idle every
// turn, the equal one plays): the runner's own MatchFinished reaches the alert listener. The weakened
// versions raise the alert on the bot and account pages, in GET /api/me and GET /api/account, and one
// bot_health mail reaches ada's mailbox (bea's is skipped by her preference); the equal version raises nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import { Regressions } from "../../server/api/responses.ts";
import { versionKey } from "../../server/ratings/book.ts";
import type { BotRow } from "../../server/store/types.ts";
import { call } from "../helpers/accounts.ts";
import { type Sink, signUpBySmtp, startSink } from "../helpers/mail-sink.ts";
import { freePort } from "../helpers/ports.ts";
import { playRated } from "../helpers/rated-game.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let sink: Sink;
const houses: BotRow[] = [];
const tokens = new Map<string, string>();
const people: Record<string, { access: string; id: string }> = {};
/** One rated game of x's version against a house bot, saved and announced the way the runner does it. */
const play = (x: BotRow, xVersion: string, y: BotRow, xScore: 0 | 1) =>
  playRated(srv, x, y, xScore, "public", xVersion);

/** `games` results of a version against the house bots in turn, `wins` of each 40 won (spread evenly). */
async function record(bot: BotRow, version: string, games: number, winsPer40: number): Promise<void> {
  for (let g = 0; g < games; g++)
    await play(bot, version, houses[g % houses.length]!, (g * winsPer40) % 40 < winsPer40 ? 1 : 0);
}

const api = (token: string, method: string, path: string, body?: unknown) =>
  call(srv.url, method, path, { token, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  sink = await startSink();
  const port = await freePort();
  srv = await startServer({
    port,
    host: "127.0.0.1",
    publicUrl: `http://127.0.0.1:${port}`,
    anonymousDev: false,
    smtpUrl: `smtp://127.0.0.1:${sink.port}`,
    tickMs: 500,
    startupMs: 2000,
  });
  for (const s of Object.values(HOUSE_BOTS)) houses.push((await srv.app.ctx.botStore.botByName(s.name))!);
  people.ada = await signUpBySmtp(srv.url, sink, "ada@regress.test", "ada");
  people.bea = await signUpBySmtp(srv.url, sink, "bea@regress.test", "bea");
  const off = await api(people.bea.access, "PUT", "/api/account/notifications", {
    email_preferences: { bot_health: false },
  });
  expect(off.status).toBe(200);
  for (const [owner, name] of [
    ["ada", "ada-weak"],
    ["ada", "ada-equal"],
    ["bea", "bea-weak"],
  ] as const) {
    const made = await api(people[owner]!.access, "POST", "/api/account/bots", { name });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = String(made.body.token);
    tokens.set(name, token);
    for (const label of ["v1", "v2"]) {
      const v = await call(srv.url, "POST", "/api/me/versions", { token, body: { label } });
      expect(v.status).toBe(201);
      // Versions are ordered by creation time: keep them apart.
      await new Promise((r) => setTimeout(r, 5));
    }
    const bot = (await srv.app.ctx.botStore.botByName(name))!;
    await record(bot, "v1", 40, 28);
    await record(bot, "v2", 29, name === "ada-equal" ? 28 : 6);
  }
}, 180_000);

afterAll(async () => {
  await srv?.stop();
  await sink?.close();
});

/** One real match of `name` at v2 on the live server; `weak` idles every turn. */
async function liveGame(name: string, weak: boolean): Promise<void> {
  const bot = new BotClient(srv.wsUrl, tokens.get(name)!);
  await bot.open();
  await bot.queueForMatch("v2");
  const since = bot.received.length;
  const stop = bot.autoplay((o) =>
    weak
      ? { type: "turn", tick: o.tick }
      : { type: "turn", tick: o.tick, move: (o.moves as { dir: string }[])[0]?.dir },
  );
  bot.send({ type: "ready" });
  await bot.next("end", undefined, 60_000, since).finally(stop);
  bot.close();
}

const regressionsOf = async (name: string) =>
  Regressions.parse((await call(srv.url, "GET", "/api/me", { token: tokens.get(name)! })).body.regressions);

describe("version regression alerts", () => {
  it("raises nothing before the 30th rated game", async () => {
    for (const name of ["ada-weak", "ada-equal", "bea-weak"]) expect(await regressionsOf(name)).toEqual([]);
    expect(sink.of("bot_health")).toEqual([]);
  });

  it("raises the alert for a weakened version after a live game, mails the owner once, and not for an equal one", async () => {
    await liveGame("ada-weak", true);
    await liveGame("ada-equal", false);
    await liveGame("bea-weak", true);
    // ada-weak: v2 has 30 rated games now and rates far below v1.
    const [r, ...more] = await regressionsOf("ada-weak");
    expect(more).toEqual([]);
    expect(r).toMatchObject({
      ladder: "public",
      bot: "ada-weak",
      version: "v2",
      predecessor: "v1",
      games: 30,
    });
    // The rule, from the book itself: more than twice the combined standard error.
    const book = srv.app.ctx.ladders.main.ratings;
    const weak = (await srv.app.ctx.botStore.botByName("ada-weak"))!;
    const v1 = book.get(versionKey(weak.id, "v1"));
    const v2 = book.get(versionKey(weak.id, "v2"));
    const combined = Math.sqrt(v1.deviation ** 2 + v2.deviation ** 2);
    expect(v1.rating - v2.rating).toBeGreaterThan(2 * combined);
    expect(r!.drop).toBe(Math.round(v1.rating - v2.rating));
    expect(r!.combined_error).toBe(Math.round(combined));
    // The equal version: nothing, though it has its 30 games too.
    const equal = (await srv.app.ctx.botStore.botByName("ada-equal"))!;
    expect(book.gamesOf(versionKey(equal.id, "v2"))).toBe(30);
    expect(await regressionsOf("ada-equal")).toEqual([]);
    expect((await regressionsOf("bea-weak")).map((x) => x.version)).toEqual(["v2"]);

    // One bot_health mail, to ada, about ada-weak v2; none about the equal version, none to bea (opted out).
    await sink.until((m) => m.some((x) => x.category === "bot_health"), 20_000);
    const mails = sink.of("bot_health");
    expect(mails.map((m) => m.to)).toEqual(["ada@regress.test"]);
    const raw = mails[0]!.raw.replace(/=\r?\n/g, "");
    expect(raw).toMatch(/Subject: ada-weak \(v2\) is weaker than v1/);
    // The mail's figures are the fit's when v2's 30th game ended (the later games moved them a little).
    expect(raw).toMatch(
      /After 30 rated games on the public ladder, version v2 of ada-weak rates \d+ points below version v1/,
    );
    // The sender settles each row in turn (paced): wait until both alerts are queued (bea's is written by the
    // listener a moment after ada's, later on a loaded machine) and none is left to send.
    const settled = async () => {
      for (const until = Date.now() + 20_000; ; ) {
        const rows = await srv.app.ctx.store.db.query(
          "SELECT o.state, o.dedupe_key FROM email_outbox o WHERE o.category = 'bot_health' ORDER BY o.id",
        );
        const done = rows.length >= 2 && rows.every((x) => x.state !== "pending" && x.state !== "sending");
        if (done || Date.now() > until) return rows;
        await new Promise((res) => setTimeout(res, 100));
      }
    };
    const beaWeak = (await srv.app.ctx.botStore.botByName("bea-weak"))!;
    expect((await settled()).map((x) => [x.dedupe_key, x.state])).toEqual([
      [`bot_regression:public:${weak.id}:v2`, "accepted"],
      [`bot_regression:public:${beaWeak.id}:v2`, "skipped"],
    ]);
  }, 120_000);

  it("mails once per version: later games of the same regressed version queue nothing more", async () => {
    await liveGame("ada-weak", true);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(sink.of("bot_health").length).toBe(1);
    const rows = await srv.app.ctx.store.db.query(
      "SELECT count(*)::int AS n FROM email_outbox WHERE category = 'bot_health'",
    );
    expect(Number(rows[0]!.n)).toBe(2);
  }, 60_000);

  it("shows the alert to the owner on the account (GET /api/account) and on the bot page", async () => {
    const account = await api(people.ada!.access, "GET", "/api/account");
    const list = Regressions.parse(account.body.regressions);
    expect(list.map((x) => [x.bot, x.version])).toEqual([["ada-weak", "v2"]]);
    const page = await fetch(`${srv.url}/bot/ada-weak`).then((x) => x.text());
    expect(page).toContain('id="regressions"');
    expect(page).toMatch(/Version v2 rates \d+ points below v1/);
    const equalPage = await fetch(`${srv.url}/bot/ada-equal`).then((x) => x.text());
    expect(equalPage).not.toContain('id="regressions"');
  });
});
