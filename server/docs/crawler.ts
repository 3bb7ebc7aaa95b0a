// Indexes for crawlers and agents: /llms.txt (a Markdown map of the docs and machine-readable entry points,
// per llmstxt.org), /sitemap.xml and /robots.txt. All carry canonical addresses (the configured public
// address). The sitemap lists web pages only when their route is registered, so it never names a page this
// build does not serve.
import type { FastifyInstance } from "fastify";
import { SIMULATOR_PACKAGE, VERSIONS } from "../../engine/versions.ts";
import type { Kernel } from "../kernel/feature.ts";
import { publicBase } from "../public-address.ts";
import { DOCS, type LoadedDoc } from "./catalog.ts";
import { escapeHtml } from "./html.ts";

/** Web pages of SPEC 1.1 a crawler may index, when this server has them. */
const PAGES = ["/", "/ladder", "/create-bot", "/play"];

export function llmsTxt(
  base: string,
  docs: ReadonlyMap<string, LoadedDoc>,
  ladders: readonly string[] = [],
): string {
  const wheel = `${SIMULATOR_PACKAGE}-${VERSIONS.release}-py3-none-any.whl`;
  const lines = [
    "# Arena ladder",
    "",
    `> A competitive ladder for bots: programs fight one-on-one, tick-based matches on a 21x21 arena over a JSON WebSocket, and are rated per version. Release ${VERSIONS.release}, protocol ${VERSIONS.protocol}, rules ${VERSIONS.rules}.`,
    "",
    `Start at ${base}/api: it returns the bot WebSocket address, how to get an account and register a bot, the live limits, and every address below. Combat is JSON over the WebSocket, not HTTP; every HTTP API response is JSON.`,
    "",
    "## Docs",
    "",
    ...DOCS.filter((d) => docs.has(d.name)).map((d) => `- [${d.title}](${base}/docs/${d.name}): ${d.about}`),
    "",
    "## Machine-readable",
    "",
    `- [API index](${base}/api): discovery document, the place to start`,
    `- [OpenAPI 3.1](${base}/openapi.json): public data, bot registration and bot-token routes`,
    `- [Docs index](${base}/docs): every document and JSON Schema address`,
    `- [Rules](${base}/docs/rules.json): the rules table with its hash`,
    `- [Observation schema](${base}/docs/schema/server-observation.json): what the bot receives each tick`,
    `- [Turn schema](${base}/docs/schema/bot-turn.json): what the bot sends each tick`,
    `- [Changelog](${base}/api/changelog): running versions and release notes as JSON`,
    `- Tool endpoint (MCP): POST ${base}/mcp, Streamable HTTP tools for AI agents (an agent key or OAuth; see the agents guide), OAuth discovery at [protected-resource metadata](${base}/.well-known/oauth-protected-resource/mcp)`,
    "",
    "## Downloads",
    "",
    `- [Starter bots](${base}/download/bots): TypeScript and Python starters and house-bot source`,
    `- [Simulator (ESM)](${base}/download/arena-sim.mjs): run matches offline with Node 22+`,
    `- [Simulator (CommonJS)](${base}/download/arena-sim.js): the same, as CommonJS`,
    `- [Simulator (Python wheel)](${base}/download/${wheel}): pip-installable wrapper around the same engine`,
    "",
    "## Open data",
    "",
    `- [Dumps index](${base}/data): each ladder's rated results as daily gzip JSON Lines files; format and refit script in [Replays and data](${base}/docs/replays-and-data)`,
    ...ladders.map((id) => `- [Ladder ${id}](${base}/data/${id}): its daily files, oldest first`),
    "",
  ];
  return lines.join("\n");
}

export function crawlerRoutes(
  app: FastifyInstance,
  ctx: Pick<Kernel, "config"> & { ladders?: { listed(): readonly { id: string }[] } },
  docs: ReadonlyMap<string, LoadedDoc>,
): void {
  const { config } = ctx;
  // The visible ladders' open data indexes (server/opendata), when this server serves them.
  const dataIndexes = () =>
    app.hasRoute({ method: "GET", url: "/data/:ladder" })
      ? (ctx.ladders?.listed() ?? []).map((l) => l.id)
      : [];

  app.get("/llms.txt", async (req, reply) =>
    reply.type("text/plain; charset=utf-8").send(llmsTxt(publicBase(config, req), docs, dataIndexes())),
  );

  app.get("/sitemap.xml", async (req, reply) => {
    const base = publicBase(config, req);
    const paths = [
      ...PAGES.filter((url) => app.hasRoute({ method: "GET", url })),
      "/guide",
      ...DOCS.filter((d) => docs.has(d.name)).map((d) => `/guide/${d.name}`),
      ...(docs.has("changelog") ? ["/changelog"] : []),
      ...dataIndexes().map((id) => `/data/${id}`),
    ];
    const urls = paths.map((p) => `  <url><loc>${escapeHtml(`${base}${p}`)}</loc></url>`).join("\n");
    return reply
      .type("application/xml; charset=utf-8")
      .send(
        `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`,
      );
  });

  // Private and per-user areas stay out of indexes; everything public is crawlable.
  app.get("/robots.txt", async (req, reply) =>
    reply
      .type("text/plain; charset=utf-8")
      .send(
        [
          "User-agent: *",
          "Disallow: /account",
          "Disallow: /admin",
          "Disallow: /api/me",
          "Disallow: /api/account",
          "Disallow: /human",
          "Allow: /",
          "",
          `Sitemap: ${publicBase(config, req)}/sitemap.xml`,
          "",
        ].join("\n"),
      ),
  );
}
