// The batch-test page, /batch/<id>: progress while the games are played, then the summary (wins, losses,
// draws and score with its 95 % interval, overall, per opponent and per map) and every game with its replay.
// Rendered from the same service the JSON answers from; web/scrimmages.js reloads it while the batch runs.
import type { FastifyInstance } from "fastify";
import { ApiError } from "../errors.ts";
import { webAssets } from "../web/assets.ts";
import { type Html, html } from "../web/html.ts";
import { sendPage, shellAssets, table, td, when } from "../web/layout.ts";
import type { BatchTests } from "./batches.ts";
import type { ScrimmageServices } from "./routes.ts";
import type { Tally } from "./summary.ts";

type BatchJ = Awaited<ReturnType<BatchTests["batch"]>>;
const BATCH_ID = /^[A-Za-z0-9_-]{1,64}$/;

const pct = (x: number | null) => (x === null ? "—" : `${Math.round(x * 1000) / 10} %`);

function tallyRows(rows: [string, Tally][]): Html[] {
  return rows.map(
    ([
      k,
      t,
    ]) => html`<tr><td>${k}</td>${td(t.games - t.voided, { numeric: true })}${td(t.wins, { numeric: true })}${td(t.losses, { numeric: true })}${td(t.draws, { numeric: true })}
${td(pct(t.score), { numeric: true, sort: t.score })}${td(t.low === null ? "—" : `${pct(t.low)} – ${pct(t.high)}`, { numeric: true, sort: t.low })}</tr>`,
  );
}

const tallyColumns = (first: string) => [
  { label: first },
  { label: "Games", numeric: true },
  { label: "W", numeric: true },
  { label: "L", numeric: true },
  { label: "D", numeric: true },
  { label: "Score", numeric: true },
  { label: "95 % interval", numeric: true },
];

function body(b: BatchJ): Html {
  const { all } = b.summary;
  const state =
    b.state === "running"
      ? html`running: ${b.progress.finished} of ${b.games} games finished${b.progress.playing ? html`, one playing` : ""}${b.waiting_for ? html` · waiting for ${b.waiting_for}` : ""}`
      : b.state === "done"
        ? html`finished: ${b.games} games`
        : html`stopped after ${b.progress.finished} games`;
  const games = table({
    id: "batch-games",
    caption: "Games",
    captionHidden: true,
    empty: "No game has started yet.",
    columns: [
      { label: "#", numeric: true },
      { label: "Opponent" },
      { label: "Map" },
      { label: "Result" },
      { label: "Reason", hideNarrow: true },
      { label: "Ended", hideNarrow: true },
      { label: "Replay" },
    ],
    rows: b.results.map(
      (
        g,
        i,
      ) => html`<tr data-result="${g.result ?? g.state}">${td(i + 1, { numeric: true })}<td>${g.opponent}</td><td>${g.map ?? "—"}</td>
<td>${g.result ?? g.state}</td>${td(g.reason ?? "—", { hideNarrow: true })}${td(when(g.ended), { hideNarrow: true, sort: g.ended })}
<td>${g.match_id ? html`<a href="/match/${g.match_id}">match</a> · <a href="/view/${g.match_id}">replay</a>` : "—"}</td></tr>`,
    ),
  });
  return html`<header class="page-head"><h1>Batch test: ${b.bot}${b.version ? html` <span class="muted small">${b.version}</span>` : ""}</h1>
<p>against ${b.opponents.join(", ")} · ${b.map ?? "maps in turn"} · started ${when(b.created)}</p></header>
<section aria-labelledby="h-progress" id="batch" data-state="${b.state}" data-batch="${b.id}"><h2 id="h-progress">Progress</h2>
<p><progress max="${b.games}" value="${b.progress.finished}">${b.progress.finished} of ${b.games}</progress> <span id="batch-state">${state}</span></p></section>
<section aria-labelledby="h-summary"><h2 id="h-summary">Summary</h2>
<p id="batch-total">${all.wins} wins, ${all.losses} losses, ${all.draws} draws${all.voided ? html`, ${all.voided} void` : ""}: score ${pct(all.score)}${all.low === null ? "" : html` (95 % interval ${pct(all.low)} – ${pct(all.high)})`}</p>
<p class="muted small">Score: a win 1, a draw 1/2, over the games that counted; the interval is the Wilson score interval at 95 %.</p>
<h3>Per opponent</h3>${table({ id: "batch-opponents", caption: "Per opponent", captionHidden: true, empty: "No finished game yet.", columns: tallyColumns("Opponent"), rows: tallyRows(Object.entries(b.summary.by_opponent)) })}
<h3>Per map</h3>${table({ id: "batch-maps", caption: "Per map", captionHidden: true, empty: "No finished game yet.", columns: tallyColumns("Map"), rows: tallyRows(Object.entries(b.summary.by_map)) })}</section>
<section aria-labelledby="h-games"><h2 id="h-games">Games</h2>${games}
<p class="muted small">Unrated: these games count in no rating, forecast, leaderboard or quota of the ladder. <a href="/api/batches/${b.id}">This batch as JSON</a></p></section>`;
}

export function batchPages(http: FastifyInstance, svc: ScrimmageServices): void {
  const shell = shellAssets();
  const script = webAssets().url("scrimmages.js");
  http.get("/batch/:id", async (req, reply) => {
    const { id } = req.params as { id: string };
    let b: BatchJ | null = null;
    try {
      if (BATCH_ID.test(id)) b = await svc.scrimmages.batchTests.batch(id);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
    const common = { ...shell, page: "batch", ladder: null, noindex: true, scripts: [script] };
    if (!b)
      return sendPage(
        reply,
        {
          ...common,
          title: "Batch test not found",
          description: "No such batch test.",
          body: html`<h1>Batch test not found</h1><p>There is no batch test ${JSON.stringify(id)}.</p>`,
        },
        404,
      );
    return sendPage(reply, {
      ...common,
      title: `Batch test of ${b.bot}`,
      description: `${b.games} unrated games of ${b.bot} against ${b.opponents.join(", ")}.`,
      body: body(b),
    });
  });
}
