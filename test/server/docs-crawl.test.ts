// A crawler over the discovery documents: every address in GET /api, /llms.txt, /sitemap.xml and GET /docs
// resolves on the live server, and so does every link inside the HTML guides. Addresses of routes taking
// another method (registration, handle, claim) must be routes the server has; the bot endpoint must be a
// WebSocket that answers a connection without a token with `missing_authorization`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCS_DIR } from "../../server/docs/catalog.ts";
import { FRAME_TABLE_BEGIN, FRAME_TABLE_END, frameDataTable } from "../../server/docs/frame-data.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Json = Record<string, unknown>;
let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ houseBots: false });
});
afterAll(async () => {
  await srv?.stop();
});

/** Every string value under `node` (keys joined with dots), for walking GET /api. */
function strings(node: unknown, at = ""): [string, string][] {
  if (typeof node === "string") return [[at, node]];
  if (Array.isArray(node)) return node.flatMap((v, i) => strings(v, `${at}.${i}`));
  if (node && typeof node === "object")
    return Object.entries(node).flatMap(([k, v]) => strings(v, at ? `${at}.${k}` : k));
  return [];
}

/** Addresses of routes that are not GET resources: they must exist with their own method. */
const NOT_GET: Record<string, "POST" | "PUT"> = {
  "onboarding.registration_endpoint": "POST",
  "onboarding.handle_endpoint": "PUT",
  "onboarding.claim_endpoint": "POST",
  "onboarding.signup_endpoint": "POST",
  "onboarding.token_endpoint": "POST",
  // The tool endpoint takes JSON-RPC by POST only (GET is 405).
  mcp: "POST",
};

/** Pages another part of the project serves; until their route is registered they are reported, not failed. */
const PENDING_PAGES = new Set(["/account"]);

const checked = new Map<string, number>();
async function resolves(url: string): Promise<number> {
  const known = checked.get(url);
  if (known !== undefined) return known;
  const res = await fetch(url, { redirect: "manual" });
  await res.arrayBuffer();
  checked.set(url, res.status);
  return res.status;
}

describe("crawl", () => {
  it("every address in GET /api resolves", async () => {
    const api = (await (await fetch(`${srv.url}/api`)).json()) as Json;
    const addresses = strings(api).filter(([, v]) => /^(https?|wss?):\/\//.test(v));
    expect(addresses.length).toBeGreaterThan(15);
    const pending: string[] = [];
    for (const [key, url] of addresses) {
      expect(url.startsWith(srv.url) || url.startsWith(srv.wsUrl.replace(/\/bot$/, "")), key).toBe(true);
      if (key === "bot_endpoint") {
        const bot = new BotClient(url, null);
        const err = await bot.next("error");
        expect(err.code).toBe("missing_authorization");
        await bot.closed();
        continue;
      }
      if (key === "accounts.identity_url") continue; // an API base address, not a document
      const method = NOT_GET[key];
      if (method) {
        const path = new URL(url).pathname;
        // An external identity provider's routes are not this server's to check.
        if (key.endsWith("signup_endpoint") || key.endsWith("token_endpoint")) {
          const identity = (api.accounts as { identity_url: string }).identity_url;
          expect(url.startsWith(identity), key).toBe(true);
          if (!identity.startsWith(srv.url)) continue;
        }
        expect(srv.app.http.hasRoute({ method, url: path }), `${key}: ${method} ${path}`).toBe(true);
        continue;
      }
      const path = new URL(url).pathname;
      if (PENDING_PAGES.has(path) && !srv.app.http.hasRoute({ method: "GET", url: path })) {
        pending.push(`${key}: ${path}`);
        continue;
      }
      expect(await resolves(url), `${key}: ${url}`).toBe(200);
    }
    if (pending.length) console.warn(`addresses of pages not served yet: ${pending.join(", ")}`);
  });

  it("every address in /llms.txt, /sitemap.xml and GET /docs resolves", async () => {
    const llms = await (await fetch(`${srv.url}/llms.txt`)).text();
    const fromLlms = [...llms.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((m) => m[1]!);
    const sitemap = await (await fetch(`${srv.url}/sitemap.xml`)).text();
    const fromSitemap = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) =>
      m[1]!.replace(/&#38;/g, "&"),
    );
    const docs = (await (await fetch(`${srv.url}/docs`)).json()) as { docs: string[]; schemas: string[] };
    expect(fromLlms.length).toBeGreaterThan(15);
    expect(fromSitemap.length).toBeGreaterThan(10);
    for (const url of [...fromLlms, ...fromSitemap, ...docs.docs, ...docs.schemas]) {
      expect(url.startsWith(srv.url), url).toBe(true);
      expect(await resolves(url), url).toBe(200);
    }
  });

  it("every link inside the HTML guides and the changelog page resolves", async () => {
    const index = await (await fetch(`${srv.url}/guide`)).text();
    const pages = [
      "/guide",
      "/changelog",
      ...[...index.matchAll(/href="(\/guide\/[^"#]+)"/g)].map((m) => m[1]!),
    ];
    const links = new Set<string>();
    for (const page of new Set(pages)) {
      const html = await (await fetch(`${srv.url}${page}`)).text();
      for (const m of html.matchAll(/href="([^"]+)"/g)) {
        const href = m[1]!.replace(/&#38;/g, "&");
        if (/^(https?:|mailto:|#)/.test(href)) continue; // external, or an anchor on the same page
        expect(href.startsWith("/"), `${page} links to ${href}`).toBe(true);
        links.add(href.split("#")[0]!);
      }
    }
    expect(links.size).toBeGreaterThan(10);
    for (const href of links) expect(await resolves(`${srv.url}${href}`), href).toBe(200);
  });
});

describe("links for people and for raw readers", () => {
  it("every relative link inside the raw Markdown documents resolves from where it is served", async () => {
    const docs = (await (await fetch(`${srv.url}/docs`)).json()) as { docs: string[] };
    const broken: string[] = [];
    let seen = 0;
    for (const doc of docs.docs.filter((d) => !d.endsWith(".json"))) {
      const markdown = await (await fetch(doc)).text();
      for (const m of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^(https?:|mailto:|#|\/)/.test(target)) continue; // absolute, or an anchor on the same page
        seen++;
        const url = new URL(target, doc).toString().split("#")[0]!;
        if ((await resolves(url)) !== 200) broken.push(`${doc} -> ${target}`);
      }
    }
    expect(seen).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it("the pages' footer and /create-bot link to the HTML guides, not to JSON or raw Markdown", async () => {
    const page = await (await fetch(`${srv.url}/create-bot`)).text();
    const footer = page.slice(page.lastIndexOf("<footer"));
    const docLinks = [...page.matchAll(/href="(\/(?:docs|guide)[^"]*)"/g)].map((m) => m[1]!);
    expect(docLinks.length).toBeGreaterThan(4);
    // The one machine-readable link is labelled so ("as JSON").
    const wanted = docLinks.filter((href) => href !== "/docs/rules.json");
    expect(wanted).toEqual(wanted.filter((href) => href.startsWith("/guide")));
    expect(footer).toContain('href="/guide"');
    for (const href of wanted) {
      const res = await fetch(`${srv.url}${href}`);
      await res.arrayBuffer();
      expect(`${href} ${res.status} ${res.headers.get("content-type")}`).toMatch(/ 200 text\/html/);
    }
  });
});

describe("generated docs", () => {
  it("the frame-data table matches the rules table (npx tsx server/docs/frame-data.ts regenerates it)", () => {
    const md = readFileSync(join(DOCS_DIR, "frame-data.md"), "utf8");
    const table = md.slice(
      md.indexOf(FRAME_TABLE_BEGIN) + FRAME_TABLE_BEGIN.length,
      md.indexOf(FRAME_TABLE_END),
    );
    expect(table.trim()).toBe(frameDataTable());
  });
});
