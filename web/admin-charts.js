// The console's analytics and health screens as charts. Hand-drawn SVG rather than a charting library: the
// charts are a few bars and lines over at most 366 days or 30 health slots, which takes about a hundred lines
// here, needs no third-party module under the pages' strict CSP (no inline styles, scripts from this site
// only), and every chart also comes with its numbers as a table for screen readers and copying.
import { el, table } from "./account-ui.js";
import { $, defineScreen, failed, section } from "./admin-shared.js";
import { api } from "./session.js";

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}, ...children) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  for (const c of children) n.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return n;
}

const W = 640;
const H = 160;
const PAD = { left: 36, right: 8, top: 8, bottom: 20 };

/**
 * A chart of one or more series over labelled points: bars for a single series, lines for several.
 * `series`: [{name, values}] (null values leave a gap); `labels`: the x labels (a few are printed).
 */
export function chart({ id, title, labels, series, bars = series.length === 1 }) {
  const all = series.flatMap((s) => s.values.filter((v) => v !== null));
  const max = Math.max(1, ...all);
  const n = labels.length;
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (n <= 1 ? iw / 2 : (i * iw) / (n - 1));
  const y = (v) => PAD.top + ih - (v / max) * ih;
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "chart",
    role: "img",
    "aria-labelledby": `${id}-title`,
    id,
  });
  root.append(svg("title", { id: `${id}-title` }, title));
  root.append(
    svg("line", { class: "axis", x1: PAD.left, x2: W - PAD.right, y1: PAD.top + ih, y2: PAD.top + ih }),
  );
  for (const v of [0, max / 2, max])
    root.append(
      svg(
        "text",
        { x: PAD.left - 4, y: y(v) + 3, "text-anchor": "end" },
        Number.isInteger(v) ? v : v.toFixed(1),
      ),
    );
  const every = Math.max(1, Math.ceil(n / 6));
  labels.forEach((l, i) => {
    if (i % every === 0 || i === n - 1)
      root.append(svg("text", { x: x(i), y: H - 4, "text-anchor": "middle" }, l));
  });
  if (bars) {
    const bw = Math.max(1, iw / Math.max(n, 1) - 2);
    series[0].values.forEach((v, i) => {
      if (v === null) return;
      const rect = svg("rect", {
        class: "bar",
        x: x(i) - bw / 2,
        y: y(v),
        width: bw,
        height: PAD.top + ih - y(v),
      });
      rect.append(svg("title", {}, `${labels[i]}: ${v}`));
      root.append(rect);
    });
  } else {
    series.forEach((s, k) => {
      let d = "";
      s.values.forEach((v, i) => {
        if (v === null) return;
        d += `${d && s.values[i - 1] !== null ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
      });
      if (d) root.append(svg("path", { class: `line s${k}`, d }));
    });
  }
  const legend =
    series.length > 1
      ? el(
          "p",
          { class: "legend small" },
          series.map((s, k) => el("span", { class: `s${k}` }, `— ${s.name}`)),
        )
      : "";
  return el("figure", {}, el("figcaption", {}, title), root, legend);
}

section(
  "analytics",
  "Analytics",
  el(
    "form",
    { id: "analytics-form", class: "inline" },
    el("label", { for: "analytics-from" }, "From"),
    el("input", { id: "analytics-from", name: "from", type: "date" }),
    el("label", { for: "analytics-to" }, "To"),
    el("input", { id: "analytics-to", name: "to", type: "date" }),
    el("button", { class: "button", type: "submit" }, "Show"),
  ),
  el(
    "p",
    { class: "muted small" },
    "Whole UTC days, both ends included; at most 366 days. Empty fields: the last 30 days.",
  ),
  el("div", { id: "analytics" }),
);
section(
  "health",
  "Server health",
  el("p", { class: "muted small" }, "The last five minutes in ten-second slots; works with profiling off."),
  el("p", {}, el("button", { class: "button", type: "button", id: "health-refresh" }, "Refresh")),
  el("div", { id: "health" }),
);

function renderAnalytics(a) {
  const labels = a.daily.map((d) => d.date.slice(5));
  $("analytics").replaceChildren(
    el(
      "p",
      { id: "analytics-summary" },
      `${a.from} to ${a.to} (${a.days} days, UTC): ${a.summary.signups} sign-ups, ${a.summary.matches.ranked} ranked and ${a.summary.matches.human} human matches, ${a.summary.active_accounts} active accounts, ${a.summary.active_bots} active bots.`,
    ),
    chart({
      id: "chart-signups",
      title: "Sign-ups per day",
      labels,
      series: [{ name: "sign-ups", values: a.daily.map((d) => d.signups) }],
    }),
    chart({
      id: "chart-matches",
      title: "Matches per day by mode",
      labels,
      series: [
        { name: "ranked", values: a.daily.map((d) => d.matches.ranked ?? 0) },
        { name: "human", values: a.daily.map((d) => d.matches.human ?? 0) },
      ],
    }),
    chart({
      id: "chart-active",
      title: "Active accounts and bots per day",
      labels,
      series: [
        { name: "accounts", values: a.daily.map((d) => d.active_accounts) },
        { name: "bots", values: a.daily.map((d) => d.active_bots) },
      ],
    }),
    table({
      id: "analytics-daily",
      caption: "Per day",
      empty: "",
      columns: [
        { label: "Day" },
        { label: "Sign-ups", numeric: true },
        { label: "Ranked", numeric: true },
        { label: "Human", numeric: true },
        { label: "Active accounts", numeric: true },
        { label: "Active bots", numeric: true },
      ],
      rows: a.daily.map((d) => [
        d.date,
        String(d.signups),
        String(d.matches.ranked ?? 0),
        String(d.matches.human ?? 0),
        String(d.active_accounts),
        String(d.active_bots),
      ]),
    }),
    el("h3", {}, "Top player bots"),
    table({
      id: "analytics-top",
      caption: "Top player bots",
      empty: "No player bot played in this range.",
      columns: [{ label: "Bot" }, { label: "Games", numeric: true }, { label: "Wins", numeric: true }],
      rows: a.top_bots.map((b) => [b.name, String(b.games), String(b.wins)]),
    }),
    el("h3", {}, "Maps"),
    table({
      id: "analytics-maps",
      caption: "Matches per map",
      empty: "No matches in this range.",
      columns: [{ label: "Map" }, { label: "Games", numeric: true }],
      rows: a.maps.map((m) => [m.map, String(m.games)]),
    }),
  );
}

function renderHealth(h) {
  const labels = h.series.map((s) => s.at.slice(11, 19));
  $("health").replaceChildren(
    el(
      "p",
      { id: "health-summary" },
      `${h.requests.per_s} requests/s (${h.requests.errors_5xx} server errors), ${h.sockets.bot} bot and ${h.sockets.human} human sockets, ${h.matches.running} matches running, ${h.matches.deadline_misses} deadline misses, pool queue ${h.pool.queued}, event-loop p99 ${h.event_loop.p99_ms} ms, database ${h.database.mean_ms ?? "—"} ms.`,
    ),
    chart({
      id: "chart-requests",
      title: "Requests per 10 s",
      labels,
      series: [{ name: "requests", values: h.series.map((s) => s.requests) }],
    }),
    chart({
      id: "chart-latency",
      title: "Latency (ms): requests, event loop p99, database",
      labels,
      series: [
        { name: "request mean", values: h.series.map((s) => s.mean_ms) },
        { name: "event loop p99", values: h.series.map((s) => s.loop_p99_ms) },
        { name: "database", values: h.series.map((s) => s.db_ms) },
      ],
    }),
    chart({
      id: "chart-ticks",
      title: "Match ticks and deadline misses per 10 s",
      labels,
      series: [
        { name: "ticks", values: h.series.map((s) => s.ticks) },
        { name: "deadline misses", values: h.series.map((s) => s.deadline_misses) },
      ],
    }),
    table({
      id: "health-routes",
      caption: "Requests by route",
      empty: "No requests yet.",
      columns: [
        { label: "Route" },
        { label: "Count", numeric: true },
        { label: "Mean ms", numeric: true },
        { label: "p95 ms", numeric: true },
        { label: "Max ms", numeric: true, hideNarrow: true },
      ],
      rows: h.requests.by_route.map((r) => [
        r.route,
        String(r.count),
        String(r.mean_ms),
        String(r.p95_ms),
        String(r.max_ms),
      ]),
    }),
  );
}

async function loadAnalytics() {
  const from = $("analytics-from").value;
  const to = $("analytics-to").value;
  const q = new URLSearchParams({ ...(from ? { from } : {}), ...(to ? { to } : {}) }).toString();
  renderAnalytics(await api(`/api/admin/analytics${q ? `?${q}` : ""}`));
}

defineScreen("analytics", { load: loadAnalytics, clear: () => $("analytics").replaceChildren() });
defineScreen("health", {
  load: async () => renderHealth(await api("/api/admin/health")),
  clear: () => $("health").replaceChildren(),
});

$("analytics-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  await loadAnalytics().catch(failed);
});
$("health-refresh").addEventListener("click", async () => {
  try {
    renderHealth(await api("/api/admin/health"));
  } catch (err) {
    await failed(err);
  }
});
