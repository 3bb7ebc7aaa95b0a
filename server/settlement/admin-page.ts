// The staff screen of settlements (/admin/settlement, issue 34 part 5): every ladder with its settlement phase
// (none, scheduled, settling with N of M extra games, final with a link to the standings) and a form that
// schedules one through the admin operation (POST /api/admin/ladders/<id>/settlement) with the signed-in admin's
// session, changes one that has not begun (the same form, PUT of the same path) or cancels it (DELETE); the API
// refuses anyone else, so the page itself holds nothing secret. web/settlement.js sends the form, the changes and
// the cancellations.
import type { FastifyInstance } from "fastify";
import type { Ladders } from "../ladders/registry.ts";
import { webAssets } from "../web/assets.ts";
import { type Html, html } from "../web/html.ts";
import { sendPage, shellAssets, table, td, when } from "../web/layout.ts";
import type { SettlementService } from "./service.ts";

type Phase = Awaited<ReturnType<SettlementService["phase"]>>;

function phaseCell(ladderId: string, p: Phase): Html {
  if (!p) return html`<span class="muted">none</span>`;
  const event = p.event_id ? html` (ends the event <a href="/events/${p.event_id}">${p.event_id}</a>)` : "";
  if (p.state === "scheduled")
    return html`scheduled from ${when(p.starts_at)} to ${when(p.ends_at)}, top ${p.top_k}, ${p.budget} games${event}
<button type="button" class="button" data-edit="${ladderId}" data-top-k="${p.top_k}" data-game-budget="${p.budget}" data-event="${p.event_id ?? ""}">Change</button>
<button type="button" class="button" data-cancel="${ladderId}">Cancel</button>`;
  if (p.state === "settling")
    return html`<strong>settling</strong>: ${p.played} of ${p.budget} extra games played (${p.started} started), ends by ${when(p.ends_at)}${event}`;
  return html`final: <a href="/ladders/${encodeURIComponent(ladderId)}/final">the final standings</a> (${p.played} extra games)`;
}

function body(
  ladders: { id: string; name: string; phase: Phase }[],
  events: { id: string; name: string; ladder_id: string }[],
): Html {
  return html`<header class="page-head"><h1>Settlements</h1><p><a href="/admin">Admin console</a> · <a href="/docs/competitions">How a settlement works</a></p></header>
<section aria-labelledby="h-ladders"><h2 id="h-ladders">Ladders</h2>
${table({
  id: "settlement-ladders",
  caption: "Each ladder's settlement",
  captionHidden: true,
  empty: "No ladders.",
  columns: [{ label: "Ladder" }, { label: "Settlement" }],
  rows: ladders.map(
    (l) =>
      html`<tr data-ladder="${l.id}">${td(html`${l.name} <span class="muted">(${l.id})</span>`)}${td(phaseCell(l.id, l.phase))}</tr>`,
  ),
})}</section>
<section aria-labelledby="h-new" id="settlement-admin"><h2 id="h-new">Schedule a settlement</h2>
<p class="muted small">From its start the top K's versions are frozen on the ladder and only they play: extra rated games between rank neighbours, within the budget. At the end the standings are published once and never change. One settlement at a time per ladder.</p>
<form id="settlement-form" class="stack">
<label>Ladder <select name="ladder">${ladders.map((l) => html`<option value="${l.id}">${l.name}</option>`)}</select></label>
<label>Top K (bots that settle) <input name="top_k" type="number" min="2" max="50" value="8" required></label>
<label>Game budget (extra rated games at most) <input name="game_budget" type="number" min="1" max="1000" value="100" required></label>
<label>Starts in (minutes; 0: now) <input name="starts_in" type="number" min="0" max="100000" value="0"></label>
<label>Lasts (minutes; empty: until the ladder, or the event, closes) <input name="duration" type="number" min="1" max="100000"></label>
<label>Ends the window of the event (optional) <select name="event"><option value="">none: the ladder's own</option>${events.map((e) => html`<option value="${e.id}" data-ladder="${e.ladder_id}">${e.name} (${e.ladder_id})</option>`)}</select></label>
<p class="muted small" id="settlement-form-mode" hidden>Changing the scheduled settlement of <strong id="settlement-form-ladder"></strong>: the form replaces its schedule. <button type="button" class="button" id="settlement-form-new">Schedule a new one instead</button></p>
<button type="submit" class="button primary" id="settlement-form-submit">Schedule</button>
</form><p class="status" role="status" id="settlement-form-status"></p></section>`;
}

export function settlementAdminPage(
  http: FastifyInstance,
  s: SettlementService,
  ladders: Ladders,
  events: () => { id: string; name: string; ladder_id: string }[],
): void {
  const assets = webAssets();
  http.get("/admin/settlement", async (_req, reply) => {
    const rows = [];
    for (const l of ladders.all()) rows.push({ id: l.id, name: l.def.name, phase: await s.phase(l.id) });
    return sendPage(reply, {
      ...shellAssets(),
      page: "admin-settlement",
      ladder: null,
      noindex: true,
      scripts: [assets.url("settlement.js")],
      styles: [assets.url("account.css")],
      title: "Settlements",
      description: "Schedule a ladder's settlement phase and follow it.",
      body: body(rows, events()),
    });
  });
}
