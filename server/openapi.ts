// /openapi.json: the OpenAPI 3.1 contract of the public discovery and data routes, bot registration and the
// bot-token routes. Nothing here restates a shape: request parameters and bodies are the zod schemas the
// routes validate with, and responses are the zod schemas of api/responses.ts, which the contract test
// checks live responses against. zod 4 converts both to JSON Schema 2020-12, the dialect OpenAPI 3.1 uses.
import { z } from "zod";
import { VERSIONS } from "../engine/versions.ts";
import * as R from "./api/responses.ts";
import { type AnyOperation, openApiOperation } from "./kernel/operation.ts";

type Json = Record<string, unknown>;

export interface Operation {
  method: "get" | "post" | "delete";
  /** OpenAPI path template, e.g. /api/bots/{name}. */
  path: string;
  operationId: string;
  summary: string;
  tag: "discovery" | "data" | "registration" | "bot";
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Which credentials the route takes (security scheme names); omitted means public. */
  security?: Json[];
  ok: { status: 200 | 201; schema: z.ZodType } | { status: 200; media: string; description: string };
  /** Error statuses the route can answer with, and when. */
  errors?: Record<number, string>;
}

const documented = new WeakMap<readonly AnyOperation<unknown>[], readonly Operation[]>();
/**
 * The documented operations of a server's operation list (server/operations.ts), in the document's order, each
 * from its definition (server/kernel/operation.ts). Built once per list: the list is handed in by whoever
 * serves the document, so this module imports no route.
 */
export function documentedOperations(all: readonly AnyOperation<unknown>[]): readonly Operation[] {
  let ops = documented.get(all);
  if (!ops) {
    ops = all.filter((op) => op.doc).map(openApiOperation);
    documented.set(all, ops);
  }
  return ops;
}

const COMPONENT = "#/components/schemas/";

/** zod's JSON Schema, made fit for an OpenAPI component: local `$defs` become component refs. */
function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$schema" || k === "$id" || k === "$defs") continue;
    out[k] = k === "$ref" && typeof v === "string" ? v.replace("#/$defs/", COMPONENT) : clean(v);
  }
  return out;
}

function responseRegistry() {
  const reg = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(R.RESPONSE_SCHEMAS)) reg.add(schema, { id });
  return reg;
}

function parameters(where: "path" | "query", schema: z.ZodObject | undefined): Json[] {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([name, field]) => {
    const s = clean(z.toJSONSchema(field as z.ZodType, { io: "input" })) as Json;
    const required = where === "path" || !(field as z.ZodType).safeParse(undefined).success;
    return {
      name,
      in: where,
      required,
      ...(typeof s.description === "string" ? { description: s.description } : {}),
      schema: s,
    };
  });
}

/** The OpenAPI document of the operations `all` for a ladder whose public address is `base`. */
export function openApiDocument(all: readonly AnyOperation<unknown>[], base: string): Json {
  const reg = responseRegistry();
  const uri = (id: string) => `${COMPONENT}${id}`;
  const components = z.toJSONSchema(reg, { io: "output", uri }).schemas as Record<string, unknown>;
  const schemaOf = (s: z.ZodType) => clean(z.toJSONSchema(s, { io: "output", metadata: reg }));
  const errorResponse = (description: string) => ({
    description,
    content: { "application/json": { schema: { $ref: `${COMPONENT}Error` } } },
  });

  const paths: Record<string, Json> = {};
  for (const op of documentedOperations(all)) {
    const ok =
      "schema" in op.ok
        ? {
            description: op.ok.status === 201 ? "created" : "success",
            content: { "application/json": { schema: schemaOf(op.ok.schema) } },
          }
        : { description: op.ok.description, content: { [op.ok.media]: { schema: {} } } };
    const responses: Json = { [String(op.ok.status)]: ok };
    for (const [status, why] of Object.entries(op.errors ?? {})) responses[status] = errorResponse(why);
    responses["500"] = errorResponse("`internal`: an unexpected server error");
    const params = [...parameters("path", op.params), ...parameters("query", op.query)];
    paths[op.path] = {
      ...paths[op.path],
      [op.method]: {
        operationId: op.operationId,
        summary: op.summary,
        tags: [op.tag],
        ...(params.length ? { parameters: params } : {}),
        ...(op.body
          ? {
              requestBody: {
                required: true,
                content: {
                  "application/json": { schema: clean(z.toJSONSchema(op.body, { io: "input" })) },
                },
              },
            }
          : {}),
        ...(op.security ? { security: op.security } : {}),
        responses,
      },
    };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Arena ladder API",
      version: VERSIONS.release,
      summary: "Public discovery and data, bot registration and bot-token routes of the arena ladder",
      description:
        "Combat is not HTTP: bots play over the WebSocket named by `bot_endpoint` in `GET /api`. " +
        `Protocol ${VERSIONS.protocol}, rules ${VERSIONS.rules}, engine ${VERSIONS.engine}. ` +
        "Errors are `{error, code?}` with a 4xx/5xx status. Guides: /docs/api and /docs/bot-guide.",
    },
    servers: [{ url: base }],
    externalDocs: { description: "Guides for bot authors and agents", url: `${base}/guide` },
    tags: [
      { name: "discovery", description: "Where everything is" },
      { name: "data", description: "Public ladder data" },
      { name: "registration", description: "Creating bots" },
      { name: "bot", description: "Routes for a bot's own token (BotBearer)" },
    ],
    paths,
    components: {
      schemas: clean(components),
      securitySchemes: {
        BotBearer: {
          type: "http",
          scheme: "bearer",
          description: "the bot token from registration or rotation",
        },
        AccountBearer: {
          type: "http",
          scheme: "bearer",
          description: "an account agent key or a browser session's access token; not bot tokens",
        },
        AgentBearer: {
          type: "http",
          scheme: "bearer",
          description: "an account agent key (POST /api/account/keys); shown once, revocable",
        },
        OwnerKey: {
          type: "apiKey",
          in: "header",
          name: "X-Owner-Key",
          description: "an account agent key",
        },
      },
    },
  };
}
