// In-game announcements (SPEC 3.8, 6.3 item 2): every page polls GET /api/announcements every 15 s and shows
// the published announcements the reader has not dismissed, newest first, at the top of the page. A dismissal
// is remembered in this browser (localStorage), so a notice does not come back on the next page or poll.

const POLL_MS = 15_000;
const KEY = "dismissed-announcements";
/** At most this many notices at once: the newest matter; older ones stay on the list the API serves. */
const SHOWN = 3;

function dismissed() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return new Set(Array.isArray(v) ? v : []);
  } catch {
    return new Set();
  }
}

function dismiss(id) {
  const ids = [...dismissed(), id].slice(-200);
  try {
    localStorage.setItem(KEY, JSON.stringify(ids));
  } catch {}
}

function region() {
  let r = document.getElementById("announcements-bar");
  if (r) return r;
  const main = document.getElementById("main") ?? document.body;
  r = document.createElement("section");
  r.id = "announcements-bar";
  r.className = "announcements-bar";
  r.setAttribute("aria-label", "Announcements");
  r.setAttribute("aria-live", "polite");
  main.prepend(r);
  return r;
}

function notice(a) {
  const box = document.createElement("div");
  box.className = "announcement";
  box.dataset.id = a.id;
  const title = document.createElement("strong");
  title.className = "announcement-title";
  title.textContent = a.title;
  const body = document.createElement("p");
  body.className = "announcement-body";
  body.textContent = a.body;
  const close = document.createElement("button");
  close.type = "button";
  close.className = "button announcement-close";
  close.textContent = "Dismiss";
  close.setAttribute("aria-label", `Dismiss the announcement: ${a.title}`);
  close.addEventListener("click", () => {
    dismiss(a.id);
    box.remove();
  });
  box.append(title, body, close);
  return box;
}

let shown = "";

async function poll() {
  if (document.visibilityState === "hidden") return;
  let list;
  try {
    const res = await fetch("/api/announcements", { headers: { accept: "application/json" } });
    if (!res.ok) return;
    list = await res.json();
  } catch {
    return; // offline for a moment: the next poll tries again
  }
  if (!Array.isArray(list)) return;
  const gone = dismissed();
  const visible = list.filter((a) => !gone.has(a.id)).slice(0, SHOWN);
  const key = visible.map((a) => `${a.id}:${a.title}:${a.body}`).join("|");
  if (key === shown) return; // nothing new: leave the page (and the reader's focus) alone
  shown = key;
  const r = region();
  r.replaceChildren(...visible.map(notice));
  r.hidden = visible.length === 0;
}

void poll();
setInterval(() => void poll(), POLL_MS);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") void poll();
});
