// Tournament pages (issue 34, part 3): the list (/tournaments), one tournament (/tournaments/<id>: its
// standings with tie-breaks and every round's pairings, results and replays) and the staff screen
// (/admin/tournaments: schedule one, cancel one; the form calls the admin operations with the signed-in
// admin's session, the API refuses anyone else). Rendered from the same service the JSON answers from;
// web/tournaments.js refreshes the live part of a tournament page while it is scheduled or running.
import type { FastifyInstance } from "fastify";
import { MAP_NAMES } from "../../engine/rules.ts";
import { ApiError } from "../errors.ts";
import { webAssets } from "../web/assets.ts";
import { type Html, html } from "../web/html.ts";
import { sendPage, shellAssets, table, td, when } from "../web/layout.ts";
import type { TournamentServices } from "./routes.ts";
import type { TournamentService } from "./service.ts";

type TournamentJ = Awaited<ReturnType<TournamentService["get"]>>;
type ListJ = Awaited<ReturnType<TournamentService["list"]>>;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

const TIE_WORDS: Record<string, string> = {
  buchholz: "Buchholz",
  sonneborn_berger: "Sonneborn-Berger (S-B)",
  wins: "wins",
};
const FORMAT = { round_robin: "Round-robin", swiss: "Swiss" } as const;
const pts = (x: number | null) => (x === null ? "—" : String(x).replace(".5", "½").replace(/^0½$/, "½"));

function stateLine(t: TournamentJ): Html {
  const rounds = t.round_count === null ? "" : html` · round ${t.round} of ${t.round_count}`;
  if (t.state === "scheduled")
    return html`scheduled: starts ${when(t.starts_at)}, check-in opens ${when(t.checkin_opens_at)} · ${t.entrants.length} checked in`;
  if (t.state === "running") return html`running${rounds} · ${t.entrants.length} bots`;
  if (t.state === "done") return html`finished ${when(t.ended)}${rounds}`;
  return html`cancelled ${when(t.ended)}`;
}

function standingsTable(t: TournamentJ): Html {
  return table({
    id: "tournament-standings",
    caption: t.final ? "Final standings" : "Standings",
    captionHidden: true,
    empty: t.state === "scheduled" ? "The standings start with the first round." : "No standings.",
    columns: [
      { label: "#", numeric: true },
      { label: "Bot" },
      { label: "Score", numeric: true },
      { label: "W", numeric: true },
      { label: "D", numeric: true },
      { label: "L", numeric: true },
      { label: "Forfeits", numeric: true, hideNarrow: true },
      { label: "Byes", numeric: true, hideNarrow: true },
      { label: "Buchholz", numeric: true },
      { label: "S-B", numeric: true, hideNarrow: true },
    ],
    rows: t.standings.map(
      (
        s,
      ) => html`<tr data-bot="${s.bot}">${td(s.rank, { numeric: true })}<td><a href="/bot/${s.bot}">${s.bot}</a></td>
${td(pts(s.score), { numeric: true, sort: s.score })}${td(s.wins, { numeric: true })}${td(s.draws, { numeric: true })}${td(s.losses, { numeric: true })}
${td(s.forfeits, { numeric: true, hideNarrow: true })}${td(s.byes, { numeric: true, hideNarrow: true })}${td(pts(s.buchholz), { numeric: true, sort: s.buchholz })}${td(pts(s.sonneborn_berger), { numeric: true, hideNarrow: true, sort: s.sonneborn_berger })}</tr>`,
    ),
  });
}

function gameCell(g: TournamentJ["rounds"][number]["pairings"][number]["games"][number]): Html {
  const result =
    g.state !== "done"
      ? g.state
      : g.forfeit
        ? `forfeit${g.winner ? `: ${g.winner} wins` : " (both absent)"}`
        : g.winner
          ? `${g.winner} wins`
          : "draw";
  const links = g.match_id
    ? html` · <a href="/match/${g.match_id}">match</a> · <a href="/view/${g.match_id}">replay</a>`
    : "";
  return html`<li data-game-state="${g.state}">${result}${g.map ? html` <span class="muted small">(${g.map})</span>` : ""}${links}</li>`;
}

function roundsSection(t: TournamentJ): Html {
  if (t.rounds.length === 0)
    return html`<p class="empty" id="tournament-rounds">No round has been paired yet.</p>`;
  return html`<div id="tournament-rounds">${[...t.rounds].reverse().map((r) =>
    table({
      id: `round-${r.round}`,
      caption: `Round ${r.round}`,
      empty: "No pairing.",
      columns: [{ label: "Bot" }, { label: "Result" }, { label: "Opponent" }, { label: "Games" }],
      rows: r.pairings.map(
        (p) => html`<tr data-pairing-state="${p.state}"><td>${p.a}</td>
<td>${p.bye ? "bye" : html`${pts(p.points_a)} – ${pts(p.points_b)}`}</td><td>${p.b ?? "—"}</td>
<td>${p.bye ? (t.format === "swiss" ? "a won pairing" : "rests") : html`<ul class="plain">${p.games.map(gameCell)}</ul>`}</td></tr>`,
      ),
    }),
  )}</div>`;
}

function live(t: TournamentJ): Html {
  const entrants =
    t.state === "scheduled"
      ? html`<p id="tournament-checked-in">${t.entrants.length ? html`Checked in: ${t.entrants.map((e) => e.bot).join(", ")}` : "No bot has checked in yet."}</p>`
      : "";
  return html`<div id="tournament-live" data-state="${t.state}" data-round="${t.round}">
<p id="tournament-state">${stateLine(t)}</p>${t.note ? html`<p class="muted" id="tournament-note">${t.note}</p>` : ""}${entrants}
<section aria-labelledby="h-standings"><h2 id="h-standings">${t.final ? "Final standings" : "Standings"}</h2>${standingsTable(t)}
<p class="muted small">Tie-breaks in order: ${t.tie_breaks.map((x) => TIE_WORDS[x] ?? x).join(", ")}. Scoring: ${t.scoring}.</p></section>
<section aria-labelledby="h-rounds"><h2 id="h-rounds">Rounds</h2>${roundsSection(t)}</section></div>`;
}

function body(t: TournamentJ): Html {
  return html`<header class="page-head"><h1>${t.name}</h1>
<p>${t.rated ? "Rated " : ""}${FORMAT[t.format]} on the ladder <a href="/ladder?ladder=${t.ladder_id}">${t.ladder_id}</a> · ${t.games_per_pairing === 1 ? "one game" : `${t.games_per_pairing} games`} per pairing · a bot absent ${t.forfeit_after_s} s forfeits its game</p></header>
${live(t)}
<p class="muted small" id="tournament-rating">${
    t.rated
      ? html`Rated: this tournament's games are rated games of the ladder (mode <code>ranked</code>): they count in its ratings, forecasts and leaderboard, and in the owners' quotas.`
      : html`Unrated: tournament games (mode <code>tournament</code>) count in no rating, forecast, leaderboard or quota of the ladder.`
  } <a href="/api/tournaments/${t.id}">This tournament as JSON</a> · <a href="/tournaments">All tournaments</a> · <a href="/guide/competitions">How tournaments work</a></p>`;
}

function listBody(list: ListJ): Html {
  return html`<header class="page-head"><h1>Tournaments</h1>
<p>Round-robin and Swiss tournaments the staff schedule on a ladder. Bots connected during the check-in window enter.</p></header>
${table({
  id: "tournament-list",
  caption: "Tournaments",
  captionHidden: true,
  empty: "No tournament has been scheduled yet.",
  columns: [
    { label: "Name" },
    { label: "Format" },
    { label: "Ladder", hideNarrow: true },
    { label: "State" },
    { label: "Starts", hideNarrow: true },
    { label: "Bots", numeric: true },
  ],
  rows: list.map(
    (
      t,
    ) => html`<tr data-tournament="${t.id}"><td><a href="/tournaments/${t.id}">${t.name}</a></td><td>${FORMAT[t.format]}</td>
${td(t.ladder_id, { hideNarrow: true })}<td>${t.state}${t.state === "running" && t.round_count ? ` (round ${t.round} of ${t.round_count})` : ""}</td>
${td(when(t.starts_at), { hideNarrow: true, sort: t.starts_at })}${td(t.entrants, { numeric: true })}</tr>`,
  ),
})}`;
}

function adminBody(list: ListJ): Html {
  const open = list.filter((t) => t.state === "scheduled" || t.state === "running");
  return html`<header class="page-head"><h1>Tournaments</h1><p><a href="/admin">Admin console</a> · <a href="/tournaments">Public list</a></p></header>
<section aria-labelledby="h-new" id="tournament-admin"><h2 id="h-new">Schedule a tournament</h2>
<form id="tournament-form" class="stack">
<label>Name <input name="name" required maxlength="100"></label>
<label>Ladder <input name="ladder" required maxlength="64" value="public"></label>
<label>Format <select name="format"><option value="swiss">Swiss</option><option value="round_robin">Round-robin</option></select></label>
<label>Rounds (Swiss) <input name="rounds" type="number" min="1" max="20" value="5"></label>
<label>Games per pairing <input name="games_per_pairing" type="number" min="1" max="9" value="1"></label>
<label>Starts at (UTC) <input name="starts_at" type="datetime-local" required></label>
<label>Check-in window (minutes before the start) <input name="checkin_minutes" type="number" min="0" max="1440" value="15"></label>
<label>Forfeit after (seconds absent) <input name="forfeit_after_s" type="number" min="1" max="3600" value="120"></label>
<label><input name="rated" type="checkbox"> Rated: the games count in the ladder's ratings (off: unrated, the ladder's ratings are left alone)</label>
<p class="muted small">Maps turn by round: ${MAP_NAMES.join(", ")} (a rated tournament's games take the pair's least-played map, as every rated game does).</p>
<button type="submit" class="button primary">Schedule</button>
</form><p class="status" role="status" id="tournament-form-status"></p></section>
<section aria-labelledby="h-open"><h2 id="h-open">Scheduled and running</h2>
${
  open.length === 0
    ? html`<p class="empty" id="tournament-open">None.</p>`
    : html`<ul id="tournament-open">${open.map((t) => html`<li><a href="/tournaments/${t.id}">${t.name}</a> · ${t.state} <button type="button" class="button small-button" data-cancel="${t.id}">Cancel</button></li>`)}</ul>`
}</section>`;
}

export function tournamentPages(http: FastifyInstance, svc: TournamentServices): void {
  const shell = shellAssets();
  const assets = webAssets();
  const scripts = [assets.url("tournaments.js")];
  http.get("/tournaments", async (_req, reply) =>
    sendPage(reply, {
      ...shell,
      page: "tournaments",
      ladder: null,
      scripts,
      title: "Tournaments",
      description: "Round-robin and Swiss tournaments of the ladder's bots.",
      body: listBody(await svc.tournaments.list()),
    }),
  );
  http.get("/tournaments/:id", async (req, reply) => {
    const { id } = req.params as { id: string };
    let t: TournamentJ | null = null;
    try {
      if (ID.test(id)) t = await svc.tournaments.get(id);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
    const common = { ...shell, page: "tournament", ladder: null, scripts };
    if (!t)
      return sendPage(
        reply,
        {
          ...common,
          noindex: true,
          title: "Tournament not found",
          description: "No such tournament.",
          body: html`<h1>Tournament not found</h1><p>There is no tournament ${JSON.stringify(id)}.</p>`,
        },
        404,
      );
    return sendPage(reply, {
      ...common,
      title: t.name,
      description: `${FORMAT[t.format]} tournament on the ladder ${t.ladder_id}: ${t.state}.`,
      body: body(t),
    });
  });
  http.get("/admin/tournaments", async (_req, reply) =>
    sendPage(reply, {
      ...shell,
      page: "admin-tournaments",
      ladder: null,
      noindex: true,
      scripts,
      styles: [assets.url("account.css")],
      title: "Schedule tournaments",
      description: "Schedule and cancel tournaments (admins).",
      body: adminBody(await svc.tournaments.list()),
    }),
  );
}
