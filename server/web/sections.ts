// Page sections rendered from the public API's JSON shapes (SPEC 2). The ladder dashboard's live updates
// re-request these same sections, so the server is the only place that renders them.

import type { LeaderboardRowT, LobbyEntryT, MatchT, StatusT } from "../api/responses.ts";
import type { OnAir } from "../spectate/service.ts";
import { sparkline } from "./chart.ts";
import { type Html, html } from "./html.ts";
import { avatar, href, plural, table, td, when } from "./layout.ts";

// The shapes are the response schemas' (api/responses.ts), as the reads service returns them.
export type MatchJ = MatchT;
export type MatchBotJ = MatchT["bots"][number];
export type LeaderboardRowJ = LeaderboardRowT;
export type StatusJ = StatusT;
export type LobbyJ = LobbyEntryT;

export function botLink(name: string, displayName: string, ladder: string | null): Html {
  return html`<a class="name" href="${href(`/bot/${encodeURIComponent(name)}`, ladder)}">${displayName}</a>`;
}

export function userLink(owner: string, house: boolean, ladder: string | null): Html | string {
  if (house) return html`<span class="house">house bot</span>`;
  return html`<a class="name" href="${href(`/user/${encodeURIComponent(owner)}`, ladder)}">${owner}</a>`;
}

/** "Alice beat Bob", "draw", "void": the result in words for a match row. */
export function outcome(m: MatchJ): string {
  if (m.voided) return "void";
  if (m.winner === null) return "draw";
  const w = m.bots.find((b) => b.id === m.winner);
  return w ? `${w.display_name} won` : "decided";
}

/** Leaderboard rows the dashboard renders up front; the rest come on demand (issue 38). */
export const BOARD_TOP = 100;

/**
 * The leaderboard; `trends` holds the latest ratings of the top ten by bot name, drawn as a sparkline each
 * (the dashboard's story at a glance: who is climbing).
 *
 * `top`: render only the first `top` rows, with a link to the whole board (`/ladder?board=all`, rendered by the
 * server, so it works without the page script). The page script fetches the whole board in place when the
 * reader follows that link or sorts by a column, so sorting covers every row (SPEC 1.1).
 */
export function leaderboardSection(
  all: LeaderboardRowJ[],
  ladder: string | null,
  trends: ReadonlyMap<string, number[]> = new Map(),
  /** Each row's 95 % rank interval (issue 33), when known. */
  interval?: (r: LeaderboardRowJ) => { low: number; high: number } | null,
  top: number | null = null,
): Html {
  const rows = top === null ? all : all.slice(0, top);
  const partial = rows.length < all.length;
  const full = href("/ladder", ladder, { board: "all" });
  const board = table({
    id: "leaderboard",
    caption: "Leaderboard",
    captionHidden: true,
    empty: "No ranked bots yet: a version is ranked after 30 rated games.",
    columns: [
      { label: "Rank", numeric: true },
      { label: "Bot" },
      { label: "Version", hideNarrow: true },
      { label: "Owner", hideNarrow: true },
      { label: "Score", numeric: true },
      { label: "Rating", numeric: true, hideNarrow: true },
      ...(trends.size > 0 ? [{ label: "Trend", hideNarrow: true }] : []),
      { label: "W", numeric: true },
      { label: "L", numeric: true },
      { label: "D", numeric: true, hideNarrow: true },
    ],
    rows: rows.map(
      (r) => html`<tr>
${interval ? rankCell(r.rank, interval(r)) : td(r.rank, { numeric: true })}
<td>${botLink(r.name, r.display_name, ladder)}${r.online ? html` <span class="badge online" title="online">online</span>` : ""}</td>
${td(r.version, { hideNarrow: true })}
${td(userLink(r.owner, r.house, ladder), { hideNarrow: true, sort: r.house ? "" : r.owner })}
${td(r.leaderboard_score, { numeric: true })}
${td(html`${r.rating} <span class="muted">±${r.rating_deviation}</span>`, { numeric: true, hideNarrow: true, sort: r.rating })}
${trends.size > 0 ? td(sparkline(trends.get(r.name) ?? [], r.display_name), { hideNarrow: true, sort: trendOf(trends.get(r.name)) }) : ""}
${td(r.wins, { numeric: true })}
${td(r.losses, { numeric: true })}
${td(r.draws, { numeric: true, hideNarrow: true })}
</tr>`,
    ),
  });
  if (!partial) return board;
  return html`<div data-partial-board="${full}">${board}
<p class="muted small" id="leaderboard-more">Showing the top ${rows.length} of ${all.length} ranked versions. <a href="${full}" id="leaderboard-all">Show all ${all.length}</a></p></div>`;
}

export function liveSection(status: StatusJ, ladder: string | null, paced: OnAir[] = []): Html {
  const ms = status.matches.filter((m) => !ladder || m.ladder_id === ladder);
  if (ms.length === 0 && paced.length === 0)
    return html`<p class="empty" id="live-empty">No match is being played right now.</p>`;
  return html`<ul class="live-list" id="live-matches">${ms.map(
    (m) => html`<li data-match="${m.id}">
<span class="live-names"><span class="pulse" aria-hidden="true"></span>${botLink(m.names[0] ?? "", m.display_names[0] ?? "?", ladder)} <span class="muted">vs</span> ${botLink(m.names[1] ?? "", m.display_names[1] ?? "?", ladder)}</span>
<span class="live-meta"><span class="muted">tick <span data-match-tick="${m.id}">${m.tick}</span></span>
<a class="watch" href="${href(`/view/${m.id}`, ladder)}" aria-label="Watch ${m.display_names[0] ?? "?"} versus ${m.display_names[1] ?? "?"} live">▶ Watch</a></span>
</li>`,
  )}${paced.map(({ match: m, tick, ticks }) => {
    const [a, b] = m.bots;
    return html`<li data-match="${m.id}" data-paced>
<span class="live-names">${botLink(a?.name ?? "", a?.display_name ?? "?", ladder)} <span class="muted">vs</span> ${botLink(b?.name ?? "", b?.display_name ?? "?", ladder)}</span>
<span class="live-meta"><span class="badge paced" title="Bot matches end in a moment: this one is replayed at watching speed">replay at watching pace</span>
<span class="muted">tick ${tick} of ${ticks}</span>
<a class="watch" href="${href(`/view/${m.id}`, ladder)}" aria-label="Watch the replay of ${a?.display_name ?? "?"} versus ${b?.display_name ?? "?"} at watching pace">▶ Watch</a></span>
</li>`;
  })}</ul>
<p class="muted small">${plural(status.capacity.running, "match", "matches")} running of ${status.capacity.max} at most.${paced.length > 0 ? " Bot matches end in under a second, so each one that just ended is listed here while its replay plays at watching speed." : ""}</p>`;
}

/**
 * The rank with its 95 % interval under it ("2", then "1–3"), in the rank's own column so the table is no
 * wider; the interval is left out until it is computed.
 */
function rankCell(rank: number, i: { low: number; high: number } | null): Html {
  if (!i) return td(rank, { numeric: true, sort: rank });
  const text = i.low === i.high ? `${i.low}` : `${i.low}–${i.high}`;
  return td(
    html`${rank}<span class="rank-range" title="95 % interval of the rank: ${i.low} to ${i.high}"><span class="visually-hidden">, 95 % interval </span>${text}</span>`,
    { numeric: true, sort: rank },
  );
}

/** A trend's sort key: rating points gained over the games shown. */
function trendOf(ratings: number[] | undefined): number | null {
  return ratings && ratings.length > 0 ? ratings[ratings.length - 1]! - ratings[0]! : null;
}

/** Recent upsets: rated wins whose forecast was below 25 %, newest first, each with its replay. */
export function upsetsSection(list: { match: MatchJ; forecast: number }[], ladder: string | null): Html {
  if (list.length === 0)
    return html`<p class="empty" id="upsets-empty">No upset lately: every recent win went to the favourite or close to it.</p>`;
  return html`<ul class="upset-list" id="upsets">${list.map(({ match: m, forecast }) => {
    const w = m.bots.find((b) => b.id === m.winner)!;
    const l = m.bots.find((b) => b.id !== m.winner)!;
    return html`<li data-match="${m.id}">
<span>${botLink(w.name, w.display_name, ladder)} <span class="muted">beat</span> ${botLink(l.name, l.display_name, ladder)}</span>
<span class="upset-meta"><span class="badge upset" title="the winner's forecast before the game">${Math.round(forecast * 100)}\u00a0%</span>
${when(m.ended)} <a class="watch" href="${href(`/view/${m.id}`, ladder)}" aria-label="Watch the replay of ${w.display_name} beating ${l.display_name}">▶ Replay</a></span>
</li>`;
  })}</ul>`;
}

export function onlineSection(lobby: LobbyJ[], ladder: string | null): Html {
  return table({
    id: "online",
    caption: "Bots online",
    captionHidden: true,
    empty: "No bot is online.",
    columns: [
      { label: "Bot" },
      { label: "State" },
      { label: "Score", numeric: true },
      { label: "Difficulty", hideNarrow: true },
    ],
    rows: lobby.map(
      (b) => html`<tr>
<td>${avatar(b.avatar, b.display_name)} ${botLink(b.name, b.display_name, ladder)}</td>
<td><span class="state state-${b.state}">${b.state}</span></td>
${td(b.leaderboard_score ?? "—", { numeric: true, sort: b.leaderboard_score })}
${td(b.difficulty ?? "", { hideNarrow: true })}
</tr>`,
    ),
  });
}

export function matchesTable(ms: MatchJ[], ladder: string | null, id: string, caption: string): Html {
  return table({
    id,
    caption,
    captionHidden: true,
    empty: "No matches yet.",
    columns: [
      { label: "Ended" },
      { label: "Fighters" },
      { label: "Result" },
      { label: "Map", hideNarrow: true },
      { label: "Ticks", numeric: true, hideNarrow: true },
      { label: "Watch" },
    ],
    rows: ms.map((m) => {
      const [a, b] = m.bots;
      const fighter = (x: MatchBotJ | undefined) =>
        x
          ? html`<span class="${m.winner === x.id ? "winner" : ""}">${botLink(x.name, x.display_name, ladder)}</span>`
          : "?";
      return html`<tr data-match="${m.id}">
${td(when(m.ended), { sort: m.ended })}
<td>${fighter(a)} <span class="muted">vs</span> ${fighter(b)}</td>
<td><a href="${href(`/match/${m.id}`, ladder)}">${outcome(m)}</a> <span class="muted small">${m.reason.replace(/_/g, " ")}</span></td>
${td(m.map, { hideNarrow: true })}
${td(m.final_tick, { numeric: true, hideNarrow: true })}
<td>${m.voided ? html`<span class="muted">—</span>` : html`<a href="${href(`/view/${m.id}`, ladder)}" aria-label="Watch the replay of ${a?.display_name ?? "?"} versus ${b?.display_name ?? "?"}">▶ Replay</a>`}</td>
</tr>`;
    }),
  });
}
