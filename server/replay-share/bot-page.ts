// What replay sharing adds to the site's bot page (server/web/page-parts.ts): the owner's download of the bot's
// stored replays (GET /api/account/bots/<name>/replays), hidden until web/bot-replays.js finds the signed-in
// account owns the bot: the page itself is the same for everyone. House bots have none.
import { webAssets } from "../web/assets.ts";
import { html } from "../web/html.ts";
import type { BotPagePart } from "../web/page-parts.ts";

export function ownerReplaysBotPart(): BotPagePart {
  const assets = webAssets();
  return {
    from: "replayShare",
    slot: "bottom",
    order: 20,
    render: (bot) =>
      bot.house
        ? ""
        : html`<section id="owner-replays" aria-labelledby="h-owner-replays" data-bot="${bot.name}" hidden>
<h2 id="h-owner-replays">Your replays</h2>
<p class="muted small">Every stored replay of this bot in one zip (each <code>&lt;match_id&gt;.jsonl.gz</code>, for the
<a href="/guide/replays-and-data">viewer, the simulator and scripts</a>).</p>
<form id="owner-replays-form" class="inline-form">
<label>Version <select name="version"><option value="">all</option>${bot.versions.map((v) => html`<option value="${v.label}">${v.label}</option>`)}</select></label>
<label>Opponent <input name="opponent" type="text" maxlength="24" placeholder="any" autocomplete="off"></label>
<button type="submit" class="button">Download replays (.zip)</button>
<span id="owner-replays-status" role="status" class="small"></span>
</form></section>`,
    scripts: (bot) => (bot.house ? [] : [assets.url("bot-replays.js")]),
  };
}
