// The public web pages of SPEC 1.1 for spectators: title screen, ladder dashboard, bot, match and user pages,
// the bot-building intro and the replay viewer, plus web/ assets and the live-match feed the viewer polls.
// Pages are rendered on the server from the same services the JSON API answers from (server/reads/reads.ts,
// with types inferred from the response schemas), so a page shows exactly what the API says; web/app.js adds
// sorting and live updates, web/viewer.js draws replays. One file each by what they show (home-page.ts,
// ladder-page.ts, guide-pages.ts, bot-pages.ts, match-pages.ts), on what they share (page-kit.ts).
import type { FastifyInstance } from "fastify";
import { botRoutes } from "./bot-pages.ts";
import { guideRoutes } from "./guide-pages.ts";
import { homeRoutes } from "./home-page.ts";
import { ladderRoutes } from "./ladder-page.ts";
import { matchRoutes } from "./match-pages.ts";
import { pageKit, type SitePageServices } from "./page-kit.ts";

export type { SitePageServices } from "./page-kit.ts";

/** Mounts the site's pages, one file each by what they show, on the assets and helpers they share. */
export function pageRoutes(app: FastifyInstance, ctx: SitePageServices): void {
  const kit = pageKit(app, ctx);
  homeRoutes(app, ctx, kit);
  ladderRoutes(app, ctx, kit);
  guideRoutes(app, ctx, kit);
  botRoutes(app, ctx, kit);
  matchRoutes(app, ctx, kit);
}
