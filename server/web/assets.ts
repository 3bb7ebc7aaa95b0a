// The static files of web/ (scripts, styles, icons), read once at start-up into memory. A request can only
// name a file of that fixed set, so no path from a URL ever reaches the file system (no traversal). Each file
// is addressed with a content hash (`?v=`) so pages can let browsers cache it for a year.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { repoPath } from "../root.ts";

const WEB_DIR = repoPath("web");

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

interface Asset {
  bytes: Buffer;
  type: string;
  hash: string;
}

export class WebAssets {
  private readonly files = new Map<string, Asset>();

  constructor(dir = WEB_DIR) {
    for (const name of readdirSync(dir)) {
      const type = TYPES[extname(name)];
      if (!type || !/^[a-z0-9][a-z0-9.-]*$/.test(name)) continue;
      const bytes = readFileSync(join(dir, name));
      const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
      this.files.set(name, { bytes, type, hash });
    }
  }

  /** The URL of a web/ file, with its content hash. Throws for a name that is not there (a page bug). */
  url(name: string): string {
    const a = this.files.get(name);
    if (!a) throw new Error(`web/${name} does not exist`);
    return `/assets/${name}?v=${a.hash}`;
  }

  routes(app: FastifyInstance): void {
    app.get("/assets/:name", async (req, reply) => {
      const { name } = req.params as { name: string };
      const a = this.files.get(name);
      if (!a) {
        return reply
          .code(404)
          .header("x-robots-tag", "noindex")
          .send({ error: "no such asset", code: "not_found" });
      }
      const etag = `"${a.hash}"`;
      const v = (req.query as { v?: string }).v;
      reply
        .header("content-type", a.type)
        .header("x-content-type-options", "nosniff")
        .header("etag", etag)
        // The hashed URL never changes content; an unhashed one may, so it is revalidated.
        .header("cache-control", v === a.hash ? "public, max-age=31536000, immutable" : "public, max-age=60");
      if (req.headers["if-none-match"] === etag) return reply.code(304).send();
      return reply.send(a.bytes);
    });
  }
}

let shared: WebAssets | null = null;
/** The one WebAssets of the process: every page module names its files through it. */
export function webAssets(): WebAssets {
  shared ??= new WebAssets();
  return shared;
}
