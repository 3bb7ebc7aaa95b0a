// Device cookies: how the owner still signs in while their account's guessing delay runs, without exempting
// any address (issue 31 item 4). Behind a reverse proxy or a shared NAT an attacker may have the owner's
// address, so an address proves nothing; a browser that has signed in to the account before does. A password
// sign-in sets an HttpOnly cookie, signed with a key only this server holds, naming a random device id and
// bound to the account; during the delay a request that carries a valid one for that account is looked at.
// A device cookie that fails too often loses the exemption for a while, so a copied cookie is no guessing
// licence. This is OWASP's "device cookie" answer to lockout. Kept in memory, as the delay itself is.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { parseCookie, stringifySetCookie } from "cookie";
import type { FastifyRequest } from "fastify";

export const DEVICE_COOKIE = "arena_device";
const YEAR_S = 365 * 24 * 3600;
/** Failed sign-ins a device may make within FAILURE_WINDOW_MS before it is delayed like everyone else. */
const DEVICE_FAILURES = 5;
const FAILURE_WINDOW_MS = 15 * 60_000;
const MAX_ENTRIES = 100_000;

export class DeviceTrust {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly key: Buffer,
    /** Path the cookie is sent to (the identity provider's prefix) and whether the site is https. */
    private readonly path: string,
    private readonly secure: boolean,
  ) {}

  /** The Set-Cookie header value for a browser that just signed in to `userId`. */
  cookieFor(userId: string): string {
    const device = randomBytes(16).toString("base64url");
    return stringifySetCookie({
      name: DEVICE_COOKIE,
      value: `${device}.${this.mac(userId, device)}`,
      httpOnly: true,
      sameSite: "strict",
      secure: this.secure,
      path: this.path,
      maxAge: YEAR_S,
    });
  }

  /** The device id of a valid cookie for this account that has not failed too often, or null. */
  trusted(req: FastifyRequest, userId: string, now = Date.now()): string | null {
    const header = req.headers.cookie;
    if (typeof header !== "string" || header.length > 8192) return null;
    const value = parseCookie(header)[DEVICE_COOKIE];
    const dot = value?.indexOf(".") ?? -1;
    if (!value || dot < 1) return null;
    const device = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const want = Buffer.from(this.mac(userId, device));
    if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
    return this.recent(device, now).length < DEVICE_FAILURES ? device : null;
  }

  /** Counts a wrong password sent with a trusted device cookie. */
  failed(device: string, now = Date.now()): void {
    this.failures.delete(device); // re-insert: the map's order is then oldest activity first
    this.failures.set(device, [...this.recent(device, now), now]);
    if (this.failures.size > MAX_ENTRIES) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }

  private recent(device: string, now: number): number[] {
    return (this.failures.get(device) ?? []).filter((t) => now - t < FAILURE_WINDOW_MS);
  }

  private mac(userId: string, device: string): string {
    return createHmac("sha256", this.key).update(`device\0${userId}\0${device}`).digest("base64url");
  }
}
