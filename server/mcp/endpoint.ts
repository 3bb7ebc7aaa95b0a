// POST /mcp: the Streamable HTTP tool endpoint (SPEC 1.1, 5 rule 8), on the official SDK. Stateless: every
// request gets a fresh SDK server and transport (the SDK refuses to share one across clients), answered as
// JSON, never as an event stream. Before the SDK sees a request: the endpoint must be on (start-up flag and
// live setting), a supplied Origin must be this site, the protocol version header (when sent) one the SDK
// speaks, and the credential an agent key or an access token of an approved client. GET and DELETE are 405
// (no server-initiated streams, no sessions to end).
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { VERSIONS } from "../../engine/versions.ts";
import { classify } from "../accounts/accounts.ts";
import { ApiError, errors } from "../errors.ts";
import type { BoundOperation, Kernel, Services } from "../kernel/feature.ts";
import { DEFAULT_SCOPE, grantScopes, MANAGE } from "./scopes.ts";
import type { McpService } from "./service.ts";
import type { McpStore } from "./store.ts";
import { callTool, type ToolCaller, toolsOf } from "./tools.ts";

// The SDK loads with the first request to /mcp, not at start: it is about 13 MiB of the process that a server
// nobody's agent talks to does not need (docs/performance-live-path.md, "Memory at start").
const loadSdk = (() => {
  let loading: Promise<Sdk> | null = null;
  return () =>
    (loading ??= Promise.all([
      import("@modelcontextprotocol/sdk/server/index.js"),
      import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]).then(([index, http, types]) => ({
      Server: index.Server,
      Transport: http.StreamableHTTPServerTransport,
      types,
    })));
})();
interface Sdk {
  Server: typeof import("@modelcontextprotocol/sdk/server/index.js").Server;
  Transport: typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js").StreamableHTTPServerTransport;
  types: typeof import("@modelcontextprotocol/sdk/types.js");
}

/** What the endpoint reads: credentials, the store, the log and the server's operations (its tools). */
export type EndpointDeps = Pick<Services, "accounts" | "accountStore" | "store"> &
  Pick<Kernel, "config" | "log"> & {
    /** The tool endpoint's own tables (grants, keys' scopes). */
    tables: McpStore;
    /** Every operation with its services, once the features are composed (read per request). */
    boundOperations(): readonly BoundOperation[];
  };

const INSTRUCTIONS =
  "Tools of a competitive ladder for bots. whoami and list_my_bots show the account; register_bot returns a bot token once " +
  "(store it for the bot program, never in a log); get_agent_guide explains building and running a bot.";

function challenge(reply: FastifyReply, service: McpService, error?: "invalid_token" | "insufficient_scope") {
  const meta = service.oauth.at.resourceMetadata;
  reply.header(
    "www-authenticate",
    `Bearer resource_metadata="${meta}"${error ? `, error="${error}"` : ""}${
      error === "insufficient_scope" ? `, scope="${DEFAULT_SCOPE}"` : ""
    }`,
  );
}

/** The caller behind the request's credential, or the SPEC's 401/403 with the challenge header. */
async function authenticate(
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: EndpointDeps,
  service: McpService,
): Promise<ToolCaller> {
  const header = req.headers.authorization;
  if (typeof header !== "string" || header.trim() === "") {
    challenge(reply, service);
    throw errors.missingAuthorization();
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = classify(m ? m[1]! : "");
  if (token.kind === "agent_key") {
    let caller: Awaited<ReturnType<typeof ctx.accounts.fromAgentKey>>;
    try {
      caller = await ctx.accounts.fromAgentKey(token.value);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) challenge(reply, service, "invalid_token");
      throw err;
    }
    if (caller.account.banned_at) throw errors.accountBanned();
    return { caller, manage: await ctx.tables.keyMayManage(caller.keyId), scopes: null };
  }
  const claims = token.kind === "jwt" ? await service.oauth.verifyAccess(token.value) : null;
  if (!claims) {
    challenge(reply, service, "invalid_token");
    throw errors.wrongCredential(
      "send an access token this server issued for its /mcp address, or an account agent key (identity-provider sessions and bot tokens are not tool credentials)",
    );
  }
  const grant = await ctx.tables.useGrant(claims.grantId);
  const account = grant ? await ctx.accountStore.account(claims.accountId) : null;
  if (!grant || !account || grant.account_id !== account.id || grant.client_id !== claims.clientId) {
    challenge(reply, service, "insufficient_scope");
    throw errors.mcpConsentRequired();
  }
  if (account.banned_at) throw errors.accountBanned();
  // What the grant allows, narrowed by the token's own scope (a refresh may ask for less).
  const granted = grantScopes(grant.manage);
  const scopes =
    claims.scope === null ? granted : granted.filter((s) => claims.scope!.split(" ").includes(s));
  return {
    caller: { kind: "mcp_client", account, clientId: claims.clientId, grantId: grant.id, admin: false },
    manage: scopes.includes(MANAGE),
    scopes,
  };
}

/** An MCP tool error carrying the SPEC's `{error, code}` (the model reads the text, programs the structure). */
function toolError(err: ApiError): CallToolResult {
  const body = err.body();
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body };
}

function toolResult(answer: unknown): CallToolResult {
  if (typeof answer === "string") return { content: [{ type: "text", text: answer }] };
  const isObject = answer !== null && typeof answer === "object" && !Array.isArray(answer);
  return {
    content: [{ type: "text", text: JSON.stringify(answer, null, 2) }],
    ...(isObject ? { structuredContent: answer as Record<string, unknown> } : {}),
  };
}

function sdkServer(
  sdk: Sdk,
  who: ToolCaller,
  http: { req: FastifyRequest; reply: FastifyReply },
  ctx: EndpointDeps,
): Server {
  const server = new sdk.Server(
    { name: "arena-ladder", version: VERSIONS.release },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(sdk.types.ListToolsRequestSchema, async () => ({
    tools: toolsOf(ctx.boundOperations()).map((t) => ({
      name: t.tool.name,
      description: t.tool.description,
      inputSchema: t.inputSchema as { type: "object" },
      annotations: {
        readOnlyHint: t.op.method === "GET",
        destructiveHint: t.op.method === "DELETE",
        openWorldHint: false,
      },
    })),
  }));
  server.setRequestHandler(sdk.types.CallToolRequestSchema, async (request) => {
    const t = toolsOf(ctx.boundOperations()).find((x) => x.tool.name === request.params.name);
    if (!t) return toolError(errors.notFound(`tool ${JSON.stringify(request.params.name)}`));
    try {
      return toolResult(await callTool(t, request.params.arguments, who, http));
    } catch (err) {
      if (err instanceof ApiError) return toolError(err);
      ctx.log.error({ err, tool: t.tool.name }, "tool failed");
      return toolError(errors.internal());
    }
  });
  return server;
}

export function mcpEndpoint(http: FastifyInstance, ctx: EndpointDeps, service: McpService): void {
  const origin = new URL(ctx.config.publicUrl).origin;
  /** The checks that come before the credential: on, same site, a protocol version the SDK speaks. */
  const gate = async (req: FastifyRequest, reply: FastifyReply) => {
    reply.header("cache-control", "no-store");
    if (!service.enabled()) throw errors.mcpDisabled();
    const o = req.headers.origin;
    if (typeof o === "string" && o !== "" && o !== origin) throw errors.foreignOrigin();
    const q = req.query as Record<string, unknown>;
    if (q && ("access_token" in q || "token" in q || "key" in q))
      throw errors.badRequest("credentials are not accepted in the query string; send Authorization: Bearer");
    const version = req.headers["mcp-protocol-version"];
    const { SUPPORTED_PROTOCOL_VERSIONS } = (await loadSdk()).types;
    if (typeof version === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
      throw errors.badRequest(
        `unsupported MCP-Protocol-Version ${JSON.stringify(version)}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
      );
  };

  http.route({
    method: "POST",
    url: "/mcp",
    config: { takesBody: true },
    handler: async (req, reply) => {
      await gate(req, reply);
      const who = await authenticate(req, reply, ctx, service);
      const sdk = await loadSdk();
      // Not a JSON-RPC message (or batch): answered here in the API's error shape, before the SDK.
      const messages = Array.isArray(req.body) ? req.body : [req.body];
      if (
        messages.length === 0 ||
        !messages.every((m) => sdk.types.JSONRPCMessageSchema.safeParse(m).success)
      )
        throw errors.badRequest("the body must be a JSON-RPC 2.0 message (or a batch of them)");
      const server = sdkServer(sdk, who, { req, reply }, ctx);
      const transport = new sdk.Transport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      // From here the SDK writes the response itself.
      reply.hijack();
      reply.raw.setHeader("cache-control", "no-store");
      reply.raw.setHeader("x-content-type-options", "nosniff");
      reply.raw.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    },
  });
  http.route({
    method: ["GET", "DELETE"],
    url: "/mcp",
    handler: async (req, reply) => {
      await gate(req, reply);
      reply.header("allow", "POST");
      throw errors.methodNotAllowed(
        "this endpoint is stateless: POST JSON-RPC messages; there are no event streams or sessions",
      );
    },
  });
}
