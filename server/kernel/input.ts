// The one input rule every HTTP request passes before a route, a credential check or the database sees it
// (issue 14). It refuses what no route of this API can accept, whatever the field: text PostgreSQL cannot store
// as sent, JSON nested deeper than any body here, numbers beyond a double, a body on a route that takes none,
// and a body declared in a character set other than UTF-8. What a single field may hold (lengths, formats,
// unknown fields) stays with that route's schema; `parseInput` is how the operation kernel and the remaining
// plain routes apply one.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { type ApiError, errors } from "../errors.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route reads a request body; any other route refuses one (`{}` and an empty body aside). */
    takesBody?: boolean;
  }
}

/**
 * Deeper than any body of this API (the settings overrides are the deepest, at four levels), shallow enough
 * that walking a body costs little. JSON.parse itself copes with far deeper nesting; what follows it may not.
 */
export const MAX_JSON_DEPTH = 32;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a text cannot be stored as sent, or null: PostgreSQL text refuses U+0000, and a lone surrogate would
 * be stored as U+FFFD, a different value from the one the client sent.
 */
export function unstorableText(s: string): string | null {
  if (s.includes("\u0000")) return "must not contain U+0000";
  if (LONE_SURROGATE.test(s)) return "must be well-formed Unicode (no lone surrogates)";
  return null;
}

/** The first problem of a parsed value (a body, the query, the path parameters), or null. */
export function inputProblem(value: unknown, where: string): string | null {
  // Iterative: a deep body must not cost stack.
  const stack: [unknown, string, number][] = [[value, where, 0]];
  while (stack.length > 0) {
    const [v, at, depth] = stack.pop()!;
    if (typeof v === "string") {
      const p = unstorableText(v);
      if (p) return `${at} ${p}`;
    } else if (typeof v === "number") {
      if (!Number.isFinite(v)) return `${at} must be a finite number`;
    } else if (v !== null && typeof v === "object") {
      if (depth >= MAX_JSON_DEPTH) return `${where} is nested more than ${MAX_JSON_DEPTH} levels deep`;
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
      for (const [k, x] of entries) {
        const p = unstorableText(k);
        if (p) return `a field name in ${at} ${p}`;
        stack.push([x, Array.isArray(v) ? `${at}[${k}]` : `${at}.${k}`, depth + 1]);
      }
    }
  }
  return null;
}

/** No body, an empty text or `{}`: what clients send when they have nothing to say. */
function isEmpty(body: unknown): boolean {
  if (body === undefined || body === "") return true;
  return (
    body !== null &&
    typeof body === "object" &&
    !Array.isArray(body) &&
    Object.getPrototypeOf(body) === Object.prototype &&
    Object.keys(body).length === 0
  );
}

/** Refuses, before anything else runs, what no route can accept (see the file's header). */
export function inputRule(app: FastifyInstance): void {
  app.addHook("onRequest", async (req) => {
    // RFC 8259: JSON between systems is UTF-8. A body declared otherwise would be read as something else.
    const type = req.headers["content-type"];
    const charset = type ? /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1] : undefined;
    if (charset && !/^utf-?8$/i.test(charset))
      throw errors.unsupportedMediaType(`bodies are UTF-8; the charset ${JSON.stringify(charset)} is not`);
  });
  app.addHook("preValidation", async (req: FastifyRequest) => {
    const problem =
      inputProblem(req.params, "the path") ?? inputProblem(req.query, "the query") ?? bodyProblem(req);
    if (problem) throw errors.badRequest(problem);
  });
}

function bodyProblem(req: FastifyRequest): string | null {
  if (req.body === undefined) return null;
  if (!req.routeOptions.config?.takesBody && !isEmpty(req.body))
    return `${req.method} ${req.routeOptions.url ?? req.url.split("?")[0]} takes no request body`;
  // Raw bytes (an event image) are checked by the route that takes them, not walked as JSON.
  if (Buffer.isBuffer(req.body)) return null;
  return inputProblem(req.body, "the body");
}

/**
 * A body (or query) against its schema. A body's fields must all be known: an unknown field is more likely a
 * client's mistake (a misspelt optional field) than something to ignore silently. A query's unknown
 * parameters are ignored (cache busters, tracking parameters). An absent body is `{}`; a JSON `null` is not.
 */
export function parseInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  invalid: (message: string) => ApiError = errors.badRequest,
  unknownFields: "refuse" | "ignore" = "refuse",
): z.infer<T> {
  const input = value === undefined ? {} : value;
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  if (
    unknownFields === "refuse" &&
    shape &&
    input !== null &&
    typeof input === "object" &&
    !Array.isArray(input)
  ) {
    const unknown = Object.keys(input).filter((k) => !Object.hasOwn(shape, k));
    if (unknown.length > 0)
      throw errors.badRequest(
        `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}; ` +
          `the fields are ${Object.keys(shape).join(", ") || "none"}`,
      );
  }
  const r = schema.safeParse(input);
  if (!r.success) throw invalid(r.error.issues.map((i) => i.message).join("; "));
  return r.data;
}
