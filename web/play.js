// /play: a person against a house bot. Takes a play ticket with the account's session, opens /human and
// speaks the bot protocol: `ready` after `hello`, one `turn` per `observation`, until `end`. The board is
// drawn from each observation (what the person's fighter can see); keys, the move pad, and taps or clicks on the
// board make the turn, so a phone plays as well as a keyboard. A move the board does not allow is refused here
// and said in words (never silently dropped).
import { accessToken, signedIn } from "./session.js";

const root = document.getElementById("play");
const statusEl = document.getElementById("play-status");
const canvas = document.getElementById("board");
const c2d = canvas.getContext("2d");
const $ = (id) => document.getElementById(id);

const COLORS = {
  floor: "#1b2230",
  grid: "#243044",
  wall: "#3a4558",
  outside: "rgba(220, 60, 60, 0.18)",
  me: "#f08c2a",
  them: "#3b82f6",
  ghost: "rgba(59, 130, 246, 0.35)",
  move: "rgba(255, 255, 255, 0.12)",
  dash: "rgba(255, 255, 255, 0.06)",
  area: "rgba(120, 200, 255, 0.35)",
  danger: "rgba(255, 80, 80, 0.35)",
  pickup: "#36c06b",
  refused: "#ff5a5a",
};
let flash = null;

const game = {
  state: "loading",
  hello: null,
  obs: null,
  sent: -1,
  end: null,
  ws: null,
  opponent: null,
  deadline: 0,
};
// Tests and curious people can read the game from here.
window.__play = game;

function setState(s) {
  game.state = s;
  root.dataset.state = s;
  $("signin-needed").hidden = s !== "signed-out";
  $("choose").hidden = s !== "choose";
  $("game").hidden = s !== "playing" && s !== "connecting";
  $("over").hidden = s !== "over";
}

/** The status line; `kind` "warn" marks a refused move until the next message. */
function say(text, kind = "") {
  statusEl.textContent = text;
  if (kind) statusEl.dataset.kind = kind;
  else delete statusEl.dataset.kind;
}

// ---- starting a game -------------------------------------------------------------------------------------
async function start(opponent) {
  game.opponent = opponent;
  setState("connecting");
  say(`Starting a game against ${opponent}…`);
  const token = await accessToken();
  if (!token) return setState("signed-out");
  const res = await fetch("/api/account/play-ticket", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    setState("choose");
    if (body.code === "handle_required")
      return say("Choose a handle on your account page first, then come back to play.");
    return say(`Cannot start a game: ${body.error ?? `HTTP ${res.status}`}`);
  }
  const url = new URL(
    `/human?ticket=${encodeURIComponent(body.ticket)}&opponent=${encodeURIComponent(opponent)}`,
    location.href,
  );
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(url);
  game.ws = ws;
  ws.addEventListener("message", (e) => onMessage(JSON.parse(e.data)));
  ws.addEventListener("close", () => {
    if (game.state === "playing" || game.state === "connecting") {
      say("The connection closed. Reload the page to resume the game within a few seconds.");
    }
  });
}

function onMessage(m) {
  switch (m.type) {
    case "hello":
      game.hello = m;
      $("them-name").textContent = m.fighters[1 - m.bot_id].display_name;
      game.ws.send(JSON.stringify({ type: "ready" }));
      setState("playing");
      say("Your move.");
      canvas.focus({ preventScroll: true });
      // The status line and the whole board in view together (the board is sized to fit the viewport).
      statusEl.scrollIntoView({ block: "start" });
      break;
    case "observation":
      game.obs = m;
      game.deadline = performance.now() + m.tick_ms;
      root.dataset.tick = String(m.tick);
      draw();
      hud();
      break;
    case "end":
      game.end = m;
      showEnd(m);
      break;
    case "error":
      if (game.state !== "playing") {
        setState("choose");
        say(m.message ?? m.code);
      } else if (m.code !== "schema") say(m.message ?? m.code);
      break;
    case "server_draining":
      say("The server is restarting soon; this game will still be finished.");
      break;
  }
}

function showEnd(m) {
  setState("over");
  const me = game.hello?.bot_id ?? 0;
  const result = m.winner === null ? "A draw" : m.winner === me ? "You won!" : "You lost";
  // Said once: the heading carries the result (and takes focus, so a screen reader reads it), the line under
  // it how the game ended; the status line is cleared.
  $("over-title").textContent = result;
  const reason = String(m.reason).replace(/_/g, " ");
  $("result").textContent =
    `${reason.charAt(0).toUpperCase()}${reason.slice(1)} at tick ${m.stats?.ticks ?? ""}.`;
  $("watch").href = `/view/${m.match_id}`;
  say("");
  $("over-title").focus();
}

// ---- turns -----------------------------------------------------------------------------------------------
const KEY_DIR = {
  ArrowUp: "N",
  ArrowDown: "S",
  ArrowLeft: "W",
  ArrowRight: "E",
  w: "N",
  s: "S",
  a: "W",
  d: "E",
  q: "NW",
  e: "NE",
  z: "SW",
  c: "SE",
};

function selectedAttack() {
  return document.querySelector('input[name="attack"]:checked')?.value ?? "ranged";
}

/** The attack to add to a turn, aimed at the opponent when visible and the attack is ready. */
function autoAttack(from) {
  const o = game.obs;
  const them = o.opponents?.[0];
  const name = selectedAttack();
  if (!them?.visible || !them.alive || (o.self.cooldowns?.[name] ?? 0) > 0) return undefined;
  if (name === "repulsor") {
    const near = Math.max(Math.abs(them.x - from[0]), Math.abs(them.y - from[1])) <= 1;
    return near ? { name } : undefined;
  }
  return { name, target: [them.x, them.y] };
}

function sendTurn(parts) {
  const o = game.obs;
  if (!o || game.sent === o.tick || game.state !== "playing") return;
  game.sent = o.tick;
  game.ws.send(JSON.stringify({ type: "turn", tick: o.tick, ...parts }));
  say(`Turn ${o.tick} sent; waiting for the next tick…`);
}

const DIR_WORDS = {
  N: "north",
  S: "south",
  E: "east",
  W: "west",
  NE: "north-east",
  NW: "north-west",
  SE: "south-east",
  SW: "south-west",
};
const DIR_STEP = {
  N: [0, -1],
  S: [0, 1],
  E: [1, 0],
  W: [-1, 0],
  NE: [1, -1],
  NW: [-1, -1],
  SE: [1, 1],
  SW: [-1, 1],
};

/** Why a move or dash in `dir` is not on offer this tick, in words. */
function refusal(dir, dash) {
  const o = game.obs;
  const way = DIR_WORDS[dir];
  if (dash && (o.dashes ?? []).length === 0) return `You cannot dash right now: move ${way} without dashing.`;
  const [dx, dy] = DIR_STEP[dir];
  const x = o.self.x + dx;
  const y = o.self.y + dy;
  const row = game.hello.map.rows[y];
  if (row === undefined || row[x] === undefined || row[x] === "#") return `A wall blocks the way ${way}.`;
  const them = o.opponents?.[0];
  if (them?.visible && them.alive && them.x === x && them.y === y)
    return `${$("them-name").textContent} stands ${way} of you.`;
  return `You cannot ${dash ? "dash" : "move"} ${way} from here.`;
}

/** A move (or dash) in `dir`, with auto-fire when it is on; refused in words when the board does not allow it. */
function moveTo(dir, dash) {
  const o = game.obs;
  const step = (dash ? o.dashes : o.moves).find((m) => m.dir === dir);
  if (!step) {
    flash = { dir, until: performance.now() + 600 };
    draw();
    return say(refusal(dir, dash), "warn");
  }
  const attack = $("autofire").checked ? autoAttack(step.tile) : undefined;
  sendTurn({ [dash ? "dash" : "move"]: dir, ...(attack ? { attack } : {}) });
}

/** Stays on the tile, attacking the opponent when it can. */
function stay() {
  const o = game.obs;
  const attack = autoAttack([o.self.x, o.self.y]);
  sendTurn(attack ? { attack } : {});
}

let dashing = false;
function setDash(on) {
  dashing = on;
  $("dash").setAttribute("aria-pressed", String(on));
}

function onKey(e) {
  if (game.state !== "playing" || !game.obs || e.altKey || e.ctrlKey || e.metaKey) return;
  const tag = e.target?.tagName;
  if (tag === "INPUT" && e.target.type === "text") return;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (key === "1" || key === "2" || key === "3") {
    const radios = document.querySelectorAll('input[name="attack"]');
    radios[Number(key) - 1].checked = true;
    hud();
    return e.preventDefault();
  }
  if (key === "f") {
    $("autofire").checked = !$("autofire").checked;
    return e.preventDefault();
  }
  const dir = KEY_DIR[key];
  // A key on a focused button (the pad, Dash) presses that button: do not also read it as a move.
  if (tag === "BUTTON" && (key === " " || key === "Enter")) return;
  if (dir) {
    e.preventDefault();
    return moveTo(dir, e.shiftKey);
  }
  if (key === " ") {
    e.preventDefault();
    return stay();
  }
  if (key === ".") {
    e.preventDefault();
    sendTurn({});
  }
}
document.addEventListener("keydown", onKey);

// The move pad and its options: what a phone plays with (keyboard users may use it too).
for (const b of document.querySelectorAll(".pad-button")) {
  b.addEventListener("click", () => {
    if (game.state !== "playing" || !game.obs) return;
    if (b.dataset.stay !== undefined) return stay();
    moveTo(b.dataset.dir, dashing);
    setDash(false);
  });
}
$("dash").addEventListener("click", () => setDash(!dashing));
$("wait").addEventListener("click", () => game.state === "playing" && game.obs && sendTurn({}));

/**
 * A tap or click on the board: a lit tile next to the fighter moves there (a dash tile dashes), the fighter's own
 * tile stays and attacks, any other tile is attacked with the chosen attack.
 */
canvas.addEventListener("click", (e) => {
  if (game.state !== "playing" || !game.obs) return;
  const o = game.obs;
  const rect = canvas.getBoundingClientRect();
  const x = Math.floor(((e.clientX - rect.left) / rect.width) * game.hello.map.width);
  const y = Math.floor(((e.clientY - rect.top) / rect.height) * game.hello.map.height);
  const at = (m) => m.tile[0] === x && m.tile[1] === y;
  const move = (o.moves ?? []).find(at);
  if (move) return moveTo(move.dir, false);
  const dash = (o.dashes ?? []).find(at);
  if (dash) return moveTo(dash.dir, true);
  if (x === o.self.x && y === o.self.y) return stay();
  const name = selectedAttack();
  sendTurn({ attack: name === "repulsor" ? { name } : { name, target: [x, y] } });
});

// ---- drawing ---------------------------------------------------------------------------------------------
function draw() {
  const { map } = game.hello;
  const o = game.obs;
  const px = Math.round((canvas.getBoundingClientRect().width || 630) * (window.devicePixelRatio || 1));
  if (canvas.width !== px) {
    canvas.width = px;
    canvas.height = px;
  }
  const t = canvas.width / map.width;
  const tile = (x, y, color, inset = 0) => {
    c2d.fillStyle = color;
    c2d.fillRect(x * t + inset, y * t + inset, t - 2 * inset, t - 2 * inset);
  };
  c2d.fillStyle = COLORS.floor;
  c2d.fillRect(0, 0, canvas.width, canvas.height);
  map.rows.forEach((row, y) => {
    [...row].forEach((ch, x) => {
      if (ch === "#") tile(x, y, COLORS.wall);
      else {
        c2d.strokeStyle = COLORS.grid;
        c2d.strokeRect(x * t + 0.5, y * t + 0.5, t - 1, t - 1);
        // Outside the safe square the zone hurts.
        if (
          o.zone &&
          Math.max(Math.abs(x - o.zone.center[0]), Math.abs(y - o.zone.center[1])) > o.zone.radius
        )
          tile(x, y, COLORS.outside);
      }
    });
  });
  for (const d of o.dashes ?? []) tile(d.tile[0], d.tile[1], COLORS.dash, t * 0.1);
  for (const m of o.moves ?? []) tile(m.tile[0], m.tile[1], COLORS.move, t * 0.15);
  // Frostburst areas: a square of `radius` around the centre, exploding in `explodes_in` ticks.
  for (const a of o.areas ?? []) {
    for (let dx = -a.radius; dx <= a.radius; dx++)
      for (let dy = -a.radius; dy <= a.radius; dy++) tile(a.center[0] + dx, a.center[1] + dy, COLORS.area);
  }
  for (const d of o.danger ?? []) tile(d.tile[0], d.tile[1], COLORS.danger, t * 0.3);
  // A refused move: the tile it aimed at is outlined for a moment.
  if (flash && performance.now() < flash.until) {
    const [dx, dy] = DIR_STEP[flash.dir];
    c2d.strokeStyle = COLORS.refused;
    c2d.lineWidth = Math.max(2, t * 0.12);
    c2d.strokeRect((o.self.x + dx) * t + t * 0.1, (o.self.y + dy) * t + t * 0.1, t * 0.8, t * 0.8);
    c2d.lineWidth = 1;
    setTimeout(() => game.obs === o && draw(), flash.until - performance.now() + 20);
  }
  for (const p of o.pickups ?? []) {
    const [x, y] = p.tile;
    c2d.fillStyle = COLORS.pickup;
    c2d.beginPath();
    c2d.arc((x + 0.5) * t, (y + 0.5) * t, t * 0.2, 0, Math.PI * 2);
    c2d.fill();
  }
  const them = o.opponents?.[0];
  if (them) {
    if (them.visible && them.alive) fighter(them.x, them.y, COLORS.them, them.hp, t, String(them.id));
    else if (them.last_seen?.tile)
      fighter(them.last_seen.tile[0], them.last_seen.tile[1], COLORS.ghost, null, t, "?");
  }
  if (o.self.alive) fighter(o.self.x, o.self.y, COLORS.me, o.self.hp, t, String(o.self.id));
}

function fighter(x, y, color, hp, t, label) {
  const cx = (x + 0.5) * t;
  const cy = (y + 0.5) * t;
  c2d.fillStyle = color;
  c2d.beginPath();
  c2d.arc(cx, cy, t * 0.38, 0, Math.PI * 2);
  c2d.fill();
  c2d.fillStyle = "#fff";
  c2d.font = `bold ${Math.round(t * 0.45)}px system-ui, sans-serif`;
  c2d.textAlign = "center";
  c2d.textBaseline = "middle";
  c2d.fillText(label, cx, cy + 1);
  if (hp !== null) {
    c2d.fillStyle = "#111";
    c2d.fillRect(x * t + t * 0.1, y * t + 1, t * 0.8, t * 0.1);
    c2d.fillStyle = hp > 30 ? "#2fbf4a" : "#e0b020";
    c2d.fillRect(x * t + t * 0.1, y * t + 1, (t * 0.8 * Math.max(0, hp)) / 100, t * 0.1);
  }
}

function hud() {
  const o = game.obs;
  if (!o) return;
  const them = o.opponents?.[0];
  $("me-hp").textContent = `${o.self.hp} hp${o.self.shield ? ` +${o.self.shield} shield` : ""}`;
  $("me-meter").value = Math.max(0, o.self.hp);
  $("them-hp").textContent = them ? `${them.hp} hp` : "—";
  $("them-meter").value = Math.max(0, them?.hp ?? 0);
  $("tick").textContent = String(o.tick);
  for (const el of document.querySelectorAll("[data-cd]")) {
    const cd = o.self.cooldowns?.[el.dataset.cd] ?? 0;
    el.textContent = cd > 0 ? `(ready in ${cd})` : "(ready)";
  }
  // Directions the board does not allow this tick look off (they still answer, in words, when pressed).
  for (const b of document.querySelectorAll(".pad-button[data-dir]")) {
    const open = (dashing ? o.dashes : o.moves)?.some((m) => m.dir === b.dataset.dir);
    b.classList.toggle("blocked", !open);
  }
  if (game.sent !== o.tick) say(`Tick ${o.tick}: your move.`);
}

setInterval(() => {
  if (game.state !== "playing") return;
  const left = Math.max(0, Math.round((game.deadline - performance.now()) / 1000));
  $("clock").textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}, 500);
window.addEventListener("resize", () => game.obs && draw());

// ---- page start ------------------------------------------------------------------------------------------
for (const b of document.querySelectorAll("button[data-opponent]")) {
  b.addEventListener("click", () => void start(b.dataset.opponent));
}
$("again").addEventListener("click", () => {
  game.obs = null;
  game.end = null;
  game.sent = -1;
  setState("choose");
  say("");
  document.querySelector("button[data-opponent]")?.focus();
});
$("dash").addEventListener("click", () => game.obs && hud());

// The picker's own heading says "Pick an opponent": the status line stays empty until something happens.
if (signedIn()) {
  setState("choose");
  say("");
} else {
  setState("signed-out");
  say("You are not signed in.");
}
