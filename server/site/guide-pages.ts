// Building a bot: the intro (`/create-bot`) and the starter downloads for people (`/starters`; `GET
// /download/bots` is the same list as JSON, for programs).
import type { FastifyInstance } from "fastify";
import { RULES } from "../../engine/rules.ts";
import { downloadsIndex, STARTER_ARCHIVES } from "../docs/downloads.ts";
import { publicBase, wsBase } from "../public-address.ts";
import { type Html, html } from "../web/html.ts";
import { href } from "../web/layout.ts";
import { ladderFacts, ladderParam, ladderSwitcher } from "./ladders.ts";
import type { PageKit, SitePageServices } from "./page-kit.ts";

export function guideRoutes(app: FastifyInstance, ctx: SitePageServices, kit: PageKit): void {
  const { shell, ladderOf, send, laddersFor, notFound } = kit;
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
}
