// Public discovery: GET /api (the index a bot author or agent starts from), GET /api/status, GET
// /api/changelog and /openapi.json; it also mounts the docs, crawler-index and download routes, which
// share the document catalog loaded here once.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { MAP_NAMES } from "../../engine/rules.ts";
import { SIMULATOR_PACKAGE, VERSIONS } from "../../engine/versions.ts";
import { type AccountsInfo, accountsInfo } from "../auth/discovery-info.ts";
import type { AppContext } from "../context.ts";
import { loadDocs } from "../docs/catalog.ts";
import { errors } from "../errors.ts";
import { operationalPolicy } from "../ladder/policy.ts";
import { LadderQuery } from "../ladders/data-routes.ts";
import { OPERATIONS, openApiDocument } from "../openapi.ts";
import { publicBase, wsBase } from "../public-address.ts";
import { crawlerRoutes } from "./crawler.ts";
import { docsRoutes } from "./docs.ts";
import { downloadRoutes } from "./downloads.ts";
import { parseQuery } from "./matches.ts";

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
];

/** `METHOD /path?query=` for each documented operation, in the document's order. */
function endpointList(): string[] {
  const ops = OPERATIONS.map((op) => {
    const path = op.path.replace(/\{(\w+)\}/g, "<$1>");
    const query = op.query ? Object.keys(op.query.shape) : [];
    return `${op.method.toUpperCase()} ${path}${query.length ? `?${query.map((q) => `${q}=`).join("&")}` : ""}`;
  });
  // Once each, should an entry here become a documented operation too.
  return [...new Set([...ops, ...OTHER_ENDPOINTS])];
}

/** The built-in identity provider's address is made from the configured public address; on a development
 * ladder answering on another address (publicBase), point it at that address too, so it resolves. */
function onBase(info: AccountsInfo | null, base: string, configured: string): AccountsInfo | null {
  if (!info || base === configured || !info.identity_url.startsWith(configured)) return info;
  return { ...info, identity_url: base + info.identity_url.slice(configured.length) };
}

export function discoveryRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { config } = ctx;
  const docs = loadDocs();
  const endpoints = endpointList();
  const versions = () => ({ ...VERSIONS, schema: ctx.store.schema });

  const apiIndex = (base: string, accounts = onBase(accountsInfo(ctx), base, config.publicUrl)) => ({
    bot_endpoint: `${wsBase(base)}/bot`,
    accounts,
    authentication_required: !config.anonymousDev,
    mcp: null,
    openapi: `${base}/openapi.json`,
    llms_txt: `${base}/llms.txt`,
    docs: `${base}/docs`,
    bot_code: `${base}/download/bots`,
    versions: versions(),
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
    operational_policy: operationalPolicy(config, ctx.settings.limits()),
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
    maps: MAP_NAMES,
    endpoints,
  });
  app.get("/api", async (req) => apiIndex(publicBase(config, req)));

  app.get("/api/status", async (req) => ctx.reads.status(parseQuery(LadderQuery, req.query).ladder));

  app.get("/api/changelog", async () => {
    const changelog = docs.get("changelog");
    if (!changelog) throw errors.notFound("changelog");
    return { versions: versions(), markdown: changelog.markdown };
  });

  // Built once per base address (one in production), not per request.
  const contracts = new Map<string, unknown>();
  app.get("/openapi.json", async (req: FastifyRequest) => {
    const base = publicBase(config, req);
    if (!contracts.has(base)) contracts.set(base, openApiDocument(base));
    return contracts.get(base);
  });

  docsRoutes(app, ctx, docs);
  crawlerRoutes(app, ctx, docs);
  downloadRoutes(app, ctx);
}
