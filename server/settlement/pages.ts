// The settlement's pages (issue 34, part 4): the final standings page, /ladders/<id>/final, and the phase
// notice on the ladder page and the event pages.
//
// The notice is contributed without editing those pages' files: every page declares what it is and which ladder
// it shows on its <body> (server/web/layout.ts: `data-page`, `data-ladder`, absent for the default ladder), so
// a hook on the HTML answers (`onSend`, the kernel's way to touch every answer) puts the notice at the top of
// <main> of the `ladder` and `event` pages of a ladder with a settlement. It costs one map lookup for a ladder
// without a settlement that is settling, and one query for a ladder whose final standings exist.
import type { FastifyInstance } from "fastify";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import { type Html, html } from "../web/html.ts";
import { href, sendErrorPage, sendPage, shellAssets, table, td, when } from "../web/layout.ts";
import type { SettlementService } from "./service.ts";

/** The pages that show a ladder's settlement phase (their `data-page`). */
const NOTICE_PAGES = new Set(["ladder", "event"]);
const BODY = /<body data-page="([a-z-]+)"(?: data-ladder="([^"]*)")?>/;
const MAIN = '<main id="main" tabindex="-1">\n';

const unescapeAttr = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The notice: "Settling: versions frozen, N of M extra games played", or the link to the final standings. */
export async function phaseNotice(s: SettlementService, ladderId: string): Promise<Html | null> {
  const p = await s.phase(ladderId);
  if (!p) return null;
  const final = `/ladders/${encodeURIComponent(ladderId)}/final`;
  if (p.state === "scheduled")
    return html`<section class="settlement-notice panel" id="settlement-notice" data-state="scheduled" aria-label="Settlement">
<p><span class="badge">Settlement ahead</span> From ${when(p.starts_at)} the versions of the top ${p.top_k} freeze and up to ${p.budget} extra rated games settle the final standings.</p></section>`;
  if (p.state === "settling")
    return html`<section class="settlement-notice panel" id="settlement-notice" data-state="settling" aria-label="Settlement">
<p><span class="badge">Settling</span> Settling: versions frozen, ${p.played} of ${p.budget} extra games played among the top ${p.top_k}. Ends by ${when(p.ends_at)}; the final standings are published then at <a href="${final}">${final}</a>.</p></section>`;
  return html`<section class="settlement-notice panel" id="settlement-notice" data-state="final" aria-label="Settlement">
<p><span class="badge">Final</span> The settlement ended after ${p.played} extra games: <a href="${final}" id="final-standings-link">final standings</a>.</p></section>`;
}

/** The hook that adds the notice; installed when the feature is built, before any page is declared. */
export function noticeHook(http: FastifyInstance, s: SettlementService): void {
  http.addHook("onSend", async (req, reply, payload) => {
    if (req.method !== "GET" || typeof payload !== "string" || reply.statusCode !== 200) return payload;
    if (!String(reply.getHeader("content-type") ?? "").startsWith("text/html")) return payload;
    const m = BODY.exec(payload);
    if (!m || !NOTICE_PAGES.has(m[1]!)) return payload;
    const ladderId = m[2] === undefined ? DEFAULT_LADDER : unescapeAttr(m[2]);
    const at = payload.indexOf(MAIN);
    if (at < 0) return payload;
    const notice = await phaseNotice(s, ladderId).catch(() => null);
    if (!notice) return payload;
    const cut = at + MAIN.length;
    return `${payload.slice(0, cut)}${notice.value}\n${payload.slice(cut)}`;
  });
}

export function settlementPages(http: FastifyInstance, s: SettlementService): void {
  http.get<{ Params: { id: string } }>("/ladders/:id/final", async (req, reply) => {
    const id = req.params.id;
    const ladder = id === DEFAULT_LADDER ? null : id;
    let f: Awaited<ReturnType<SettlementService["final"]>>;
    try {
      f = await s.final(id);
    } catch {
      const notice = await phaseNotice(s, id).catch(() => null);
      if (!notice)
        return sendErrorPage(
          reply,
          404,
          "No final standings",
          `The ladder ${JSON.stringify(id)} has published no final standings.`,
        );
      return sendPage(
        reply,
        {
          ...shellAssets(),
          title: "Final standings",
          description: `The final standings of the ladder ${id} are not published yet.`,
          page: "settlement-final",
          ladder,
          noindex: true,
          body: html`<h1>Final standings</h1>${notice}<p><a href="${href("/ladder", ladder)}">The ladder</a></p>`,
        },
        404,
      );
    }
    const rows = f.standings.map(
      (r) => html`<tr${r.settled ? html` class="settled"` : ""}>
${td(r.rank, { numeric: true })}
<td><a href="${href(`/bot/${encodeURIComponent(r.name)}`, ladder)}">${r.display_name}</a>${r.settled ? html` <span class="badge" title="one of the settled top ${f.top_k}">top ${f.top_k}</span>` : ""}</td>
${td(r.version)}
${td(html`${r.rating} <span class="muted">±${r.rating_deviation}</span>`, { numeric: true, sort: r.rating })}
${td(r.rank_low === null ? "—" : `${r.rank_low}–${r.rank_high}`, { numeric: true, sort: r.rank_low ?? 0 })}
${td(r.games, { numeric: true })}
${td(`${r.wins}–${r.losses}–${r.draws}`, { hideNarrow: true })}
</tr>`,
    );
    return sendPage(reply, {
      ...shellAssets(),
      title: `Final standings · ${id}`,
      description: `The final standings of the ladder ${id}, published ${f.taken_at} after a settlement of ${f.games_played} extra games.`,
      page: "settlement-final",
      ladder,
      body: html`<h1>Final standings</h1>
<p class="lead" id="final-facts">Ladder <a href="${href("/ladder", ladder)}">${id}</a> · published ${when(f.taken_at)} · the top ${f.top_k} played ${f.games_played} extra rated games (budget ${f.game_budget}) with their versions frozen from ${when(f.starts_at)}. These standings do not change any more; <a href="/api/ladders/${encodeURIComponent(id)}/settlement/final">as JSON</a>.</p>
${table({
  id: "final-standings",
  caption: "Final standings",
  captionHidden: true,
  empty: "No ranked bots when the settlement ended.",
  columns: [
    { label: "Rank", numeric: true },
    { label: "Bot" },
    { label: "Version" },
    { label: "Rating", numeric: true },
    { label: "95 % rank interval", numeric: true },
    { label: "Games", numeric: true },
    { label: "W–L–D", hideNarrow: true },
  ],
  rows,
})}`,
    });
  });
}
