// The owner's diagnostics panel on the match page (issue 33, part 2). The diagnostics are private, so the
// server renders only an empty, hidden section; for a signed-in account this script asks which of the match's
// bots are its own (GET /api/account) and, for each, GET /api/account/bots/<name>/matches/<id>/diagnostics,
// then draws the answer: the turn counts, each refused part with its ticks and reason, each missed deadline
// with how late the reply came, disconnect runs, and the reply-time histogram with the budget left.
// `window.__diagnostics` tells tests what was drawn ("none" when there is nothing to show this visitor).
import { api, explain, signedIn } from "./session.js";

const section = document.getElementById("diagnostics");

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

/** A small table: caption, column labels, rows of cells (strings or numbers). */
function table(caption, labels, rows, numeric = []) {
  const head = el(
    "tr",
    {},
    ...labels.map((l, i) => el("th", { scope: "col", class: numeric[i] ? "num" : "" }, l)),
  );
  const body = rows.map((r) =>
    el("tr", {}, ...r.map((c, i) => el("td", { class: numeric[i] ? "num" : "" }, String(c)))),
  );
  return el(
    "div",
    { class: "table-wrap" },
    el(
      "table",
      { class: "data" },
      el("caption", {}, caption),
      el("thead", {}, head),
      el("tbody", {}, ...body),
    ),
  );
}

const ms = (n) => `${new Intl.NumberFormat("en").format(Math.round(n))} ms`;
const ticksOf = (r) => (r.tick === r.to_tick ? `${r.tick}` : `${r.tick}–${r.to_tick}`);
const counts = (o) =>
  Object.entries(o)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ") || "none";

/** The reply-time histogram as labelled bars (tenths of the tick limit), readable as a list too. */
function histogram(t) {
  const max = Math.max(1, ...t.histogram);
  const step = t.tick_ms / 10;
  const items = t.histogram.map((n, i) => {
    const label =
      i === t.histogram.length - 1
        ? `≥ ${t.tick_ms} ms`
        : `${Math.round(i * step)}–${Math.round((i + 1) * step)} ms`;
    const bar = el("span", { class: "bar" });
    // Through the style object, not a style attribute: the page's CSP refuses inline style attributes.
    bar.style.width = `${Math.round((n / max) * 100)}%`;
    return el(
      "li",
      { class: i >= 8 ? "near" : "" },
      el("span", { class: "label" }, label),
      el("span", { class: "track" }, bar),
      el("span", { class: "count" }, String(n)),
    );
  });
  return el(
    "ol",
    { class: "histogram", "aria-label": "Reply times: replies per tenth of the tick limit" },
    ...items,
  );
}

function draw(d, displayName) {
  const t = d.turns;
  const box = el("article", { class: "diagnostics-bot", "data-bot": d.bot });
  box.append(el("h3", {}, `${displayName} ${d.version}`));
  box.append(
    el(
      "p",
      { class: "lead-figures" },
      `${t.turns} turns: ${t.lost} lost (${t.idle} idle, ${t.refused} refused). Refused parts: ${counts(t.refused_parts_by_reason)}.`,
    ),
  );
  if (!d.detailed)
    box.append(
      el(
        "p",
        { class: "muted small" },
        "This match was recorded before per-tick details were kept: only the counts are known.",
      ),
    );
  box.append(
    d.refusals.length === 0
      ? el("p", { class: "muted", "data-empty": "refusals" }, "No part of any turn was refused.")
      : table(
          "Refused parts",
          ["Ticks", "Part", "Reason", "Count"],
          d.refusals.map((r) => [ticksOf(r), r.part, r.reason, r.ticks]),
          [false, false, false, true],
        ),
  );
  if (d.refusals_dropped > 0)
    box.append(el("p", { class: "muted small" }, `${d.refusals_dropped} more refusals not listed.`));
  box.append(
    d.deadline_misses.length === 0
      ? el("p", { class: "muted", "data-empty": "misses" }, "No deadline was missed.")
      : table(
          "Deadlines missed",
          ["Tick", "Waited", "Reply came"],
          d.deadline_misses.map((m) => [
            m.tick,
            `${m.waited_ms} ms`,
            m.late_ms === null ? "never" : `${m.late_ms} ms late`,
          ]),
          [true, true, false],
        ),
  );
  if (d.disconnect_runs.length > 0)
    box.append(
      table(
        "Disconnected",
        ["Ticks", "Turns"],
        d.disconnect_runs.map((r) => [ticksOf(r), r.ticks]),
        [false, true],
      ),
    );
  const tm = d.timing;
  box.append(
    el("h4", {}, "Reply times"),
    el(
      "p",
      {},
      `${tm.replies} replies: mean ${tm.mean_ms} ms, median ${tm.p50_ms} ms, p95 ${tm.p95_ms} ms, max ${tm.max_ms} ms; ${tm.near_limit} near the ${tm.tick_ms} ms limit. Budget left: ${ms(tm.budget_ms_left)} of ${ms(tm.budget_ms)}.`,
    ),
    histogram(tm),
  );
  if (d.disqualified) box.append(el("p", { class: "bad" }, "Disqualified in this match."));
  return box;
}

async function main() {
  const state = { bots: [], error: null };
  window.__diagnostics = state;
  if (!section || !signedIn()) {
    state.done = "none";
    return;
  }
  const matchId = section.dataset.match;
  const names = (section.dataset.bots ?? "").split(" ").filter(Boolean);
  const body = section.querySelector(".diagnostics-body");
  try {
    const account = await api("/api/account");
    const mine = account.bots.filter((b) => names.includes(b.name));
    for (const b of mine) {
      const d = await api(
        `/api/account/bots/${encodeURIComponent(b.name)}/matches/${encodeURIComponent(matchId)}/diagnostics`,
      );
      body.append(draw(d, b.display_name));
      state.bots.push(b.name);
    }
    if (mine.length > 0) section.hidden = false;
  } catch (err) {
    // Signed in but the account cannot be read (a session that ended): say so only to an owner's eyes, quietly.
    state.error = explain(err);
  }
  state.done = state.bots.length > 0 ? "drawn" : "none";
}

void main();
