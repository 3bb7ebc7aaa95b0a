// Public discovery: GET /api (the index a bot author or agent starts from), GET /api/status and GET
// /api/changelog as operation definitions; /openapi.json, and the docs, crawler-index and download routes,
// which share the published document catalog.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { MAP_NAMES } from "../../engine/rules.ts";
import { SIMULATOR_PACKAGE, VERSIONS } from "../../engine/versions.ts";
import { type AccountsInfo, accountsInfo } from "../accounts/discovery-info.ts";
import * as R from "../api/responses.ts";
import { publishedDocs } from "../docs/catalog.ts";
import { crawlerRoutes } from "../docs/crawler.ts";
import { downloadRoutes } from "../docs/downloads.ts";
import { docsRoutes } from "../docs/routes.ts";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { type AnyOperation, operationFor } from "../kernel/operation.ts";
import { BAD_QUERY, LADDER_404, LadderQuery } from "../ladders/data-routes.ts";
import { operationalPolicy } from "../ladders/policy.ts";
import { documentedOperations, openApiDocument } from "../openapi.ts";
import { publicBase, wsBase } from "../public-address.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type DiscoveryServices = Pick<Services, "identity" | "ladders" | "mcp" | "reads" | "store"> &
  Pick<Kernel, "config" | "operations" | "settings">;
const defineOperation = operationFor<DiscoveryServices>();

/** Routes GET /api lists besides the documented JSON operations: sockets, pages and files. */
const OTHER_ENDPOINTS = [
  "GET /api/account",
  "PUT /api/account/handle",
  "POST /api/account/keys",
  "POST /api/account/claim",
  "GET /openapi.json",
  "GET /docs/rules.json",
  "GET /guide",
  "GET /guide/<name>",
  "GET /changelog",
  "GET /llms.txt",
  "GET /sitemap.xml",
  "GET /robots.txt",
  "GET /download/bots/<path>",
  "GET /download/arena-sim.mjs",
  "GET /download/arena-sim.js",
  `GET /download/${SIMULATOR_PACKAGE}-${VERSIONS.release}-py3-none-any.whl`,
  "WS /bot",
  "POST /mcp",
  "GET /.well-known/oauth-protected-resource/mcp",
  "GET /.well-known/oauth-authorization-server",
  "POST /oauth/register",
  "GET /oauth/authorize",
  "POST /oauth/token",
];

let endpoints: string[] | null = null;
/** `METHOD /path?query=` for each documented operation, in the document's order; then the others. */
function endpointList(all: readonly AnyOperation<unknown>[]): string[] {
  if (endpoints) return endpoints;
  const ops = documentedOperations(all).map((op) => {
    const path = op.path.replace(/\{(\w+)\}/g, "<$1>");
    const query = op.query ? Object.keys(op.query.shape) : [];
    return `${op.method.toUpperCase()} ${path}${query.length ? `?${query.map((q) => `${q}=`).join("&")}` : ""}`;
  });
  // Once each, should an entry here become a documented operation too.
  endpoints = [...new Set([...ops, ...OTHER_ENDPOINTS])];
  return endpoints;
}

/** The built-in identity provider's address is made from the configured public address; on a development
 * ladder answering on another address (publicBase), point it at that address too, so it resolves. */
function onBase(info: AccountsInfo | null, base: string, configured: string): AccountsInfo | null {
  if (!info || base === configured || !info.identity_url.startsWith(configured)) return info;
  return { ...info, identity_url: base + info.identity_url.slice(configured.length) };
}

/** The index for `base`; its operational policy is the one of the ladder named (omitted: the default one),
 * since a ladder may override its limits live and a bot must read the limits of the ladder it queues on. */
function apiIndex(ctx: DiscoveryServices, base: string, ladder: string | undefined) {
  const { config } = ctx;
  const ladderId = ctx.ladders.require(ladder).id;
  const accounts = onBase(accountsInfo(ctx), base, config.publicUrl);
  return {
    bot_endpoint: `${wsBase(base)}/bot`,
    accounts,
    authentication_required: !config.anonymousDev,
    mcp: ctx.mcp?.enabled() ? `${base}/mcp` : null,
    openapi: `${base}/openapi.json`,
    llms_txt: `${base}/llms.txt`,
    docs: `${base}/docs`,
    bot_code: `${base}/download/bots`,
    versions: versions(ctx),
    onboarding: {
      account_url: `${base}/account`,
      signup_url: `${base}/account`,
      guide_url: `${base}/guide/bot-guide`,
      // The identity provider's sign-up and password sign-in (SPEC 5 rule 5); null without accounts.
      signup_endpoint: accounts ? `${accounts.identity_url}/signup` : null,
      token_endpoint: accounts ? `${accounts.identity_url}/token?grant_type=password` : null,
      handle_endpoint: `${base}/api/account/handle`,
      registration_endpoint: `${base}/api/bots`,
      claim_endpoint: `${base}/api/account/claim`,
    },
    operational_policy: operationalPolicy(config, ctx.settings.limits(ladderId), ladderId),
    changelog: {
      page: `${base}/changelog`,
      markdown: `${base}/docs/changelog`,
      json: `${base}/api/changelog`,
    },
    simulator: {
      javascript: `${base}/download/arena-sim.mjs`,
      script: `${base}/download/arena-sim.js`,
      python: `${base}/download/${SIMULATOR_PACKAGE}-${VERSIONS.release}-py3-none-any.whl`,
      docs: `${base}/docs/simulator`,
    },
    // The daily dumps of rated results (issue 35, server/opendata): the list, this ladder's index, the format.
    open_data: {
      index: `${base}/data`,
      ladder: `${base}/data/${ladderId}`,
      format: `${base}/docs/replays-and-data`,
    },
    maps: MAP_NAMES,
    endpoints: endpointList(ctx.operations),
  };
}

const versions = (ctx: DiscoveryServices) => ({ ...VERSIONS, schema: ctx.store.schema });

export const DISCOVERY_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api",
    operationId: "getApiIndex",
    summary:
      "Discovery index: the bot endpoint, onboarding, live limits of a ladder, versions and every other address",
    auth: "none",
    query: LadderQuery,
    errors: { ...BAD_QUERY, ...LADDER_404 },
    doc: { tag: "discovery", ok: R.ApiIndex },
    handle: async ({ req, query }, ctx) => apiIndex(ctx, publicBase(ctx.config, req), query.ladder),
  }),
  defineOperation({
    method: "GET",
    path: "/api/status",
    operationId: "getStatus",
    summary: "Online bots, running matches, capacity and drain state",
    auth: "none",
    query: LadderQuery,
    errors: { ...BAD_QUERY, ...LADDER_404 },
    doc: { tag: "discovery", ok: R.Status },
    handle: async ({ query }, ctx) => ctx.reads.status(query.ladder),
  }),
  defineOperation({
    method: "GET",
    path: "/api/changelog",
    operationId: "getChangelog",
    summary: "Running versions and the Markdown changelog",
    auth: "none",
    errors: { 404: "this server has no changelog" },
    doc: { tag: "discovery", ok: R.Changelog },
    handle: async (_, ctx) => {
      const changelog = publishedDocs().get("changelog");
      if (!changelog) throw errors.notFound("changelog");
      return { versions: versions(ctx), markdown: changelog.markdown };
    },
  }),
];

/** The plain routes of discovery: the OpenAPI document itself, and the documents' pages and files. */
export function discoveryRoutes(app: FastifyInstance, ctx: DiscoveryServices): void {
  const { config } = ctx;
  const docs = publishedDocs();
  // Built once per base address (one in production), not per request.
  const contracts = new Map<string, unknown>();
  app.get("/openapi.json", async (req: FastifyRequest) => {
    const base = publicBase(config, req);
    if (!contracts.has(base)) contracts.set(base, openApiDocument(ctx.operations, base));
    return contracts.get(base);
  });

  docsRoutes(app, ctx, docs);
  crawlerRoutes(app, ctx, docs);
  downloadRoutes(app);
}
