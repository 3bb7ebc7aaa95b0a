// What the site's page files share (pages.ts makes it once): the web assets and the page shell, reads from the
// services that turn an ApiError into a status, the `?ladder=` and `?board=` parameters, the ladder switcher and
// the not-found page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { type Inputs, Kept } from "../kernel/kept.ts";
import { webAssets } from "../web/assets.ts";
import { html } from "../web/html.ts";
import { href, layout, type PageShell, sendPage, sendRendered } from "../web/layout.ts";
import { type LadderJ, ladderSwitcher } from "./ladders.ts";

/** What these pages read (their feature: feature.ts beside this file). */
export type SitePageServices = Pick<
  Services,
  "accounts" | "insight" | "ladders" | "matches" | "pageParts" | "reads"
> &
  Pick<Kernel, "config">;

const LADDER_ID = /^[A-Za-z0-9_-]{1,40}$/;
/** Characters of rendered pages kept in all (two bytes each at most: up to 8 MiB). */
const PAGE_CHARS_KEPT = 4_000_000;

export function pageKit(app: FastifyInstance, ctx: SitePageServices) {
  const assets = webAssets();
  assets.routes(app);
  const shell = {
    css: assets.url("style.css"),
    appJs: assets.url("app.js"),
    icon: assets.url("icon.svg"),
  };

  /**
   * Reads from the services (no HTTP round trip): the body, or the status of the ApiError the service threw
   * (a missing bot is a 404 page, not a crash).
   */
  async function read<T>(
    fn: () => T | Promise<T>,
  ): Promise<{ status: 200; body: T } | { status: number; body: null }> {
    try {
      return { status: 200, body: await fn() };
    } catch (err) {
      if (err instanceof ApiError) return { status: err.status, body: null };
      throw err;
    }
  }
  const base = ctx.config.publicUrl;
  const on = (ladder: string | null) => ladder ?? undefined;

  /** `?board=all`: the dashboard's whole leaderboard rather than its top (BOARD_TOP rows). */
  function wholeBoard(req: FastifyRequest): boolean {
    return (req.query as { board?: unknown }).board === "all";
  }

  function ladderOf(req: FastifyRequest): string | null {
    const l = (req.query as { ladder?: unknown }).ladder;
    return typeof l === "string" && LADDER_ID.test(l) ? l : null;
  }

  const send = sendPage;

  /**
   * Rendered pages kept by what they show (issue 38): a page is laid out again only when one of its inputs is
   * another object or value than when it was last laid out (server/kernel/kept.ts), so a repeated view costs
   * its reads (kept too) and a comparison of its inputs, not its rendering.
   */
  const pages = new Kept<{ text: string; noindex: boolean }>(PAGE_CHARS_KEPT, (p) => p.text.length);
  /**
   * Sends the page `key` names as `page()` lays it out, kept while `inputs` are the same. `inputs` must name
   * everything the page shows: the kept answers it is made from (objects, by identity), and what else it
   * shows as values (small strings and numbers, e.g. a phase hint that moves with the clock).
   */
  function sendKept(reply: FastifyReply, key: string, inputs: Inputs, page: () => PageShell, status = 200) {
    const kept = pages.get(key, inputs, () => {
      const p = page();
      return { text: layout(p), noindex: p.noindex === true };
    });
    return sendRendered(reply, kept.text, status, kept.noindex);
  }

  /** The ladders to switch between: the visible ones, plus the current one when it is hidden. */
  async function laddersFor(ladder: string | null): Promise<LadderJ[]> {
    const res = await read(() => ctx.ladders.listed(on(ladder)).map((l) => l.view(base)));
    return res.body ?? [];
  }
  const switcherFor = async (ladder: string | null, path: string) =>
    ladderSwitcher(await laddersFor(ladder), ladder, path);

  function notFound(reply: FastifyReply, ladder: string | null, what: string, detail: string) {
    return send(
      reply,
      {
        ...shell,
        title: `${what} not found`,
        description: detail,
        page: "not-found",
        ladder,
        noindex: true,
        body: html`<section class="hero small"><h1>${what} not found</h1><p>${detail}</p>
<p><a class="button" href="${href("/ladder", ladder)}">Back to the ladder</a></p></section>`,
      },
      404,
    );
  }

  return {
    assets,
    shell,
    read,
    base,
    on,
    wholeBoard,
    ladderOf,
    send,
    sendKept,
    laddersFor,
    switcherFor,
    notFound,
  };
}

/** What every site page file shares. */
export type PageKit = ReturnType<typeof pageKit>;
