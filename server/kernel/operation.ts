// One definition per route: method, path, schemas, auth rule and handler. From it come the Fastify route
// (validation, the auth check as the route's own preHandler, the handler) and, for documented operations, the
// OpenAPI entry (`openApiOperation`); a later MCP tool is derived from the same definition instead of a third
// copy. Definitions are static values; the handler receives the parsed input, the resolved caller and its
// feature's services (server/kernel/feature.ts), calls a service and returns the response body.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { ApiError } from "../errors.ts";
import { parseInput } from "./input.ts";

/**
 * What each auth rule resolves the caller to. Declared by the accounts domain (server/accounts/callers.ts) by module
 * augmentation, so the kernel checks rules without importing the domain that defines accounts and bots.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation in server/accounts/callers.ts
export interface Callers {}

/**
 * Who may call: anyone, a browser session of an account (SPEC 4.4), the same with a handle chosen
 * (`handle_required` otherwise), an admin (SPEC 4.6), a registrant (an account credential or owner key, or
 * nobody on an anonymous development ladder: SPEC 4.2), an agent key (SPEC 3.4's bot deletion), or a bot's
 * own token (the BotBearer routes of SPEC 4.3).
 */
export type AuthRule =
  | "none"
  | "session"
  | "session_handle"
  | "admin"
  | "registrant"
  | "agent_key"
  | "bot_token";

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;
/** What the auth rule resolves the caller to: an account caller, a registrant, or the bot a token names. */
export type CallerOf<A extends AuthRule> = A extends keyof Callers ? Callers[A] : never;

/** The credentials each rule takes, as /openapi.json security requirements (absent: public or undocumented). */
const SECURITY: Partial<Record<AuthRule, Record<string, string[]>[]>> = {
  // The empty requirement: explicit anonymous development ladders register without a credential.
  registrant: [{ AccountBearer: [] }, { OwnerKey: [] }, {}],
  agent_key: [{ AgentBearer: [] }, { OwnerKey: [] }],
  bot_token: [{ BotBearer: [] }],
};

/**
 * An MCP tool made from an operation (server/mcp/tools.ts): the same input schema (path parameters, query and
 * body in one object), auth rule, limits and error codes; only the credential differs (the tool endpoint's).
 */
export interface ToolDescriptor {
  name: string;
  description: string;
  /** `manage` (retire, enroll) needs the owner's explicit approval; `register` every credential has. */
  permission: "register" | "manage";
  /** Input the tool fixes rather than asks for (e.g. the document name of get_agent_guide). */
  fixed?: { params?: Record<string, string> };
  /** The part of the operation's answer the tool returns (default: all of it). */
  result?: (answer: unknown) => unknown;
}

/** A documented operation's success answer: JSON with a response schema, or a file of a media type. */
export type DocOk = z.ZodType | { media: string; description: string };

export interface OperationDef<
  A extends AuthRule = AuthRule,
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  /** What the handler is handed: its feature's services (server/kernel/feature.ts). */
  C = unknown,
> {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Fastify path, `:name` for parameters. */
  path: string;
  operationId: string;
  summary: string;
  auth: A;
  params?: P;
  query?: Q;
  body?: B;
  /** The error for path parameters that fail their schema (400 `bad_request` unless stated, e.g. a 404). */
  invalidParams?: (params: unknown) => ApiError;
  /** The error for a body that fails its schema (400 `bad_request` unless stated, e.g. `invalid_bot`). */
  invalid?: (message: string) => ApiError;
  /** Success status (200 unless stated). */
  status?: 200 | 201;
  /** Error statuses the operation answers with, and when (for the document). */
  errors?: Record<number, string>;
  /**
   * Listed in /openapi.json under this tag, with this response schema; `security` names the credentials when
   * the handler checks them itself (an auth rule of `none` that is not public).
   */
  doc?: {
    tag: "discovery" | "data" | "registration" | "bot";
    ok: DocOk;
    security?: Record<string, string[]>[];
  };
  /** The MCP tools that are this operation (issue 18). */
  tools?: readonly ToolDescriptor[];
  handle(
    input: {
      params: Infer<P>;
      query: Infer<Q>;
      body: Infer<B>;
      caller: CallerOf<A>;
      req: FastifyRequest;
      reply: FastifyReply;
    },
    ctx: C,
  ): Promise<unknown>;
}

/** Keeps the literal types of a definition (so handlers see their parsed input and caller). */
export function defineOperation<
  A extends AuthRule,
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(def: OperationDef<A, P, Q, B>): OperationDef<A, P, Q, B> {
  return def;
}

/**
 * `defineOperation` for a feature's operations: their handler is handed the feature's services. Curried so
 * that the services' type is given once and the rest is still inferred: `const op = operationFor<Svc>()`.
 */
export function operationFor<C>() {
  return <
    A extends AuthRule,
    P extends z.ZodType | undefined = undefined,
    Q extends z.ZodType | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
  >(
    def: OperationDef<A, P, Q, B, C>,
  ): OperationDef<A, P, Q, B, C> => def;
}

export type Authenticate = (
  rule: AuthRule,
  req: FastifyRequest,
  reply: FastifyReply,
) => Promise<CallerOf<AuthRule>>;

export type AnyOperation<C = unknown> = OperationDef<
  AuthRule,
  z.ZodType | undefined,
  z.ZodType | undefined,
  z.ZodType | undefined,
  C
>;

/**
 * Registers operations as one encapsulated plugin. The input rule (server/kernel/input.ts) has refused what no
 * route accepts, including a body on an operation that declares none; then the auth rule runs (a wrong
 * credential is a 401 or 403 whatever the body), then params, query and body are validated (a body's unknown
 * fields are refused), then the handler runs.
 */
export function mountOperations<C>(
  app: FastifyInstance,
  ops: readonly AnyOperation<C>[],
  ctx: C,
  authenticate: Authenticate,
): void {
  void app.register(async (scope) => {
    scope.decorateRequest("caller", null);
    type WithCaller = FastifyRequest & { caller: CallerOf<AuthRule> };
    for (const op of ops) {
      scope.route({
        method: op.method,
        url: op.path,
        config: { takesBody: op.body !== undefined },
        preHandler: async (req, reply) => {
          (req as WithCaller).caller = await authenticate(op.auth, req, reply);
        },
        handler: async (req, reply) => {
          const body = await op.handle(
            {
              params:
                op.params &&
                parseInput(
                  op.params,
                  req.params,
                  op.invalidParams && (() => op.invalidParams!(req.params)),
                  "ignore",
                ),
              query: op.query && parseInput(op.query, req.query, undefined, "ignore"),
              body: op.body && parseInput(op.body, req.body, op.invalid),
              caller: (req as WithCaller).caller,
              req,
              reply,
            } as never,
            ctx,
          );
          if (op.status) reply.code(op.status);
          return serialisedOnce(body, req, reply);
        },
      });
    }
  });
}

/**
 * Bodies of frozen answers, serialised once. A service that hands back a frozen object promises that it never
 * changes and that it hands back the same object while the answer is the same (the leaderboard, a bot's
 * answer, a match list: issue 38), so its JSON is made and encoded once, sent as bytes, and tagged: a client
 * that sends the tag back gets a 304 without the body.
 */
const serialised = new WeakMap<object, { bytes: Buffer; etag: string }>();
/** The process's part of every tag (a tag names one body of one process; a restart starts new ones). */
const TAG_RUN = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
let nextTag = 1;

function serialisedOnce(body: unknown, req: FastifyRequest, reply: FastifyReply): unknown {
  if (body === null || typeof body !== "object" || !Object.isFrozen(body) || reply.statusCode !== 200)
    return body;
  let kept = serialised.get(body);
  if (!kept) {
    kept = { bytes: Buffer.from(JSON.stringify(body)), etag: `"${TAG_RUN}-${nextTag++}"` };
    serialised.set(body, kept);
  }
  reply.header("etag", kept.etag).type("application/json; charset=utf-8");
  if (req.headers["if-none-match"] === kept.etag) return reply.code(304).send();
  return kept.bytes;
}

/** The OpenAPI shape of a documented operation (server/openapi.ts lists these with its own). */
export function openApiOperation(op: AnyOperation<unknown>) {
  if (!op.doc) throw new Error(`${op.operationId} is not documented`);
  return {
    method: op.method.toLowerCase() as "get" | "post" | "delete",
    path: op.path.replace(/:([A-Za-z_]+)/g, "{$1}"),
    operationId: op.operationId,
    summary: op.summary,
    tag: op.doc.tag,
    ...(op.params ? { params: op.params as z.ZodObject } : {}),
    ...(op.query ? { query: op.query as z.ZodObject } : {}),
    ...(op.body ? { body: op.body } : {}),
    ok:
      "media" in op.doc.ok
        ? { status: 200 as const, media: op.doc.ok.media, description: op.doc.ok.description }
        : { status: op.status ?? 200, schema: op.doc.ok },
    ...(op.doc.security
      ? { security: op.doc.security }
      : SECURITY[op.auth]
        ? { security: SECURITY[op.auth] }
        : {}),
    ...(op.errors ? { errors: op.errors } : {}),
  };
}
