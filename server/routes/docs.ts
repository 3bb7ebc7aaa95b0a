// Documentation routes of SPEC 1.1: the JSON index (/docs), each Markdown source (/docs/<name>), the generated
// rules and message schemas, the same guides as HTML (/guide, /guide/<name>) and the changelog page.
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { jsonSchemas, rulesDocument } from "../../engine/docs-gen.ts";
import type { AppContext } from "../context.ts";
import { DOCS, docForFile, type LoadedDoc } from "../docs/catalog.ts";
import { escapeHtml, guideIndexBody, markdownToHtml, page } from "../docs/html.ts";
import { errors } from "../errors.ts";
import { publicBase } from "../public-address.ts";

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

export function docsRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  docs: ReadonlyMap<string, LoadedDoc>,
): void {
  const { config } = ctx;
  const rules = rulesDocument();

  /** An HTML 404 that search engines drop (SPEC 1.1). */
  const missingPage = (reply: FastifyReply, what: string) =>
    reply
      .code(404)
      .header("x-robots-tag", "noindex")
      .type("text/html; charset=utf-8")
      .send(
        page({
          title: "Not found",
          canonical: `${config.publicUrl}/guide`,
          noindex: true,
          body: `<h1>Not found</h1>\n<p>${escapeHtml(what)} does not exist. See <a href="/guide">the guides</a>.</p>`,
        }),
      );

  const docNamed = (raw: string): LoadedDoc | undefined => {
    const r = DocParams.safeParse({ name: raw });
    return r.success ? docs.get(r.data.name.replace(/\.md$/, "")) : undefined;
  };

  app.get("/docs", async (req) => docsIndex(publicBase(config, req), docs));
  app.get("/docs/rules.json", async () => rules);
  app.get("/docs/schema/:name", async (req) => {
    const raw = (req.params as { name: string }).name;
    const name = SchemaParams.safeParse({ name: raw }).success ? schemaName(raw) : undefined;
    if (!name) throw errors.notFound(`schema ${JSON.stringify(raw)}`);
    return SCHEMAS[name];
  });
  // The raw Markdown links to decision records by their file (`adr/0001-tick-order.md`), which from
  // /docs/<name> resolves here; the record is the catalogued document of that file.
  app.get("/docs/adr/:file", async (req, reply) => {
    const raw = (req.params as { file: string }).file;
    const entry = /^[a-z0-9-]+\.md$/.test(raw) ? docForFile(`adr/${raw}`) : undefined;
    const doc = entry && docs.get(entry.name);
    if (!doc) throw errors.notFound(`document ${JSON.stringify(`adr/${raw}`)}`);
    return reply.type("text/markdown; charset=utf-8").send(doc.markdown);
  });
  app.get("/docs/:name", async (req, reply) => {
    const raw = (req.params as { name: string }).name;
    const doc = docNamed(raw);
    if (!doc) throw errors.notFound(`document ${JSON.stringify(raw)}`);
    return reply.type("text/markdown; charset=utf-8").send(doc.markdown);
  });

  app.get("/guide", async (req, reply) =>
    reply.type("text/html; charset=utf-8").send(
      page({
        title: "Guides",
        canonical: `${publicBase(config, req)}/guide`,
        description: "Guides for bot authors and their agents",
        body: guideIndexBody(new Set(docs.keys())),
      }),
    ),
  );
  app.get("/guide/:name", async (req, reply) => {
    const raw = (req.params as { name: string }).name;
    const doc = docNamed(raw);
    if (!doc) return missingPage(reply, `The guide ${JSON.stringify(raw)}`);
    return reply.type("text/html; charset=utf-8").send(
      page({
        title: doc.title,
        canonical: `${publicBase(config, req)}/guide/${doc.name}`,
        description: doc.about,
        body: markdownToHtml(doc.markdown),
      }),
    );
  });

  // Every release heading is an anchor: /changelog#0.44.0.
  app.get("/changelog", async (req, reply) => {
    const doc = docs.get("changelog");
    if (!doc) return missingPage(reply, "The changelog");
    return reply.type("text/html; charset=utf-8").send(
      page({
        title: "Changelog",
        canonical: `${publicBase(config, req)}/changelog`,
        description: doc.about,
        body: markdownToHtml(doc.markdown),
      }),
    );
  });
}
