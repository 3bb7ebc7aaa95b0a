// The tool list, derived from the operation definitions (server/operations.ts): an operation that names a
// tool lends it its input schema (path parameters, query and body in one object), its auth rule's account
// requirements, its handler and so its limits and error codes. Nothing here restates a rule of a route.
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Caller } from "../accounts/accounts.ts";
import { errors } from "../errors.ts";
import type { BoundOperation } from "../kernel/feature.ts";
import { parseInput } from "../kernel/input.ts";
import type { AnyOperation, ToolDescriptor } from "../kernel/operation.ts";
import { type Scope, scopeFor } from "./scopes.ts";

export interface Tool {
  tool: ToolDescriptor;
  op: AnyOperation<unknown>;
  /** What the operation's handler is handed: its feature's services (or the legacy context). */
  services: unknown;
  /** Names of the input fields by where the operation takes them. */
  fields: { params: string[]; query: string[]; body: string[] };
  inputSchema: Record<string, unknown>;
}

const shapeOf = (schema: z.ZodType | undefined): Record<string, z.ZodType> =>
  ((schema as { shape?: Record<string, z.ZodType> } | undefined)?.shape ?? {}) as Record<string, z.ZodType>;

function toTool({ op, services }: BoundOperation, tool: ToolDescriptor): Tool {
  const fixed = tool.fixed?.params ?? {};
  const params = Object.fromEntries(Object.entries(shapeOf(op.params)).filter(([k]) => !(k in fixed)));
  const query = shapeOf(op.query);
  const body = shapeOf(op.body);
  const { $schema: _drop, ...inputSchema } = z.toJSONSchema(z.object({ ...params, ...query, ...body }), {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return {
    tool,
    op,
    services,
    fields: { params: Object.keys(params), query: Object.keys(query), body: Object.keys(body) },
    inputSchema,
  };
}

const made = new WeakMap<readonly BoundOperation[], Tool[]>();
/** Every tool of the server's operations (each bound to the services it runs with), in their order. */
export function toolsOf(ops: readonly BoundOperation[]): Tool[] {
  let tools = made.get(ops);
  if (!tools) {
    tools = ops.flatMap((b) => (b.op.tools ?? []).map((t) => toTool(b, t)));
    made.set(ops, tools);
  }
  return tools;
}

/** An account caller on the tool endpoint, with whether the owner approved managing (delete, retire, enroll). */
export interface ToolCaller {
  caller: Caller;
  manage: boolean;
  /** An OAuth client's scopes (its grant's, narrowed by its token); null for an agent key. */
  scopes: Scope[] | null;
}

/** Runs a tool as its operation would run over HTTP, with the tool endpoint's caller. */
export async function callTool(
  t: Tool,
  args: Record<string, unknown> | undefined,
  who: ToolCaller,
  http: { req: FastifyRequest; reply: FastifyReply },
): Promise<unknown> {
  const { op, tool } = t;
  // Every tool names the scope it needs: an OAuth grant without it gets insufficient_scope, an agent key made
  // before managing existed gets permission_required.
  const needed = scopeFor(tool.permission);
  if (who.scopes && !who.scopes.includes(needed))
    throw errors.insufficientScope(tool.name, needed, who.scopes.join(" "));
  if (tool.permission === "manage" && !who.manage) throw errors.permissionRequired(tool.name);
  // The auth rule's account requirements (the credential itself was checked by the endpoint).
  if ((op.auth === "session_handle" || op.auth === "registrant") && !who.caller.account.handle)
    throw errors.handleRequired();
  const input = args ?? {};
  const known = [...t.fields.params, ...t.fields.query, ...t.fields.body];
  const unknown = Object.keys(input).filter((k) => !known.includes(k));
  if (unknown.length > 0)
    throw errors.badRequest(
      `unknown argument${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}; ` +
        `the arguments are ${known.join(", ") || "none"}`,
    );
  const pick = (names: string[]) =>
    Object.fromEntries(names.filter((k) => k in input).map((k) => [k, input[k]]));
  const rawParams = { ...pick(t.fields.params), ...(tool.fixed?.params ?? {}) };
  const answer = await op.handle(
    {
      params:
        op.params &&
        parseInput(op.params, rawParams, op.invalidParams && (() => op.invalidParams!(rawParams)), "ignore"),
      query: op.query && parseInput(op.query, pick(t.fields.query), undefined, "ignore"),
      body: op.body && parseInput(op.body, pick(t.fields.body), op.invalid),
      caller: who.caller,
      req: http.req,
      reply: http.reply,
    } as never,
    t.services,
  );
  return tool.result ? tool.result(answer) : answer;
}
