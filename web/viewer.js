// The replay viewer: reads a gzipped JSON Lines replay (docs/replay-format.md) in the browser and draws each
// tick's state and events on a canvas. A live match is followed through /api/matches/<id>/live until its
// replay exists, then played. One viewer for the whole site: /view/<id> mounts it with every control, and the
// home page's featured match (web/home.js) mounts the same code on a smaller board. `window.__viewer` exposes
// the current frame so tests (and curious readers in the console) can check what is drawn against the replay.
// The page also opens replay files from the reader's own disk (file picker or drag and drop: read in the browser,
// nothing is uploaded), keeps the tick in the address (`#t=120`) for links, and shows the `arena-sim fork`
// command that plays on from the tick on screen (docs/simulator.md).

import { traceRay } from "./geometry.js";

const TICKS_PER_SECOND = 8; // at 1x: slow enough to follow a shot, a full 300-tick match in under 40 s
const SHOUT_TICKS = 12; // how long a shout bubble stays over its fighter
const LOOP_PAUSE_MS = 2500; // a looping replay rests on its last frame this long before starting again
const COLORS = { f: ["#e8871e", "#2f81f7"], wall: "#2b3546", floor: "#18202c", grid: "#1f2937" };

/**
 * Mounts a viewer on `root`, which holds the board (#board), its status line (#viewer-status) and, when
 * present, fighter cards, shouts and playback controls. Options: `keys` binds the page's keyboard shortcuts,
 * `loop` replays from the start after the last frame.
 */
export function createViewer(root, opts = {}) {
  const $ = (id) => root.querySelector(`#${id}`);
  const canvas = $("board");
  const statusEl = $("viewer-status");
  const cards = $("fighter-cards");
  const shoutList = $("shouts");
  const scrub = $("scrub");
  const tickOut = $("tick-out");
  const speedSel = $("speed");
  const playBtn = $("btn-play");
  const summaryEl = $("board-summary");
  const forkCmd = $("fork-cmd");
  const sourceEl = $("viewer-source");
  const copyStatus = $("copy-status");
  const ctx2d = canvas.getContext("2d");

  const viewer = {
    status: "loading",
    header: null,
    /** One frame per `tick` line: {tick, state, events, line}. */
    frames: [],
    end: null,
    /** Server-side inputs (forfeit, void, abort) by the tick they happened at. */
    inputs: [],
    frame: 0,
    playing: false,
    speed: 1,
    error: null,
    /** Times the replay started again from its first frame (loop option). */
    loops: 0,
    /** Where the replay came from: the ladder (`url`) or the reader's disk (`file`), and the file's name. */
    source: null,
    get state() {
      return this.frames[this.frame]?.state ?? null;
    },
    get tick() {
      return this.frames[this.frame]?.tick ?? null;
    },
    get atEnd() {
      return this.frames.length > 0 && this.frame === this.frames.length - 1;
    },
  };

  // ---- loading ---------------------------------------------------------------------------------------------
  async function readReplay(url) {
    const res = await fetch(url);
    if (!res.ok)
      throw new Error(res.status === 404 ? "this replay is not available" : `replay: HTTP ${res.status}`);
    return parseReplay(new Uint8Array(await res.arrayBuffer()));
  }

  /** Replay bytes to lines: gzip is undone by the browser's DecompressionStream. */
  async function parseReplay(bytes) {
    // Gzip magic bytes; a plain .jsonl (from the simulator, say) is read as it is.
    const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
    const stream = new Blob([bytes]).stream();
    let text;
    try {
      text = await new Response(gz ? stream.pipeThrough(new DecompressionStream("gzip")) : stream).text();
    } catch {
      throw new Error("the file is not a valid gzip replay");
    }
    return text
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l, i) => {
        try {
          return JSON.parse(l);
        } catch {
          throw new Error(`replay line ${i + 1} is not valid JSON`);
        }
      });
  }

  function load(lines) {
    const header = lines[0];
    if (header?.type !== "header") throw new Error("this file does not start with a replay header");
    viewer.header = header;
    viewer.frames = [];
    viewer.inputs = [];
    viewer.end = null;
    for (const line of lines) {
      if (line.type === "tick")
        viewer.frames.push({ tick: line.tick, state: line.state, events: line.events ?? [] });
      else if (line.type === "end") viewer.end = line;
      else if (line.type !== "header") viewer.inputs.push(line);
    }
    walls = wallGrid(header.map);
    if (scrub) scrub.max = String(Math.max(0, viewer.frames.length - 1));
    buildCards(header.fighters);
    viewer.status = "ready";
    root.dataset.state = "ready";
    statusEl.textContent = viewer.frames.length === 0 ? endText() : "";
  }

  function endText() {
    const e = viewer.end;
    if (!e) return "";
    const names = viewer.header.fighters.map((f) => f.display_name);
    const who = e.winner === null ? "Draw" : `${names[e.winner]} wins`;
    return `${who} · ${e.reason.replace(/_/g, " ")} at tick ${e.final_tick}`;
  }

  // ---- drawing ---------------------------------------------------------------------------------------------
  let walls = null;
  function wallGrid(map) {
    return map.rows.map((row) => [...row].map((c) => c === "#"));
  }
  const isWall = (x, y) =>
    !walls || y < 0 || y >= walls.length || x < 0 || x >= walls[0].length || walls[y][x];

  /**
   * The path of a ranged shot for drawing: the engine's own ray (web/geometry.js is engine/assembly/geometry.ts),
   * stopped at the fighter it hit. Returns its start, the point it bounced at (when it did) and its end, in tile
   * units.
   */
  function shotPath(from, target, stopAt, range) {
    const SCALE = 1024;
    const ax = target[0] - from[0];
    const ay = target[1] - from[1];
    if (ax === 0 && ay === 0) return [];
    const start = [from[0] * SCALE + SCALE / 2, from[1] * SCALE + SCALE / 2];
    let last = start;
    let bounce = null;
    const bouncedAt = traceRay(from[0], from[1], ax, ay, range * 2, isWall, (tx, ty, bounced, px, py) => {
      if (bounced && !bounce) bounce = last;
      last = [px, py];
      return Boolean(stopAt) && tx === stopAt[0] && ty === stopAt[1];
    });
    // A ray that bounces into a second wall at once is never visited after its bounce: it ends where it bounced.
    const pts = bouncedAt >= 0 ? [start, bounce ?? last, last] : [start, last];
    return pts.map(([x, y]) => [x / SCALE, y / SCALE]);
  }

  function sizeCanvas() {
    const w = viewer.header?.map.width ?? 21;
    const css = canvas.getBoundingClientRect().width || 630;
    const px = Math.round(css * (window.devicePixelRatio || 1));
    if (canvas.width !== px) {
      canvas.width = px;
      canvas.height = px;
    }
    return px / w;
  }

  function drawMap(map, t) {
    const c = ctx2d;
    c.fillStyle = COLORS.floor;
    c.fillRect(0, 0, canvas.width, canvas.height);
    map.rows.forEach((row, y) => {
      [...row].forEach((ch, x) => {
        if (ch === "#") {
          c.fillStyle = COLORS.wall;
          c.fillRect(x * t, y * t, t, t);
        } else {
          c.strokeStyle = COLORS.grid;
          c.lineWidth = 1;
          c.strokeRect(x * t + 0.5, y * t + 0.5, t - 1, t - 1);
        }
      });
    });
  }

  function drawFrame() {
    const h = viewer.header;
    if (!h) return;
    const t = sizeCanvas();
    const c = ctx2d;
    drawMap(h.map, t);
    const f = viewer.frames[viewer.frame];
    if (!f) return;
    const st = f.state;
    const center = h.rules.zone.center;
    // Zone: every tile outside the safe square (Chebyshev radius) is tinted.
    c.fillStyle = "rgba(220, 50, 50, 0.28)";
    for (let y = 0; y < h.map.height; y++)
      for (let x = 0; x < h.map.width; x++)
        if (Math.max(Math.abs(x - center[0]), Math.abs(y - center[1])) > st.zone && !isWall(x, y))
          c.fillRect(x * t, y * t, t, t);
    // Areas: the tiles a frostburst will hit, with ticks left before it explodes.
    for (const a of st.areas) {
      c.fillStyle = "rgba(120, 200, 255, 0.30)";
      c.fillRect(
        (a.center[0] - a.radius) * t,
        (a.center[1] - a.radius) * t,
        (2 * a.radius + 1) * t,
        (2 * a.radius + 1) * t,
      );
      c.strokeStyle = "rgba(160, 220, 255, 0.9)";
      c.lineWidth = Math.max(1, t / 15);
      c.strokeRect(
        (a.center[0] - a.radius) * t,
        (a.center[1] - a.radius) * t,
        (2 * a.radius + 1) * t,
        (2 * a.radius + 1) * t,
      );
      label(
        String(Math.max(0, a.explodes_at - f.tick)),
        (a.center[0] + 0.5) * t,
        (a.center[1] + 0.5) * t,
        t * 0.5,
        "#dff3ff",
      );
    }
    for (const p of st.pickups) drawPickup(p, t);
    // Events of this tick: explosions, dashes, shots, repulsor rings, hits.
    for (const e of f.events) {
      if (e.type === "area_explode") {
        c.fillStyle = "rgba(190, 235, 255, 0.65)";
        c.fillRect(
          (e.center[0] - e.radius) * t,
          (e.center[1] - e.radius) * t,
          (2 * e.radius + 1) * t,
          (2 * e.radius + 1) * t,
        );
      } else if (e.type === "move" && e.dash && !(e.from[0] === e.to[0] && e.from[1] === e.to[1])) {
        line(
          [e.from, e.to].map(([x, y]) => [x + 0.5, y + 0.5]),
          t,
          `${COLORS.f[e.by]}88`,
          t * 0.35,
        );
      } else if (e.type === "repulse") {
        line(
          [e.from, e.to].map(([x, y]) => [x + 0.5, y + 0.5]),
          t,
          "#ffffffaa",
          t * 0.12,
        );
      }
    }
    st.fighters.forEach((fi, i) => {
      drawFighter(fi, i, t, h);
    });
    for (const e of f.events) {
      if (e.type === "attack" && e.name === "ranged") {
        const hit = f.events.find((x) => x.type === "hit" && x.by === e.by && x.source === "ranged");
        const other = st.fighters[1 - e.by];
        const path = shotPath(
          e.from,
          e.target,
          hit ? [other.x, other.y] : null,
          h.rules.attacks.ranged.range,
        );
        line(path, t, "#ffe27a", Math.max(2, t / 8));
      } else if (e.type === "attack" && e.name === "frostburst") {
        c.setLineDash([t / 4, t / 4]);
        line(
          [e.from, e.target].map(([x, y]) => [x + 0.5, y + 0.5]),
          t,
          "#9fdcff",
          Math.max(1, t / 14),
        );
        c.setLineDash([]);
      } else if (e.type === "attack" && e.name === "repulsor") {
        c.strokeStyle = "#ffffffcc";
        c.lineWidth = Math.max(2, t / 10);
        c.strokeRect((e.from[0] - 1) * t, (e.from[1] - 1) * t, 3 * t, 3 * t);
      } else if (e.type === "hit") {
        const target = st.fighters[e.target];
        label(`-${e.damage}`, (target.x + 0.5) * t, (target.y - 0.35) * t, t * 0.55, "#ff6b6b");
      }
    }
    drawShouts(t);
  }

  function line(points, t, color, width) {
    if (points.length < 2) return;
    const c = ctx2d;
    c.strokeStyle = color;
    c.lineWidth = width;
    c.lineCap = "round";
    c.lineJoin = "round";
    c.beginPath();
    points.forEach(([x, y], i) => {
      if (i === 0) c.moveTo(x * t, y * t);
      else c.lineTo(x * t, y * t);
    });
    c.stroke();
  }

  function label(text, x, y, size, color) {
    const c = ctx2d;
    c.font = `700 ${Math.round(size)}px system-ui, sans-serif`;
    c.textAlign = "center";
    c.textBaseline = "middle";
    c.lineWidth = Math.max(2, size / 5);
    c.strokeStyle = "rgba(0,0,0,0.75)";
    c.strokeText(text, x, y);
    c.fillStyle = color;
    c.fillText(text, x, y);
  }

  const PICKUP_STYLE = { heal: ["#3fb950", "+"], shield: ["#58a6ff", "◆"], haste: ["#e3b341", "»"] };
  function drawPickup(p, t) {
    const [color, glyph] = PICKUP_STYLE[p.kind] ?? ["#aaa", "?"];
    const c = ctx2d;
    const cx = (p.tile[0] + 0.5) * t;
    const cy = (p.tile[1] + 0.5) * t;
    c.fillStyle = `${color}33`;
    c.beginPath();
    c.arc(cx, cy, t * 0.42, 0, Math.PI * 2);
    c.fill();
    label(glyph, cx, cy, t * 0.6, color);
  }

  function drawFighter(fi, i, t, h) {
    const c = ctx2d;
    const cx = (fi.x + 0.5) * t;
    const cy = (fi.y + 0.5) * t;
    const dead = fi.hp <= 0;
    c.globalAlpha = dead ? 0.35 : 1;
    c.fillStyle = COLORS.f[i];
    c.beginPath();
    c.arc(cx, cy, t * 0.4, 0, Math.PI * 2);
    c.fill();
    if (fi.shield > 0) {
      c.strokeStyle = "#58a6ff";
      c.lineWidth = Math.max(2, t / 10);
      c.beginPath();
      c.arc(cx, cy, t * 0.48, 0, Math.PI * 2);
      c.stroke();
    }
    if (fi.stunned > 0 || fi.slowed > 0) {
      c.strokeStyle = fi.stunned > 0 ? "#ffffff" : "#9fdcff";
      c.setLineDash([t / 8, t / 10]);
      c.lineWidth = Math.max(1.5, t / 14);
      c.beginPath();
      c.arc(cx, cy, t * 0.55, 0, Math.PI * 2);
      c.stroke();
      c.setLineDash([]);
    }
    label(dead ? "✕" : String(i), cx, cy, t * 0.5, "#ffffff");
    c.globalAlpha = 1;
    // HP bar over the fighter.
    const max = h.rules.fighter.hp;
    const w = t * 0.9;
    c.fillStyle = "rgba(0,0,0,0.6)";
    c.fillRect(cx - w / 2, cy - t * 0.72, w, t * 0.14);
    c.fillStyle = fi.hp > max * 0.5 ? "#3fb950" : fi.hp > max * 0.25 ? "#e3b341" : "#f85149";
    c.fillRect(cx - w / 2, cy - t * 0.72, (w * Math.max(0, Math.min(max, fi.hp))) / max, t * 0.14);
  }

  /** The shouts heard up to the current frame, newest last. */
  function shoutsSoFar() {
    const out = [];
    for (let i = 0; i <= viewer.frame && i < viewer.frames.length; i++)
      for (const e of viewer.frames[i].events)
        if (e.type === "shout") out.push({ tick: viewer.frames[i].tick, by: e.by, text: e.text });
    return out;
  }

  function drawShouts(t) {
    const f = viewer.frames[viewer.frame];
    const recent = shoutsSoFar().filter((s) => f.tick - s.tick < SHOUT_TICKS);
    const c = ctx2d;
    for (const s of recent) {
      const fi = f.state.fighters[s.by];
      const size = t * 0.45;
      c.font = `600 ${Math.round(size)}px system-ui, sans-serif`;
      const w = c.measureText(s.text).width + size;
      const x = Math.min(Math.max((fi.x + 0.5) * t - w / 2, 2), canvas.width - w - 2);
      const y = Math.max((fi.y - 1.6) * t, 2);
      c.fillStyle = "rgba(255,255,255,0.92)";
      c.fillRect(x, y, w, size * 1.6);
      c.fillStyle = "#111";
      c.textAlign = "left";
      c.textBaseline = "middle";
      c.fillText(s.text, x + size / 2, y + size * 0.8);
    }
  }

  // ---- side panel ------------------------------------------------------------------------------------------
  function buildCards(fighters) {
    if (!cards) return;
    cards.replaceChildren(
      ...fighters.map((f, i) => {
        const li = document.createElement("li");
        li.className = `f${i}`;
        const name = document.createElement("strong");
        name.textContent = `${i} · ${f.display_name}`;
        const version = document.createElement("span");
        version.className = "meta";
        version.textContent = ` ${f.name}@${f.version}`;
        const meter = document.createElement("meter");
        meter.className = "hp";
        meter.min = 0;
        meter.max = viewer.header?.rules?.fighter.hp ?? 100;
        meter.low = meter.max * 0.25;
        meter.high = meter.max * 0.5;
        meter.optimum = meter.max;
        const meta = document.createElement("div");
        meta.className = "meta";
        li.append(name, version, meter, meta);
        return li;
      }),
    );
  }

  /**
   * The tick a person reads: counted from 1, so the last frame of a match that ended at tick 164 (the match
   * page's number) is "tick 164 / 164". The counter, the scrubber's spoken value, the board's words and the
   * shouts all say it; the address (`#t=`) and the simulator's `--tick` keep the engine's count from 0.
   */
  function shownTick(f) {
    return f.tick + 1;
  }
  function shownLast() {
    return viewer.end?.final_tick ?? viewer.frames[viewer.frames.length - 1].tick + 1;
  }

  function updatePanel() {
    const f = viewer.frames[viewer.frame];
    if (tickOut) tickOut.textContent = f ? `tick ${shownTick(f)} / ${shownLast()}` : "tick —";
    if (scrub) {
      scrub.value = String(viewer.frame);
      scrub.setAttribute("aria-valuetext", f ? `tick ${shownTick(f)} of ${shownLast()}` : "no ticks");
    }
    canvas.dataset.frame = String(viewer.frame);
    canvas.dataset.tick = f ? String(f.tick) : "";
    if (forkCmd) forkCmd.textContent = f ? forkCommand(f.tick) : "";
    if (f && opts.hash && !viewer.playing && viewer.source?.kind === "url") keepTickInAddress(f.tick);
    if (f) {
      // The board's text alternative: the current tick in words (who is where, hp, what happened).
      const text = tickSummary(f);
      canvas.setAttribute("aria-label", text);
      if (summaryEl) summaryEl.textContent = text;
      [...(cards?.children ?? [])].forEach((li, i) => {
        const fi = f.state.fighters[i];
        li.querySelector("meter").value = Math.max(0, fi.hp);
        const flags = [`${fi.hp} hp`];
        if (fi.shield > 0) flags.push(`shield ${fi.shield}`);
        if (fi.stunned > 0) flags.push(`stunned ${fi.stunned}`);
        if (fi.slowed > 0) flags.push(`slowed ${fi.slowed}`);
        li.querySelector("div.meta").textContent = flags.join(" · ");
        li.classList.toggle("dead", fi.hp <= 0);
      });
    }
    const shouts = shoutsSoFar();
    if (shoutList && shoutList.childElementCount !== shouts.length) {
      const names = viewer.header.fighters.map((x) => x.display_name);
      shoutList.replaceChildren(
        ...shouts.map((s) => {
          const li = document.createElement("li");
          // Shout text is untrusted bot output: textContent only, never markup.
          li.textContent = `tick ${s.tick + 1} · ${names[s.by]}: ${s.text}`;
          return li;
        }),
      );
      shoutList.scrollTop = shoutList.scrollHeight;
    }
    if (viewer.status !== "live") statusEl.textContent = viewer.atEnd && viewer.end ? endText() : "";
    if (playBtn) {
      playBtn.textContent = viewer.playing ? "||" : "▶";
      playBtn.setAttribute("aria-label", viewer.playing ? "Pause" : "Play");
    }
  }

  /**
   * The simulator command that rebuilds this replay up to `tick` and plays on from it: both seats `replay`
   * give the recording back; replace one with a bot (kiter, module:my-bot.mjs, cmd:...) to try it here.
   */
  function forkCommand(tick) {
    const name = viewer.source?.name ?? `${viewer.header?.match_id ?? "replay"}.jsonl.gz`;
    // Quoted for a POSIX shell when the name holds anything but the usual file name characters.
    const file = /^[\w.@%+=:,/-]+$/.test(name) ? name : `'${name.replace(/'/g, "'\\''")}'`;
    return `node arena-sim.mjs fork ${file} --tick ${tick} --a replay --b replay`;
  }

  /** `#t=<tick>` in the address bar, replaced (not a history entry per step). */
  function keepTickInAddress(tick) {
    const want = `#t=${tick}`;
    if (location.hash !== want)
      history.replaceState(history.state, "", `${location.pathname}${location.search}${want}`);
  }

  /** The tick a link asks for (`#t=120`), or null. */
  function tickFromAddress() {
    const m = /^#t=(\d+)$/.exec(location.hash);
    return m ? Number(m[1]) : null;
  }

  /** The frame showing `tick` (or the last one before it). */
  function frameOfTick(tick) {
    let best = 0;
    viewer.frames.forEach((f, i) => {
      if (f.tick <= tick) best = i;
    });
    return best;
  }

  /** One tick in words: each fighter's place and health, and the tick's hits. */
  function tickSummary(f) {
    const names = viewer.header.fighters.map((x) => x.display_name);
    const where = f.state.fighters
      .map((fi, i) => `${names[i]} at ${fi.x},${fi.y} with ${fi.hp} hp`)
      .join("; ");
    const hits = f.events
      .filter((e) => e.type === "hit")
      .map((e) => `${names[e.by]} hits ${names[e.target]} for ${e.damage}`);
    return `Tick ${shownTick(f)}. ${where}.${hits.length ? ` ${hits.join("; ")}.` : ""}`;
  }

  function show(frame) {
    if (viewer.frames.length === 0) return;
    viewer.frame = Math.max(0, Math.min(viewer.frames.length - 1, frame));
    if (viewer.atEnd) viewer.playing = false;
    drawFrame();
    updatePanel();
  }

  // ---- playback --------------------------------------------------------------------------------------------
  let last = 0;
  let carry = 0;
  function loop(now) {
    if (!viewer.playing) return;
    carry += ((now - last) / 1000) * TICKS_PER_SECOND * viewer.speed;
    last = now;
    const steps = Math.floor(carry);
    if (steps > 0) {
      carry -= steps;
      show(viewer.frame + steps);
    }
    if (viewer.playing) requestAnimationFrame(loop);
    else if (opts.loop && viewer.atEnd && viewer.status === "ready") {
      const at = viewer.frames;
      setTimeout(() => {
        // Still the same replay, still resting on its end: start again.
        if (viewer.frames === at && viewer.atEnd && !viewer.playing && viewer.status === "ready") {
          viewer.loops++;
          play();
        }
      }, LOOP_PAUSE_MS);
    }
  }

  function play() {
    if (viewer.frames.length === 0) return;
    if (viewer.atEnd) show(0);
    viewer.playing = true;
    last = performance.now();
    carry = 0;
    updatePanel();
    requestAnimationFrame(loop);
  }
  function pause() {
    viewer.playing = false;
    updatePanel();
  }
  viewer.play = play;
  viewer.pause = pause;
  viewer.seek = show;

  function setSpeed(v) {
    viewer.speed = v;
    if (speedSel) speedSel.value = String(v);
  }

  playBtn?.addEventListener("click", () => (viewer.playing ? pause() : play()));
  $("btn-start")?.addEventListener("click", () => {
    pause();
    show(0);
  });
  $("btn-end")?.addEventListener("click", () => {
    pause();
    show(viewer.frames.length - 1);
  });
  $("btn-back")?.addEventListener("click", () => {
    pause();
    show(viewer.frame - 1);
  });
  $("btn-step")?.addEventListener("click", () => {
    pause();
    show(viewer.frame + 1);
  });
  scrub?.addEventListener("input", () => {
    // Read the slider before pause() redraws the panel, which writes the current frame back into it.
    const frame = Number(scrub.value);
    pause();
    show(frame);
  });
  speedSel?.addEventListener("change", () => setSpeed(Number(speedSel.value)));
  if (opts.keys)
    document.addEventListener("keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const tag = e.target?.tagName;
      // The slider and the speed menu handle their own keys; buttons handle Space/Enter themselves.
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
      const options = [...speedSel.options].map((o) => Number(o.value));
      const at = options.indexOf(viewer.speed);
      const seekTo = (frame) => {
        pause();
        show(frame);
      };
      const toggle = () => (viewer.playing ? pause() : play());
      const keys = {
        " ": toggle,
        k: toggle,
        ArrowRight: () => seekTo(viewer.frame + 1),
        ArrowLeft: () => seekTo(viewer.frame - 1),
        Home: () => seekTo(0),
        End: () => seekTo(viewer.frames.length - 1),
        "]": () => setSpeed(options[Math.min(options.length - 1, at + 1)]),
        "[": () => setSpeed(options[Math.max(0, at - 1)]),
      };
      const act = keys[e.key];
      if (act && !(e.key === " " && tag === "BUTTON")) {
        e.preventDefault();
        act();
      }
    });
  // ---- live matches ----------------------------------------------------------------------------------------
  // A running match's replay lines come from /api/matches/<id>/live?since=<n> as the worker writes them: the
  // board draws each new tick as it arrives (scrubbing back works on what has arrived). Resolves when the match
  // has ended ("ended"), or when another follow or load took over this viewer ("replaced").
  let generation = 0;
  async function follow(liveUrl) {
    const mine = ++generation;
    pause();
    viewer.status = "live";
    root.dataset.state = "live";
    viewer.header = null;
    viewer.frames = [];
    viewer.end = null;
    viewer.frame = 0;
    const collected = [];
    for (;;) {
      let live;
      try {
        const res = await fetch(`${liveUrl}?since=${collected.length}`, { cache: "no-store" });
        if (res.status === 404) throw new Error("this match does not exist any more");
        live = await res.json();
      } catch (err) {
        if (mine !== generation) return "replaced";
        statusEl.textContent = `Lost the live match: ${err.message}. Retrying…`;
        await new Promise((r) => setTimeout(r, 2000));
        continue;
      }
      if (mine !== generation) return "replaced";
      if (live.status === "ended") {
        if (live.voided) throw new Error("the match was void: it has no replay");
        return "ended";
      }
      if (Array.isArray(live.lines) && live.since === collected.length) {
        for (const l of live.lines) collected.push(JSON.parse(l));
      }
      viewer.liveTick = live.tick;
      root.dataset.liveTick = String(live.tick);
      if (collected[0]?.type === "header") {
        // Stay on the newest tick unless the spectator stepped back to look at something.
        const atEdge = viewer.frames.length === 0 || viewer.frame >= viewer.frames.length - 1;
        load(collected);
        viewer.status = "live";
        root.dataset.state = "live";
        if (viewer.frames.length > 0) show(atEdge ? viewer.frames.length - 1 : viewer.frame);
        else drawMap(collected[0].map, sizeCanvas());
      } else {
        if (!viewer.header) {
          viewer.header = { map: live.map, fighters: live.fighters };
          walls = wallGrid(live.map);
          buildCards(live.fighters);
        }
        sizeCanvas();
        drawMap(live.map, canvas.width / live.map.width);
      }
      statusEl.textContent =
        live.status === "starting"
          ? "Live: the bots are getting ready…"
          : `Live: tick ${live.tick} of at most ${live.tick_limit}.`;
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
      if (mine !== generation) return "replaced";
    }
  }

  /** Loads a replay file and shows its first frame; plays it when asked. */
  async function open(url, { autoplay = false } = {}) {
    const mine = ++generation;
    pause();
    viewer.status = "loading";
    root.dataset.state = "loading";
    const lines = await readReplay(url);
    if (mine !== generation) return "replaced";
    viewer.frame = 0;
    viewer.source = { kind: "url", name: decodeURIComponent(url.split("/").pop() || "replay.jsonl.gz") };
    load(lines);
    const asked = opts.hash ? tickFromAddress() : null;
    show(asked === null ? 0 : frameOfTick(asked));
    if (autoplay && asked === null) play();
    return "ready";
  }

  /**
   * Opens a replay file from the reader's disk (a File from the picker or a drop): read and decompressed
   * here, never sent anywhere. The address keeps the page's own match, so it is not rewritten for the file.
   */
  async function openFile(file) {
    const mine = ++generation;
    pause();
    viewer.status = "loading";
    root.dataset.state = "loading";
    statusEl.textContent = `Opening ${file.name}…`;
    try {
      const lines = await parseReplay(new Uint8Array(await file.arrayBuffer()));
      if (mine !== generation) return "replaced";
      viewer.frame = 0;
      viewer.source = { kind: "file", name: file.name };
      load(lines);
      root.dataset.source = "file";
      if (sourceEl)
        sourceEl.textContent = `Showing ${file.name} from your computer (${viewer.header.match_id}).`;
      if (copyStatus) copyStatus.textContent = "";
      show(0);
      return "ready";
    } catch (err) {
      if (mine !== generation) return "replaced";
      fail(err);
      return "error";
    }
  }

  /** Copies `text` to the clipboard; where the browser refuses, shows it selected for a manual copy. */
  async function copy(text, what) {
    try {
      await navigator.clipboard.writeText(text);
      if (copyStatus) copyStatus.textContent = `${what} copied: ${text}`;
    } catch {
      if (copyStatus) copyStatus.textContent = `Copy this ${what.toLowerCase()}: ${text}`;
    }
    viewer.copied = text;
  }

  function tickLink() {
    const f = viewer.frames[viewer.frame];
    return `${location.origin}${location.pathname}${f ? `#t=${f.tick}` : ""}`;
  }

  $("btn-copy-link")?.addEventListener("click", () => {
    if (viewer.source?.kind === "file") {
      if (copyStatus)
        copyStatus.textContent =
          "A file from your computer has no link: share the file, or its match on the ladder.";
      return;
    }
    void copy(tickLink(), "Link");
  });
  $("btn-copy-fork")?.addEventListener("click", () => {
    if (forkCmd?.textContent) void copy(forkCmd.textContent, "Command");
  });
  const picker = $("replay-file");
  picker?.addEventListener("change", () => {
    const file = picker.files?.[0];
    if (file) void openFile(file);
  });
  if (opts.drop) {
    // Drop a replay anywhere on the viewer. dragover must be cancelled for the drop to be allowed.
    root.addEventListener("dragover", (e) => {
      if (![...(e.dataTransfer?.types ?? [])].includes("Files")) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
      root.classList.add("dropping");
    });
    root.addEventListener("dragleave", () => root.classList.remove("dropping"));
    root.addEventListener("drop", (e) => {
      root.classList.remove("dropping");
      const file = e.dataTransfer?.files?.[0];
      if (!file) return;
      e.preventDefault();
      void openFile(file);
    });
  }
  if (opts.hash)
    window.addEventListener("hashchange", () => {
      const t = tickFromAddress();
      if (t !== null && viewer.frames.length > 0 && viewer.source?.kind === "url") {
        pause();
        show(frameOfTick(t));
      }
    });

  function fail(err) {
    viewer.status = "error";
    viewer.error = err.message;
    root.dataset.state = "error";
    statusEl.textContent = `Cannot show this match: ${err.message}`;
  }

  /** The /view/<id> page: a live match followed to its end, then its replay; a stored replay at once. The
   * /view page has no match: it waits for a file. */
  async function start(config) {
    if (!config.replay_url) {
      viewer.status = "empty";
      root.dataset.state = "empty";
      // The page's first words were "Loading the replay…": here nothing loads until a file is chosen.
      statusEl.textContent = "No replay yet: choose a replay file below, or drop one on the board.";
      return;
    }
    try {
      if (config.live) {
        await follow(config.live_url);
        statusEl.textContent = "The match is over: loading the replay…";
      }
      await open(config.replay_url, {
        autoplay: config.live || new URLSearchParams(location.search).has("autoplay"),
      });
    } catch (err) {
      fail(err);
    }
  }

  window.addEventListener("resize", () => drawFrame());
  function stop() {
    generation++;
    pause();
  }
  Object.assign(viewer, { follow, open, openFile, start, fail, stop });
  return viewer;
}

// The replay viewer page mounts the viewer with its page's configuration.
const pageConfig = document.getElementById("viewer-config");
if (pageConfig) {
  const viewer = createViewer(document.getElementById("viewer"), { keys: true, hash: true, drop: true });
  window.__viewer = viewer;
  void viewer.start(JSON.parse(pageConfig.textContent));
}
