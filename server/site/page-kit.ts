// What the site's page files share (pages.ts makes it once): the web assets and the page shell, reads from the
// services that turn an ApiError into a status, the `?ladder=` and `?board=` parameters, the ladder switcher and
// the not-found page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { webAssets } from "../web/assets.ts";
import { html } from "../web/html.ts";
import { href, sendPage } from "../web/layout.ts";
import { type LadderJ, ladderSwitcher } from "./ladders.ts";

/** What these pages read (their feature: feature.ts beside this file). */
export type SitePageServices = Pick<
  Services,
  "accounts" | "insight" | "ladders" | "matches" | "pageParts" | "reads"
> &
  Pick<Kernel, "config">;

const LADDER_ID = /^[A-Za-z0-9_-]{1,40}$/;

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

  return { assets, shell, read, base, on, wholeBoard, ladderOf, send, laddersFor, switcherFor, notFound };
}

/** What every site page file shares. */
export type PageKit = ReturnType<typeof pageKit>;
