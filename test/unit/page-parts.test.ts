// Parts a feature adds to the site's bot page (server/web/page-parts.ts): placed by slot and order whatever
// order they were added in, one line apart, with their scripts in part order; a part whose read fails with an
// ApiError is left out, any other failure is the page's error.
import { describe, expect, it } from "vitest";
import type { BotT } from "../../server/api/responses.ts";
import { errors } from "../../server/errors.ts";
import { html } from "../../server/web/html.ts";
import { PageParts } from "../../server/web/page-parts.ts";

const bot = { name: "alpha", house: false } as BotT;

describe("bot page parts", () => {
  it("places each part in its slot by order, one line apart, with the scripts in part order", async () => {
    const parts = new PageParts();
    parts.addToBotPage({
      from: "c",
      slot: "bottom",
      order: 20,
      render: () => html`<p>c</p>`,
      scripts: () => ["c.js"],
    });
    parts.addToBotPage({ from: "a", slot: "top", order: 20, render: async () => html`<p>a2</p>` });
    parts.addToBotPage({
      from: "b",
      slot: "bottom",
      order: 10,
      render: (b) => html`<p>${b.name}</p>`,
      scripts: () => ["b.js"],
    });
    parts.addToBotPage({ from: "a", slot: "top", order: 10, render: () => "" });
    const r = await parts.botPage(bot, null);
    expect(r.top.value).toBe("\n<p>a2</p>");
    expect(r.bottom.value).toBe("<p>alpha</p>\n<p>c</p>");
    expect(r.scripts).toEqual(["b.js", "c.js"]);
  });

  it("leaves out a part whose read is refused, and fails the page on any other error", async () => {
    const parts = new PageParts();
    parts.addToBotPage({
      from: "x",
      slot: "top",
      order: 1,
      render: () => {
        throw errors.noSuchBot("alpha");
      },
    });
    parts.addToBotPage({ from: "y", slot: "top", order: 2, render: () => html`<p>y</p>` });
    expect((await parts.botPage(bot, null)).top.value).toBe("\n<p>y</p>");
    parts.addToBotPage({
      from: "z",
      slot: "bottom",
      order: 1,
      render: () => {
        throw new Error("broken");
      },
    });
    await expect(parts.botPage(bot, null)).rejects.toThrow("broken");
  });
});
