// The public web pages of SPEC 1.1 for spectators: title screen, ladder dashboard, bot, match and user pages,
// the bot-building intro and the replay viewer, plus web/ assets and the live-match feed the viewer polls.
// Pages are rendered on the server from the same services the JSON API answers from (server/reads/reads.ts,
// with types inferred from the response schemas), so a page shows exactly what the API says; web/app.js adds
// sorting and live updates, web/viewer.js draws replays.
import { readFileSync } from "node:fs";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { parseMap, RULES } from "../../engine/rules.ts";
import type { LeaderboardRowT } from "../api/responses.ts";
import { downloadsIndex, STARTER_ARCHIVES } from "../docs/downloads.ts";
import { ApiError } from "../errors.ts";
import {
  diagnosticsPanel,
  fighterTurnCell,
  HEALTH_NOTE,
  healthTable,
  provisionalBadge,
  provisionalSentence,
  standing,
} from "../insight/page-parts.ts";
import { heatmapSection, regressionNotice, rivalsSection } from "../insight/pages.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import { publicBase, wsBase } from "../public-address.ts";
import { QUALIFYING_GAMES, versionKey } from "../ratings/book.ts";
import {
  type Featured,
  onAir,
  pickFeatured,
  RECENT_WINDOW,
  SHOWCASE_FILE,
  showcase,
  upsets,
} from "../spectate/service.ts";
import { pairingSentence } from "../store/pairing-record.ts";
import { webAssets } from "../web/assets.ts";
import { type RatingPoint, ratingChart } from "../web/chart.ts";
import { type Html, html, jsonScript } from "../web/html.ts";
import { avatar, href, plural, sendPage, table, td, when } from "../web/layout.ts";
import {
  BOARD_TOP,
  leaderboardSection,
  liveSection,
  matchesTable,
  onlineSection,
  outcome,
  upsetsSection,
  userLink,
} from "../web/sections.ts";
import { type LadderJ, ladderFacts, ladderParam, ladderSwitcher, playedOn } from "./ladders.ts";

/** What these pages read (their feature: feature.ts beside this file). */
export type SitePageServices = Pick<Services, "accounts" | "insight" | "ladders" | "matches" | "reads"> &
  Pick<Kernel, "config">;

/** Games a leaderboard sparkline shows. */
const SPARK_GAMES = 30;

const LADDER_ID = /^[A-Za-z0-9_-]{1,40}$/;
const MATCH_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function pageRoutes(app: FastifyInstance, ctx: SitePageServices): void {
  const assets = webAssets();
  assets.routes(app);
  const shell = {
    css: assets.url("style.css"),
    appJs: assets.url("app.js"),
    icon: assets.url("icon.svg"),
  };

  /**
   * Reads from the services (no HTTP round trip): the body, or the status of the ApiError the service threw
   * (a missing bot is a 404 page, not a crash).
   */
  async function read<T>(
    fn: () => T | Promise<T>,
  ): Promise<{ status: 200; body: T } | { status: number; body: null }> {
    try {
      return { status: 200, body: await fn() };
    } catch (err) {
      if (err instanceof ApiError) return { status: err.status, body: null };
      throw err;
    }
  }
  const base = ctx.config.publicUrl;
  const on = (ladder: string | null) => ladder ?? undefined;

  /** `?board=all`: the dashboard's whole leaderboard rather than its top (BOARD_TOP rows). */
  function wholeBoard(req: FastifyRequest): boolean {
    return (req.query as { board?: unknown }).board === "all";
  }

  function ladderOf(req: FastifyRequest): string | null {
    const l = (req.query as { ladder?: unknown }).ladder;
    return typeof l === "string" && LADDER_ID.test(l) ? l : null;
  }

  const send = sendPage;

  /** The ladders to switch between: the visible ones, plus the current one when it is hidden. */
  async function laddersFor(ladder: string | null): Promise<LadderJ[]> {
    const res = await read(() => ctx.ladders.listed(on(ladder)).map((l) => l.view(base)));
    return res.body ?? [];
  }
  const switcherFor = async (ladder: string | null, path: string) =>
    ladderSwitcher(await laddersFor(ladder), ladder, path);

  function notFound(reply: FastifyReply, ladder: string | null, what: string, detail: string) {
    return send(
      reply,
      {
        ...shell,
        title: `${what} not found`,
        description: detail,
        page: "not-found",
        ladder,
        noindex: true,
        body: html`<section class="hero small"><h1>${what} not found</h1><p>${detail}</p>
<p><a class="button" href="${href("/ladder", ladder)}">Back to the ladder</a></p></section>`,
      },
      404,
    );
  }

  // ---- featured match -------------------------------------------------------------------------------------
  /** The home page's featured match (server/spectate/service.ts), as the page's script asks for it. */
  async function featured(ladder: string | null): Promise<Featured | null> {
    const [board, status, recent] = await Promise.all([
      read(() => ctx.reads.leaderboard(on(ladder))),
      read(() => ctx.reads.status(on(ladder))),
      read(() => ctx.reads.matches({ limit: RECENT_WINDOW, ...(ladder ? { ladder } : {}) })),
    ]);
    if (!status.body) return null;
    return pickFeatured(
      { status: status.body, board: board.body ?? [], recent: recent.body ?? [], ladder },
      (path) => href(path, ladder),
    );
  }

  app.get("/featured", async (req, reply) => {
    const f = await featured(ladderOf(req));
    if (!f) return reply.code(404).send({ error: "unknown ladder", code: "unknown_ladder" });
    reply.header("cache-control", "no-store");
    return f;
  });
  // The bundled replay a fresh server features (scripts/build-showcase.ts writes it at build time).
  app.get("/featured/showcase.jsonl.gz", async (_req, reply) => {
    if (!showcase())
      return reply.code(404).send({ error: "no bundled replay in this build", code: "no_replay" });
    reply.header("content-type", "application/gzip").header("cache-control", "public, max-age=3600");
    return reply.send(readFileSync(SHOWCASE_FILE));
  });

  function featuredSection(f: Featured): Html {
    const [a, b] = f.names ?? ["", ""];
    return html`<section class="featured" aria-labelledby="h-featured">
<div class="featured-head"><h2 id="h-featured">Featured match</h2>
<p class="featured-label" id="featured-label" data-kind="${f.kind}">${f.kind === "live" ? html`<span class="pulse" aria-hidden="true"></span>` : ""}<span>${f.label}</span></p></div>
<p class="featured-names" id="featured-names">${f.names ? html`${a} <span class="muted">vs</span> ${b}` : "Connect a bot to start the first match."}</p>
<script type="application/json" id="featured-config">${jsonScript(f)}</script>
<div class="viewer featured-viewer" id="viewer" data-state="loading" data-kind="${f.kind}" data-match="${f.match_id ?? ""}">
<div class="stage">
<canvas id="board" width="480" height="480" role="img" aria-label="The featured match's arena"></canvas>
<p class="overlay" id="viewer-status" role="status">${f.kind === "none" ? "No match has been played yet." : "Loading the match…"}</p>
</div>
<div class="side">
<ul class="fighters" id="fighter-cards" aria-label="Fighters"></ul>
<p class="visually-hidden" id="board-summary"></p>
<p class="actions"><button type="button" class="button" id="btn-play" aria-label="Play">▶</button>
<a class="button" id="featured-watch" href="${f.watch_url ?? "/ladder"}">${f.watch_url ? "Open in the viewer" : "See the ladder"}</a></p>
</div>
</div>
</section>`;
  }

  // ---- title screen ---------------------------------------------------------------------------------------
  app.get("/", async (req, reply) => {
    const ladder = ladderOf(req);
    const [top, ladders, pick] = await Promise.all([
      read(() => ctx.reads.leaderboard(on(ladder))),
      laddersFor(ladder),
      featured(ladder),
    ]);
    if (top.status === 404 || !pick)
      return notFound(reply, ladder, "Ladder", `There is no ladder ${JSON.stringify(ladder)}.`);
    // Scoped to a ladder: its bots, matches and leaders; unscoped: the whole server's counts, public's leaders.
    const status = ctx.reads.status(on(ladder));
    const leaders = top.body ? top.body.slice(0, 3) : [];
    const current = ladder ? ladders.find((l) => l.id === ladder) : undefined;
    return send(reply, {
      ...shell,
      scripts: [assets.url("home.js")],
      title: "Bots fight, ratings tell",
      description:
        "A competitive ladder for programs: write a bot, connect it over a WebSocket, climb the ladder.",
      page: "home",
      ladder,
      switcher: ladderSwitcher(ladders, ladder, "/"),
      body: html`<div class="home-grid">
<section class="hero">
<h1>Arena ladder</h1>
<p class="lead">Programs fight one-on-one on a 21×21 arena: shots that ricochet, frost bursts, repulsors, pickups and a
closing zone. Write a bot in any language, connect it over a WebSocket, and climb a Bradley-Terry rated ladder.</p>
<p class="actions"><a class="button primary" href="${href("/ladder", ladder)}">Watch the ladder</a>
<a class="button" href="${href("/create-bot", ladder)}">Build a bot</a></p>
<p class="muted" id="home-counts">${plural(status.online.length, "bot")} online · ${plural(status.matches.length, "match", "matches")} being played${current ? ` on ${current.name}` : ""}</p>
${
  leaders.length > 0
    ? html`<h2 id="leaders">Top of ${current?.name ?? "the ladder"}</h2><ol class="podium" aria-labelledby="leaders">${leaders.map(
        (r) =>
          html`<li><a href="${href(`/bot/${encodeURIComponent(r.name)}`, ladder)}">${r.display_name}</a> <span class="muted">${r.leaderboard_score}</span></li>`,
      )}</ol>`
    : ""
}
</section>
${featuredSection(pick)}
</div>
${current ? ladderFacts(current, Date.now()) : ""}`,
    });
  });

  // ---- ladder dashboard -----------------------------------------------------------------------------------
  /** The latest ratings of the top ten's ranked versions, by bot name, for the leaderboard's sparklines. */
  async function topTrends(board: LeaderboardRowT[], ladder: string | null): Promise<Map<string, number[]>> {
    const res = await read(() => ctx.reads.trends(board.slice(0, 10), SPARK_GAMES, on(ladder)));
    return res.body ?? new Map();
  }

  type SectionId = "leaderboard" | "matrix" | "live" | "online" | "recent" | "upsets";
  async function ladderSections(
    ladder: string | null,
    wholeBoard = false,
  ): Promise<({ signature: string } & Record<SectionId, Html>) | null> {
    const [board, status, lobby, recent, ranks, matrix] = await Promise.all([
      read(() => ctx.reads.leaderboard(on(ladder))),
      read(() => ctx.reads.status(on(ladder))),
      read(() => ctx.reads.lobby(on(ladder))),
      read(() => ctx.reads.matches({ limit: RECENT_WINDOW, ...(ladder ? { ladder } : {}) })),
      // Issue 33: each row's 95 % rank interval and the top's win-chance heat map (server/insight).
      read(() => ctx.insight.board.intervals(on(ladder))),
      read(() => ctx.insight.board.heatmap(on(ladder))),
    ]);
    if (!board.body || !status.body) return null;
    // The same fingerprint web/app.js computes from /api/status: it refetches these sections when it changes.
    const signature = JSON.stringify([
      status.body.matches.map((m) => m.id).sort(),
      status.body.online.map((o) => `${o.name}:${o.state}:${o.version}`).sort(),
    ]);
    const matches = recent.body ?? [];
    return {
      signature,
      // The top of the board up front; the whole board when asked for (?board=all).
      leaderboard: leaderboardSection(
        board.body,
        ladder,
        await topTrends(board.body, ladder),
        ranks.body ? ranks.body.of : undefined,
        wholeBoard ? null : BOARD_TOP,
      ),
      matrix: matrix.body ? heatmapSection(matrix.body, ladder) : html``,
      live: liveSection(status.body, ladder, onAir(matches, Date.now())),
      online: onlineSection(lobby.body ?? [], ladder),
      recent: matchesTable(matches.slice(0, 20), ladder, "recent", "Recent matches"),
      upsets: upsetsSection(upsets(matches), ladder),
    };
  }

  app.get("/ladder", async (req, reply) => {
    const ladder = ladderOf(req);
    const [s, ladders] = await Promise.all([ladderSections(ladder, wholeBoard(req)), laddersFor(ladder)]);
    if (!s) return notFound(reply, ladder, "Ladder", `There is no ladder ${JSON.stringify(ladder)}.`);
    const current = ladders.find((l) => l.id === (ladder ?? DEFAULT_LADDER));
    const section = (id: SectionId, title: string) =>
      html`<section class="panel panel-${id}" aria-labelledby="h-${id}"><h2 id="h-${id}">${title}</h2><div data-section="${id}">${s[id]}</div></section>`;
    return send(reply, {
      ...shell,
      title: current?.name ?? "Ladder",
      description: "Leaderboard, matches being played, recent results and the bots online.",
      page: "ladder",
      ladder,
      switcher: ladderSwitcher(ladders, ladder, "/ladder"),
      body: html`<h1>${current?.name ?? "Ladder"} <span class="live-dot" data-live-state="on" title="Updates live">live</span></h1>
${current ? ladderFacts(current, Date.now()) : ""}
<p class="visually-hidden" aria-live="polite" id="live-announcer"></p>
<div class="dashboard" data-signature="${s.signature}">
${section("leaderboard", "Leaderboard")}
${section("matrix", "Who beats whom")}
${section("live", "Being played now")}
${section("online", "Online")}
${section("upsets", "Recent upsets")}
${section("recent", "Recent matches")}
</div>`,
    });
  });

  // The dashboard's live update: the same sections as HTML, re-rendered (web/app.js swaps them in).
  app.get("/ladder/sections", async (req, reply) => {
    const ladder = ladderOf(req);
    const s = await ladderSections(ladder, wholeBoard(req));
    if (!s) return reply.code(404).send({ error: "unknown ladder", code: "unknown_ladder" });
    reply.header("cache-control", "no-store");
    const { signature, ...sections } = s;
    return {
      signature,
      sections: Object.fromEntries(Object.entries(sections).map(([k, v]) => [k, v.value])),
    };
  });

  // ---- building a bot -------------------------------------------------------------------------------------
  app.get("/create-bot", async (req, reply) => {
    const ladder = ladderOf(req);
    const ladders = await laddersFor(ladder);
    const current = ladder ? ladders.find((l) => l.id === ladder) : undefined;
    if (ladder && !current)
      return notFound(reply, ladder, "Ladder", `There is no ladder ${JSON.stringify(ladder)}.`);
    // The queue message a bot sends: on another ladder than the default it names the ladder.
    const queue = `{"type": "queue", "version": "v1"${current && ladderParam(current.id) ? `, "ladder_id": "${current.id}"` : ""}}`;
    // The same address GET /api reports as bot_endpoint: from the configured public address.
    const index = {
      bot_endpoint: `${wsBase(publicBase(ctx.config, req))}/bot`,
      authentication_required: !ctx.config.anonymousDev,
    };
    return send(reply, {
      ...shell,
      title: "Build a bot",
      description: "How to write a bot, test it offline with the simulator and enter it on the ladder.",
      page: "create-bot",
      ladder,
      switcher: ladderSwitcher(ladders, ladder, "/create-bot"),
      body: html`<h1>Build a bot</h1>
<p class="lead">A bot is any program that speaks JSON over a WebSocket. Each tick it receives what its fighter sees and
answers with one turn: a move or dash, an attack, maybe a shout.</p>
${current && ladderParam(current.id) ? html`<p id="create-bot-ladder">These steps enter your bot on <strong>${current.name}</strong>: its <code>queue</code> message names the ladder with <code>ladder_id</code>.</p>${ladderFacts(current, Date.now())}` : ""}
<ol class="steps">
<li><h2>Start from a starter bot</h2><p>Download a <a href="/starters">TypeScript or Python starter</a>: a complete,
small bot you can run as it is and then improve. After you register a bot, your account page prints the command that
downloads a starter and runs it with the new token. The <a href="/guide/bot-guide">bot guide</a> walks through it.</p></li>
<li><h2>Learn the rules</h2><p>21×21 maps, eight directions, dashes, three attacks (a ranged shot with one ricochet, the
frostburst area and the repulsor), pickups, line of sight and a zone that closes from tick ${RULES.zone.start_tick}.
A match lasts at most ${RULES.tick_limit} ticks. The numbers are in <a href="/guide/rules">the rules</a>
(<a href="/docs/rules.json">as JSON</a>).</p></li>
<li><h2>Test offline</h2><p>The <a href="/guide/simulator">simulator</a> runs the ladder's own engine on your machine:
play your bot against the house bots, write replays and <a href="/view">watch them here</a>. With
<a href="/download/arena-sim.mjs">arena-sim.mjs</a> and the Python starter
<a href="/download/bots/python/starter_bot.py">starter_bot.py</a> in one folder (<code>--stdio</code>: the starter
speaks to the simulator over stdin and stdout instead of connecting to the ladder):</p>
<pre tabindex="0"><code>node arena-sim.mjs play --a "cmd:python3 starter_bot.py --stdio" --b brawler --matches 20</code></pre></li>
<li><h2>Register and connect</h2><p>${
        index.authentication_required
          ? html`<a href="/account">Create an account</a>, register a bot to get its token, then connect to`
          : html`Register a bot with <code>POST /api/bots</code> to get its token, then connect to`
      } <code>${index.bot_endpoint}</code> with the header <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<pre tabindex="0"><code>→ ${queue}
← {"type": "hello", ...}          → {"type": "ready"}
← {"type": "observation", "tick": 0, ...}
→ {"type": "turn", "tick": 0, "move": "E", "attack": {"name": "ranged", "target": [12, 9]}}
← {"type": "end", "result": "win", "watch_url": ...}</code></pre></li>
<li><h2>Climb</h2><p>Your bot is paired by the matchmaker and rated per version. After ${30} rated games a version
appears on the <a href="${href("/ladder", ladder)}">leaderboard</a>. Every match has a replay you can watch.</p></li>
</ol>
<p>More: <a href="/guide">all guides</a> · <a href="/guide/api">API reference</a> · <a href="/openapi.json">OpenAPI</a></p>`,
    });
  });

  // ---- the starter downloads, for people (GET /download/bots is the same list as JSON, for programs) --------
  app.get("/starters", async (req, reply) => {
    const base = publicBase(ctx.config, req);
    const endpoint = `${wsBase(base)}/bot`;
    const index = downloadsIndex(base);
    const file = (path: string) => index.files.find((f) => f.path === path);
    const files = (prefix: string) =>
      html`<ul>${index.files
        .filter((f) => f.path.startsWith(prefix))
        .map((f) => html`<li><a href="${f.url}">${f.path}</a>: ${f.about}</li>`)}</ul>`;
    const starter = (lang: "typescript" | "python", title: string, needs: Html, run: string) => {
      const archive = STARTER_ARCHIVES[lang]!;
      return html`<section aria-labelledby="starter-${lang}"><h2 id="starter-${lang}">${title}</h2>
<p>${needs} Download it as one folder: <a class="button" href="/download/bots/${lang}.tar.gz" download>${archive.root}.tar.gz</a>
<a class="button" href="/download/bots/${lang}.zip" download>${archive.root}.zip</a>, or file by file:</p>
${files(`${lang}/`)}
<p>To run it, in a terminal:</p>
<pre tabindex="0"><code>curl -fsSL ${base}/download/bots/${lang}.tar.gz | tar -xz
${run.replaceAll("{endpoint}", endpoint)}</code></pre></section>`;
    };
    return send(reply, {
      ...shell,
      title: "Starter bots",
      description:
        "Download a TypeScript or Python starter bot, run it with your bot's token, then improve it.",
      page: "starters",
      ladder: null,
      body: html`<h1>Starter bots</h1>
<p class="lead">Two complete bots to run as they are and then improve: each connects to this ladder, queues, plays
every tick and reconnects by itself. Register a bot on <a href="/account">your account page</a> first: it then prints
these commands with your token filled in.</p>
${starter(
  "typescript",
  "TypeScript",
  html`Needs Node 22 or newer; <code>npm install</code> fetches <code>ws</code> and <code>tsx</code>. Change <code>strategy.ts</code>.`,
  "cd arena-starter-typescript && npm install\nARENA_TOKEN='<your bot token>' ARENA_URL='{endpoint}' npm start",
)}
${starter(
  "python",
  "Python",
  html`Needs Python 3.8 or newer; the commands install the <code>websockets</code> package in a virtual environment of the folder's own (<code>.venv</code>). Change the <code>Strategy</code> class.`,
  "cd arena-starter-python && python3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt\nARENA_TOKEN='<your bot token>' ARENA_URL='{endpoint}' .venv/bin/python starter_bot.py",
)}
<p><code>${endpoint}</code> is this server's bot socket (<code>bot_endpoint</code> in <a href="/api">GET /api</a>).
Set <code>BOT_VERSION</code> to start a new rated version and <code>ARENA_LADDER</code> to queue on another ladder.
Both starters also run offline against <a href="/guide/simulator">the simulator</a>.</p>
<section aria-labelledby="starter-house"><h2 id="starter-house">House bot source</h2>
<p>The ladder's own house bots, to read or borrow from (they use the engine's types in
<a href="${file("protocol.ts")?.url ?? "/download/bots/protocol.ts"}">protocol.ts</a> and
<a href="${file("rules.ts")?.url ?? "/download/bots/rules.ts"}">rules.ts</a>):</p>
${files("house/")}</section>
<p class="muted small">For programs: the same list as JSON at <a href="/download/bots">/download/bots</a>.</p>`,
    });
  });

  // ---- bot page -------------------------------------------------------------------------------------------
  app.get("/bot/:name", async (req, reply) => {
    const ladder = ladderOf(req);
    const name = (req.params as { name: string }).name;
    const res = await read(() => ctx.reads.bot(name, on(ladder)));
    if (!res.body) return notFound(reply, ladder, "Bot", `There is no bot named ${JSON.stringify(name)}.`);
    const bot = res.body;
    const [history, rankStanding, regressions] = await Promise.all([
      read(() => ctx.reads.ratings(bot.name, on(ladder))),
      // Issue 33: the ranked version's rank interval and nearest rivals, and any version weaker than its
      // predecessor.
      read(async () => {
        const [near, ranks] = await Promise.all([
          ctx.insight.board.rivals(on(ladder), bot.name),
          ctx.insight.board.intervals(on(ladder)),
        ]);
        return near ? { ...near, interval: ranks.of(near.row), ranked: ranks.rows.length } : null;
      }),
      read(() => ctx.insight.regressions.ofBotNamed(bot.name, bot.ladder_id)),
    ]);
    const points: RatingPoint[] = history.body ? history.body.points : [];
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
    // Its matches being played now, each with a link to watch it live.
    const playing = ctx.reads.status().matches.filter((m) => m.names.includes(bot.name));
    const health = healthTable(bot.versions);
    return send(reply, {
      ...shell,
      title: bot.display_name,
      description: `${bot.display_name} on the arena ladder: versions, ratings, health and recent matches.`,
      page: "bot",
      ladder,
      switcher: await switcherFor(ladder, `/bot/${encodeURIComponent(bot.name)}`),
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
${regressionNotice(regressions.body ?? [])}
${
  rankStanding.body
    ? html`<section aria-labelledby="h-standing"><h2 id="h-standing">Rank and rivals</h2>${rivalsSection(
        {
          display_name: bot.display_name,
          version: rankStanding.body.row.version,
          rank: rankStanding.body.row.rank,
          interval: rankStanding.body.interval,
          ranked: rankStanding.body.ranked,
        },
        rankStanding.body.rivals,
        ladder,
      )}</section>`
    : ""
}
<section aria-labelledby="h-rating"><h2 id="h-rating">Rating history</h2>${ratingChart(points, `Rating of ${bot.display_name} over its rated games`)}</section>
<section aria-labelledby="h-versions"><h2 id="h-versions">Versions</h2>
<p class="muted small" id="provisional-note">${provisionalSentence(bot.qualifying_games)}</p>${versions}</section>
<section aria-labelledby="h-health"><h2 id="h-health">Health</h2>
<p class="muted small">${HEALTH_NOTE}</p>${health}</section>
<section aria-labelledby="h-recent"><h2 id="h-recent">Recent matches</h2>${matchesTable(bot.recent_matches, ladder, "bot-matches", "Recent matches")}</section>
${bot.house ? "" : html`<section id="scrimmages" data-bot="${bot.name}" data-css="${assets.url("account.css")}" aria-labelledby="h-scrimmages" hidden></section>`}
${
  bot.house
    ? ""
    : ownerReplays(
        bot.name,
        bot.versions.map((v) => v.label),
      )
}`,
      // The owner's scrimmage controls (server/scrimmages/) and replay download (server/replay-share/), drawn only
      // when the signed-in account owns the bot.
      scripts: bot.house ? [] : [assets.url("scrimmages.js"), assets.url("bot-replays.js")],
    });
  });

  /**
   * The owner's download of the bot's stored replays (GET /api/account/bots/<name>/replays), hidden until
   * web/bot-replays.js finds the signed-in account owns the bot: the page itself is the same for everyone.
   */
  function ownerReplays(name: string, versions: string[]) {
    return html`<section id="owner-replays" aria-labelledby="h-owner-replays" data-bot="${name}" hidden>
<h2 id="h-owner-replays">Your replays</h2>
<p class="muted small">Every stored replay of this bot in one zip (each <code>&lt;match_id&gt;.jsonl.gz</code>, for the
<a href="/guide/replays-and-data">viewer, the simulator and scripts</a>).</p>
<form id="owner-replays-form" class="inline-form">
<label>Version <select name="version"><option value="">all</option>${versions.map((v) => html`<option value="${v}">${v}</option>`)}</select></label>
<label>Opponent <input name="opponent" type="text" maxlength="24" placeholder="any" autocomplete="off"></label>
<button type="submit" class="button">Download replays (.zip)</button>
<span id="owner-replays-status" role="status" class="small"></span>
</form></section>`;
  }

  // ---- user page ------------------------------------------------------------------------------------------
  app.get("/user/:handle", async (req, reply) => {
    const ladder = ladderOf(req);
    const handle = (req.params as { handle: string }).handle;
    const res = (await ctx.accounts.hiddenUser(handle))
      ? { status: 404, body: null }
      : await read(() => ctx.reads.user(handle, on(ladder)));
    if (!res.body) return notFound(reply, ladder, "User", `There is no user ${JSON.stringify(handle)}.`);
    const u = res.body;
    return send(reply, {
      ...shell,
      title: u.handle,
      description: `Bots of ${u.handle} on the arena ladder.`,
      page: "user",
      ladder,
      switcher: await switcherFor(ladder, `/user/${encodeURIComponent(u.handle)}`),
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
    });
  });

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
