// What insight adds to the site's bot page (server/web/page-parts.ts): the notice of a version weaker than its
// predecessor, then the ranked version's rank interval with its nearest rivals, both below the page's header.

import { html } from "../web/html.ts";
import type { BotPagePart } from "../web/page-parts.ts";
import { regressionNotice, rivalsSection } from "./pages.ts";
import type { InsightServices } from "./routes.ts";

export function insightBotParts(insight: InsightServices): BotPagePart[] {
  return [
    {
      from: "insight",
      slot: "top",
      order: 10,
      render: async (bot) => regressionNotice(await insight.regressions.ofBotNamed(bot.name, bot.ladder_id)),
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
        return html`<section aria-labelledby="h-standing"><h2 id="h-standing">Rank and rivals</h2>${rivalsSection(
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
      },
    },
  ];
}
