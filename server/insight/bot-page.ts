// What insight adds to the site's bot page (server/web/page-parts.ts): the notice of a version weaker than its
// predecessor, then the ranked version's rank interval with its nearest rivals, both below the page's header.
// Each is rendered once per answer it shows (the regressions and the rivals are kept answers: the same objects
// until the fit, the board or the intervals change), not per view.

import { type Html, html } from "../web/html.ts";
import type { BotPagePart } from "../web/page-parts.ts";
import { regressionNotice, rivalsSection } from "./pages.ts";
import type { InsightServices } from "./routes.ts";

export function insightBotParts(insight: InsightServices): BotPagePart[] {
  const notices = new WeakMap<object, Html | "">();
  const standings = new WeakMap<object, { inputs: unknown[]; html: Html }>();
  return [
    {
      from: "insight",
      slot: "top",
      order: 10,
      render: async (bot) => {
        const list = await insight.regressions.ofBotNamed(bot.name, bot.ladder_id);
        let notice = notices.get(list);
        if (notice === undefined) {
          notice = regressionNotice(list);
          notices.set(list, notice);
        }
        return notice;
      },
    },
    {
      from: "insight",
      slot: "top",
      order: 20,
      render: async (bot, ladder) => {
        const [near, ranks] = await Promise.all([
          insight.board.rivals(ladder ?? undefined, bot.name),
          insight.board.intervals(ladder ?? undefined),
        ]);
        if (!near) return "";
        const inputs = [ranks.intervalSet, ranks.rows.length, bot.display_name, ladder];
        const kept = standings.get(near);
        if (kept?.inputs.every((v, i) => v === inputs[i])) return kept.html;
        const made = html`<section aria-labelledby="h-standing"><h2 id="h-standing">Rank and rivals</h2>${rivalsSection(
          {
            display_name: bot.display_name,
            version: near.row.version,
            rank: near.row.rank,
            interval: ranks.of(near.row),
            ranked: ranks.rows.length,
          },
          near.rivals,
          ladder,
        )}</section>`;
        standings.set(near, { inputs, html: made });
        return made;
      },
    },
  ];
}
