// The static files of web/ (scripts, styles, icons), read once at start-up into memory. A request can only
// name a file of that fixed set, so no path from a URL ever reaches the file system (no traversal). Each file
// is addressed with a content hash (`?v=`) so pages can let browsers cache it for a year. A script's imports of
// its neighbours (`from "./x.js"`) are served with their hashes too, and a script's hash covers theirs, so a
// page's modules are cached for a year as one consistent set: a new release never mixes with old modules.
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

const NAME = /^[a-z0-9][a-z0-9.-]*$/;
/** A static or dynamic import of a neighbouring script: `from "./x.js"`, `import "./x.js"`, `import("./x.js")`. */
const IMPORT = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])\.\/([a-z0-9][a-z0-9.-]*\.js)\2/g;

interface Asset {
  bytes: Buffer;
  type: string;
  hash: string;
}

export class WebAssets {
  private readonly files = new Map<string, Asset>();

  constructor(dir = WEB_DIR) {
    const raw = new Map<string, Buffer>();
    for (const name of readdirSync(dir)) {
      if (!TYPES[extname(name)] || !NAME.test(name)) continue;
      raw.set(name, readFileSync(join(dir, name)));
    }
    const visiting = new Set<string>();
    const add = (name: string): Asset => {
      const done = this.files.get(name);
      if (done) return done;
      if (visiting.has(name)) throw new Error(`web/${name} imports itself through a cycle`);
      visiting.add(name);
      let bytes = raw.get(name)!;
      if (extname(name) === ".js")
        bytes = Buffer.from(
          bytes.toString("utf8").replace(IMPORT, (_whole, head: string, quote: string, dep: string) => {
            if (!raw.has(dep)) throw new Error(`web/${name} imports ./${dep}, which is not in web/`);
            return `${head}${quote}./${dep}?v=${add(dep).hash}${quote}`;
          }),
        );
      const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
      const asset = { bytes, type: TYPES[extname(name)]!, hash };
      this.files.set(name, asset);
      visiting.delete(name);
      return asset;
    };
    for (const name of [...raw.keys()].sort()) add(name);
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
