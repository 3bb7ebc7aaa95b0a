// Discovery and documentation on the live server: GET /api (every ApiIndex field, canonical addresses),
// the changelog in its three forms, /docs and its Markdown and schemas, the HTML guides, the crawler indexes
// and the starter-bot downloads, including their 404s (SPEC 1.1, 4.1, 7.1, 9).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyRequest } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import { RELEASE, VERSIONS } from "../../engine/versions.ts";
import { testConfig } from "../../server/config.ts";
import { REPO_ROOT } from "../../server/docs/catalog.ts";
import { parseChangelog } from "../../server/docs/changelog.ts";
import { BOT_FILES, WHEEL_NAME } from "../../server/docs/downloads.ts";
import { markdownToHtml, siteHref } from "../../server/docs/html.ts";
import { publicBase } from "../../server/public-address.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

type Json = Record<string, unknown>;
let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ houseBots: false });
});
afterAll(async () => {
  await srv?.stop();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${srv.url}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type") ?? "", headers: res.headers, text };
}
const json = (text: string) => JSON.parse(text) as Json;

describe("GET /api", () => {
  it("has every ApiIndex field of SPEC 2, with addresses on the address the request used", async () => {
    const r = await get("/api");
    expect(r.status).toBe(200);
    const api = json(r.text);
    expect(Object.keys(api).sort()).toEqual(
      [
        "bot_endpoint",
        "accounts",
        "authentication_required",
        "mcp",
        "openapi",
        "llms_txt",
        "docs",
        "bot_code",
        "versions",
        "onboarding",
        "operational_policy",
        "changelog",
        "simulator",
        "open_data",
        "maps",
        "endpoints",
      ].sort(),
    );
    // The open data of issue 35 (an extra field): all ladders' dumps, this ladder's, the format.
    expect(api.open_data).toEqual({
      index: `${srv.url}/data`,
      ladder: `${srv.url}/data/public`,
      format: `${srv.url}/docs/replays-and-data`,
    });
    expect(api.bot_endpoint).toBe(`${srv.wsUrl}`);
    // The tool endpoint is on by default (accounts are); --no-mcp or the live setting turn it off.
    expect(api.mcp).toBe(`${srv.url}/mcp`);
    expect(api.authentication_required).toBe(false);
    expect(api.openapi).toBe(`${srv.url}/openapi.json`);
    expect(api.llms_txt).toBe(`${srv.url}/llms.txt`);
    expect(api.docs).toBe(`${srv.url}/docs`);
    expect(api.bot_code).toBe(`${srv.url}/download/bots`);
    expect(api.versions).toMatchObject({ ...VERSIONS, schema: expect.any(Number) });
    expect(Object.keys(api.onboarding as Json).sort()).toEqual(
      [
        "account_url",
        "signup_url",
        "guide_url",
        "signup_endpoint",
        "token_endpoint",
        "handle_endpoint",
        "registration_endpoint",
        "claim_endpoint",
      ].sort(),
    );
    expect(api.changelog).toEqual({
      page: `${srv.url}/changelog`,
      markdown: `${srv.url}/docs/changelog`,
      json: `${srv.url}/api/changelog`,
    });
    expect(api.simulator).toEqual({
      javascript: `${srv.url}/download/arena-sim.mjs`,
      script: `${srv.url}/download/arena-sim.js`,
      python: `${srv.url}/download/${WHEEL_NAME}`,
      docs: `${srv.url}/docs/simulator`,
    });
    expect(api.maps).toEqual(["arena-21", "columns-21", "pillars-21"]);
    expect(api.maps).toEqual(MAP_NAMES);
    const endpoints = api.endpoints as string[];
    for (const e of [
      "GET /api?ladder=",
      "POST /api/bots",
      "GET /api/matches/<id>/stats",
      "WS /bot",
      "GET /openapi.json",
    ])
      expect(endpoints).toContain(e);
    expect(endpoints).toContain("GET /api/matches?ladder=&bot=&limit=&stats=&before=");
    // Each route once (DELETE /api/bots/<name> was listed twice: documented, and again by hand).
    expect(endpoints.filter((e, i) => endpoints.indexOf(e) !== i)).toEqual([]);
    expect(endpoints).toContain("DELETE /api/bots/<name>");
  });

  it("uses the configured public address; the request's host only on a development ladder without one", () => {
    const req = (host: string) => ({ headers: { host }, protocol: "http" }) as unknown as FastifyRequest;
    const dev = testConfig({ port: 8080, publicUrl: "http://localhost:8080" });
    expect(publicBase(dev, req("10.0.0.5:8080"))).toBe("http://10.0.0.5:8080");
    expect(publicBase(dev, req("evil.example/<x>"))).toBe("http://localhost:8080"); // not a host: ignored
    const configured = testConfig({ port: 8080, publicUrl: "https://ladder.example" });
    expect(publicBase(configured, req("10.0.0.5:8080"))).toBe("https://ladder.example");
    const production = testConfig({ port: 8080, publicUrl: "http://localhost:8080", anonymousDev: false });
    expect(publicBase(production, req("attacker.example"))).toBe("http://localhost:8080");
  });
});

describe("changelog", () => {
  const md = readFileSync(join(REPO_ROOT, "docs", "changelog.md"), "utf8");

  it("has numbered releases with engine, rules and protocol versions and an action note, unreleased apart", () => {
    const c = parseChangelog(md);
    expect(c.unreleased).not.toBeNull();
    expect(c.releases.length).toBeGreaterThan(0);
    expect(c.releases[0]!.version).toBe(RELEASE);
    expect(c.releases[0]).toMatchObject({
      engine: VERSIONS.engine,
      rules: VERSIONS.rules,
      protocol: VERSIONS.protocol,
    });
    for (const r of c.releases) {
      expect(r.engine, r.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(r.rules, r.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(r.protocol, r.version).toMatch(/^\d+\.\d+$/);
      expect(r.action.length, r.version).toBeGreaterThan(10);
    }
    // Unreleased comes first, and before any release
    expect(md.indexOf("## Unreleased")).toBeLessThan(md.indexOf(`## ${RELEASE}`));
  });

  it("is served as Markdown, as HTML with an anchor per release, and as JSON", async () => {
    const m = await get("/docs/changelog");
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/markdown/);
    expect(m.text).toBe(md);
    const page = await get("/changelog");
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);
    for (const r of parseChangelog(md).releases) expect(page.text).toContain(`id="${r.version}"`);
    expect(page.text).toContain('id="unreleased"');
    const api = await get("/api/changelog");
    expect(api.status).toBe(200);
    expect(json(api.text)).toEqual({ versions: { ...VERSIONS, schema: expect.any(Number) }, markdown: md });
  });
});

describe("docs", () => {
  const NAMES = ["agents", "bot-guide", "api", "spec", "simulator", "rules", "frame-data", "ranged-attacks"];

  it("serves every document of SPEC 1.1 as Markdown, also under its file name", async () => {
    for (const name of NAMES) {
      const r = await get(`/docs/${name}`);
      expect(r.status, name).toBe(200);
      expect(r.type, name).toMatch(/^text\/markdown; charset=utf-8/);
      expect(r.text.length, name).toBeGreaterThan(500);
      expect((await get(`/docs/${name}.md`)).text).toBe(r.text);
    }
    expect((await get("/docs/spec")).text).toContain("# Ladder Service Specification");
  });

  it("GET /docs lists every document and schema address", async () => {
    const r = json((await get("/docs")).text) as { docs: string[]; schemas: string[] };
    for (const name of NAMES) expect(r.docs).toContain(`${srv.url}/docs/${name}`);
    expect(r.docs).toContain(`${srv.url}/docs/rules.json`);
    expect(r.schemas).toContain(`${srv.url}/docs/schema/server-observation.json`);
    expect(r.schemas).toContain(`${srv.url}/docs/schema/bot-turn.json`);
  });

  it("serves schemas by full and short name, rules.json, and 404s unknown ones as JSON", async () => {
    const full = await get("/docs/schema/server-observation.json");
    expect(full.status).toBe(200);
    expect((await get("/docs/schema/observation.json")).text).toBe(full.text);
    expect((await get("/docs/schema/observation")).text).toBe(full.text);
    expect(json((await get("/docs/schema/turn.json")).text).title).toBe("bot-turn");
    expect(json((await get("/docs/rules.json")).text).rules_hash).toBe(VERSIONS.rules_hash);
    for (const path of ["/docs/schema/nope.json", "/docs/nope", "/docs/..%2Fpackage.json", "/docs/README"]) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(json(r.text), path).toMatchObject({ error: expect.any(String), code: "not_found" });
    }
  });

  it("renders the guides as pages in the site's layout; an unknown guide is a noindex 404", async () => {
    const index = await get("/guide");
    expect(index.status).toBe(200);
    for (const name of NAMES) expect(index.text).toContain(`href="/guide/${name}"`);
    for (const name of NAMES) {
      const r = await get(`/guide/${name}`);
      expect(r.status, name).toBe(200);
      expect(r.type).toMatch(/^text\/html; charset=utf-8/);
      expect(r.text).toMatch(/^<!doctype html>/);
      expect(r.text).toContain(`<link rel="canonical" href="${srv.url}/guide/${name}">`);
      // The site's one header, navigation and footer, its stylesheets, no inline style (the CSP forbids it).
      expect(r.text).toContain('<header class="site">');
      expect(r.text).toContain('<nav aria-label="Main">');
      expect(r.text).toContain('<footer class="site">');
      expect(r.text).toContain('<main id="main"');
      expect(r.text).not.toContain("<style");
      expect(r.headers.get("content-security-policy")).toContain("style-src 'self'");
    }
    const missing = await get("/guide/nope");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-robots-tag")).toBe("noindex");
    expect(missing.type).toMatch(/^text\/html/);
    expect(missing.text).toContain('<nav aria-label="Main">');
  });

  it("escapes raw HTML in Markdown and points doc links at guide pages", () => {
    const html = markdownToHtml(
      '# T\n\n<script>alert(1)</script>\n\nSee [rules](rules.md#a-tick) and <b onclick="x">b</b>.',
    );
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b ");
    expect(html).toContain("&#60;script&#62;");
    expect(html).toContain('href="/guide/rules#a-tick"');
    expect(siteHref("https://example.com/a.md")).toBe("https://example.com/a.md");
    expect(siteHref("rules.json")).toBe("/docs/rules.json");
  });
});

describe("crawler indexes", () => {
  it("llms.txt, sitemap.xml and robots.txt carry canonical addresses", async () => {
    const llms = await get("/llms.txt");
    expect(llms.status).toBe(200);
    expect(llms.type).toMatch(/^text\/plain/);
    expect(llms.text).toMatch(/^# Arena ladder\n\n> /);
    expect(llms.text).toContain(`(${srv.url}/api)`);
    expect(llms.text).toContain(`(${srv.url}/openapi.json)`);
    const sitemap = await get("/sitemap.xml");
    expect(sitemap.type).toMatch(/^application\/xml/);
    expect(sitemap.text).toContain(`<loc>${srv.url}/guide/bot-guide</loc>`);
    expect(sitemap.text).toContain(`<loc>${srv.url}/changelog</loc>`);
    const robots = await get("/robots.txt");
    expect(robots.text).toContain(`Sitemap: ${srv.url}/sitemap.xml`);
    expect(robots.text).toContain("Disallow: /admin");
  });
});

describe("downloads", () => {
  it("GET /download/bots lists the starters and house bots, each served byte for byte", async () => {
    const idx = json((await get("/download/bots")).text) as {
      about: string;
      guide: string;
      typescript: string;
      python: string;
      files: { path: string; url: string; about: string }[];
    };
    expect(idx.about).toEqual(expect.any(String));
    expect(idx.guide).toBe(`${srv.url}/docs/bot-guide`);
    expect(idx.typescript).toBe(`${srv.url}/download/bots/typescript/bot.ts`);
    expect(idx.python).toBe(`${srv.url}/download/bots/python/starter_bot.py`);
    expect(idx.files.map((f) => f.path)).toEqual(BOT_FILES.map((f) => f.path));
    for (const f of BOT_FILES) {
      const r = await get(`/download/bots/${f.path}`);
      expect(r.status, f.path).toBe(200);
      expect(r.text).toBe(readFileSync(join(REPO_ROOT, f.source), "utf8"));
    }
  });

  it("answers path traversal and unknown paths with 404, never a file outside the downloads", async () => {
    const attempts = [
      "/download/bots/../package.json",
      "/download/bots/..%2Fpackage.json",
      "/download/bots/%2e%2e/%2e%2e/package.json",
      "/download/bots/typescript/..%2F..%2F..%2Fpackage.json",
      "/download/bots/%2Fetc%2Fpasswd",
      "/download/bots//etc/passwd",
      "/download/bots/typescript",
      "/download/bots/house/nope.ts",
      "/download/..%2Fpackage.json",
      "/download/%2e%2e%2fpackage.json",
      "/download/nope.mjs",
    ];
    for (const path of attempts) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(r.text, path).not.toContain('"name": "arena-ladder"');
      expect(r.text).not.toContain("root:");
      expect(json(r.text).error, path).toEqual(expect.any(String));
    }
  });

  it("names the current wheel when another release's wheel is asked for", async () => {
    const r = await get("/download/arena_sim-0.1.0-py3-none-any.whl");
    expect(r.status).toBe(404);
    expect(json(r.text)).toMatchObject({ code: "unknown_release" });
    expect(json(r.text).error).toContain(WHEEL_NAME);
  });
});

describe("errors", () => {
  it("unknown routes and unknown ladders answer {error, code} with 404", async () => {
    const r = await get("/api/nope");
    expect(r.status).toBe(404);
    expect(json(r.text)).toMatchObject({ error: expect.any(String), code: "not_found" });
    const l = await get("/api/status?ladder=nope");
    expect(l.status).toBe(404);
    expect(json(l.text).code).toBe("unknown_ladder");
  });
});
