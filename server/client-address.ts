// The client's address, the one every per-address limit, the rate limits and the sessions key on. Without
// --trust-proxy it is the TCP peer. With it, a request whose peer is a trusted proxy is from the right-most
// X-Forwarded-For entry that is not itself a trusted proxy (entries further left are the client's own say and
// could be anything). One rule, proxy-addr's, for Fastify's `req.ip` (its trustProxy option gets the same
// function) and for the raw upgrade requests that never become Fastify requests.
import type { IncomingMessage } from "node:http";
import proxyaddr from "proxy-addr";

export type Trust = (addr: string, hop: number) => boolean;

/**
 * The trust rule of a --trust-proxy list (addresses, CIDR ranges, or proxy-addr's keywords `loopback`,
 * `linklocal`, `uniquelocal`); null for an empty list (no proxy is trusted). Throws on a malformed entry.
 */
export function trustRule(list: readonly string[]): Trust | null {
  return list.length === 0 ? null : proxyaddr.compile([...list]);
}

/** The client address of a raw request (an upgrade) under the rule; the TCP peer when no proxy is trusted. */
export function clientAddress(req: IncomingMessage, trust: Trust | null): string {
  if (!trust) return req.socket.remoteAddress ?? "";
  return proxyaddr(req, trust) ?? req.socket.remoteAddress ?? "";
}

/** Whether a connection comes from a trusted proxy (its requests carry other clients' addresses). */
export function fromTrustedProxy(remoteAddress: string | undefined, trust: Trust | null): boolean {
  return trust !== null && remoteAddress !== undefined && trust(remoteAddress, 0);
}
