// The title screen (`/`) with its featured match, and the featured match as the page script asks for it
// (`/featured`, and the bundled showcase replay of a fresh server).
import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { type Featured, pickFeatured, RECENT_WINDOW, SHOWCASE_FILE, showcase } from "../spectate/service.ts";
import { type Html, html, jsonScript } from "../web/html.ts";
import { href, plural } from "../web/layout.ts";
import { ladderFacts, ladderSwitcher, phaseHint } from "./ladders.ts";
import type { PageKit, SitePageServices } from "./page-kit.ts";

export function homeRoutes(app: FastifyInstance, ctx: SitePageServices, kit: PageKit): void {
  const { assets, shell, read, on, ladderOf, sendKept, laddersFor, notFound } = kit;
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
    const board = top.body;
    const current = ladder ? ladders.find((l) => l.id === ladder) : undefined;
    const now = Date.now();
    // Kept until the board, the ladders, the pick, the counts or (scoped) the phase hint change.
    const inputs = [
      board,
      JSON.stringify(ladders),
      JSON.stringify(pick),
      status.online.length,
      status.matches.length,
      current ? phaseHint(current, now) : null,
    ];
    return sendKept(reply, `home\0${ladder ?? ""}`, inputs, () => {
      const leaders = board ? board.slice(0, 3) : [];
      return {
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
${current ? ladderFacts(current, now) : ""}`,
      };
    });
  });
}
