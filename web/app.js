// Behaviour shared by every page, on top of server-rendered HTML that works without it: tables sort by
// column heading, timestamps read as "5 min ago", and the ladder dashboard updates itself without a reload.

/** Sort state per table id, so a table re-rendered by a live update keeps the reader's order. */
const sortState = new Map();

function cellValue(row, index) {
  const cell = row.cells[index];
  if (!cell) return "";
  return cell.dataset.sort ?? cell.textContent.trim();
}

function compare(a, b, numeric) {
  // Empty values ("—", unranked) go last whichever way the column is sorted.
  const ea = a === "" || a === "—";
  const eb = b === "" || b === "—";
  if (ea || eb) return ea === eb ? 0 : ea ? 1 : -1;
  if (numeric) {
    const na = Number.parseFloat(a);
    const nb = Number.parseFloat(b);
    if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  }
  return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
}

function sortTable(table, index, direction) {
  const th = table.tHead.rows[0].cells[index];
  const numeric = th.classList.contains("num");
  const body = table.tBodies[0];
  const rows = [...body.rows];
  const sign = direction === "ascending" ? 1 : -1;
  rows.sort((ra, rb) => {
    const c = compare(cellValue(ra, index), cellValue(rb, index), numeric);
    const ea = cellValue(ra, index) === "" || cellValue(ra, index) === "—";
    const eb = cellValue(rb, index) === "" || cellValue(rb, index) === "—";
    return ea || eb ? c : sign * c;
  });
  body.append(...rows);
  for (const cell of table.tHead.rows[0].cells) cell.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", direction);
  sortState.set(table.id, { index, direction });
}

export function initSorting(root = document) {
  for (const table of root.querySelectorAll("table.sortable")) {
    const head = table.tHead?.rows[0];
    if (!head) continue;
    [...head.cells].forEach((th, index) => {
      const button = th.querySelector("button.sort");
      if (!button) return;
      button.addEventListener("click", () => {
        // First click: numbers high to low (the interesting end), text A to Z; then it flips.
        const current = th.getAttribute("aria-sort");
        const first = th.classList.contains("num") ? "descending" : "ascending";
        const next = current ? (current === "ascending" ? "descending" : "ascending") : first;
        // The dashboard shows the top of a long board: a sort covers every row, so the whole board is fetched
        // first and sorted as it arrives (the saved state is applied when it is set up).
        if (table.closest("[data-partial-board]")) {
          sortState.set(table.id, { index, direction: next });
          expandBoard().catch(() => sortTable(table, index, next));
          return;
        }
        sortTable(table, index, next);
      });
    });
    const saved = sortState.get(table.id);
    if (saved) sortTable(table, saved.index, saved.direction);
  }
  for (const link of root.querySelectorAll("#leaderboard-all")) {
    link.addEventListener("click", (e) => {
      e.preventDefault();
      expandBoard().catch(() => {
        location.href = link.href;
      });
    });
  }
}

// ---- the dashboard's whole leaderboard, fetched when the reader asks for it (a sort, "Show all") ---------------
/** Set once the whole board is on the page (or the page was asked for with ?board=all): live updates keep it. */
let wholeBoard = new URLSearchParams(location.search).get("board") === "all";

function sectionsUrl() {
  const q = new URLSearchParams();
  const ladder = document.body.dataset.ladder;
  if (ladder) q.set("ladder", ladder);
  if (wholeBoard) q.set("board", "all");
  const s = q.toString();
  return `/ladder/sections${s ? `?${s}` : ""}`;
}

async function expandBoard() {
  wholeBoard = true;
  const res = await fetch(sectionsUrl(), { headers: { accept: "application/json" } });
  if (!res.ok) throw new Error(`sections: ${res.status}`);
  const { sections } = await res.json();
  const el = document.querySelector('[data-section="leaderboard"]');
  if (!el) return;
  el.innerHTML = sections.leaderboard;
  initSorting(el);
  initTimes(el);
  initScrollHints(el);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
export function initTimes(root = document) {
  const now = Date.now();
  // A time marked data-absolute stays as written (a ladder's window in UTC carries its own hint).
  for (const t of root.querySelectorAll("time[datetime]:not([data-absolute])")) {
    const at = Date.parse(t.getAttribute("datetime"));
    if (Number.isNaN(at)) continue;
    if (!t.title) t.title = t.textContent;
    const s = Math.round((at - now) / 1000);
    const abs = Math.abs(s);
    t.textContent =
      abs < 60
        ? relative.format(s, "second")
        : abs < 3600
          ? relative.format(Math.round(s / 60), "minute")
          : abs < 86400
            ? relative.format(Math.round(s / 3600), "hour")
            : relative.format(Math.round(s / 86400), "day");
  }
}

// ---- ladder dashboard: poll the small status JSON; fetch the re-rendered sections only when it changed ----
/**
 * A table wider than its box scrolls sideways inside it: say so above it ("Scroll sideways for more columns")
 * and shade the edge that has more, re-checked when the box changes size.
 */
const overflowWatch =
  typeof ResizeObserver === "function"
    ? new ResizeObserver((entries) => {
        for (const e of entries) markOverflow(e.target);
      })
    : null;
function markOverflow(wrap) {
  const over = wrap.scrollWidth > wrap.clientWidth + 1;
  wrap.toggleAttribute("data-overflow", over);
  let hint = wrap.previousElementSibling;
  if (!hint?.classList.contains("scroll-hint")) {
    if (!over) return;
    hint = document.createElement("p");
    hint.className = "scroll-hint";
    hint.setAttribute("aria-hidden", "true");
    hint.textContent = "Scroll sideways for more columns →";
    wrap.before(hint);
  }
  hint.hidden = !over;
}
export function initScrollHints(root = document) {
  for (const wrap of root.querySelectorAll(".table-wrap")) {
    markOverflow(wrap);
    overflowWatch?.observe(wrap);
  }
}

function liveDashboard() {
  const params = new URLSearchParams(location.search);
  const ladder = document.body.dataset.ladder;
  const scope = ladder ? `?ladder=${encodeURIComponent(ladder)}` : "";
  // `?poll=<ms>` lets a test (or an impatient reader) update faster; never below 200 ms.
  const every = Math.max(200, Number(params.get("poll")) || 2000);
  const dot = document.querySelector(".live-dot");
  const announcer = document.getElementById("live-announcer");
  let signature = document.querySelector(".dashboard")?.dataset.signature ?? null;
  let failures = 0;
  let known = signature ? new Set(JSON.parse(signature)[0]) : null;

  async function refreshSections() {
    const res = await fetch(sectionsUrl(), { headers: { accept: "application/json" } });
    if (!res.ok) throw new Error(`sections: ${res.status}`);
    const { signature: rendered, sections } = await res.json();
    signature = rendered;
    for (const [id, markup] of Object.entries(sections)) {
      const el = document.querySelector(`[data-section="${id}"]`);
      if (!el || el.innerHTML === markup) continue;
      el.innerHTML = markup;
      initSorting(el);
      initTimes(el);
      initScrollHints(el);
    }
  }

  async function poll() {
    try {
      const res = await fetch(`/api/status${scope}`);
      if (!res.ok) throw new Error(`status: ${res.status}`);
      const status = await res.json();
      const ids = status.matches.map((m) => m.id).sort();
      const next = JSON.stringify([
        ids,
        status.online.map((o) => `${o.name}:${o.state}:${o.version}`).sort(),
      ]);
      for (const m of status.matches) {
        const el = document.querySelector(`[data-match-tick="${m.id}"]`);
        if (el) el.textContent = String(m.tick);
      }
      if (next !== signature) {
        await refreshSections();
        if (known && announcer) {
          const started = status.matches.filter((m) => !known.has(m.id)).length;
          const ended = [...known].filter((id) => !ids.includes(id)).length;
          const parts = [];
          if (started) parts.push(`${started} match${started > 1 ? "es" : ""} started`);
          if (ended) parts.push(`${ended} match${ended > 1 ? "es" : ""} finished`);
          if (parts.length) announcer.textContent = parts.join(", ");
        }
      }
      known = new Set(ids);
      failures = 0;
      dot?.setAttribute("data-live-state", "on");
    } catch {
      failures++;
      dot?.setAttribute("data-live-state", "off");
    }
    // Back off while the server is unreachable; pause while the tab is hidden.
    setTimeout(schedule, every * Math.min(8, 1 + failures));
  }
  function schedule() {
    if (document.hidden) document.addEventListener("visibilitychange", schedule, { once: true });
    else void poll();
  }
  // The page arrived with fresh sections: the first look is one interval later, after first paint.
  setTimeout(schedule, every);
}

initSorting();
initTimes();
initScrollHints();
if (document.body.dataset.page === "ladder") liveDashboard();

// The in-game announcements (web/notices.js) start a moment after the page has loaded: they are not part of
// its first paint.
const startNotices = () => setTimeout(() => void import("./notices.js"), 1000);
if (document.readyState === "complete") startNotices();
else addEventListener("load", startNotices, { once: true });
