// The bot page (`/bot/<name>`: versions, ratings, health, recent matches, and the parts other features add to it
// through server/web/page-parts.ts) and the user page (`/user/<handle>`).
import type { FastifyInstance } from "fastify";
import {
  HEALTH_NOTE,
  healthTable,
  provisionalBadge,
  provisionalSentence,
  standing,
} from "../insight/page-parts.ts";
import { type RatingPoint, ratingChart } from "../web/chart.ts";
import { type Html, html } from "../web/html.ts";
import { avatar, href, plural, table, td, when } from "../web/layout.ts";
import { matchesTable, userLink } from "../web/sections.ts";
import { ladderSwitcher } from "./ladders.ts";
import type { PageKit, SitePageServices } from "./page-kit.ts";

export function botRoutes(app: FastifyInstance, ctx: SitePageServices, kit: PageKit): void {
  const { read, shell, on, ladderOf, sendKept, laddersFor, notFound } = kit;
  /**
   * The drawn rating chart by its points (the reads keep a bot's chart, the same array, until the next stored
   * result): up to 1,000 points drawn once, not per view (issue 38).
   */
  const charts = new WeakMap<readonly RatingPoint[], { title: string; svg: Html }>();
  function chartOf(points: RatingPoint[], title: string): Html {
    const hit = charts.get(points);
    if (hit?.title === title) return hit.svg;
    const svg = ratingChart(points, title);
    charts.set(points, { title, svg });
    return svg;
  }
  // ---- bot page -------------------------------------------------------------------------------------------
  app.get("/bot/:name", async (req, reply) => {
    const ladder = ladderOf(req);
    const name = (req.params as { name: string }).name;
    const res = await read(() => ctx.reads.bot(name, on(ladder)));
    if (!res.body) return notFound(reply, ladder, "Bot", `There is no bot named ${JSON.stringify(name)}.`);
    const bot = res.body;
    // The sections other features add (server/web/page-parts.ts): insight's at the top, the owner's
    // scrimmage controls and replay download at the bottom.
    const [history, parts] = await Promise.all([
      read(() => ctx.reads.ratings(bot.name, on(ladder))),
      ctx.pageParts.botPage(bot, ladder),
    ]);
    const points: RatingPoint[] = history.body ? history.body.points : [];
    // Its matches being played now, each with a link to watch it live.
    const playing = ctx.reads.status().matches.filter((m) => m.names.includes(bot.name));
    const ladders = await laddersFor(ladder);
    // The bot's answer and its chart are kept answers (the same objects until they change); the parts and
    // the matches being played are compared by what they show.
    const inputs = [
      bot,
      history.body,
      parts.top.value,
      parts.bottom.value,
      parts.scripts.join(" "),
      JSON.stringify(playing),
      JSON.stringify(ladders),
    ];
    const key = `bot\0${ladder ?? ""}\0${bot.name}`;
    return sendKept(reply, key, inputs, () => {
      const versions = table({
        id: "versions",
        caption: "Versions",
        captionHidden: true,
        empty: "No versions yet: a version appears when the bot first queues with it.",
        columns: [
          { label: "Version" },
          { label: "Rank", numeric: true },
          { label: "Score", numeric: true },
          { label: "Rating", numeric: true },
          { label: "Rated games", numeric: true, hideNarrow: true },
          { label: "W", numeric: true },
          { label: "L", numeric: true },
          { label: "D", numeric: true, hideNarrow: true },
          { label: "Win rate", numeric: true, hideNarrow: true },
          { label: "Created", hideNarrow: true },
        ],
        rows: bot.versions.map(
          (v) => html`<tr>
<td>${v.label}${v.retired ? html` <span class="badge">retired</span>` : ""}${bot.online_version === v.label ? html` <span class="badge online">online</span>` : ""}</td>
${td(v.rank ?? "—", { numeric: true, sort: v.rank })}
${td(v.leaderboard_score, { numeric: true })}
${td(html`${v.rating} <span class="muted">±${v.rating_deviation}</span>${provisionalBadge(v.provisional)}`, { numeric: true, sort: v.rating })}
${td(html`<span data-standing="${v.label}">${standing(v)}</span>`, { numeric: true, hideNarrow: true, sort: v.rated_games })}
${td(v.wins, { numeric: true })}
${td(v.losses, { numeric: true })}
${td(v.draws, { numeric: true, hideNarrow: true })}
${td(v.win_rate === null ? "—" : `${Math.round(v.win_rate * 100)} %`, { numeric: true, hideNarrow: true, sort: v.win_rate })}
${td(when(v.created), { hideNarrow: true, sort: v.created })}
</tr>`,
        ),
      });
      const health = healthTable(bot.versions);
      return {
        ...shell,
        title: bot.display_name,
        description: `${bot.display_name} on the arena ladder: versions, ratings, health and recent matches.`,
        page: "bot",
        ladder,
        switcher: ladderSwitcher(ladders, ladder, `/bot/${encodeURIComponent(bot.name)}`),
        body: html`<header class="page-head">
<h1>${avatar(bot.avatar, bot.display_name)} ${bot.display_name}${bot.display_name !== bot.name ? html` <span class="muted small">${bot.name}</span>` : ""}</h1>
<p>${bot.house ? html`<span class="badge house">house bot</span>` : html`by ${userLink(bot.owner, false, ladder)}`}
· ${bot.online ? html`<span class="badge online">online${bot.online_version ? ` (${bot.online_version})` : ""}</span>` : html`<span class="badge">offline</span>`}
· registered ${when(bot.created)}</p>
</header>
${
  playing.length > 0
    ? html`<section class="playing-now" aria-labelledby="h-playing"><h2 id="h-playing">Playing now</h2><ul class="live-list">${playing.map(
        (
          m,
        ) => html`<li data-match="${m.id}"><span class="live-names"><span class="pulse" aria-hidden="true"></span>${m.display_names[0]} <span class="muted">vs</span> ${m.display_names[1]}</span>
<span class="live-meta"><span class="muted">tick <span data-match-tick="${m.id}">${m.tick}</span></span>
<a class="watch" href="${href(`/view/${m.id}`, ladder)}" aria-label="Watch ${m.display_names[0]} versus ${m.display_names[1]} live">▶ Watch</a></span></li>`,
      )}</ul></section>`
    : ""
}
${parts.top}
<section aria-labelledby="h-rating"><h2 id="h-rating">Rating history</h2>${chartOf(points, `Rating of ${bot.display_name} over its rated games`)}</section>
<section aria-labelledby="h-versions"><h2 id="h-versions">Versions</h2>
<p class="muted small" id="provisional-note">${provisionalSentence(bot.qualifying_games)}</p>${versions}</section>
<section aria-labelledby="h-health"><h2 id="h-health">Health</h2>
<p class="muted small">${HEALTH_NOTE}</p>${health}</section>
<section aria-labelledby="h-recent"><h2 id="h-recent">Recent matches</h2>${matchesTable(bot.recent_matches, ladder, "bot-matches", "Recent matches")}</section>
${parts.bottom}`,
        scripts: parts.scripts,
      };
    });
  });

  // ---- user page ------------------------------------------------------------------------------------------
  app.get("/user/:handle", async (req, reply) => {
    const ladder = ladderOf(req);
    const handle = (req.params as { handle: string }).handle;
    const res = (await ctx.accounts.hiddenUser(handle))
      ? { status: 404, body: null }
      : await read(() => ctx.reads.user(handle, on(ladder)));
    if (!res.body) return notFound(reply, ladder, "User", `There is no user ${JSON.stringify(handle)}.`);
    const u = res.body;
    const ladders = await laddersFor(ladder);
    // The owner's answer is kept (the same object until a bot, a result or who is online changes it).
    const inputs = [u, JSON.stringify(ladders)];
    return sendKept(reply, `user\0${ladder ?? ""}\0${u.handle}`, inputs, () => ({
      ...shell,
      title: u.handle,
      description: `Bots of ${u.handle} on the arena ladder.`,
      page: "user",
      ladder,
      switcher: ladderSwitcher(ladders, ladder, `/user/${encodeURIComponent(u.handle)}`),
      body: html`<header class="page-head"><h1>${u.handle}</h1><p class="muted">Member since ${when(u.created)} · ${plural(u.bots.length, "bot")}</p></header>
<section aria-labelledby="h-bots"><h2 id="h-bots">Bots</h2>${table({
        id: "user-bots",
        caption: "Bots",
        captionHidden: true,
        empty: "No bots.",
        columns: [
          { label: "Bot" },
          { label: "Version", hideNarrow: true },
          { label: "Rank", numeric: true },
          { label: "Score", numeric: true },
          { label: "W", numeric: true },
          { label: "L", numeric: true },
          { label: "D", numeric: true, hideNarrow: true },
        ],
        rows: u.bots.map(
          (b) => html`<tr>
<td>${avatar(b.avatar, b.display_name)} <a class="name" href="${href(`/bot/${encodeURIComponent(b.name)}`, ladder)}">${b.display_name}</a>${b.online ? html` <span class="badge online">online</span>` : ""}${b.retired ? html` <span class="badge">retired</span>` : ""}</td>
${td(b.version ?? "—", { hideNarrow: true })}
${td(b.rank ?? "—", { numeric: true, sort: b.rank })}
${td(b.leaderboard_score ?? "—", { numeric: true, sort: b.leaderboard_score })}
${td(b.wins, { numeric: true })}
${td(b.losses, { numeric: true })}
${td(b.draws, { numeric: true, hideNarrow: true })}
</tr>`,
        ),
      })}</section>`,
    }));
  });
}
