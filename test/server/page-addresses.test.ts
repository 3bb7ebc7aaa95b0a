// Every address a page prints comes from the one configured public address (issue 19): /create-bot's bot
// endpoint, the HTML guides' `{base_url}` / `{bot_endpoint}` and example addresses, and /llms.txt. Checked
// twice: a development server on a random port (the address is the one the request came in on, as GET /api
// reports it) and a server with --public-url set (the configured address, whatever Host the request named).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

/** The guides that print addresses, and the other pages. */
const PAGES = [
  "/create-bot",
  "/guide",
  "/guide/agents",
  "/guide/bot-guide",
  "/guide/api",
  "/guide/simulator",
  "/guide/accounts",
  "/guide/spec",
  "/llms.txt",
];

/** Addresses that are not this ladder's and are meant as they are (a source repository, a proxy's upstream). */
const FOREIGN = [/^https:\/\/github\.com\//, /^http:\/\/127\.0\.0\.1:8080$/];

function addresses(text: string): string[] {
  return [...text.matchAll(/\b(?:https?|wss?):\/\/[^\s"'<>)`\]]+/g)].map((m) =>
    m[0].replace(/&#38;/g, "&").replace(/[.,;:]+$/, ""),
  );
}

async function checkPages(srv: TestServer, base: string) {
  const api = (await (await fetch(`${srv.url}/api`)).json()) as { bot_endpoint: string };
  const ws = base.replace(/^http/, "ws");
  expect(api.bot_endpoint).toBe(`${ws}/bot`);
  let seen = 0;
  for (const path of PAGES) {
    const res = await fetch(`${srv.url}${path}`, { headers: { host: new URL(srv.url).host } });
    expect(res.status, path).toBe(200);
    const text = await res.text();
    expect(text, `${path} shows a placeholder`).not.toMatch(/\{base_url\}|\{bot_endpoint\}/);
    expect(text, `${path} shows an example address`).not.toMatch(/ladder\.example(?![\w.-])/);
    for (const a of addresses(text)) {
      if (FOREIGN.some((f) => f.test(a))) continue;
      seen++;
      expect(a.startsWith(base) || a.startsWith(ws), `${path} prints ${a}, not on ${base}`).toBe(true);
    }
  }
  expect(seen).toBeGreaterThan(30);
  // /create-bot prints exactly the bot endpoint GET /api reports.
  const createBot = await (await fetch(`${srv.url}/create-bot`)).text();
  expect(createBot).toContain(`<code>${api.bot_endpoint}</code>`);
  // The HTML guides and the Markdown at /docs/<name> both name this ladder where the source says {base_url}.
  expect(await (await fetch(`${srv.url}/guide/bot-guide`)).text()).toContain(`${base}/api`);
  const markdown = await (await fetch(`${srv.url}/docs/bot-guide`)).text();
  expect(markdown).not.toMatch(/\{base_url\}|\{bot_endpoint\}/);
  expect(markdown).toContain(`GET ${base}/api`);
}

describe("addresses printed on pages, server on a random port", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("use the address the request came in on (no localhost:80, no fixed port)", async () => {
    expect(new URL(srv.url).port).not.toBe("80");
    await checkPages(srv, srv.url);
    const page = await (await fetch(`${srv.url}/create-bot`)).text();
    expect(page).not.toMatch(/:\/\/localhost\b/);
  });
});

describe("one chrome everywhere", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const chrome = (text: string) => {
    expect(text).toContain('<header class="site">');
    expect(text.match(/<nav aria-label="Main">/g)?.length).toBe(1);
    expect(text).toContain('<footer class="site">');
    expect(text.slice(text.lastIndexOf("<footer"))).toContain('<a href="/guide">Docs</a>');
  };

  it("guides, the changelog and error pages share the site's header, navigation and footer", async () => {
    for (const path of ["/", "/ladder", "/create-bot", "/guide", "/guide/rules", "/changelog"]) {
      const res = await fetch(`${srv.url}${path}`, { headers: { accept: "text/html" } });
      expect(res.status, path).toBe(200);
      chrome(await res.text());
    }
    for (const path of ["/no-such-page", "/guide/nope", "/bot/nobody", "/match/nothing"]) {
      const res = await fetch(`${srv.url}${path}`, { headers: { accept: "text/html,*/*;q=0.8" } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get("x-robots-tag"), path).toBe("noindex");
      expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
      chrome(await res.text());
    }
    // API clients keep the JSON error shape, even when they accept HTML.
    const api = await fetch(`${srv.url}/api/no-such-route`, { headers: { accept: "text/html" } });
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ code: "not_found" });
    const plain = await fetch(`${srv.url}/no-such-page`);
    expect(await plain.json()).toMatchObject({ code: "not_found" });
  });
});

describe("addresses printed on pages, public address configured", () => {
  const PUBLIC = "https://arena.example.net";
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ publicUrl: PUBLIC });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("use the configured public address, not the address the server listens on", async () => {
    await checkPages(srv, PUBLIC);
    for (const path of PAGES) {
      const text = await (await fetch(`${srv.url}${path}`)).text();
      expect(text, path).not.toMatch(/:\/\/(?:localhost|127\.0\.0\.1)\b/);
    }
    const guide = await (await fetch(`${srv.url}/guide/bot-guide`)).text();
    expect(guide).toContain(`<link rel="canonical" href="${PUBLIC}/guide/bot-guide">`);
    expect(guide).toContain("wss://arena.example.net/bot");
  });
});
