// The embeddable viewer (issue 35): `/embed/<id>` is the replay viewer alone (board, fighters, playback, a link
// back to the match on this site), for a blog or a forum to put in an <iframe>. It is the one page that may be
// framed: its own Content-Security-Policy says `frame-ancestors *`, while every other page keeps
// `frame-ancestors 'none'` (server/web/layout.ts). Everything else in its policy is the site's: scripts,
// styles and fetches from this origin only, so a page that frames it cannot reach into it or make it load
// anything else; its links are relative, so they open this site (the frame's origin) in a new tab. It uses the same web/viewer.js as /view/<id>, so `#t=<tick>` opens it at a tick.
import type { FastifyInstance, FastifyReply } from "fastify";
import { ApiError } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import { webAssets } from "../web/assets.ts";
import { type Html, html, jsonScript } from "../web/html.ts";

export type EmbedServices = Pick<Services, "matches" | "reads">;

const MATCH_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The embed page's policy: the site's own, except that any site may frame it. */
export const EMBED_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors *; base-uri 'none'; form-action 'none'";

function sendEmbed(reply: FastifyReply, status: number, title: string, body: Html, scripts: string[] = []) {
  const assets = webAssets();
  return (
    reply
      .code(status)
      .header("content-type", "text/html; charset=utf-8")
      .header("cache-control", "no-cache")
      // The framing site learns only this origin when a link in the frame is followed, never the path.
      .header("referrer-policy", "strict-origin-when-cross-origin")
      .header("content-security-policy", EMBED_CSP)
      // An embed is a copy of /view/<id>: search engines index that page instead.
      .header("x-robots-tag", "noindex")
      .send(
        `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Arena ladder</title>
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<link rel="icon" href="${assets.url("icon.svg")}" type="image/svg+xml">
<link rel="stylesheet" href="${assets.url("style.css")}">
<link rel="stylesheet" href="${assets.url("embed.css")}">
${scripts.map((s) => html`<script type="module" src="${s}"></script>`)}
</head>
<body data-page="embed">
<main id="main">
${body}
</main>
</body>
</html>`}`,
      )
  );
}

export function embedPages(app: FastifyInstance, ctx: EmbedServices): void {
  app.get("/embed/:id", async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const ok = MATCH_ID.test(id);
    const running = ok ? ctx.matches.get(id) : undefined;
    let stored = null;
    if (ok && !running) {
      try {
        stored = await ctx.reads.storedMatch(id);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
      }
    }
    const gone = (what: string) =>
      sendEmbed(
        reply,
        404,
        "Replay not found",
        html`<p class="embed-missing">${what} <a href="/" target="_blank" rel="noopener">Arena ladder</a></p>`,
      );
    if (!running && !stored) return gone(`There is no match ${JSON.stringify(id)} to watch.`);
    if (stored?.voided) return gone("This match was void, so it has no replay to watch.");
    const names = running
      ? running.seats.map((s) => s.participant.bot.display_name)
      : stored!.bots.map((b) => b.display_name);
    const config = {
      match_id: id,
      live: Boolean(running),
      replay_url: `/replays/${id}.jsonl.gz`,
      live_url: `/api/matches/${id}/live`,
      match_url: `/match/${id}`,
    };
    return sendEmbed(
      reply,
      200,
      `${names[0]} vs ${names[1]}`,
      html`<script type="application/json" id="viewer-config">${jsonScript(config)}</script>
<div class="viewer embed-viewer" id="viewer" data-state="loading">
<p class="embed-title"><span>${names[0]} <span class="muted">vs</span> ${names[1]}</span>
<a href="/view/${id}" target="_blank" rel="noopener" id="embed-open">Watch on Arena ladder ↗</a></p>
<div class="stage">
<canvas id="board" width="630" height="630" role="img" aria-label="The arena"></canvas>
<p class="overlay" id="viewer-status" role="status">Loading the replay…</p>
</div>
<ul class="fighters" id="fighter-cards" aria-label="Fighters"></ul>
<div class="controls" role="group" aria-label="Playback">
<button type="button" id="btn-start" aria-label="First frame" title="First frame (Home)">|◀◀</button>
<button type="button" id="btn-back" aria-label="Step back" title="Step back (←)">◀|</button>
<button type="button" id="btn-play" class="primary" aria-label="Play" title="Play or pause (Space)">▶</button>
<button type="button" id="btn-step" aria-label="Step forward" title="Step forward (→)">|▶</button>
<button type="button" id="btn-end" aria-label="Last frame" title="Last frame (End)">▶▶|</button>
<label class="scrub"><span class="visually-hidden">Tick</span><input type="range" id="scrub" min="0" max="0" value="0" step="1"></label>
<output id="tick-out" for="scrub">tick 0</output>
<label class="speed"><span class="visually-hidden">Speed</span> <select id="speed"><option value="0.5">0.5×</option><option value="1" selected>1×</option><option value="2">2×</option><option value="4">4×</option><option value="8">8×</option></select></label>
</div>
</div>`,
      [webAssets().url("viewer.js")],
    );
  });
}
