// Unsubscribe tokens (SPEC 6.3, 8 item 7): category-scoped, authenticated and encrypted, valid 90 days. The
// token is `<category>.<base64url(iv | AES-256-GCM ciphertext | tag)>`; the category is also the cipher's
// associated data, so a token moved to another category, altered in any byte or past its expiry is refused.
// The plain text (account id and expiry) is unreadable without the key.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { EMAIL_CATEGORIES, type EmailCategory } from "../kernel/unit-of-work.ts";

export const UNSUBSCRIBE_TTL_MS = 90 * 24 * 3600_000;

export interface UnsubscribeClaim {
  accountId: string;
  category: EmailCategory;
  expires: number;
}

export class UnsubscribeTokens {
  constructor(
    private readonly key: Buffer,
    private readonly clock: () => number = Date.now,
  ) {}

  issue(accountId: string, category: EmailCategory, now = this.clock()): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(category));
    const plain = JSON.stringify({ a: accountId, e: now + UNSUBSCRIBE_TTL_MS });
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return `${category}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")}`;
  }

  /** The claim of a valid token, or why it is refused. */
  read(token: string, now = this.clock()): UnsubscribeClaim | "invalid" | "expired" {
    const dot = token.indexOf(".");
    if (dot < 0 || token.length > 1000) return "invalid";
    const category = token.slice(0, dot) as EmailCategory;
    if (!EMAIL_CATEGORIES.includes(category)) return "invalid";
    const raw = Buffer.from(token.slice(dot + 1), "base64url");
    if (raw.length < 12 + 16 + 2) return "invalid";
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(category));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      const plain = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
      const c = JSON.parse(plain.toString("utf8")) as { a?: unknown; e?: unknown };
      if (typeof c.a !== "string" || typeof c.e !== "number") return "invalid";
      if (now >= c.e) return "expired";
      return { accountId: c.a, category, expires: c.e };
    } catch {
      return "invalid";
    }
  }
}
