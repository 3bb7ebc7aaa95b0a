// One definition per route: method, path, schemas, auth rule and handler. From it come the Fastify route
// (validation, the auth check as the route's own preHandler, the handler), and the same definition can be
// listed in the OpenAPI document and, later, offered as an MCP tool, instead of a second and third copy.
// Handlers receive parsed input and the resolved caller; they call a service and return the response body.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Caller } from "../auth/accounts.ts";
import { errors } from "../errors.ts";

/** Who may call: anyone, a browser session of an account (SPEC 4.4), or an admin (SPEC 4.6). */
export type AuthRule = "none" | "session" | "admin";

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;
type CallerOf<A extends AuthRule> = A extends "none" ? null : Caller;

export interface OperationDef<
  A extends AuthRule = AuthRule,
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
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
  /** Success status (200 unless stated). */
  status?: 200 | 201;
  /** Error statuses the operation answers with, and when (for the document). */
  errors?: Record<number, string>;
  handle(input: {
    params: Infer<P>;
    query: Infer<Q>;
    body: Infer<B>;
    caller: CallerOf<A>;
    req: FastifyRequest;
    reply: FastifyReply;
  }): Promise<unknown>;
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

export type Authenticate = (
  rule: AuthRule,
  req: FastifyRequest,
  reply: FastifyReply,
) => Promise<Caller | null>;

function parse(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema) return undefined;
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw errors.badRequest(r.error.issues.map((i) => i.message).join("; "));
  return r.data;
}

/**
 * Registers operations as one encapsulated plugin. The auth rule runs first (a wrong credential is a 401 or
 * 403 whatever the body), then params, query and body are validated, then the handler runs.
 */
export function mountOperations(
  app: FastifyInstance,
  ops: readonly OperationDef<AuthRule, z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>[],
  authenticate: Authenticate,
): void {
  void app.register(async (scope) => {
    scope.decorateRequest("caller", null);
    for (const op of ops) {
      scope.route({
        method: op.method,
        url: op.path,
        preHandler: async (req, reply) => {
          (req as FastifyRequest & { caller: Caller | null }).caller = await authenticate(
            op.auth,
            req,
            reply,
          );
        },
        handler: async (req, reply) => {
          const body = await op.handle({
            params: parse(op.params, req.params),
            query: parse(op.query, req.query),
            body: parse(op.body, req.body),
            caller: (req as FastifyRequest & { caller: Caller | null }).caller,
            req,
            reply,
          } as never);
          if (op.status) reply.code(op.status);
          return body;
        },
      });
    }
  });
}
