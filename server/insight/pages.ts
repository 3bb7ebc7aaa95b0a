// What the site's pages show of insight (issue 33): the rank interval, the bot page's rivals table, the
// dashboard's win-chance heat map and the regression notice. Rendered on the server from the same numbers the
// API answers with; server/site/pages.ts places them.
//
// The heat map is a table (row header: the bot; column headers: the bots it meets), so a screen reader reads
// "row beats column: 62 %" cell by cell, and every cell prints its number: colour is a second carrier, never
// the only one. A cell whose whole interval is above or below one half also carries ▲ or ▼ (the matchup is
// clearly decided), so the chart reads at a glance without colour too. Colours are a blue-orange diverging
// scale in eleven steps of classes (the pages' CSP allows no inline style), chosen to stay apart for the
// common colour-vision deficiencies.
import { type Html, html } from "../web/html.ts";
import { href, table, td } from "../web/layout.ts";
import type { Heatmap, Rival } from "./board.ts";
import { type Regression, regressionSentence } from "./regression.ts";
import type { RankInterval, WinChance } from "./uncertainty.ts";

const pct = (p: number) => `${Math.round(p * 100)}`;

/** "1–3", or "1" when the interval is one rank; "—" when there is none yet. */
export function rankRange(i: Pick<RankInterval, "low" | "high"> | null): string {
  if (!i) return "—";
  return i.low === i.high ? `${i.low}` : `${i.low}–${i.high}`;
}

/** ▲ when the whole interval is above one half, ▼ when below, nothing when it straddles it. */
function verdict(w: WinChance): "▲" | "▼" | "" {
  if (w.low > 0.5) return "▲";
  if (w.high < 0.5) return "▼";
  return "";
}

/** The heat class of a chance: 0 (sure loss) to 10 (sure win), 5 around one half. */
const heat = (p: number) => `heat-${Math.max(0, Math.min(10, Math.round(p * 10)))}`;

function winText(a: string, b: string, w: WinChance): string {
  return `${a} beats ${b}: ${pct(w.p)} % (95 % interval ${pct(w.low)} to ${pct(w.high)} %)`;
}

/** The dashboard's heat map of the top rows' win chances, with a legend and a summary in words. */
export function heatmapSection(m: Heatmap, ladder: string | null): Html {
  if (m.rows.length < 2)
    return html`<p class="empty" id="matchup-empty">The matrix needs two ranked bots: a version is ranked after 30 rated games.</p>`;
  const names = m.rows.map((r) => r.display_name);
  // The summary: the surest favourite and the most even pair, in words (the chart's text alternative).
  let surest = { p: -1, a: 0, b: 0 };
  let even = { d: 2, a: 0, b: 0 };
  for (let a = 0; a < m.wins.length; a++)
    for (let b = 0; b < m.wins.length; b++) {
      const w = m.wins[a]![b];
      if (!w) continue;
      if (w.p > surest.p) surest = { p: w.p, a, b };
      if (a < b && Math.abs(w.p - 0.5) < even.d) even = { d: Math.abs(w.p - 0.5), a, b };
    }
  const sw = m.wins[surest.a]![surest.b]!;
  const ew = m.wins[even.a]![even.b]!;
  return html`<figure class="heatmap" id="matchups">
<div class="table-wrap"><table class="heatmap-table" id="matchup-matrix">
<caption>Chance that the bot of the row beats the bot of the column, in per cent, for the top ${m.rows.length} of the leaderboard. ▲: clearly favoured, ▼: clearly the underdog (the whole 95 % interval is on one side of 50 %).</caption>
<thead><tr><th scope="col"><span class="visually-hidden">Row bot, its rank and 95 % rank interval</span></th>${m.rows.map(
    (r) =>
      html`<th scope="col" class="heat-col"><abbr title="${r.display_name} (${r.version})">${r.rank}</abbr><span class="visually-hidden"> ${r.display_name}</span></th>`,
  )}</tr></thead>
<tbody>${m.rows.map(
    (r, a) =>
      html`<tr><th scope="row"><span class="heat-rank">${r.rank}</span> <a class="name" href="${href(`/bot/${encodeURIComponent(r.name)}`, ladder)}">${r.display_name}</a> <span class="muted small" title="95 % interval of the rank">rank ${rankRange(r.rank_low === null || r.rank_high === null ? null : { low: r.rank_low, high: r.rank_high })}</span></th>${m.wins[
        a
      ]!.map((w, b) =>
        w
          ? html`<td class="heat ${heat(w.p)}" title="${winText(names[a]!, names[b]!, w)}" aria-label="${winText(names[a]!, names[b]!, w)}">${pct(w.p)}${verdict(w) ? html`<span class="heat-mark" aria-hidden="true">${verdict(w)}</span>` : ""}</td>`
          : html`<td class="heat heat-self" aria-label="${names[a]} against itself">—</td>`,
      )}</tr>`,
  )}</tbody>
</table></div>
<figcaption class="small"><span class="heat-legend" aria-hidden="true"><span class="heat heat-0">0</span><span class="heat heat-2">20</span><span class="heat heat-5">50</span><span class="heat heat-8">80</span><span class="heat heat-10">100</span></span>
${names[surest.a]} is the surest favourite: ${pct(sw.p)} % against ${names[surest.b]}. The most even pair is ${names[even.a]} and ${names[even.b]} (${pct(ew.p)} % to ${100 - Number(pct(ew.p))} %). From the ratings and their uncertainty: <a href="/guide/ladder#rank-intervals-and-matchups">how it is computed</a>.</figcaption>
</figure>`;
}

/** The bot page's rivals: the chance to beat each of the ten nearest ranked versions, with its interval. */
export function rivalsSection(
  own: { display_name: string; version: string; rank: number; interval: RankInterval | null; ranked: number },
  rivals: readonly Rival[],
  ladder: string | null,
): Html {
  return html`<p id="rank-interval">Version ${own.version} is ranked <strong>${own.rank}</strong>; with 95 % confidence its rank is between <strong>${own.interval ? own.interval.low : "—"}</strong> and <strong>${own.interval ? own.interval.high : "—"}</strong> of ${own.ranked}${own.interval ? "" : " (being computed)"}.</p>
${table({
  id: "rivals",
  caption: `Chance that ${own.display_name} beats its ${rivals.length} nearest rivals by rating`,
  captionHidden: false,
  empty: "No other ranked bot yet.",
  columns: [
    { label: "Rival" },
    { label: "Rank", numeric: true },
    { label: "Rating", numeric: true, hideNarrow: true },
    { label: "Chance to win", numeric: true },
    { label: "95 % interval", numeric: true },
  ],
  rows: rivals.map(
    (r) => html`<tr>
<td><a class="name" href="${href(`/bot/${encodeURIComponent(r.name)}`, ladder)}">${r.display_name}</a> <span class="muted small">${r.version}</span></td>
${td(r.rank, { numeric: true })}
${td(html`${r.rating} <span class="muted">±${r.rating_deviation}</span>`, { numeric: true, hideNarrow: true, sort: r.rating })}
${td(html`${pct(r.win.p)} %${verdict(r.win) ? html` <span class="heat-mark" title="${verdict(r.win) === "▲" ? "clearly favoured" : "clearly the underdog"}">${verdict(r.win)}</span>` : ""}`, { numeric: true, sort: r.win.p })}
${td(`${pct(r.win.low)}–${pct(r.win.high)} %`, { numeric: true, sort: r.win.low })}
</tr>`,
  ),
})}`;
}

/** The regression notice of a bot's (or an account's) versions; nothing when there is none. */
export function regressionNotice(list: readonly Regression[]): Html | "" {
  if (list.length === 0) return "";
  return html`<div class="notice warning" role="status" id="regressions"><h2 id="h-regressions">A new version is weaker</h2><ul>${list.map(
    (r) => html`<li data-version="${r.version}" data-ladder="${r.ladder}">${regressionSentence(r)}</li>`,
  )}</ul></div>`;
}
