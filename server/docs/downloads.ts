// Downloads of SPEC 1.1: the starter bots and house-bot source (/download/bots, /download/bots/<path>), each
// starter as one archive (/download/bots/typescript.tar.gz, .zip; python.tar.gz, .zip) and
// the offline simulator (/download/arena-sim.mjs, /download/arena-sim.js, the release's wheel). Every file
// served is named in a fixed table below, looked up by exact path: a request path is never joined onto a
// directory, so `..`, encoded slashes or absolute paths cannot reach a file outside the table.
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { createGzip } from "node:zlib";
import type { FastifyInstance, FastifyReply } from "fastify";
import { Zip, ZipDeflate } from "fflate";
import { RELEASE, SIMULATOR_PACKAGE } from "../../engine/versions.ts";
import * as R from "../api/responses.ts";
import { errors } from "../errors.ts";
import type { Kernel } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";
import { publicBase } from "../public-address.ts";
import { REPO_ROOT } from "./catalog.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type DownloadServices = Pick<Kernel, "config">;
const defineOperation = operationFor<DownloadServices>();

export const DIST_DIR = join(REPO_ROOT, "dist");
export const WHEEL_NAME = `${SIMULATOR_PACKAGE}-${RELEASE}-py3-none-any.whl`;
const OTHER_WHEEL = new RegExp(`^${SIMULATOR_PACKAGE}-([^/]+)-py3-none-any\\.whl$`);

interface BotFile {
  /** Path under /download/bots/; mirrors the repository so the files' relative imports still resolve. */
  path: string;
  /** Source file, relative to the repository root. */
  source: string;
  about: string;
}

export const BOT_FILES: readonly BotFile[] = [
  { path: "README.md", source: "starters/README.md", about: "How to run the starter bots" },
  {
    path: "typescript/README.md",
    source: "starters/typescript/README.md",
    about: "TypeScript starter: setup and options",
  },
  {
    path: "typescript/bot.ts",
    source: "starters/typescript/bot.ts",
    about: "TypeScript starter: connection, queueing, reconnects (Node 22+, ws)",
  },
  {
    path: "typescript/strategy.ts",
    source: "starters/typescript/strategy.ts",
    about: "TypeScript starter's strategy; also the house bot ts-starter (Hard)",
  },
  {
    path: "python/README.md",
    source: "starters/python/README.md",
    about: "Python starter: setup and options",
  },
  {
    path: "python/starter_bot.py",
    source: "starters/python/starter_bot.py",
    about: "Python starter: connection and a Strategy class in one file (websockets 10+)",
  },
  {
    path: "house/kiter.ts",
    source: "engine/house/kiter.ts",
    about: "House bot kiter (Easy): ranged skirmisher",
  },
  {
    path: "house/brawler.ts",
    source: "engine/house/brawler.ts",
    about: "House bot brawler (Medium): melee chaser",
  },
  {
    path: "house/champion.ts",
    source: "engine/house/champion.ts",
    about: "House bot champion (Very hard): expected-damage planner",
  },
  {
    path: "house/tactics.ts",
    source: "engine/house/tactics.ts",
    about: "Helpers shared by the house bots: map tables, the exact ranged ray, opponent tracking",
  },
  {
    path: "house/types.ts",
    source: "engine/house/types.ts",
    about: "The strategy interface the house bots implement",
  },
  {
    path: "house/index.ts",
    source: "engine/house/index.ts",
    about: "The house bot list, weakest first",
  },
  {
    path: "protocol.ts",
    source: "engine/protocol.ts",
    about: "zod schemas of every protocol message (the house bots' types come from here)",
  },
  { path: "rules.ts", source: "engine/rules.ts", about: "The rules table and maps" },
];

/**
 * Each starter as one archive: a folder named `root` holding the starter's files and what installs its
 * dependencies (package.json, requirements.txt), so `curl ... | tar -xz && cd <root>` gives a runnable bot.
 */
interface StarterArchive {
  root: string;
  files: { name: string; source: string }[];
}

export const STARTER_ARCHIVES: Readonly<Record<string, StarterArchive>> = {
  typescript: {
    root: "arena-starter-typescript",
    files: [
      { name: "README.md", source: "starters/typescript/README.md" },
      { name: "package.json", source: "starters/typescript/package.json" },
      { name: "bot.ts", source: "starters/typescript/bot.ts" },
      { name: "strategy.ts", source: "starters/typescript/strategy.ts" },
    ],
  },
  python: {
    root: "arena-starter-python",
    files: [
      { name: "README.md", source: "starters/python/README.md" },
      { name: "requirements.txt", source: "starters/python/requirements.txt" },
      { name: "starter_bot.py", source: "starters/python/starter_bot.py" },
    ],
  },
};
const ARCHIVE_PATH = /^(typescript|python)\.(tar\.gz|zip)$/;

/** One ustar header block (POSIX.1-1988): names here are short ASCII, so no long-name extensions are needed. */
function tarHeader(name: string, size: number, mtime: number): Buffer {
  const h = Buffer.alloc(512);
  const put = (value: string, offset: number, length: number) => h.write(value, offset, length, "ascii");
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, "0");
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(Math.floor(mtime / 1000), 12), 136, 12);
  put("        ", 148, 8); // the checksum is summed with its own field as spaces
  put("0", 156, 1);
  put("ustar\u000000", 257, 8);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${octal(sum, 7)}\u0000 `, 148, 8);
  return h;
}

/** A gzipped tar of the archive, produced file by file as it is sent. */
function tarGz(a: StarterArchive): Readable {
  function* blocks() {
    for (const f of a.files) {
      const path = join(REPO_ROOT, f.source);
      const body = readFileSync(path);
      yield tarHeader(`${a.root}/${f.name}`, body.length, statSync(path).mtimeMs);
      yield body;
      if (body.length % 512) yield Buffer.alloc(512 - (body.length % 512));
    }
    yield Buffer.alloc(1024); // two zero blocks end the archive
  }
  return Readable.from(blocks()).pipe(createGzip());
}

/** A zip of the archive (fflate's streaming writer): for people who download in a browser, Windows included. */
function zip(a: StarterArchive): Readable {
  const out = new PassThrough();
  const writer = new Zip((err, chunk, final) => {
    if (err) return out.destroy(err);
    out.write(chunk);
    if (final) out.end();
  });
  for (const f of a.files) {
    const path = join(REPO_ROOT, f.source);
    const entry = new ZipDeflate(`${a.root}/${f.name}`, { level: 9 });
    entry.mtime = statSync(path).mtime;
    writer.add(entry);
    entry.push(readFileSync(path), true);
  }
  writer.end();
  return out;
}

const CONTENT_TYPES: Record<string, string> = {
  ".md": "text/markdown; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".py": "text/x-python; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".whl": "application/zip",
};
const typeOf = (name: string) =>
  CONTENT_TYPES[/\.[a-z]+$/.exec(name)?.[0] ?? ""] ?? "application/octet-stream";

export function downloadsIndex(base: string) {
  const url = (path: string) => `${base}/download/bots/${path}`;
  return {
    about:
      "Starter bots in TypeScript and Python, ready to copy and change, and the source of the house bots. " +
      "Register a bot to get a token, then run a starter with ARENA_TOKEN and ARENA_URL set.",
    guide: `${base}/docs/bot-guide`,
    typescript: url("typescript/bot.ts"),
    python: url("python/starter_bot.py"),
    archives: (["typescript", "python"] as const).flatMap((lang) =>
      ["tar.gz", "zip"].map((ext) => ({ language: lang, url: url(`${lang}.${ext}`) })),
    ),
    files: BOT_FILES.map((f) => ({ path: f.path, url: url(f.path), about: f.about })),
  };
}

function sendFile(reply: FastifyReply, file: string, name: string, attachment: boolean) {
  const st = statSync(file);
  reply.type(typeOf(name)).header("content-length", st.size).header("cache-control", "public, max-age=300");
  if (attachment) reply.header("content-disposition", `attachment; filename="${name}"`);
  return reply.send(createReadStream(file));
}

export const DOWNLOAD_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/download/bots",
    operationId: "getBotDownloads",
    summary: "Starter bots and house-bot source files",
    auth: "none",
    doc: { tag: "discovery", ok: R.DownloadsIndex },
    handle: async ({ req }, ctx) => downloadsIndex(publicBase(ctx.config, req)),
  }),
];

/** The files themselves: starter and house-bot sources, the simulator bundles and its wheel. */
export function downloadRoutes(app: FastifyInstance, distDir = DIST_DIR): void {
  const byPath = new Map(BOT_FILES.map((f) => [f.path, join(REPO_ROOT, f.source)]));
  const simulator = new Map([
    ["arena-sim.mjs", join(distDir, "arena-sim.mjs")],
    ["arena-sim.js", join(distDir, "arena-sim.js")],
    [WHEEL_NAME, join(distDir, WHEEL_NAME)],
  ]);

  app.get("/download/bots/*", async (req, reply) => {
    const path = (req.params as { "*": string })["*"];
    const archive = ARCHIVE_PATH.exec(path);
    if (archive) {
      const [, lang, ext] = archive as unknown as [string, string, "tar.gz" | "zip"];
      const a = STARTER_ARCHIVES[lang]!;
      reply
        .type(ext === "zip" ? "application/zip" : "application/gzip")
        .header("cache-control", "public, max-age=300")
        .header("content-disposition", `attachment; filename="${a.root}.${ext}"`);
      return reply.send(ext === "zip" ? zip(a) : tarGz(a));
    }
    const file = byPath.get(path);
    if (!file || !existsSync(file)) throw errors.notFound(`download ${JSON.stringify(`bots/${path}`)}`);
    return sendFile(reply, file, path.split("/").at(-1) ?? path, false);
  });
  app.get("/download/:file", async (req, reply) => {
    const name = (req.params as { file: string }).file;
    const file = simulator.get(name);
    if (file) {
      if (!existsSync(file)) throw errors.notBuilt(name);
      return sendFile(reply, file, name, name.endsWith(".whl"));
    }
    if (OTHER_WHEEL.test(name)) throw errors.unknownRelease(name, WHEEL_NAME);
    throw errors.notFound(`download ${JSON.stringify(name)}`);
  });
}
