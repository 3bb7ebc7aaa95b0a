// Hostile input swept across every route (issue 14 part 5). Each route of /openapi.json, each operation
// definition and each plain route that takes input (pages, downloads, the identity provider, the live feed)
// is called with one hostile part at a time: a path parameter, a query parameter or a body field replaced by
// a generated hostile value (NUL bytes, lone surrogates, 10,000-character strings, `%`/`_` wildcards, path
// traversal, huge and negative numbers, values of the wrong JSON type, deep nesting), or the whole body
// replaced (unknown fields, prototype keys, wrong content types, malformed, non-object or oversized JSON).
// Every request carries the credential its route asks for, so the handlers are reached, not a 401.
//
// What must hold: no answer is a 5xx; every 4xx has the SPEC's error shape `{error, code?}` (pages may answer
// an HTML 4xx); a request that changes something (POST, PUT, DELETE) never succeeds with a hostile part; and
// nothing is stored: the database's tables are the same row for row before and after the sweep. A read (GET)
// with a hostile path parameter finds nothing; it may answer 200 where a hostile query value is a legitimate
// one for it (an unknown query parameter is ignored, `?q=%` searches for a literal percent sign, which no
// account has).
//
// The sockets are swept too: `/bot` with hostile bearer tokens and query, `/human` with hostile tickets and
// opponents; each is refused with a SPEC error message and a 1008 close.
//
// Values are a fixed list, not random: the sweep is the same on every run. The route list is read from the
// running server (Fastify's route tree), so a new route without an entry in the tables below fails the test.

import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ACCOUNT_OPERATIONS } from "../../server/accounts/account-routes.ts";
import { ADMIN_OPERATIONS } from "../../server/admin/routes.ts";
import { SETTINGS_OPERATIONS } from "../../server/admin/settings-routes.ts";
import { ANNOUNCEMENT_OPERATIONS } from "../../server/announcements/routes.ts";
import { EVENT_OPERATIONS } from "../../server/events/routes.ts";
import type { AnyOperation } from "../../server/kernel/operation.ts";
import { DATA_OPERATIONS } from "../../server/ladders/data-routes.ts";
import { LADDER_OPERATIONS } from "../../server/ladders/routes.ts";
import { MAIL_OPERATIONS } from "../../server/mail/routes.ts";
import { MCP_OPERATIONS } from "../../server/mcp/routes.ts";
import { OPS_OPERATIONS } from "../../server/ops/routes.ts";
import { REPLAY_SHARE_OPERATIONS } from "../../server/replay-share/feature.ts";
import { SCRIMMAGE_OPERATIONS } from "../../server/scrimmages/routes.ts";
import { SETTLEMENT_OPERATIONS } from "../../server/settlement/routes.ts";
import { TOURNAMENT_OPERATIONS } from "../../server/tournaments/routes.ts";
import { call, type SignedIn, signIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import type { TestServer } from "../helpers/server.ts";

type Method = "GET" | "POST" | "PUT" | "DELETE";
type Cred = "none" | "session" | "admin" | "bot" | "agent" | "idp" | "idp_session";

interface Route {
  method: Method;
  /** Fastify form: `:name` parameters, `*` for the rest of the path. */
  path: string;
  cred: Cred;
  /** Query parameters the route reads (each is swept); fixed ones are sent with every request. */
  query: string[];
  fixedQuery?: Record<string, string>;
  /** Body fields the route reads (each is swept), when it takes a body. */
  body?: string[];
  /** GoTrue's routes ignore fields they do not know (its clients send extras such as gotrue_meta_security). */
  lenientBody?: true;
  /**
   * Query parameters that are hints with a fallback: GoTrue's `redirect_to` names where an emailed link leads,
   * and an address that is not this service's is replaced by the account page (never followed, never stored).
   */
  hints?: string[];
  /** Body fields that may be null (GoTrue clients send `code_challenge: null` without PKCE). */
  nullable?: string[];
}

// ---- hostile values -------------------------------------------------------------------------------------

/** Text for path and query parameters (everything in a URL is text). */
const HOSTILE_TEXT: [string, string][] = [
  ["NUL", "\u0000"],
  ["NUL inside", "ada\u0000x"],
  ["lone high surrogate", "\ud800"],
  ["lone low surrogate", "a\udc00"],
  ["10,000 characters", "x".repeat(10_000)],
  ["percent", "%"],
  ["underscore", "_"],
  ["wildcards", "%_%"],
  ["path traversal", "../../package.json"],
  ["huge number", "1e308"],
  ["beyond a double", "1e999"],
  ["negative", "-1"],
  ["unsafe integer", "9007199254740993"],
  ["NaN", "NaN"],
  ["HTML", "<script>alert(1)</script>"],
];

/** Percent-encodes like a sloppy client would: a lone surrogate goes out as its (invalid) UTF-8 bytes. */
function enc(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff)
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("");
    else out += encodeURIComponent(ch);
  }
  return out;
}

/** Raw JSON fragments: some values (1e999, deep nesting) have no JavaScript value that stringifies to them. */
const DEEP_ARRAY = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
const DEEP_OBJECT = `${'{"a":'.repeat(2_000)}1${"}".repeat(2_000)}`;

/** Values for a body field, chosen against the type of its valid value so that each is wrong for it. */
function hostileJson(valid: unknown, nullable: boolean): [string, string][] {
  const text: [string, string][] = [
    ["NUL", JSON.stringify("\u0000")],
    ["NUL inside", JSON.stringify("v\u0000x")],
    ["lone high surrogate", '"\\ud800"'],
    ["lone low surrogate", '"a\\udc00"'],
    ["10,000 characters", JSON.stringify("x".repeat(10_000))],
  ];
  const numbers: [string, string][] = [
    ["negative", "-1"],
    ["huge number", "1e308"],
    ["huge negative", "-1e308"],
    ["beyond a double", "1e999"],
    ["unsafe integer", "9007199254740993"],
    ["fraction", "1.5"],
  ];
  const deep: [string, string][] = [
    ["deep array", DEEP_ARRAY],
    ["deep object", DEEP_OBJECT],
  ];
  const nul: [string, string][] = nullable ? [] : [["null", "null"]];
  if (typeof valid === "string")
    return [...text, ...numbers, ["true", "true"], ["array", "[]"], ["object", "{}"], ...nul, ...deep];
  if (typeof valid === "number")
    return [
      ...numbers,
      ["numeric text", '"1"'],
      ...text,
      ["true", "true"],
      ["array", "[]"],
      ["null", "null"],
    ];
  if (typeof valid === "boolean")
    return [["text", '"true"'], ["one", "1"], ...text, ["array", "[]"], ["object", "{}"], ["null", "null"]];
  if (Array.isArray(valid))
    return [
      ["text", '"x"'],
      ["number", "1"],
      ["object", "{}"],
      ["null", "null"],
      ["NUL item", JSON.stringify(["\u0000"])],
      ["10,000-character item", JSON.stringify(["x".repeat(10_000)])],
      ...deep,
    ];
  // An object: wrong types, and hostile values or keys inside it.
  return [
    ["text", '"x"'],
    ["number", "1"],
    ["array", "[]"],
    ["NUL value inside", JSON.stringify({ a: "\u0000" })],
    ["NUL key inside", JSON.stringify({ "a\u0000": true })],
    ["lone surrogate inside", '{"a":"\\udfff"}'],
    ["huge number inside", '{"a":1e999}'],
    ...deep,
  ];
}

/** Whole bodies: raw text and its content type. */
function hostileBodies(valid: Record<string, unknown> | undefined): [string, string, string][] {
  const base = valid ?? {};
  const withRaw = (raw: string) => {
    const rest = JSON.stringify(base).slice(1, -1);
    return `{${raw}${rest ? `,${rest}` : ""}}`;
  };
  const json = "application/json";
  return [
    ["unknown field", JSON.stringify({ ...base, zz_unknown: 1 }), json],
    ["__proto__ key", withRaw('"__proto__":{"admin":true}'), json],
    ["constructor.prototype key", withRaw('"constructor":{"prototype":{"admin":true}}'), json],
    ["NUL key", withRaw('"z\\u0000":1'), json],
    ["JSON null", "null", json],
    ["JSON array", "[]", json],
    ["JSON text", '"x"', json],
    ["JSON number", "1e999", json],
    ["malformed JSON", "{", json],
    ["deep nesting", `${"[".repeat(20_000)}${"]".repeat(20_000)}`, json],
    ["oversized", JSON.stringify({ ...base, pad: "x".repeat(70_000) }), json],
    ["text/plain", "name=x", "text/plain"],
    ["form", "name=x&label=x", "application/x-www-form-urlencoded"],
    [
      "multipart",
      '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n',
      "multipart/form-data; boundary=b",
    ],
    ["XML", "<name>x</name>", "application/xml"],
    ["JSON as UTF-16", JSON.stringify(base), "application/json; charset=utf-16"],
  ];
}

// ---- the server, its accounts and the routes ------------------------------------------------------------

let srv: TestServer;
let ada: SignedIn;
let root: SignedIn;
let eve: SignedIn;
let botToken: string;
let agentKey: string;
let agentKeyId: string;
let publishableKey: string;

const FUTURE = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** Valid values of path parameters, by route and name (a route's other parameters stay valid). */
function paramValue(path: string, name: string): string {
  if (name === "*") return "typescript/package.json";
  if (name === "name") {
    if (path.startsWith("/docs/schema")) return "observation";
    if (path.startsWith("/docs") || path.startsWith("/guide")) return "bot-guide";
    if (path.startsWith("/assets")) return "style.css";
    return "ada-bot";
  }
  if (name === "handle" || name === "ref" || name === "account") return "ada";
  if (name === "label") return "v1";
  if (name === "ladder") return "public";
  if (name === "file")
    return path.startsWith("/data")
      ? "2026-11-01.jsonl.gz"
      : path.startsWith("/replays")
        ? "m_none.jsonl.gz"
        : path.startsWith("/docs/adr")
          ? "0001-tick-order.md"
          : "arena-sim.mjs";
  if (name === "invitation") return "inv_none";
  if (name === "client_id") return "mcpc_none";
  // The practice event the default manifest ships, and one of its achievements.
  if (name === "event") return "practice";
  if (name === "id" && path.startsWith("/events")) return "practice";
  if (name === "id" && path.includes("/events/")) return "first-contact";
  if (name === "scope") return "example.com";
  if (name === "id") {
    if (path.startsWith("/api/account/keys")) return agentKeyId;
    if (path.includes("ladders")) return "public";
    return "m_none";
  }
  throw new Error(`no valid value for :${name} of ${path}`);
}

/** Valid bodies, by route: each sweep replaces one field (or the whole body) with something hostile. */
function validBody(method: Method, path: string): Record<string, unknown> | undefined {
  const bodies: Record<string, Record<string, unknown>> = {
    "POST /api/bots": { name: "sweep-bot", owner: "someone" },
    "POST /api/me/versions": { label: "v-sweep", notes: "notes" },
    "PUT /api/account/handle": { handle: "ada-two" },
    "PUT /api/account/notifications": {
      email_announcements: false,
      email_preferences: { weekly_digest: false },
    },
    "POST /api/account/bots": { name: "sweep-bot" },
    "PUT /api/account/bots/:name/name": { name: "sweep-bot" },
    "PUT /api/account/bots/:name/avatar": { avatar: "ronin" },
    "POST /api/account/bots/:name/scrimmages": { opponent: "kiter", map: "arena-21" },
    "PUT /api/account/bots/:name/scrimmages/opt-in": { allowed: true },
    "POST /api/account/bots/:name/batches": { opponents: ["kiter"], games: 2 },
    "POST /api/admin/ladders/:id/settlement": { top_k: 3, game_budget: 4, duration_s: 60 },
    "PUT /api/admin/ladders/:id/settlement": { top_k: 3, game_budget: 4, duration_s: 60 },
    "POST /api/admin/tournaments": {
      name: "Sweep cup",
      ladder: "public",
      format: "swiss",
      rounds: 2,
      starts_at: "2030-01-01T00:00:00Z",
      rated: false,
    },
    "POST /api/account/claim": { token: "bt_unknown" },
    "POST /api/account/mcp/authorization": { authorization_id: "mcpa_unknown", action: "deny" },
    "POST /oauth/register": { client_name: "sweep", redirect_uris: ["https://sweep.example/cb"] },
    "POST /oauth/token": {
      grant_type: "authorization_code",
      code: "mc_unknown",
      code_verifier: "v".repeat(43),
      client_id: "mcpc_unknown",
    },
    "POST /api/account/keys": { label: "sweep", expires_in_days: 30 },
    "POST /api/account/ladders/:id/enrollment": { invitation: "inv_none" },
    "POST /api/admin/accounts/:ref/role": { role: "player" },
    "POST /api/admin/owners": { name: "team", max_bots: 3 },
    "PUT /api/admin/ladders/:id/schedule": { opens_at: FUTURE(10), closes_at: FUTURE(20) },
    "POST /api/admin/ladders/:id/members/:account/approve": { reason: "sweep" },
    "POST /api/admin/ladders/:id/members/:account/revoke": { reason: "sweep" },
    "POST /api/admin/ladders/:id/invitations": { account: "ada" },
    "PUT /api/admin/settings": { revision: 0, overrides: {}, note: "sweep" },
    "POST /api/admin/settings/preview": { revision: 0, overrides: {}, ladders: ["public"] },
    "POST /api/admin/settings/presets": { revision: 0, name: "sweep" },
    "PUT /api/admin/events/:event/schedule": { opens_at: FUTURE(10), closes_at: FUTURE(20) },
    "PUT /api/admin/events/:event/submission": {
      submission_url: "https://example.com/submit",
      submission_instructions: "sweep",
    },
    "POST /api/account/events/:event/opponent": { bot_id: "ada-bot", opponent: "kiter" },
    "POST /api/admin/events/:event/accounts/:account/achievements/:id/revoke": { reason: "sweep" },
    "POST /api/admin/events/:event/reconcile": { apply: false },
    // Email asked for without SMTP: refused before anything is stored.
    "POST /api/admin/announcements/preview": { title: "Sweep", body: "sweep", in_game: false, email: true },
    "PUT /api/admin/announcements/:id": { title: "Sweep", body: "sweep" },
    "POST /api/admin/emails/incidents/:scope/resolve": { reason: "sweep" },
    "POST /api/email/unsubscribe": { token: "not-a-token" },
    // The identity provider: each valid body reaches its handler and changes nothing (an address that is
    // confirmed already, an unknown one, a wrong password, an unknown link).
    "POST /auth/v1/signup": {
      email: "ada@example.com",
      password: "a long test password",
      data: {},
      code_challenge: "x".repeat(43),
      code_challenge_method: "s256",
    },
    "POST /auth/v1/resend": { type: "signup", email: "ada@example.com" },
    "POST /auth/v1/recover": { email: "nobody@example.com" },
    "POST /auth/v1/verify": { type: "signup", token_hash: "nope" },
    "POST /auth/v1/token": { email: "nobody@example.com", password: "a wrong password" },
    "PUT /auth/v1/user": {
      password: "another long password",
      current_password: "a wrong password",
      data: {},
    },
  };
  return bodies[`${method} ${path}`];
}

/** Plain routes (neither in /openapi.json nor operation definitions) and what they read. */
const PLAIN_ROUTES: Route[] = [
  { method: "GET", path: "/", cred: "none", query: ["ladder"] },
  { method: "GET", path: "/ladder", cred: "none", query: ["ladder"] },
  { method: "GET", path: "/ladder/sections", cred: "none", query: ["ladder"] },
  { method: "GET", path: "/featured", cred: "none", query: ["ladder"] },
  { method: "GET", path: "/featured/showcase.jsonl.gz", cred: "none", query: [] },
  { method: "GET", path: "/create-bot", cred: "none", query: ["ladder"] },
  { method: "GET", path: "/starters", cred: "none", query: [] },
  { method: "GET", path: "/bot/:name", cred: "none", query: ["ladder"] },
  { method: "GET", path: "/user/:handle", cred: "none", query: ["ladder"] },
  { method: "GET", path: "/events", cred: "none", query: [] },
  { method: "GET", path: "/events/:id", cred: "none", query: [] },
  { method: "GET", path: "/events/:id/image.webp", cred: "none", query: [] },
  { method: "GET", path: "/match/:id", cred: "none", query: ["ladder"] },
  { method: "GET", path: "/batch/:id", cred: "none", query: [] },
  { method: "GET", path: "/ladders/:id/final", cred: "none", query: [] },
  { method: "GET", path: "/tournaments", cred: "none", query: [] },
  { method: "GET", path: "/tournaments/:id", cred: "none", query: [] },
  { method: "GET", path: "/admin/tournaments", cred: "none", query: [] },
  { method: "GET", path: "/admin/settlement", cred: "none", query: [] },
  { method: "GET", path: "/view", cred: "none", query: [] },
  { method: "GET", path: "/view/:id", cred: "none", query: [] },
  { method: "GET", path: "/embed/:id", cred: "none", query: [] },
  { method: "GET", path: "/data/:ladder/", cred: "none", query: [] },
  { method: "GET", path: "/play", cred: "none", query: [] },
  { method: "GET", path: "/account", cred: "none", query: [] },
  { method: "GET", path: "/email/unsubscribe", cred: "none", query: ["token"] },
  { method: "GET", path: "/admin", cred: "none", query: [] },
  { method: "GET", path: "/changelog", cred: "none", query: [] },
  { method: "GET", path: "/guide", cred: "none", query: [] },
  { method: "GET", path: "/guide/:name", cred: "none", query: [] },
  { method: "GET", path: "/assets/:name", cred: "none", query: [] },
  { method: "GET", path: "/download/:file", cred: "none", query: [] },
  { method: "GET", path: "/download/bots/*", cred: "none", query: [] },
  { method: "GET", path: "/docs/rules.json", cred: "none", query: [] },
  { method: "GET", path: "/docs/adr/:file", cred: "none", query: [] },
  { method: "GET", path: "/docs/images/:file", cred: "none", query: [] },
  { method: "GET", path: "/guide/images/:file", cred: "none", query: [] },
  { method: "GET", path: "/openapi.json", cred: "none", query: [] },
  { method: "GET", path: "/llms.txt", cred: "none", query: [] },
  { method: "GET", path: "/sitemap.xml", cred: "none", query: [] },
  { method: "GET", path: "/robots.txt", cred: "none", query: [] },
  { method: "GET", path: "/api/matches/:id/live", cred: "none", query: ["since"] },
  // The built-in identity provider (GoTrue's shape, SPEC 5.5).
  { method: "GET", path: "/auth/v1/health", cred: "none", query: [] },
  { method: "GET", path: "/auth/v1/settings", cred: "none", query: [] },
  { method: "GET", path: "/auth/v1/.well-known/jwks.json", cred: "none", query: [] },
  { method: "GET", path: "/auth/v1/verify", cred: "none", query: ["token", "type", "redirect_to"] },
  { method: "GET", path: "/auth/v1/user", cred: "idp_session", query: [] },
  ...(["signup", "resend", "recover"] as const).map(
    (p): Route => ({
      method: "POST",
      path: `/auth/v1/${p}`,
      cred: "idp",
      query: ["redirect_to"],
      hints: ["redirect_to"],
      body: Object.keys(validBody("POST", `/auth/v1/${p}`)!),
      nullable: ["code_challenge", "code_challenge_method"],
      lenientBody: true,
    }),
  ),
  {
    method: "POST",
    path: "/auth/v1/verify",
    cred: "idp",
    query: [],
    body: ["type", "token_hash"],
    lenientBody: true,
  },
  {
    method: "POST",
    path: "/auth/v1/token",
    cred: "idp",
    query: ["grant_type"],
    fixedQuery: { grant_type: "password" },
    body: ["email", "password"],
    lenientBody: true,
  },
  {
    method: "PUT",
    path: "/auth/v1/user",
    cred: "idp_session",
    query: [],
    body: ["password", "current_password", "data"],
    lenientBody: true,
  },
  { method: "POST", path: "/auth/v1/logout", cred: "idp_session", query: ["scope"] },
  // The tool endpoint (its body is a JSON-RPC message, which the SDK reads) and its OAuth server.
  { method: "POST", path: "/mcp", cred: "agent", query: [], body: [] },
  { method: "GET", path: "/mcp", cred: "agent", query: [] },
  { method: "DELETE", path: "/mcp", cred: "agent", query: [] },
  { method: "GET", path: "/.well-known/oauth-protected-resource/mcp", cred: "none", query: [] },
  { method: "GET", path: "/.well-known/oauth-protected-resource", cred: "none", query: [] },
  { method: "GET", path: "/.well-known/oauth-authorization-server", cred: "none", query: [] },
  { method: "GET", path: "/account/mcp/authorize", cred: "none", query: ["authorization_id"] },
  {
    method: "GET",
    path: "/oauth/authorize",
    cred: "none",
    query: [
      "response_type",
      "client_id",
      "redirect_uri",
      "code_challenge",
      "code_challenge_method",
      "resource",
      "state",
    ],
  },
  // RFC 7591 has a server ignore client metadata it does not know.
  {
    method: "POST",
    path: "/oauth/register",
    cred: "none",
    query: [],
    body: ["client_name", "redirect_uris"],
    lenientBody: true,
  },
  {
    method: "POST",
    path: "/oauth/token",
    cred: "none",
    query: [],
    body: ["grant_type", "code", "code_verifier", "client_id"],
    lenientBody: true,
  },
];

const RULE_CRED: Record<string, Cred> = {
  none: "none",
  session: "session",
  session_handle: "session",
  admin: "admin",
};

const shapeKeys = (schema: unknown): string[] =>
  schema && typeof schema === "object" && "shape" in schema
    ? Object.keys((schema as { shape: object }).shape)
    : [];

/** Every route that takes input: /openapi.json, the operation definitions, then the plain routes. */
async function routesToSweep(): Promise<Route[]> {
  const doc = (await call(srv.url, "GET", "/openapi.json")).body as {
    paths: Record<
      string,
      Record<
        string,
        {
          security?: Record<string, unknown>[];
          parameters?: { in: string; name: string }[];
          requestBody?: { content: Record<string, { schema: { properties?: object } }> };
        }
      >
    >;
  };
  const routes = new Map<string, Route>();
  const add = (r: Route) => {
    const key = `${r.method} ${r.path}`;
    if (!routes.has(key)) routes.set(key, r);
  };
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [m, op] of Object.entries(ops)) {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      const cred: Cred = schemes.includes("BotBearer")
        ? "bot"
        : schemes.includes("AgentBearer")
          ? "agent"
          : schemes.includes("AccountBearer")
            ? "session"
            : "none";
      const body = op.requestBody
        ? Object.keys(Object.values(op.requestBody.content)[0]?.schema.properties ?? {})
        : undefined;
      add({
        method: m.toUpperCase() as Method,
        path: path.replace(/\{([^}]+)\}/g, ":$1"),
        cred,
        query: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
        ...(body ? { body } : {}),
      });
    }
  const ops: AnyOperation<unknown>[] = [
    ...DATA_OPERATIONS,
    ...ACCOUNT_OPERATIONS,
    ...LADDER_OPERATIONS,
    ...SETTINGS_OPERATIONS,
    ...ADMIN_OPERATIONS,
    ...MCP_OPERATIONS,
    ...EVENT_OPERATIONS,
    ...MAIL_OPERATIONS,
    ...ANNOUNCEMENT_OPERATIONS,
    ...OPS_OPERATIONS,
    ...SCRIMMAGE_OPERATIONS,
    ...SETTLEMENT_OPERATIONS,
    ...TOURNAMENT_OPERATIONS,
    ...REPLAY_SHARE_OPERATIONS,
  ];
  for (const op of ops)
    add({
      method: op.method,
      path: op.path,
      cred: RULE_CRED[op.auth]!,
      query: shapeKeys(op.query),
      ...(op.body ? { body: shapeKeys(op.body) } : {}),
    });
  for (const r of PLAIN_ROUTES) add(r);
  // null is a value of its own for these fields (SPEC 2: an avatar or null for the plain orb).
  routes.get("PUT /api/account/bots/:name/avatar")!.nullable = ["avatar"];
  // ...and for an event's submission link (SPEC 4.6: HTTPS or null).
  routes.get("PUT /api/admin/events/:event/submission")!.nullable = ["submission_url"];
  // ...and for the event a settlement ends (null: the ladder's own window).
  for (const method of ["POST", "PUT"])
    routes.get(`${method} /api/admin/ladders/:id/settlement`)!.nullable = ["event"];
  return [...routes.values()];
}

/** Every route the server has, from Fastify's route tree (HEAD routes are GET's twins). */
function serverRoutes(): string[] {
  const tree = srv.app.http.printRoutes({ commonPrefix: false });
  const out: string[] = [];
  const stack: { depth: number; path: string }[] = [];
  for (const line of tree.split("\n")) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line.replace(/\u00a0/g, " "));
    if (!m) continue;
    const depth = m[1]!.length / 4;
    while (stack.length > depth) stack.pop();
    const parent = stack.at(-1)?.path ?? "";
    // A wildcard child is printed without its slash (`/download/bots` then `*`).
    const path = m[2] === "*" && !parent.endsWith("/") ? `${parent}/*` : `${parent}${m[2]}`;
    stack.push({ depth, path });
    for (const method of (m[3] ?? "").split(", ").filter(Boolean))
      if (method !== "HEAD") out.push(`${method} ${path === "" ? "/" : path}`);
  }
  return out.sort();
}

// ---- requests -------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  type: string;
  text: string;
}

/** A raw HTTP request (node:http, so any path, content type and body bytes go out as given). */
function send(method: Method, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const url = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          ...headers,
          ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers["content-type"] ?? ""),
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function credHeaders(cred: Cred): Record<string, string> {
  switch (cred) {
    case "none":
      return {};
    case "session":
      return { authorization: `Bearer ${ada.access}` };
    case "admin":
      return { authorization: `Bearer ${root.access}` };
    case "bot":
      return { authorization: `Bearer ${botToken}` };
    case "agent":
      return { authorization: `Bearer ${agentKey}` };
    case "idp":
      return { apikey: publishableKey };
    case "idp_session":
      return { apikey: publishableKey, authorization: `Bearer ${eve.access}` };
  }
}

interface Case {
  route: Route;
  what: string;
  path: string;
  body?: { text: string; type: string };
}

/** One case per hostile part of a route's request. */
function casesOf(route: Route): Case[] {
  const params = [...route.path.matchAll(/:([A-Za-z_]+)|\*/g)].map((m) => m[1] ?? "*");
  const pathWith = (over: Record<string, string>) =>
    route.path.replace(/:([A-Za-z_]+)|\*/g, (_m, name: string | undefined) => {
      const key = name ?? "*";
      return over[key] ?? (key === "*" ? paramValue(route.path, key) : enc(paramValue(route.path, key)));
    });
  const fixed = new URLSearchParams(route.fixedQuery ?? {}).toString();
  const withQuery = (path: string, extra: string) => {
    const q = [fixed, extra].filter(Boolean).join("&");
    return q ? `${path}?${q}` : path;
  };
  const valid = route.body ? (validBody(route.method, route.path) ?? {}) : undefined;
  if (route.body && !validBody(route.method, route.path) && route.body.length > 0)
    throw new Error(`no valid body for ${route.method} ${route.path}: add one to validBody()`);
  const validText =
    valid === undefined ? undefined : { text: JSON.stringify(valid), type: "application/json" };
  const cases: Case[] = [];
  for (const p of params)
    for (const [label, value] of HOSTILE_TEXT)
      cases.push({
        route,
        what: `:${p} ${label}`,
        path: withQuery(pathWith({ [p]: enc(value) }), ""),
        ...(validText ? { body: validText } : {}),
      });
  // Declared query parameters get every value. An undeclared one is ignored, so on a change it is sent only
  // with NUL, which no input may carry anywhere (a lone surrogate cannot arrive in a URL: its bytes are not
  // UTF-8, which a path refuses and a query keeps as the literal percent-text).
  const mutation = route.method !== "GET";
  for (const q of [...route.query, "zz_unknown"])
    for (const [label, value] of HOSTILE_TEXT) {
      if (q === "zz_unknown" && mutation && !label.startsWith("NUL")) continue;
      cases.push({
        route,
        what: `?${q} ${label}`,
        path: withQuery(pathWith({}), `${q}=${enc(value)}`),
        ...(validText ? { body: validText } : {}),
      });
    }
  for (const q of route.query)
    cases.push({
      route,
      what: `?${q} repeated`,
      path: withQuery(pathWith({}), `${q}=a&${q}=b`),
      ...(validText ? { body: validText } : {}),
    });
  if (!mutation) return cases;
  for (const field of route.body ?? []) {
    const v = (valid as Record<string, unknown>)[field] ?? "";
    for (const [label, raw] of hostileJson(v, route.nullable?.includes(field) ?? false)) {
      const rest = JSON.stringify({ ...valid, [field]: undefined }).slice(1, -1);
      cases.push({
        route,
        what: `body.${field} ${label}`,
        path: withQuery(pathWith({}), ""),
        body: {
          text: `{${JSON.stringify(field)}:${raw}${rest ? `,${rest}` : ""}}`,
          type: "application/json",
        },
      });
    }
  }
  for (const [label, text, type] of hostileBodies(valid)) {
    if (label === "unknown field" && route.lenientBody) continue;
    cases.push({ route, what: `body ${label}`, path: withQuery(pathWith({}), ""), body: { text, type } });
  }
  return cases;
}

interface Outcome {
  route: string;
  what: string;
  status: number;
  problem: string;
}

function judge(c: Case, a: Answer): string | null {
  if (a.status >= 500) return `answered ${a.status}: ${a.text.slice(0, 200)}`;
  const ok = a.status < 400;
  const hint = c.route.hints?.some((h) => c.what.startsWith(`?${h} `) && !c.what.includes("NUL"));
  if (ok && c.route.method !== "GET" && !hint) return `a change succeeded (${a.status}) with a hostile part`;
  if (ok && c.route.path === "/api/admin/accounts" && c.what.startsWith("?q ")) {
    const found = (JSON.parse(a.text) as { found: number }).found;
    if (found !== 0) return `the search matched ${found} accounts: the value was taken as a pattern`;
  }
  // No resource has a hostile name: a read answers 2xx only for a hostile query value it may take as it is.
  if (ok && c.what.startsWith(":")) return `a hostile path parameter answered ${a.status}`;
  if (ok) return null;
  if (a.type.startsWith("text/html")) return c.route.method === "GET" ? null : "an HTML error on an API call";
  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    return `a ${a.status} that is neither JSON nor HTML: ${a.type} ${a.text.slice(0, 80)}`;
  }
  const e = body as { error?: unknown; code?: unknown };
  if (typeof e.error !== "string" || (e.code !== undefined && typeof e.code !== "string"))
    return `a ${a.status} without the error shape: ${a.text.slice(0, 120)}`;
  return null;
}

/** Every table's rows (volatile bookkeeping columns left out), to show that nothing was stored. */
async function snapshot(): Promise<Record<string, unknown[]>> {
  return srv.app.ctx.store.work(async (u) => {
    const tables = (await u.q.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
    )) as { table_name: string }[];
    const out: Record<string, unknown[]> = {};
    for (const { table_name } of tables) {
      const rows = (await u.q.query(`SELECT * FROM ${table_name}`)) as Record<string, unknown>[];
      out[table_name] = rows
        .map((r) => {
          const { last_seen, last_used, ...rest } = r;
          return JSON.stringify(rest);
        })
        .sort();
    }
    return out;
  });
}

// ---- the sweep ------------------------------------------------------------------------------------------

beforeAll(async () => {
  srv = await startAccountServer({
    adminEmails: ["root@example.com"],
    // Limits would answer 429 before the handlers see the hostile input.
    authRateLimit: 1_000_000,
    registrationRateLimit: 1_000_000,
  });
  [ada, root, eve] = await Promise.all([
    signUp(srv, "ada@example.com", "ada"),
    signUp(srv, "root@example.com", "root"),
    signUp(srv, "eve@example.com", "eve"),
  ]);
  eve = await signIn(srv, "eve@example.com");
  const index = (await call(srv.url, "GET", "/api")).body as { accounts: { publishable_key: string } };
  publishableKey = index.accounts.publishable_key;
  const made = await call(srv.url, "POST", "/api/account/bots", {
    token: ada.access,
    body: { name: "ada-bot" },
  });
  botToken = made.body.token as string;
  const key = await call(srv.url, "POST", "/api/account/keys", {
    token: ada.access,
    body: { label: "sweep" },
  });
  agentKey = key.body.key as string;
  agentKeyId = key.body.id as string;
  // The welcome mails of these accounts, queued now rather than by the once-a-minute onboarding job in the
  // middle of the sweep (a slow sweep then saw them as something it had stored).
  await srv.app.ctx.mail.producers.onboarding();
}, 180_000);

afterAll(async () => {
  await srv?.stop();
});

describe("hostile input on every route", () => {
  it("answers a 4xx in the error shape (never a 5xx), refuses every change and stores nothing", async () => {
    const routes = await routesToSweep();
    const swept = new Set(routes.map((r) => `${r.method} ${r.path}`));
    expect(serverRoutes().filter((r) => !swept.has(r))).toEqual([]);

    const cases = routes.flatMap(casesOf);
    const before = await snapshot();
    const problems: Outcome[] = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const headers = { ...credHeaders(c.route.cred), ...(c.body ? { "content-type": c.body.type } : {}) };
        const a = await send(c.route.method, c.path, headers, c.body?.text);
        const problem = judge(c, a);
        if (problem)
          problems.push({
            route: `${c.route.method} ${c.route.path}`,
            what: c.what,
            status: a.status,
            problem,
          });
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    problems.sort((a, b) => `${a.route} ${a.what}`.localeCompare(`${b.route} ${b.what}`));
    expect(problems.map((p) => `${p.route} | ${p.what} | ${p.status} ${p.problem}`)).toEqual([]);
    expect(await snapshot()).toEqual(before);
  }, 120_000);
});

// ---- the sockets ----------------------------------------------------------------------------------------

/** Opens a socket with a raw request path and headers; resolves with the error message and close code. */
function socketAnswer(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ code: number; error: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${srv.url.replace("http", "ws")}${path}`, { headers });
    let error: unknown = null;
    ws.on("message", (d) => {
      error ??= JSON.parse(String(d));
    });
    ws.on("close", (code) => resolve({ code, error }));
    ws.on("unexpected-response", (_req, res) => resolve({ code: res.statusCode ?? 0, error: null }));
    ws.on("error", reject);
  });
}

describe("hostile input on the sockets", () => {
  it("refuses hostile bearer tokens and query on /bot with the SPEC's connection errors", async () => {
    for (const [label, value] of HOSTILE_TEXT) {
      const q = await socketAnswer(`/bot?token=${enc(value)}`);
      expect({ label, ...q }).toMatchObject({
        label,
        code: 1008,
        error: { type: "error", code: "missing_authorization" },
      });
      // Headers cannot carry NUL or lone surrogates; the rest go out as sent.
      if (/NUL|surrogate/.test(label)) continue;
      const t = await socketAnswer("/bot", { authorization: `Bearer ${value}` });
      expect({ label, ...t }).toMatchObject({
        label,
        code: 1008,
        error: { type: "error", code: "invalid_token" },
      });
    }
  });

  it("refuses hostile tickets and opponents on /human", async () => {
    for (const [label, value] of HOSTILE_TEXT) {
      const t = await socketAnswer(`/human?ticket=${enc(value)}&opponent=brawler`);
      expect({ label, ...t }).toMatchObject({
        label,
        code: 1008,
        error: { type: "error", code: "invalid_ticket" },
      });
      const ticket = (await call(srv.url, "POST", "/api/account/play-ticket", { token: ada.access })).body
        .ticket as string;
      const o = await socketAnswer(`/human?ticket=${ticket}&opponent=${enc(value)}`);
      expect({ label, ...o }).toMatchObject({
        label,
        code: 1008,
        error: { type: "error", code: "unknown_opponent" },
      });
    }
  });
});
