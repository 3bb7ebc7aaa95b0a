// The ladder switcher every scoped page shows (a link per listed ladder to the same page on that ladder), the
// ladder a match was played on (the replay viewer), and the ladder's phase and window as the dashboard states
// them: instants in UTC with a plain-words hint.

import type { LadderT } from "../api/responses.ts";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import { type Html, html } from "../web/html.ts";
import { href } from "../web/layout.ts";

/** The Ladder resource of SPEC 2, as GET /api/ladders returns it. */
export type LadderJ = LadderT;

/** The `?ladder=` a link to `id` carries: none for the default ladder, so its addresses stay short. */
export const ladderParam = (id: string): string | null => (id === DEFAULT_LADDER ? null : id);

/**
 * Links to `path` on each listed ladder (the API lists the visible ones plus the current one if hidden).
 * Nothing when there is only one ladder to be on.
 */
export function ladderSwitcher(ladders: readonly LadderJ[], current: string | null, path: string): Html | "" {
  if (ladders.length < 2) return "";
  const here = current ?? DEFAULT_LADDER;
  return ladderNav(
    "Ladder",
    ladders.map((l) => ladderLink(l, href(path, ladderParam(l.id)), l.id === here)),
  );
}

/**
 * On a page about one match (the replay viewer): the one ladder it was played on, linked to that ladder's
 * dashboard, in the switcher's place and look.
 */
export function playedOn(l: LadderJ): Html {
  return ladderNav("Played on", [ladderLink(l, href("/ladder", ladderParam(l.id)), false)]);
}

function ladderNav(label: string, links: Html[]): Html {
  return html`<nav class="ladder-switch" aria-label="Ladders"><span class="muted small">${label}</span>
<ul class="ladder-links">${links}</ul></nav>`;
}

function ladderLink(l: LadderJ, to: string, current: boolean): Html {
  return html`<li><a class="ladder-link" href="${to}" data-ladder="${l.id}"${current ? html` aria-current="page"` : ""}>${l.name}${l.visible ? "" : html` <span class="badge">hidden</span>`}${l.phase === "open" ? "" : html` <span class="badge phase-${l.phase}">${l.phase}</span>`}</a></li>`;
}

/** "in 3 days", "2 hours ago": the distance from `now` to `at` in the largest whole unit. */
export function distance(at: number, now: number): string {
  const s = Math.round((at - now) / 1000);
  const abs = Math.abs(s);
  const [n, unit] =
    abs < 60
      ? [abs, "second"]
      : abs < 3600
        ? [Math.round(abs / 60), "minute"]
        : abs < 86_400
          ? [Math.round(abs / 3600), "hour"]
          : [Math.round(abs / 86_400), "day"];
  const words = `${n} ${unit}${n === 1 ? "" : "s"}`;
  return s >= 0 ? `in ${words}` : `${words} ago`;
}

/** An instant in UTC that web/app.js leaves as it is (the hint next to it says how far away it is). */
function utc(iso: string): Html {
  const d = new Date(iso);
  return html`<time datetime="${d.toISOString()}" data-absolute>${d.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;
}

const ACCESS_WORDS: Record<LadderJ["access"], string> = {
  open: "open to every account",
  approval: "enrollment approved by the admins",
  invitation: "by invitation",
};

/** The phase in words, from the window: "Opens in 3 days", "Closes in 5 hours", "Closed 2 days ago". */
export function phaseHint(l: LadderJ, now: number): string {
  if (!l.enabled) return "Disabled: no matches are played.";
  if (l.phase === "upcoming" && l.opens_at) return `Opens ${distance(Date.parse(l.opens_at), now)}.`;
  if (l.phase === "closed")
    return l.closes_at ? `Closed ${distance(Date.parse(l.closes_at), now)}.` : "Closed.";
  if (l.closes_at) return `Open; closes ${distance(Date.parse(l.closes_at), now)}.`;
  // The badge beside it already says "open": the hint adds what it does not say.
  return "No closing date.";
}

/** The dashboard's ladder facts: phase with its hint, the window in UTC, who may enter. */
export function ladderFacts(l: LadderJ, now: number): Html {
  const fact = (label: string, value: unknown) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`;
  return html`<section class="ladder-info" aria-labelledby="h-ladder-info">
<h2 id="h-ladder-info" class="visually-hidden">About this ladder</h2>
${l.description ? html`<p class="muted">${l.description}</p>` : ""}
<dl class="facts">
${fact("Phase", html`<span class="badge phase-${l.enabled ? l.phase : "disabled"}" id="ladder-phase">${l.enabled ? l.phase : "disabled"}</span> <span class="small" id="ladder-hint">${phaseHint(l, now)}</span>`)}
${l.opens_at ? fact("Opens", utc(l.opens_at)) : ""}
${l.closes_at ? fact("Closes", utc(l.closes_at)) : ""}
${fact("Entry", l.access === "open" ? ACCESS_WORDS.open : html`${ACCESS_WORDS[l.access]} · <a href="/account">enroll on your account page</a>`)}
</dl>
</section>`;
}
