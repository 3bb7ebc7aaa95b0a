// The routes of the tool endpoint's authorization server: the owner's consent and revocation as account
// operations (SPEC 4.4, session only), and the OAuth protocol routes, which speak RFC 6749/7591/8414/9728
// rather than the API's shape (form-encoded token requests, redirects, `{error, error_description}`).
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { ApiError, errors } from "../errors.ts";
import { parseInput } from "../kernel/input.ts";
import { operationFor } from "../kernel/operation.ts";
import { ClientRegistration } from "./oauth.ts";
import type { McpService } from "./service.ts";

const AuthorizationQuery = z.object({
  authorization_id: z.string({ error: "authorization_id is required" }).min(1).max(64),
});
const Decision = z.object({
  authorization_id: z.string({ error: "authorization_id is required" }).min(1).max(64),
  action: z.enum(["approve", "deny"], { error: "action must be approve or deny" }),
});
const ClientParams = z.object({ client_id: z.string().max(64) });

/** The operations are handed the tool endpoint (null on a ladder without accounts). */
const defineOperation = operationFor<McpService | null>();

function service(mcp: McpService | null): McpService {
  if (!mcp?.enabled()) throw errors.mcpDisabled();
  return mcp;
}

export const MCP_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/account/mcp/authorization",
    operationId: "mcpAuthorization",
    summary:
      "What a client asks the account to approve (client, callback, scopes), or the answer already given",
    auth: "session",
    query: AuthorizationQuery,
    handle: async ({ caller, query }, ctx) => service(ctx).oauth.describe(caller, query.authorization_id),
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/mcp/authorization",
    operationId: "mcpDecide",
    summary: "Approve or deny a client's authorization request; the answer is where to send the browser",
    auth: "session",
    body: Decision,
    handle: async ({ caller, body }, ctx) =>
      service(ctx).oauth.decide(caller, body.authorization_id, body.action),
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/account/mcp/clients/:client_id",
    operationId: "mcpRevokeClient",
    summary: "Revoke an approved client: its access and refresh tokens stop working at once",
    auth: "session",
    params: ClientParams,
    // Revocation works also while the endpoint is off: an owner can always withdraw an approval.
    handle: async ({ caller, params }, ctx) => {
      if (!ctx) throw errors.mcpDisabled();
      return ctx.oauth.revoke(caller, params.client_id);
    },
  }),
];

/** RFC 6749 5.2's error body (with the API's `code` as well), never cached. */
function oauthError(reply: FastifyReply, err: ApiError) {
  if (err.status === 401) reply.header("www-authenticate", 'Bearer error="invalid_client"');
  return reply
    .code(err.status)
    .header("cache-control", "no-store")
    .send({ error: err.code, error_description: err.message, code: err.code });
}

export async function oauthRoutes(http: FastifyInstance, mcp: McpService): Promise<void> {
  const { oauth } = mcp;
  const on = () => {
    if (!mcp.enabled()) throw errors.mcpDisabled();
  };
  await http.register(async (scope) => {
    // Token requests are form-encoded (RFC 6749 4.1.3); JSON is accepted too. This scope's own parser, with its
    // own limit, in place of one the server may have added before (the unsubscribe form's).
    const FORM = "application/x-www-form-urlencoded";
    if (scope.hasContentTypeParser(FORM)) scope.removeContentTypeParser(FORM);
    scope.addContentTypeParser(FORM, { parseAs: "string", bodyLimit: 16 * 1024 }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    if (!scope.hasDecorator("rateLimit")) await scope.register(rateLimit, { global: false });
    const limit = { rateLimit: { max: 60, timeWindow: 60_000 } };

    const prm = async (_req: unknown, reply: FastifyReply) => {
      on();
      return reply.header("cache-control", "public, max-age=300").send(oauth.resourceMetadata());
    };
    scope.get("/.well-known/oauth-protected-resource/mcp", prm);
    scope.get("/.well-known/oauth-protected-resource", prm);
    scope.get("/.well-known/oauth-authorization-server", async (_req, reply) => {
      on();
      return reply.header("cache-control", "public, max-age=300").send(oauth.serverMetadata());
    });

    scope.post("/oauth/register", { config: { takesBody: true, ...limit } }, async (req, reply) => {
      on();
      try {
        const body = parseInput(ClientRegistration, req.body, errors.invalidClientMetadata, "ignore");
        return reply
          .code(201)
          .header("cache-control", "no-store")
          .send(await oauth.register(body));
      } catch (err) {
        if (err instanceof ApiError && err.status < 500) return oauthError(reply, err);
        throw err;
      }
    });

    scope.get("/oauth/authorize", { config: limit }, async (req, reply) => {
      on();
      const q = req.query as Record<string, unknown>;
      const str = Object.fromEntries(
        Object.entries(q).filter(([, v]) => typeof v === "string") as [string, string][],
      );
      const r = await oauth.authorize(str);
      if ("refuse" in r) throw r.refuse;
      return reply.header("cache-control", "no-store").redirect(r.redirect, 302);
    });

    scope.post("/oauth/token", { config: { takesBody: true, ...limit } }, async (req, reply) => {
      on();
      try {
        const body = (req.body ?? {}) as Record<string, unknown>;
        if (typeof body !== "object" || Array.isArray(body))
          throw errors.invalidRequest("send the token request form-encoded");
        const tokens = await oauth.token(body);
        return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(tokens);
      } catch (err) {
        if (err instanceof ApiError && err.status < 500) return oauthError(reply, err);
        throw err;
      }
    });
  });
}
