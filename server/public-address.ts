// The canonical base address for links in discovery documents (GET /api, /openapi.json, /llms.txt,
// /sitemap.xml, /docs). A configured --public-url always wins. Without one, a development ladder (the
// anonymous-development option) answers with the address the request came in on, so links work from
// 127.0.0.1:<random port> in tests and from a LAN address on a laptop; any other ladder keeps the
// configured default, since a Host header is client input and must not steer canonical URLs in production.
import type { FastifyRequest } from "fastify";
import type { Config } from "./config.ts";

/** A Host header we are willing to echo: a name or IPv4/IPv6 literal with an optional port, nothing else. */
const SAFE_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** True when --public-url was not given (parseConfig then fills in http://localhost:<port>). */
export function usesDefaultPublicUrl(config: Config): boolean {
  return config.publicUrl === `http://localhost:${config.port}`;
}

export function publicBase(config: Config, req: FastifyRequest): string {
  if (!config.anonymousDev || !usesDefaultPublicUrl(config)) return config.publicUrl;
  const host = req.headers.host;
  if (!host || !SAFE_HOST.test(host)) return config.publicUrl;
  return `${req.protocol === "https" ? "https" : "http"}://${host}`;
}

/** The WebSocket form of an http(s) base address. */
export const wsBase = (base: string): string => base.replace(/^http/, "ws");
