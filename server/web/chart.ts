// The rating-history chart as inline SVG drawn on the server: no chart library and no script, so it shows
// on first paint and in any browser. One line per version, games on x, rating on y.
import { type Html, html, trusted } from "./html.ts";

export interface RatingPoint {
  match_id: string;
  ended: string;
  version: string;
  rating: number;
  delta: number;
  result: string;
  opponent: string;
  map: string;
}

/** The chart's two drawings: one for a wide column, one for a phone (shown by web/style.css at 640 px or less). */
const SIZES = [
  { id: "wide", W: 900, H: 240 },
  // A phone's column is about 360 px: drawn at its own width, the labels stay at their 12 px instead of
  // shrinking with a 900-unit drawing to under 5 px.
  { id: "narrow", W: 360, H: 200 },
] as const;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

export function ratingChart(points: RatingPoint[], title: string): Html {
  if (points.length === 0) return html`<p class="empty">No rated games yet.</p>`;
  const ratings = points.map((p) => p.rating);
  const last = points[points.length - 1]!;
  const summary = `${points.length} rated games; rating from ${points[0]!.rating} to ${last.rating}, between ${Math.min(...ratings)} and ${Math.max(...ratings)}.`;
  const versions = [...new Set(points.map((p) => p.version))];
  return html`<figure class="chart">
${SIZES.map((size) => drawing(points, versions, title, summary, size))}
<figcaption>${summary} ${versions.length > 1 ? html`<span class="legend">${versions.map((v, vi) => html`<span class="key s${vi % 6}">${v}</span> `)}</span>` : trusted("")}</figcaption>
</figure>`;
}

function drawing(
  points: RatingPoint[],
  versions: string[],
  title: string,
  summary: string,
  { id, W, H }: (typeof SIZES)[number],
): Html {
  const ratings = points.map((p) => p.rating);
  let lo = Math.min(...ratings);
  let hi = Math.max(...ratings);
  if (hi - lo < 40) {
    const mid = (hi + lo) / 2;
    lo = mid - 20;
    hi = mid + 20;
  }
  const x = (i: number) =>
    PAD.left +
    (points.length === 1
      ? (W - PAD.left - PAD.right) / 2
      : (i * (W - PAD.left - PAD.right)) / (points.length - 1));
  const y = (r: number) => PAD.top + ((hi - r) * (H - PAD.top - PAD.bottom)) / (hi - lo);
  const lines = versions.map((v, vi) => {
    const pts = points
      .map((p, i) => (p.version === v ? `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}` : null))
      .filter((s): s is string => s !== null);
    return html`<polyline class="series s${vi % 6}" points="${pts.join(" ")}"><title>version ${v}</title></polyline>`;
  });
  // Markers with a tooltip each while there are few enough to tell apart (and so one game still shows).
  const markers =
    points.length > (id === "wide" ? 200 : 80)
      ? []
      : points.map(
          (p, i) =>
            html`<circle class="series s${versions.indexOf(p.version) % 6}" cx="${x(i).toFixed(1)}" cy="${y(p.rating).toFixed(1)}" r="3.5"><title>${p.result} vs ${p.opponent} on ${p.map}: ${p.rating} (${p.delta >= 0 ? "+" : ""}${p.delta})</title></circle>`,
        );
  const ticks = [lo, (lo + hi) / 2, hi].map(
    (r) =>
      html`<g class="tick"><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(r).toFixed(1)}" y2="${y(r).toFixed(1)}"></line><text x="${PAD.left - 6}" y="${(y(r) + 4).toFixed(1)}" text-anchor="end">${Math.round(r)}</text></g>`,
  );
  return html`<svg class="chart-${id}" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="chart-title-${id} chart-desc-${id}">
<title id="chart-title-${id}">${title}</title>
<desc id="chart-desc-${id}">${summary}</desc>
${ticks}
${lines}
${markers}
<text class="axis" x="${PAD.left}" y="${H - 8}">first game</text>
<text class="axis" x="${W - PAD.right}" y="${H - 8}" text-anchor="end">latest</text>
</svg>`;
}

const SW = 96;
const SH = 24;

/**
 * A rating sparkline for a table cell: the latest games' ratings as one small inline SVG line, its text
 * alternative saying where the rating went. Empty text when there is no rated game yet.
 */
export function sparkline(ratings: number[], who: string): Html | string {
  if (ratings.length === 0) return "";
  const lo = Math.min(...ratings);
  const hi = Math.max(lo + 1, Math.max(...ratings));
  const x = (i: number) => (ratings.length === 1 ? SW / 2 : 1 + (i * (SW - 2)) / (ratings.length - 1));
  const y = (r: number) => 2 + ((hi - r) * (SH - 4)) / (hi - lo);
  const pts = ratings.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" ");
  const first = ratings[0]!;
  const last = ratings[ratings.length - 1]!;
  const trend = last > first ? "up" : last < first ? "down" : "flat";
  const label = `Rating of ${who} over the last ${ratings.length} rated games: ${first} to ${last}`;
  return html`<svg class="spark spark-${trend}" viewBox="0 0 ${SW} ${SH}" width="${SW}" height="${SH}" role="img" aria-label="${label}"><title>${label}</title><polyline points="${pts}"></polyline><circle cx="${x(ratings.length - 1).toFixed(1)}" cy="${y(last).toFixed(1)}" r="2"></circle></svg>`;
}
