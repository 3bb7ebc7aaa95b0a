// What the bot and match pages show of issue 33's parts 1 and 2: the health table (from the one health
// summary, server/bots/health.ts), a version's way to ranked, each fighter's turns on the match page (from
// turnFigures, the same count), and the place of the owner's diagnostics panel, which web/match-diagnostics.js
// fills for a signed-in owner (the diagnostics are private, so the server never renders them into the page).
import type { FighterStatsT } from "../../engine/protocol.ts";
import { type Health, turnFigures } from "../bots/health.ts";
import { type Html, html } from "../web/html.ts";
import { table, td } from "../web/layout.ts";

/** The one sentence on what a version's first rated games do to its rating. */
export function provisionalSentence(qualifying: number): string {
  return `A version is ranked after ${qualifying} rated games. Until then its rating is provisional: the fit has few games to go on, so each early game can move it by a hundred points or more, and it settles as games add up.`;
}

/** "12 of 30 rated games to ranked" while provisional; the plain count once ranked. */
export function standing(v: { rated_games: number; qualifying_games: number; provisional: boolean }): string {
  return v.provisional
    ? `${v.rated_games} of ${v.qualifying_games} rated games to ranked`
    : `${v.rated_games} rated games`;
}

export function provisionalBadge(provisional: boolean): Html | string {
  return provisional
    ? html` <span class="badge provisional" title="Fewer than 30 rated games">provisional</span>`
    : "";
}

const pct = (n: number) => `${n} %`;

/** Reasons with their share, largest first: "schema 100 %, unknown_attack 100 %"; "—" when none. */
function byReason(counts: Record<string, number>, unit: (n: number) => string): string {
  const list = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return list.length === 0 ? "—" : list.map(([k, n]) => `${k} ${unit(n)}`).join(", ");
}

/** The bot page's health table: one row per version that has health figures. */
export function healthTable(versions: readonly { label: string; health: Health | null }[]): Html {
  const rows = versions.filter((v) => v.health);
  return table({
    id: "health",
    caption: "Health per version",
    captionHidden: true,
    empty: "No health data yet.",
    columns: [
      { label: "Version" },
      { label: "Matches", numeric: true },
      { label: "Turns", numeric: true, hideNarrow: true },
      { label: "Idle", numeric: true },
      { label: "Refused", numeric: true },
      { label: "Lost", numeric: true },
      { label: "Refused by reason", hideNarrow: true },
      { label: "Reply p95", numeric: true, hideNarrow: true },
      { label: "Disconnects", numeric: true, hideNarrow: true },
      { label: "Disqualified", numeric: true, hideNarrow: true },
    ],
    rows: rows.map((v) => {
      const h = v.health!;
      return html`<tr data-version="${v.label}"><td>${v.label}</td>
${td(h.matches, { numeric: true })}
${td(h.turns, { numeric: true, hideNarrow: true })}
${td(html`<span data-health="idle">${pct(h.idle_pct)}</span>`, { numeric: true, sort: h.idle_pct })}
${td(html`<span data-health="refused">${pct(h.refused_pct)}</span>`, { numeric: true, sort: h.refused_pct })}
${td(html`<span data-health="lost">${pct(h.lost_pct)}</span>`, { numeric: true, sort: h.lost_pct })}
${td(html`<span data-health="refused-by-reason">${byReason(h.refused_pct_by_reason, pct)}</span>`, { hideNarrow: true })}
${td(`${h.reply_ms.p95} ms`, { numeric: true, hideNarrow: true, sort: h.reply_ms.p95 })}
${td(h.disconnects, { numeric: true, hideNarrow: true })}
${td(h.disqualifications, { numeric: true, hideNarrow: true })}</tr>`;
    }),
  });
}

/** What the bot page says above the health table: what each figure counts (docs/insights.md has the rest). */
export const HEALTH_NOTE =
  "Over each version's latest matches. Idle: turns the server played for the bot (no reply in time, or no connection). Refused: turns of which nothing was done (refused as a whole, or every move, dash and attack part refused). Lost: both. By reason: share of turns with a part refused for that reason.";

/**
 * The match page's "Lost turns" cell of one fighter: turns that did nothing it asked for, and beneath them the
 * idle and refused turns they are made of (one column: the fighters' table must fit a 1024 px card).
 */
export function fighterTurnCell(f: FighterStatsT | undefined, ticks: number): Html {
  if (!f) return td("—", { numeric: true, hideNarrow: true });
  const t = turnFigures(f, ticks);
  const parts = byReason(t.refusedPartsByReason, (n) => String(n));
  const detail =
    t.lost === 0
      ? ""
      : html`<br><span class="muted small"><span data-turns="idle">${t.idle}</span> idle · <span data-turns="refused" title="${`refused parts: ${parts}`}">${t.refused}</span> refused</span>`;
  return td(html`<span data-turns="lost">${t.lost}</span>${detail}`, {
    numeric: true,
    hideNarrow: true,
    sort: t.lost,
  });
}

/**
 * The owner's diagnostics panel, empty: web/match-diagnostics.js asks GET /api/account/bots/<name>/matches/<id>/
 * diagnostics for each fighter whose bot the signed-in account owns and draws what it answers; for anyone else
 * the section stays hidden.
 */
export function diagnosticsPanel(
  matchId: string,
  bots: readonly { name: string; display_name: string }[],
): Html {
  return html`<section id="diagnostics" class="diagnostics" aria-labelledby="h-diagnostics" hidden data-match="${matchId}" data-bots="${bots.map((b) => b.name).join(" ")}">
<h2 id="h-diagnostics">Your bot's diagnostics</h2>
<p class="muted small">Only you see this: every refused part of a turn, every deadline missed, disconnects, and reply times.</p>
<div class="diagnostics-body" aria-live="polite"></div>
</section>`;
}
