// /play (SPEC 1.7, 1.2 rule 8): a signed-in person picks an online Public-ladder house bot and fights it on a
// board drawn in the browser, with the keyboard or the mouse. The page takes a play ticket
// (POST /api/account/play-ticket) and speaks the bot protocol over /human; web/play.js does the rest.
import type { FastifyInstance } from "fastify";
import type { Services } from "../kernel/feature.ts";
import { webAssets } from "../web/assets.ts";
import { html } from "../web/html.ts";
import { avatar, sendPage, shellAssets } from "../web/layout.ts";

/** What these pages read (their feature: feature.ts beside this file). */
export type PlayPageServices = Pick<Services, "reads">;

/** Weakest first, the order the house bots are listed everywhere, so every page load and width agrees. */
const DIFFICULTY_ORDER = ["Easy", "Medium", "Hard", "Very hard"];
const byDifficulty = (a: { difficulty: string | null; name: string }, b: typeof a) =>
  DIFFICULTY_ORDER.indexOf(a.difficulty ?? "") - DIFFICULTY_ORDER.indexOf(b.difficulty ?? "") ||
  a.name.localeCompare(b.name);

const PAD: [string, string, string][] = [
  ["NW", "↖", "north-west"],
  ["N", "↑", "north"],
  ["NE", "↗", "north-east"],
  ["W", "←", "west"],
  ["", "●", ""],
  ["E", "→", "east"],
  ["SW", "↙", "south-west"],
  ["S", "↓", "south"],
  ["SE", "↘", "south-east"],
];

export function playPageRoutes(app: FastifyInstance, ctx: PlayPageServices): void {
  app.get("/play", async (_req, reply) => {
    const assets = webAssets();
    // Human games are against the Public ladder's house bots that are online here.
    const lobby = ctx.reads.lobby();
    const opponents = lobby.filter((e) => e.house && e.difficulty !== null).sort(byDifficulty);
    return sendPage(reply, {
      ...shellAssets(),
      styles: [assets.url("play.css")],
      scripts: [assets.url("play.js")],
      title: "Play a house bot",
      description:
        "Fight one of the ladder's house bots yourself, in the browser, with the keyboard, the mouse or touch.",
      page: "play",
      ladder: null,
      body: html`<h1>Play</h1>
<p class="lead">Fight a house bot yourself. Games against people are unrated and never change a bot's rating, but
they are stored and can be replayed. You have two minutes for each turn.</p>
<div id="play" data-state="loading">
<p id="play-status" class="status" role="status" aria-live="polite"></p>
<section id="signin-needed" hidden>
<p>Sign in to play: <a class="button primary" href="/account">Sign in or create an account</a></p>
</section>
<section id="choose" aria-labelledby="choose-title" hidden>
<h2 id="choose-title">Pick an opponent</h2>
${
  opponents.length === 0
    ? html`<p class="muted">No house bot is online right now.</p>`
    : html`<ul class="opponents">${opponents.map(
        (o) =>
          html`<li><button type="button" class="opponent" data-opponent="${o.name}">${avatar(o.avatar, o.display_name)}<span class="name">${o.display_name}</span><span class="difficulty">${o.difficulty}</span></button></li>`,
      )}</ul>`
}
</section>
<section id="game" aria-labelledby="game-title" hidden>
<h2 id="game-title" class="visually-hidden">Game</h2>
<div class="arena">
<canvas id="board" width="630" height="630" tabindex="0" aria-label="The arena. Use the keys or buttons listed beside it to play; tap or click a lit tile next to you to move there, any other tile to attack it." aria-describedby="keys"></canvas>
<aside class="hud" aria-label="Game state and controls">
<div class="fighter me"><span class="label">You</span> <span id="me-hp">—</span><meter id="me-meter" min="0" max="100" value="100"></meter></div>
<div class="fighter them"><span class="label" id="them-name">Opponent</span> <span id="them-hp">—</span><meter id="them-meter" min="0" max="100" value="100"></meter></div>
<p>Tick <strong id="tick">0</strong> · <span id="clock">2:00</span> left for this turn</p>
<div class="pad" role="group" aria-label="Move">${PAD.map(([dir, arrow, word]) =>
        dir
          ? html`<button type="button" class="pad-button" data-dir="${dir}" aria-label="Move ${word}">${arrow}</button>`
          : html`<button type="button" class="pad-button stay" data-stay aria-label="Stay and attack">${arrow}</button>`,
      )}</div>
<p class="pad-options"><button type="button" class="button" id="dash" aria-pressed="false">Dash</button> <button type="button" class="button" id="wait">Wait</button></p>
<fieldset class="attacks"><legend>Attack (1-3)</legend>
<label><input type="radio" name="attack" value="ranged" checked> 1 Ranged <span class="cd" data-cd="ranged"></span></label>
<label><input type="radio" name="attack" value="frostburst"> 2 Frostburst <span class="cd" data-cd="frostburst"></span></label>
<label><input type="radio" name="attack" value="repulsor"> 3 Repulsor <span class="cd" data-cd="repulsor"></span></label>
</fieldset>
<label><input type="checkbox" id="autofire" checked> Auto-fire at the opponent when you move (F)</label>
<div id="keys" class="keys">
<p><kbd>↑</kbd><kbd>↓</kbd><kbd>←</kbd><kbd>→</kbd> or <kbd>W</kbd><kbd>A</kbd><kbd>S</kbd><kbd>D</kbd> move; <kbd>Q</kbd><kbd>E</kbd><kbd>Z</kbd><kbd>C</kbd> move diagonally; hold <kbd>Shift</kbd> to dash.</p>
<p><kbd>Space</kbd> stay and attack the opponent; <kbd>.</kbd> wait. On the board, tap or click a lit tile next to you to move (or dash) there, your own tile to stay and attack, any other tile to attack it.</p>
</div>
</aside>
</div>
</section>
<section id="over" aria-labelledby="over-title" hidden>
<h2 id="over-title" tabindex="-1">Game over</h2>
<p id="result" class="result"></p>
<p><a class="button primary" id="watch" href="#">Watch the replay</a> <button type="button" id="again" class="button">Play again</button></p>
</section>
</div>`,
    });
  });
}
