// Each starter as one archive (GET /download/bots/<language>.tar.gz and .zip): unpacked with the system's own
// tar and unzip, each holds one folder with the starter's files byte for byte, including what installs its
// dependencies; the index at GET /download/bots names every archive.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const EXPECTED = {
  typescript: {
    folder: "arena-starter-typescript",
    files: {
      "README.md": "starters/typescript/README.md",
      "package.json": "starters/typescript/package.json",
      "bot.ts": "starters/typescript/bot.ts",
      "strategy.ts": "starters/typescript/strategy.ts",
    },
  },
  python: {
    folder: "arena-starter-python",
    files: {
      "README.md": "starters/python/README.md",
      "requirements.txt": "starters/python/requirements.txt",
      "starter_bot.py": "starters/python/starter_bot.py",
    },
  },
} as const;

describe("starter archives", () => {
  let srv: TestServer;
  const dirs: string[] = [];
  beforeAll(async () => {
    srv = await startServer();
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  for (const [lang, want] of Object.entries(EXPECTED)) {
    for (const ext of ["tar.gz", "zip"] as const) {
      it(`${lang}.${ext} unpacks to ${want.folder}/ with the starter's files byte for byte`, async () => {
        const res = await fetch(`${srv.url}/download/bots/${lang}.${ext}`);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe(ext === "zip" ? "application/zip" : "application/gzip");
        expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${want.folder}.${ext}"`);
        const dir = mkdtempSync(join(tmpdir(), "starter-archive-"));
        dirs.push(dir);
        const file = join(dir, `a.${ext}`);
        writeFileSync(file, Buffer.from(await res.arrayBuffer()));
        if (ext === "zip") execFileSync("unzip", ["-q", file, "-d", dir]);
        else execFileSync("tar", ["-xzf", file, "-C", dir]);
        const listed = execFileSync("find", [want.folder, "-type", "f"], { cwd: dir, encoding: "utf8" })
          .trim()
          .split("\n")
          .sort();
        expect(listed).toEqual(
          Object.keys(want.files)
            .map((f) => `${want.folder}/${f}`)
            .sort(),
        );
        for (const [name, source] of Object.entries(want.files)) {
          expect(readFileSync(join(dir, want.folder, name)).equals(readFileSync(join(root, source)))).toBe(
            true,
          );
        }
      });
    }
  }

  it("the index lists the archives; other names under /download/bots stay 404", async () => {
    const idx = (await srv.get<{ archives: { language: string; url: string }[] }>("/download/bots")).body;
    expect(idx.archives).toEqual([
      { language: "typescript", url: `${srv.url}/download/bots/typescript.tar.gz` },
      { language: "typescript", url: `${srv.url}/download/bots/typescript.zip` },
      { language: "python", url: `${srv.url}/download/bots/python.tar.gz` },
      { language: "python", url: `${srv.url}/download/bots/python.zip` },
    ]);
    for (const name of ["rust.tar.gz", "typescript.tar", "typescript.tar.gz/x", "python.7z"]) {
      const r = await fetch(`${srv.url}/download/bots/${name}`);
      expect(r.status, name).toBe(404);
      expect(((await r.json()) as { code: string }).code).toBe("not_found");
    }
  });

  it("no starter README or header prints a made-up bot address: each says where the address comes from", () => {
    for (const file of [
      "starters/README.md",
      "starters/typescript/README.md",
      "starters/python/README.md",
      "starters/typescript/bot.ts",
      "starters/python/starter_bot.py",
    ]) {
      const text = readFileSync(join(root, file), "utf8");
      expect(text, file).not.toMatch(/wss:\/\/<ladder( host)?>/);
      expect(text, file).toContain("<bot endpoint>");
    }
    for (const file of ["starters/README.md", "starters/typescript/README.md", "starters/python/README.md"])
      expect(readFileSync(join(root, file), "utf8"), file).toMatch(/token panel/);
  });
});
