// The HTTP contract: /openapi.json passes an independent OpenAPI 3.1 validator, names the release, and every
// documented operation is called on the live server with its response checked against the document's schema
// for that status (Ajv, JSON Schema 2020-12). One real match (a forfeit against a house bot: the quickest
// rated game) gives the match, stats, replay and rating routes something to return.
import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RELEASE } from "../../engine/versions.ts";
import type { Caller } from "../../server/accounts/accounts.ts";
import { documentedOperations } from "../../server/openapi.ts";
import { allOperations } from "../../server/operations.ts";
import { signUp } from "../helpers/accounts.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Json = Record<string, unknown>;
interface Doc {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: Json }> }> }>
  >;
  components: Json;
}

let srv: TestServer;
let doc: Doc;
let token = "";
let matchId = "";
let agentKey = "";
let unsubscribeToken = "";
let batchId = "";
let tournamentId = "";

beforeAll(async () => {
  // A short startup window: the live match is a forfeit, over as soon as the window closes.
  srv = await startServer({ tickMs: 200, startupMs: 300 });
  token = await srv.register("api-bot", "api-owner");
  const bot = new BotClient(srv.wsUrl, token);
  await bot.open();
  bot.send({ type: "queue", version: "v1" });
  matchId = (await bot.next("hello")).match_id as string;
  await bot.next("end", undefined, 15_000);
  bot.close();
  await bot.closed();
  doc = (await (await fetch(`${srv.url}/openapi.json`)).json()) as Doc;
  // An account with an agent key, for the routes that take one.
  const who = await signUp(srv, "contract@example.com", "contract");
  const key = await fetch(`${srv.url}/api/account/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${who.access}`, "content-type": "application/json" },
    body: "{}",
  });
  agentKey = ((await key.json()) as { key: string }).key;
  // A batch test of that account's bot (GET /api/batches/{id} answers it, public).
  const session = { authorization: `Bearer ${who.access}`, "content-type": "application/json" };
  await fetch(`${srv.url}/api/account/bots`, {
    method: "POST",
    headers: session,
    body: '{"name":"batch-bot"}',
  });
  const batch = await fetch(`${srv.url}/api/account/bots/batch-bot/batches`, {
    method: "POST",
    headers: session,
    body: JSON.stringify({ opponents: ["kiter"], games: 1 }),
  });
  batchId = ((await batch.json()) as { id: string }).id;
  // A tournament (GET /api/tournaments/{id} answers it, public), scheduled by the service as staff would.
  const staff = { account: { id: who.id, handle: "contract" } } as unknown as Caller;
  tournamentId = (
    await srv.app.ctx.tournaments.tournaments.create(staff, {
      name: "Contract cup",
      ladder: "public",
      format: "swiss",
      rounds: 2,
      games_per_pairing: 1,
      starts_at: "2030-01-01T00:00:00Z",
      checkin_minutes: 10,
      forfeit_after_s: 60,
    })
  ).id;
  // The token an announcement email to that account would carry.
  unsubscribeToken = srv.app.ctx.mail.tokens.issue(who.id, "announcements");
});
afterAll(async () => {
  await srv?.stop();
});

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

/** Checks a live response against the document: the status is documented, and a JSON body fits its schema. */
function checkAgainstDocument(path: string, method: string, status: number, type: string, body: unknown) {
  const op = doc.paths[path]?.[method];
  expect(op, `${method} ${path} is documented`).toBeDefined();
  const response = op!.responses[String(status)];
  expect(response, `${method} ${path} documents status ${status}`).toBeDefined();
  const media = Object.keys(response!.content ?? {})[0]!;
  expect(type.split(";")[0], `${method} ${path} ${status} content type`).toBe(media);
  if (media !== "application/json") return;
  const key = `${method} ${path} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ ...response!.content![media]!.schema, components: doc.components });
    validators.set(key, validate);
  }
  const ok = validate(body);
  expect(ok, `${key}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 600)}`).toBe(true);
}

interface Call {
  /** Document path template. */
  path: string;
  method?: "get" | "post" | "delete";
  /** The concrete address. */
  url: string;
  status: number;
  token?: string;
  body?: unknown;
}

async function call(c: Call) {
  const method = c.method ?? "get";
  const headers: Record<string, string> = {};
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  if (c.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${srv.url}${c.url}`, {
    method: method.toUpperCase(),
    headers,
    ...(c.body !== undefined ? { body: JSON.stringify(c.body) } : {}),
  });
  const type = res.headers.get("content-type") ?? "";
  const body = type.startsWith("application/json") ? await res.json() : await res.arrayBuffer();
  expect(res.status, `${method.toUpperCase()} ${c.url}: ${JSON.stringify(body).slice(0, 300)}`).toBe(
    c.status,
  );
  checkAgainstDocument(c.path, method, res.status, type, body);
  return body as Json;
}

describe("/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document (swagger-parser) whose version is the release", async () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe(RELEASE);
    expect(doc.servers[0]!.url).toBe(srv.url);
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toMatchObject({
      openapi: "3.1.0",
    });
  });

  it("documents only routes the server has, each once", () => {
    const seen = new Set<string>();
    for (const op of documentedOperations(allOperations())) {
      const url = op.path.replace(/\{(\w+)\}/g, ":$1");
      expect(
        srv.app.http.hasRoute({ method: op.method.toUpperCase() as "GET", url }),
        `${op.method} ${url}`,
      ).toBe(true);
      const key = `${op.method} ${op.path}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });

  it("every documented operation answers as documented on the live server", async () => {
    const successes: Call[] = [
      { path: "/api", url: "/api", status: 200 },
      { path: "/api", url: "/api?ladder=public", status: 200 },
      { path: "/api/status", url: "/api/status", status: 200 },
      { path: "/api/status", url: "/api/status?ladder=public", status: 200 },
      { path: "/api/changelog", url: "/api/changelog", status: 200 },
      { path: "/docs", url: "/docs", status: 200 },
      { path: "/docs/{name}", url: "/docs/bot-guide", status: 200 },
      { path: "/docs/schema/{name}", url: "/docs/schema/observation.json", status: 200 },
      { path: "/download/bots", url: "/download/bots", status: 200 },
      { path: "/api/leaderboard", url: "/api/leaderboard", status: 200 },
      { path: "/api/lobby", url: "/api/lobby", status: 200 },
      { path: "/api/ladders", url: "/api/ladders", status: 200 },
      { path: "/api/ladders", url: "/api/ladders?ladder=public", status: 200 },
      { path: "/api/ladders/{id}/matchups", url: "/api/ladders/public/matchups?top=3", status: 200 },
      { path: "/api/batches/{id}", url: `/api/batches/${batchId}`, status: 200 },
      // No settlement on this ladder: the documented 404 (test/server/settlement.test.ts checks the answers of a
      // real settlement against the same schemas).
      { path: "/api/ladders/{id}/settlement", url: "/api/ladders/public/settlement", status: 404 },
      {
        path: "/api/ladders/{id}/settlement/final",
        url: "/api/ladders/public/settlement/final",
        status: 404,
      },
      { path: "/api/tournaments", url: "/api/tournaments", status: 200 },
      { path: "/api/tournaments/{id}", url: `/api/tournaments/${tournamentId}`, status: 200 },
      { path: "/api/events", url: "/api/events", status: 200 },
      { path: "/api/events", url: "/api/events?event=practice", status: 200 },
      { path: "/api/bots/{name}", url: "/api/bots/api-bot", status: 200 },
      { path: "/api/bots/{name}", url: "/api/bots/champion?ladder=public", status: 200 },
      { path: "/api/bots/{name}/ratings", url: "/api/bots/api-bot/ratings", status: 200 },
      { path: "/api/bots/{name}/ratings", url: "/api/bots/api-bot/ratings?days=7", status: 200 },
      { path: "/api/users/{handle}", url: "/api/users/api-owner", status: 200 },
      { path: "/api/matches", url: "/api/matches", status: 200 },
      { path: "/api/announcements", url: "/api/announcements", status: 200 },
      { path: "/api/email/unsubscribe", url: "/api/email/unsubscribe?token=nope", status: 200 },
      {
        path: "/api/email/unsubscribe",
        url: `/api/email/unsubscribe?token=${encodeURIComponent(unsubscribeToken)}`,
        status: 200,
      },
      {
        path: "/api/email/unsubscribe",
        method: "post",
        url: "/api/email/unsubscribe",
        status: 200,
        body: { token: unsubscribeToken },
      },
      { path: "/api/matches", url: "/api/matches?bot=api-bot&limit=5&stats=1", status: 200 },
      { path: "/api/matches/{id}", url: `/api/matches/${matchId}`, status: 200 },
      { path: "/api/matches/{id}/stats", url: `/api/matches/${matchId}/stats`, status: 200 },
      { path: "/replays/{file}", url: `/replays/${matchId}.jsonl.gz`, status: 200 },
      // Open data (issue 35): the index of every ladder and of one; no day is over yet here, so a day's file is
      // the documented 404 (test/server/open-data.test.ts downloads real dumps).
      { path: "/data", url: "/data", status: 200 },
      { path: "/data/{ladder}", url: "/data/public", status: 200 },
      { path: "/data/{ladder}/{file}", url: "/data/public/2020-01-01.jsonl.gz", status: 404 },
      { path: "/api/me", url: "/api/me", status: 200, token },
      {
        path: "/api/me/versions",
        method: "post",
        url: "/api/me/versions",
        status: 201,
        token,
        body: { label: "v2", notes: "contract test" },
      },
      {
        path: "/api/me/versions/{label}/retire",
        method: "post",
        url: "/api/me/versions/v2/retire",
        status: 200,
        token,
      },
      { path: "/api/bots", method: "post", url: "/api/bots", status: 201, body: { name: "api-bot-2" } },
      {
        path: "/api/bots",
        method: "post",
        url: "/api/bots",
        status: 201,
        body: { name: "key-bot" },
        token: agentKey,
      },
      { path: "/api/bots/{name}", method: "delete", url: "/api/bots/key-bot", status: 200, token: agentKey },
      // Not the key's account's bot: the documented 404 (test/server/insight-health.test.ts has the owner's 200).
      {
        path: "/api/account/bots/{name}/matches/{id}/diagnostics",
        url: `/api/account/bots/api-bot/matches/${matchId}/diagnostics`,
        status: 404,
        token: agentKey,
      },
    ];
    const called = new Set<string>();
    for (const c of successes) {
      await call(c);
      called.add(`${c.method ?? "get"} ${c.path}`);
    }
    // Rotation last: it invalidates the token the calls above use.
    const rotated = await call({
      path: "/api/me/token",
      method: "post",
      url: "/api/me/token",
      status: 200,
      token,
    });
    called.add("post /api/me/token");
    expect(rotated.token).not.toBe(token);

    // The live match shows up with its ratings and stats.
    const list = (await (await fetch(`${srv.url}/api/matches?bot=api-bot&stats=1`)).json()) as Json[];
    expect(list.map((m) => m.id)).toContain(matchId);

    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m} ${path}`),
    );
    expect([...called].sort()).toEqual(documented.sort());
  });

  it("documented error responses carry the Error shape", async () => {
    const failures: Call[] = [
      { path: "/api/status", url: "/api/status?ladder=nope", status: 404 },
      { path: "/api", url: "/api?ladder=nope", status: 404 },
      {
        path: "/api/email/unsubscribe",
        method: "post",
        url: "/api/email/unsubscribe",
        status: 400,
        body: { token: "nope" },
      },
      { path: "/docs/{name}", url: "/docs/nope", status: 404 },
      { path: "/docs/schema/{name}", url: "/docs/schema/nope.json", status: 404 },
      { path: "/api/leaderboard", url: "/api/leaderboard?ladder=nope", status: 404 },
      { path: "/api/lobby", url: "/api/lobby?ladder=nope", status: 404 },
      { path: "/api/events", url: "/api/events?event=nope", status: 404 },
      { path: "/api/bots/{name}", url: "/api/bots/no-such-bot", status: 404 },
      { path: "/api/bots/{name}", url: "/api/bots/x", status: 404 },
      { path: "/api/bots/{name}/ratings", url: "/api/bots/api-bot/ratings?days=-1", status: 400 },
      { path: "/api/users/{handle}", url: "/api/users/nobody-here", status: 404 },
      { path: "/api/matches", url: "/api/matches?limit=0", status: 400 },
      { path: "/api/matches", url: "/api/matches?ladder=nope", status: 404 },
      { path: "/api/matches/{id}", url: "/api/matches/nope", status: 404 },
      { path: "/api/batches/{id}", url: "/api/batches/nope", status: 404 },
      { path: "/api/tournaments/{id}", url: "/api/tournaments/nope", status: 404 },
      { path: "/api/matches/{id}/stats", url: "/api/matches/nope/stats", status: 404 },
      { path: "/replays/{file}", url: "/replays/nope.jsonl.gz", status: 404 },
      { path: "/api/bots", method: "post", url: "/api/bots", status: 400, body: { name: "a" } },
      { path: "/api/me", url: "/api/me", status: 401 },
      { path: "/api/bots/{name}", method: "delete", url: "/api/bots/api-bot", status: 401 },
      { path: "/api/bots/{name}", method: "delete", url: "/api/bots/champion", status: 404, token: agentKey },
      { path: "/api/me", url: "/api/me", status: 401, token: "not-a-token" },
      {
        path: "/api/me/versions",
        method: "post",
        url: "/api/me/versions",
        status: 401,
        body: { label: "x" },
      },
      {
        path: "/api/me/versions/{label}/retire",
        method: "post",
        url: "/api/me/versions/v9/retire",
        status: 401,
      },
      { path: "/api/me/token", method: "post", url: "/api/me/token", status: 401 },
    ];
    for (const c of failures) {
      const body = await call(c);
      expect(body.error, c.url).toEqual(expect.any(String));
    }
  });
});
