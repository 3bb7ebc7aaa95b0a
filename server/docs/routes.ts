// Documentation routes of SPEC 1.1: the JSON index (/docs), each Markdown source (/docs/<name>), the generated
// rules and message schemas, the same guides as HTML (/guide, /guide/<name>) and the changelog page.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { jsonSchemas, rulesDocument } from "../../engine/docs-gen.ts";
import * as R from "../api/responses.ts";
import { errors } from "../errors.ts";
import type { Kernel } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";
import { publicBase } from "../public-address.ts";
import { webAssets } from "../web/assets.ts";
import { trusted } from "../web/html.ts";
import { sendErrorPage, sendPage, shellAssets } from "../web/layout.ts";
import { DOCS, DOCS_DIR, docForFile, type LoadedDoc, publishedDocs } from "./catalog.ts";
import { guideArticle, guideIndexBody, localizeAddresses, markdownToHtml } from "./html.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type DocsServices = Pick<Kernel, "config">;
const defineOperation = operationFor<DocsServices>();

/** `/docs/<name>` and `/guide/<name>`: a catalogued name, optionally with `.md`. */
export const DocParams = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9-]+(?:\.md)?$/, "a document name such as bot-guide")
    .describe("document name, e.g. bot-guide"),
});
/** `/docs/schema/<name>.json`: a published schema, by full name (`server-observation`) or short name. */
export const SchemaParams = z.object({
  name: z.string().regex(/^[a-z0-9-]+(?:\.json)?$/, "a schema name such as observation.json"),
});

export const SCHEMAS = jsonSchemas();
export const SCHEMA_NAMES = Object.keys(SCHEMAS);

/** The full schema name a short one such as `observation` or `turn` stands for. */
export function schemaName(requested: string): string | undefined {
  const name = requested.replace(/\.json$/, "");
  return [name, `server-${name}`, `bot-${name}`].find((n) => n in SCHEMAS);
}

export function docsIndex(base: string, docs: ReadonlyMap<string, LoadedDoc>) {
  return {
    docs: [
      ...DOCS.filter((d) => docs.has(d.name)).map((d) => `${base}/docs/${d.name}`),
      `${base}/docs/rules.json`,
    ],
    schemas: SCHEMA_NAMES.map((n) => `${base}/docs/schema/${n}.json`),
  };
}

const rawName = (params: unknown) => String((params as { name?: unknown }).name);

/** The JSON and Markdown document routes, as documented operations. */
export const DOCS_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/docs",
    operationId: "getDocsIndex",
    summary: "Addresses of every document and published JSON Schema",
    auth: "none",
    doc: { tag: "discovery", ok: R.DocsIndex },
    handle: async ({ req }, ctx) => docsIndex(publicBase(ctx.config, req), publishedDocs()),
  }),
  defineOperation({
    method: "GET",
    path: "/docs/:name",
    operationId: "getDoc",
    summary: "A document's Markdown source (agents, bot-guide, api, spec, simulator, rules, ...)",
    auth: "none",
    params: DocParams,
    invalidParams: (p) => errors.notFound(`document ${JSON.stringify(rawName(p))}`),
    errors: { 404: "no document of that name (`not_found`)" },
    doc: { tag: "discovery", ok: { media: "text/markdown", description: "the Markdown document" } },
    tools: [
      {
        name: "get_agent_guide",
        description:
          "The guide for AI agents (Markdown): how to discover the ladder, register a bot, build it from a starter, test it offline and play.",
        permission: "register",
        fixed: { params: { name: "agents" } },
      },
    ],
    handle: async ({ params, reply, req }, ctx) => {
      const name = params.name.replace(/\.md$/, "");
      const doc = publishedDocs().get(name);
      if (!doc) throw errors.notFound(`document ${JSON.stringify(params.name)}`);
      // Returned, not sent: the tool endpoint calls this handler too and answers with the text itself.
      reply.type("text/markdown; charset=utf-8");
      // The placeholders read as this server's own addresses, as on the HTML guides, so commands copy as they are;
      // the changelog is a record and quotes the placeholders as words, so it is served as written.
      if (name === "changelog") return doc.markdown;
      const base = publicBase(ctx.config, req);
      return doc.markdown
        .replace(/\{base_url\}/g, base)
        .replace(/\{bot_endpoint\}/g, `${base.replace(/^http/, "ws")}/bot`);
    },
  }),
  defineOperation({
    method: "GET",
    path: "/docs/schema/:name",
    operationId: "getMessageSchema",
    summary: "JSON Schema of a bot protocol message; short names such as observation.json work",
    auth: "none",
    params: SchemaParams,
    invalidParams: (p) => errors.notFound(`schema ${JSON.stringify(rawName(p))}`),
    errors: { 404: "no schema of that name (`not_found`)" },
    doc: {
      tag: "discovery",
      ok: { media: "application/json", description: "a JSON Schema (2020-12) document" },
    },
    handle: async ({ params }) => {
      const name = schemaName(params.name);
      if (!name) throw errors.notFound(`schema ${JSON.stringify(params.name)}`);
      return SCHEMAS[name];
    },
  }),
];

/** The documents' pages (/guide, /changelog) and files that are not API operations. */
export function docsRoutes(
  app: FastifyInstance,
  ctx: DocsServices,
  docs: ReadonlyMap<string, LoadedDoc>,
): void {
  const { config } = ctx;
  const rules = rulesDocument();

  const assets = webAssets();
  const shell = { ...shellAssets(), styles: [assets.url("guide.css")], ladder: null };

  /** A guide page in the site's layout, every address on it from the configured public address. */
  const guidePage = (
    reply: FastifyReply,
    req: FastifyRequest,
    o: { path: string; title: string; description: string; page: string; body: string },
  ) => {
    const base = publicBase(config, req);
    return sendPage(reply, {
      ...shell,
      title: o.title,
      description: o.description,
      page: o.page,
      canonical: `${base}${o.path}`,
      body: trusted(guideArticle(localizeAddresses(o.body, base), o.path)),
    });
  };

  /** An HTML 404 that search engines drop (SPEC 1.1), inside the site's layout. */
  const missingPage = (reply: FastifyReply, what: string) =>
    sendErrorPage(reply, 404, "Not found", `${what} does not exist. The guides list every document.`);

  const docNamed = (raw: string): LoadedDoc | undefined => {
    const r = DocParams.safeParse({ name: raw });
    return r.success ? docs.get(r.data.name.replace(/\.md$/, "")) : undefined;
  };

  app.get("/docs/rules.json", async () => rules);
  // The raw Markdown links to decision records by their file (`adr/0001-tick-order.md`), which from
  // /docs/<name> resolves here; the record is the catalogued document of that file.
  app.get("/docs/adr/:file", async (req, reply) => {
    const raw = (req.params as { file: string }).file;
    const entry = /^[a-z0-9-]+\.md$/.test(raw) ? docForFile(`adr/${raw}`) : undefined;
    const doc = entry && docs.get(entry.name);
    if (!doc) throw errors.notFound(`document ${JSON.stringify(`adr/${raw}`)}`);
    return reply.type("text/markdown; charset=utf-8").send(doc.markdown);
  });

  // Pictures the guides show (docs/images, e.g. the diagnostics panel in insights.md): the Markdown names them
  // `images/<file>`, which resolves under /docs for the raw document and under /guide for its page.
  for (const base of ["/docs", "/guide"]) {
    app.get(`${base}/images/:file`, async (req, reply) => {
      const raw = (req.params as { file: string }).file;
      const bytes = /^[a-z0-9-]+\.png$/.test(raw)
        ? await readFile(join(DOCS_DIR, "images", raw)).catch(() => null)
        : null;
      if (!bytes) throw errors.notFound(`image ${JSON.stringify(raw)}`);
      return reply.type("image/png").header("cache-control", "public, max-age=3600").send(bytes);
    });
  }

  app.get("/guide", async (req, reply) =>
    guidePage(reply, req, {
      path: "/guide",
      title: "Guides",
      description: "Guides for bot authors and their agents",
      page: "guide",
      body: guideIndexBody(new Set(docs.keys())),
    }),
  );
  app.get("/guide/:name", async (req, reply) => {
    const raw = (req.params as { name: string }).name;
    const doc = docNamed(raw);
    if (!doc) return missingPage(reply, `The guide ${JSON.stringify(raw)}`);
    return guidePage(reply, req, {
      path: `/guide/${doc.name}`,
      title: doc.title,
      description: doc.about,
      page: "guide",
      body: markdownToHtml(doc.markdown),
    });
  });

  // Every release heading is an anchor: /changelog#0.45.0.
  app.get("/changelog", async (req, reply) => {
    const doc = docs.get("changelog");
    if (!doc) return missingPage(reply, "The changelog");
    return guidePage(reply, req, {
      path: "/changelog",
      title: "Changelog",
      description: doc.about,
      page: "changelog",
      body: markdownToHtml(doc.markdown),
    });
  });
}
