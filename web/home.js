// The home page's featured match, drawn by the site's one viewer (web/viewer.js) on a smaller board. A live
// match is followed tick by tick; when it ends the page asks /featured for the next one and switches to it.
// When nothing is being played, the latest notable finished match (or, on a fresh server, the bundled
// replay) plays in a loop, and the page keeps asking, so a match that starts is shown as soon as it does.
// `window.__featured` tells tests (and the curious) what is featured and how often it switched.
import { createViewer } from "./viewer.js";

const root = document.getElementById("viewer");
const configEl = document.getElementById("featured-config");

if (root && configEl) {
  const params = new URLSearchParams(location.search);
  // `?poll=<ms>` lets a test (or an impatient reader) look for a new featured match faster; never below 200.
  const every = Math.max(200, Number(params.get("poll")) || 3000);
  const ladder = document.body.dataset.ladder;
  const scope = ladder ? `?ladder=${encodeURIComponent(ladder)}` : "";
  const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
  const viewer = createViewer(root, { loop: true, pollMs: Math.min(500, every) });
  const state = { featured: JSON.parse(configEl.textContent), switches: 0, history: [] };
  window.__viewer = viewer;
  window.__featured = state;

  const label = document.getElementById("featured-label");
  const names = document.getElementById("featured-names");
  const watch = document.getElementById("featured-watch");
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  function describe(f) {
    root.dataset.kind = f.kind;
    root.dataset.match = f.match_id ?? "";
    label.dataset.kind = f.kind;
    const text = document.createElement("span");
    text.textContent = f.label;
    if (f.kind === "live") {
      const dot = document.createElement("span");
      dot.className = "pulse";
      dot.setAttribute("aria-hidden", "true");
      label.replaceChildren(dot, text);
    } else label.replaceChildren(text);
    if (f.names) {
      const vs = document.createElement("span");
      vs.className = "muted";
      vs.textContent = "vs";
      names.replaceChildren(`${f.names[0]} `, vs, ` ${f.names[1]}`);
    }
    watch.href = f.watch_url ?? "/ladder";
    watch.textContent = f.watch_url ? "Open in the viewer" : "See the ladder";
  }

  async function fetchFeatured() {
    const res = await fetch(`/featured${scope}`, { cache: "no-store" });
    if (!res.ok) throw new Error(`featured: HTTP ${res.status}`);
    return res.json();
  }

  /** Asks until the server answers (a restart or a lost connection only delays the next pick). */
  async function nextFeatured() {
    for (;;) {
      try {
        return await fetchFeatured();
      } catch {
        await sleep(every);
      }
    }
  }

  const same = (a, b) => a.kind === b.kind && a.match_id === b.match_id;

  async function run() {
    let current = state.featured;
    for (;;) {
      state.featured = current;
      state.history.push(current.match_id ?? current.kind);
      describe(current);
      if (current.kind === "live") {
        try {
          await viewer.follow(current.live_url);
        } catch {
          // A void match has no replay: go on to the next pick.
        }
        current = await nextFeatured();
        state.switches++;
        continue;
      }
      if (current.replay_url) {
        try {
          await viewer.open(current.replay_url, { autoplay: !still });
        } catch (err) {
          viewer.fail(err);
        }
      }
      // A replay loops until the pick changes (a match starts, or a newer notable one finishes).
      for (;;) {
        await sleep(every);
        if (document.hidden) continue;
        let next;
        try {
          next = await fetchFeatured();
        } catch {
          continue;
        }
        if (!same(next, current)) {
          current = next;
          state.switches++;
          break;
        }
      }
    }
  }

  void run();
}
