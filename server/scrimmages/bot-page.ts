// What scrimmages add to the site's bot page (server/web/page-parts.ts): the owner's scrimmage and batch-test
// controls, an empty section that web/scrimmages.js fills only when the signed-in account owns the bot (the page
// itself is the same for everyone). House bots have none.
import { webAssets } from "../web/assets.ts";
import { html } from "../web/html.ts";
import type { BotPagePart } from "../web/page-parts.ts";

export function scrimmageBotPart(): BotPagePart {
  const assets = webAssets();
  return {
    from: "scrimmages",
    slot: "bottom",
    order: 10,
    render: (bot) =>
      bot.house
        ? ""
        : html`<section id="scrimmages" data-bot="${bot.name}" data-css="${assets.url("account.css")}" aria-labelledby="h-scrimmages" hidden></section>`,
    scripts: (bot) => (bot.house ? [] : [assets.url("scrimmages.js")]),
  };
}
