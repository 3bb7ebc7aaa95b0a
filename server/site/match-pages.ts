// The match page (`/match/<id>`), the replay viewer (`/view/<id>`, and `/view` for a replay file on the reader's
// disk) and the live feed the viewer polls (`/api/matches/<id>/live`).
import type { FastifyInstance } from "fastify";
import { parseMap, RULES } from "../../engine/rules.ts";
import {
  diagnosticsPanel,
  fighterTurnCell,
  provisionalBadge,
  provisionalSentence,
  standing,
} from "../insight/page-parts.ts";
import { QUALIFYING_GAMES, versionKey } from "../ratings/book.ts";
import { pairingSentence } from "../store/pairing-record.ts";
import { html, jsonScript } from "../web/html.ts";
import { href, table, td, when } from "../web/layout.ts";
import { outcome } from "../web/sections.ts";
import { ladderParam, ladderSwitcher, playedOn } from "./ladders.ts";
import type { PageKit, SitePageServices } from "./page-kit.ts";

const MATCH_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function matchRoutes(app: FastifyInstance, ctx: SitePageServices, kit: PageKit): void {
  const { assets, shell, read, base, ladderOf, send, laddersFor, notFound } = kit;
  // ---- match page -----------------------------------------------------------------------------------------
  app.get("/match/:id", async (req, reply) => {
    const ladder = ladderOf(req);
    const id = (req.params as { id: string }).id;
    const running = MATCH_ID.test(id) ? ctx.matches.get(id) : undefined;
    const res = MATCH_ID.test(id) ? await read(() => ctx.reads.match(id)) : { status: 404, body: null };
    if (!res.body && !running)
      return notFound(reply, ladder, "Match", `There is no match ${JSON.stringify(id)}.`);
    if (!res.body && running) {
      const names = running.seats.map((s) => s.participant.bot.display_name);
      return send(reply, {
        ...shell,
        title: `${names[0]} vs ${names[1]} (live)`,
        description: "A match being played now.",
        page: "match",
        ladder,
        body: html`<h1>${names[0]} <span class="muted">vs</span> ${names[1]}</h1>
<p><span class="badge online">being played</span> on ${running.setup.map}, tick ${running.tick}.</p>
<p><a class="button primary" href="${href(`/view/${id}`, ladder)}">▶ Watch live</a></p>`,
      });
    }
    const m = res.body!;
    const [stats, ladders] = await Promise.all([read(() => ctx.reads.stats(id)), laddersFor(ladder)]);
    const playedOn = ladders.find((l) => l.id === m.ladder_id)?.name ?? m.ladder_id;
    // Each version's rated games now: a rating stays provisional until its version has the qualifying games.
    const book = ctx.ladders.get(m.ladder_id)?.ratings;
    const provisional = m.bots.map((b) => {
      const r = book?.get(versionKey(b.id, b.version));
      return {
        rated_games: r?.games ?? 0,
        qualifying_games: QUALIFYING_GAMES,
        provisional: !(r?.ranked ?? false),
      };
    });
    const rated = m.bots.some((b) => b.rating_after !== undefined);
    const rows = m.bots.map((b) => {
      const f = stats.body ? stats.body.fighters[b.fighter] : undefined;
      const change =
        b.rating_before !== undefined && b.rating_after !== undefined
          ? b.rating_after - b.rating_before
          : null;
      return html`<tr>
<td><a class="name" href="${href(`/bot/${encodeURIComponent(b.name)}`, ladder)}">${b.display_name}</a> <span class="muted small">${b.version}</span>${m.winner === b.id ? html` <span class="badge win">winner</span>` : ""}</td>
${td(f ? f.hp : "—", { numeric: true, sort: f?.hp ?? null })}
${td(f ? f.damage_dealt : "—", { numeric: true, sort: f?.damage_dealt ?? null })}
${td(f ? f.damage_taken : "—", { numeric: true, hideNarrow: true, sort: f?.damage_taken ?? null })}
${td(f ? `${f.ricochets.hits}/${f.ricochets.bounces}` : "—", { numeric: true, hideNarrow: true, sort: f?.ricochets.hits ?? null })}
${fighterTurnCell(f, stats.body ? stats.body.ticks : 0)}
${td(html`${b.rating_after ?? "—"}${b.rating_after !== undefined ? provisionalBadge(provisional[b.fighter]!.provisional) : ""}`, { numeric: true, sort: b.rating_after ?? null })}
${td(change === null ? "—" : `${change > 0 ? "+" : ""}${change}`, { numeric: true, sort: change })}
</tr>`;
    });
    const names = m.bots.map((b) => b.display_name);
    return send(reply, {
      ...shell,
      title: `${names[0]} vs ${names[1]}`,
      description: `${names[0]} vs ${names[1]} on ${m.map}: ${outcome(m)} (${m.reason}).`,
      page: "match",
      scripts: [assets.url("match-diagnostics.js")],
      ladder,
      switcher: ladderSwitcher(ladders, ladder, `/match/${m.id}`),
      body: html`<header class="page-head"><h1>${names[0]} <span class="muted">vs</span> ${names[1]}</h1>
<p class="lead">${outcome(m)} <span class="muted">· ${m.reason.replace(/_/g, " ")} at tick ${m.final_tick}</span></p>
<dl class="facts">
<div><dt>Ladder</dt><dd><a href="${href("/ladder", ladderParam(m.ladder_id))}">${playedOn}</a></dd></div>
<div><dt>Map</dt><dd>${m.map}</dd></div>
<div><dt>Mode</dt><dd>${m.mode}${m.voided ? " (void)" : ""}</dd></div>
<div><dt>Ended</dt><dd>${when(m.ended)}</dd></div>
<div><dt>Seed</dt><dd>${m.seed}</dd></div>
${m.duration_ms !== null ? html`<div><dt>Duration</dt><dd>${(m.duration_ms / 1000).toFixed(1)} s</dd></div>` : ""}
</dl>
<p class="actions">${m.voided ? "" : html`<a class="button primary" href="${href(`/view/${m.id}`, ladder)}">▶ Watch the replay</a> `}
<a class="button" href="/replays/${m.id}.jsonl.gz" download>Download replay</a> <a class="button" href="/api/matches/${m.id}/stats">Stats (JSON)</a></p>
</header>
${m.pairing ? html`<section aria-labelledby="h-pairing"><h2 id="h-pairing">Why this pairing</h2><p id="pairing" data-reason="${m.pairing.reason}">${pairingSentence(m.pairing, [names[0] ?? "?", names[1] ?? "?"])}</p></section>` : ""}
<section aria-labelledby="h-fighters"><h2 id="h-fighters">Fighters</h2>${table({
        id: "fighters",
        caption: "Fighters",
        captionHidden: true,
        empty: "",
        columns: [
          { label: "Bot" },
          { label: "HP left", numeric: true },
          { label: "Dealt", numeric: true },
          { label: "Taken", numeric: true, hideNarrow: true },
          { label: "Ricochet hits", numeric: true, hideNarrow: true },
          { label: "Lost turns", numeric: true, hideNarrow: true },
          { label: "Rating", numeric: true },
          { label: "Change", numeric: true },
        ],
        rows,
      })}
${rated ? html`<p class="muted small" id="provisional-note">${m.bots.map((b, i) => html`<span data-standing="${b.name}">${b.display_name} ${b.version}: ${standing(provisional[i]!)}.</span> `)}${provisionalSentence(QUALIFYING_GAMES)}</p>` : ""}
<p class="muted small">Lost turns did nothing the bot asked for: idle turns (no reply in time, or no connection) and refused turns (refused as a whole, or every move, dash and attack part refused).</p></section>
${diagnosticsPanel(m.id, m.bots)}`,
    });
  });

  // ---- replay viewer --------------------------------------------------------------------------------------
  app.get("/view/:id", async (req, reply) => {
    const ladder = ladderOf(req);
    const id = (req.params as { id: string }).id;
    const ok = MATCH_ID.test(id);
    const running = ok ? ctx.matches.get(id) : undefined;
    const stored = ok && !running ? await read(() => ctx.reads.match(id)) : null;
    if (!running && !stored?.body)
      return notFound(reply, ladder, "Match", `There is no match ${JSON.stringify(id)} to watch.`);
    const m = stored?.body;
    if (m?.voided)
      return notFound(reply, ladder, "Replay", "This match was void, so it has no replay to watch.");
    const names = running
      ? running.seats.map((s) => s.participant.bot.display_name)
      : (m?.bots.map((b) => b.display_name) ?? []);
    // A match belongs to one ladder: the viewer names it and links its dashboard (hidden ladders too: the
    // match itself is public).
    const played = ctx.ladders.get(running ? running.setup.ladderId : m!.ladder_id)?.view(base);
    const config = {
      match_id: id,
      live: Boolean(running),
      replay_url: `/replays/${id}.jsonl.gz`,
      live_url: `/api/matches/${id}/live`,
      match_url: href(`/match/${id}`, ladder),
    };
    return send(reply, {
      ...shell,
      scripts: [assets.url("viewer.js")],
      title: `Watch ${names[0]} vs ${names[1]}`,
      description: `Replay of ${names[0]} vs ${names[1]}.`,
      page: "view",
      ladder,
      switcher: played ? playedOn(played) : "",
      body: html`<h1 class="viewer-title">${names[0]} <span class="muted">vs</span> ${names[1]}</h1>
${viewerBody(config)}`,
    });
  });

  // ---- the viewer for replay files on the reader's disk (issue 35): no match, a file picker -------------------
  app.get("/view", async (req, reply) => {
    const ladder = ladderOf(req);
    return send(reply, {
      ...shell,
      scripts: [assets.url("viewer.js")],
      title: "Open a replay file",
      description: "Watch a replay file from your computer: read in your browser, nothing is uploaded.",
      page: "view",
      ladder,
      switcher: "",
      body: html`<h1 class="viewer-title">Open a replay file</h1>
<p>Choose a <code>.jsonl.gz</code> replay (from <code>arena-sim play --replays</code>, <code>arena-sim fork</code> or a
ladder's <em>Replay file</em> link) or drop it on the board. It is read in your browser: nothing is uploaded.</p>
${viewerBody({ match_id: null, live: false, replay_url: null, live_url: null, match_url: null })}`,
    });
  });

  /** The viewer's markup (web/viewer.js mounts on it): board, fighters, controls, and the file, link and fork tools. */
  function viewerBody(config: {
    match_id: string | null;
    live: boolean;
    replay_url: string | null;
    live_url: string | null;
    match_url: string | null;
  }) {
    const links = config.match_url
      ? html` <a href="${config.match_url}">Match details</a> · <a href="${config.replay_url!}" download>Replay file</a>`
      : "";
    return html`<script type="application/json" id="viewer-config">${jsonScript(config)}</script>
<div class="viewer" id="viewer" data-state="loading">
<div class="stage">
<canvas id="board" width="630" height="630" role="img" aria-label="The arena"></canvas>
<p class="overlay" id="viewer-status" role="status">Loading the replay…</p>
</div>
<p class="visually-hidden" id="board-summary"></p>
<div class="side">
<ul class="fighters" id="fighter-cards" aria-label="Fighters"></ul>
<ol class="shouts" id="shouts" aria-label="Shouts"></ol>
</div>
<div class="controls" role="group" aria-label="Playback">
<button type="button" id="btn-start" aria-label="First frame" title="First frame (Home)">|◀◀</button>
<button type="button" id="btn-back" aria-label="Step back" title="Step back (←)">◀|</button>
<button type="button" id="btn-play" class="primary" aria-label="Play" title="Play or pause (Space)">▶</button>
<button type="button" id="btn-step" aria-label="Step forward" title="Step forward (→)">|▶</button>
<button type="button" id="btn-end" aria-label="Last frame" title="Last frame (End)">▶▶|</button>
<label class="scrub"><span class="visually-hidden">Tick</span><input type="range" id="scrub" min="0" max="0" value="0" step="1"></label>
<output id="tick-out" for="scrub">tick 0</output>
<label class="speed">Speed <select id="speed"><option value="0.5">0.5×</option><option value="1" selected>1×</option><option value="2">2×</option><option value="4">4×</option><option value="8">8×</option></select></label>
</div>
<p class="muted small">Keys: Space play/pause, ← → step, Home/End, [ ] speed.${links}</p>
<div class="viewer-tools">
<p class="small" id="viewer-source" role="status"></p>
<p class="small"><label>Open a replay file <input type="file" id="replay-file" accept=".gz,.jsonl,application/gzip"></label> <span class="muted">or drop one on the board: it is read here, nothing is uploaded.</span></p>
<p class="small"><button type="button" class="button" id="btn-copy-link"${config.match_url ? "" : " disabled"}>Copy link to this tick</button> <span id="copy-status" role="status"></span></p>
<p class="small">Play on from this tick with the <a href="/guide/simulator">simulator</a> (replace a <code>replay</code> with your bot): <code id="fork-cmd"></code> <button type="button" class="button" id="btn-copy-fork">Copy command</button></p>
</div>
</div>`;
  }

  // ---- live feed for the viewer ---------------------------------------------------------------------------
  // A running match's map, fighters and current tick, and its replay lines so far from `?since=<index>` on
  // (asked of the pool worker, which writes them): the viewer draws them as they come, then switches to the
  // replay file when the match ends.
  app.get("/api/matches/:id/live", async (req, reply) => {
    const id = (req.params as { id: string }).id;
    reply.header("cache-control", "no-store");
    const sinceRaw = (req.query as { since?: string }).since;
    const since = sinceRaw === undefined ? null : Number(sinceRaw);
    if (since !== null && !(Number.isInteger(since) && since >= 0 && since <= 1_000_000))
      return reply
        .code(400)
        .send({ error: "since must be a whole number of replay lines", code: "bad_request" });
    const running = MATCH_ID.test(id) ? ctx.matches.get(id) : undefined;
    if (running) {
      const map = parseMap(running.setup.map);
      const lines = since === null ? null : await running.peek(since);
      return {
        ...(lines ? { since, lines } : {}),
        id,
        status: running.started ? "playing" : "starting",
        tick: running.tick,
        tick_limit: RULES.tick_limit,
        map: { name: map.name, width: map.width, height: map.height, rows: map.rows },
        fighters: running.setup.fighters.map((f, i) => ({ id: i, ...f })),
      };
    }
    const stored = MATCH_ID.test(id) ? await read(() => ctx.reads.match(id)) : null;
    if (!stored?.body)
      return reply.code(404).send({ error: `no match ${JSON.stringify(id)}`, code: "no_such_match" });
    const m = stored.body;
    return {
      id,
      status: "ended",
      tick: m.final_tick,
      tick_limit: RULES.tick_limit,
      voided: m.voided,
      replay_url: m.voided ? null : `/replays/${id}.jsonl.gz`,
    };
  });
}
