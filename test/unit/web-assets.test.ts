// The web/ asset set (server/web/assets.ts): a script's imports of its neighbours are served with their content
// hashes, and a script's own hash covers theirs, so a page's modules are cached as one consistent set.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { WebAssets } from "../../server/web/assets.ts";

function webDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "web-assets-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const hashOf = (url: string) => url.split("?v=")[1];

describe("web assets", () => {
  const files = {
    "page.js":
      'import { a } from "./shared.js";\nimport "./screen.js";\nconst later = () => import("./screen.js");\n',
    "screen.js": "import { a } from './shared.js';\nexport const b = a;\n",
    "shared.js": "export const a = 1;\n",
    "style.css": 'body { background: url("./x.js"); }\n',
  };

  it("serves a script's imports with their hashes, and its hash changes when an import's content does", async () => {
    const one = new WebAssets(webDir(files));
    const shared = hashOf(one.url("shared.js"));
    const screen = hashOf(one.url("screen.js"));
    const app = Fastify();
    one.routes(app);
    const page = await app.inject({ method: "GET", url: one.url("page.js") });
    expect(page.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(page.body).toBe(
      `import { a } from "./shared.js?v=${shared}";\nimport "./screen.js?v=${screen}";\nconst later = () => import("./screen.js?v=${screen}");\n`,
    );
    expect((await app.inject({ method: "GET", url: one.url("screen.js") })).body).toContain(
      `from './shared.js?v=${shared}'`,
    );
    // Stylesheets are served as they are.
    expect((await app.inject({ method: "GET", url: one.url("style.css") })).body).toBe(files["style.css"]);
    await app.close();

    const two = new WebAssets(webDir({ ...files, "shared.js": "export const a = 2;\n" }));
    expect(hashOf(two.url("shared.js"))).not.toBe(shared);
    expect(hashOf(two.url("screen.js"))).not.toBe(screen);
    expect(hashOf(two.url("page.js"))).not.toBe(hashOf(one.url("page.js")));
    expect(hashOf(two.url("style.css"))).toBe(hashOf(one.url("style.css")));
  });

  it("refuses an import of a file that is not there, and an import cycle", () => {
    expect(() => new WebAssets(webDir({ "a.js": 'import "./gone.js";\n' }))).toThrow(
      "web/a.js imports ./gone.js, which is not in web/",
    );
    expect(
      () => new WebAssets(webDir({ "a.js": 'import "./b.js";\n', "b.js": 'import "./a.js";\n' })),
    ).toThrow("cycle");
  });
});
