// The event pages (SPEC 1.1 style, server-rendered from the events service): `/events` lists the events,
// `/events/<id>` shows one: its schedule in the event's display time zone and the reader's own (web/event.js
// rewrites the marked times into the reader's zone), phase, the five achievements, the official opponents,
// the image, the submission link and the ladder's leaderboard. `/events/<id>/image.webp` serves the stored
// image. Nothing private is rendered; a signed-in reader's cards come from the account routes (web/event.js).
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Services } from "../kernel/feature.ts";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import { webAssets } from "../web/assets.ts";
import { type Html, html } from "../web/html.ts";
import { href, sendPage, shellAssets } from "../web/layout.ts";
import { leaderboardSection } from "../web/sections.ts";
import type { Events } from "./service.ts";

/** What these pages read (their feature: feature.ts beside this file). */
export type EventPageServices = Pick<Services, "events" | "reads">;

type EventView = ReturnType<Events["view"]>;

/** A time in a zone, e.g. "Sat 5 Dec 2026, 18:00 CET". */
export function inZone(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  }).format(new Date(iso));
}

function scheduleRow(label: string, iso: string | null, tz: string): Html {
  if (!iso) return html`<tr><th scope="row">${label}</th><td colspan="2">—</td></tr>`;
  return html`<tr><th scope="row">${label}</th><td>${inZone(iso, tz)}</td>
<td><time datetime="${iso}" data-absolute data-local>${inZone(iso, "UTC")}</time></td></tr>`;
}

const PHASE_TEXT = { upcoming: "Upcoming", open: "Open now", closed: "Closed" } as const;
/** The kinds in words: "precon" is the data's short name, not a word a reader knows. */
const KIND_TEXT = {
  precon: "Pre-conference event",
  main: "Main event",
  community: "Community event",
} as const;

function eventBody(e: EventView, board: Html): Html {
  const ladder = e.ladder_id === DEFAULT_LADDER ? null : e.ladder_id;
  return html`<article class="event" data-event="${e.id}">
<header class="event-head">
${e.image ? html`<img class="event-image" src="${e.image.url}" alt="${e.image.alt}" width="${e.image.width}" height="${e.image.height}">` : ""}
<h1>${e.name}</h1>
<p><span class="phase phase-${e.phase}" id="event-phase">${PHASE_TEXT[e.phase]}</span>
on <a href="${href("/ladder", ladder)}">${e.ladder.name}</a>${e.enabled ? "" : " (disabled)"}</p>
<p>${e.description}</p>
</header>
<section class="panel" aria-labelledby="h-schedule"><h2 id="h-schedule">Schedule</h2>
<table class="schedule"><thead><tr><th scope="col"></th><th scope="col">Event time (${e.timezone})</th><th scope="col">Your time</th></tr></thead>
<tbody>${scheduleRow("Opens", e.opens_at, e.timezone)}${scheduleRow("Closes", e.closes_at, e.timezone)}</tbody></table>
<p class="muted small">Achievements are earned from ranked matches on ${e.ladder.name} while the event is open, by accounts enrolled on that ladder.</p>
</section>
${
  e.metadata
    ? html`<section class="panel" aria-labelledby="h-about"><h2 id="h-about">About</h2><dl class="facts">
<dt>Kind</dt><dd>${KIND_TEXT[e.metadata.kind] ?? e.metadata.kind}</dd>
${e.metadata.purpose ? html`<dt>Purpose</dt><dd>${e.metadata.purpose}</dd>` : ""}
${e.metadata.audience ? html`<dt>Audience</dt><dd>${e.metadata.audience}</dd>` : ""}
${e.metadata.format ? html`<dt>Format</dt><dd>${e.metadata.format}</dd>` : ""}
${e.metadata.preparation ? html`<dt>Preparation</dt><dd>${e.metadata.preparation}</dd>` : ""}
</dl></section>`
    : ""
}
<section class="panel" aria-labelledby="h-achievements"><h2 id="h-achievements">Achievements</h2>
<ol class="achievements">${e.achievements.map(
    (a) =>
      html`<li data-achievement="${a.id}"><h3>${a.name}</h3><p>${a.description}</p><p class="muted small">${a.condition_text}</p></li>`,
  )}</ol>
<div id="event-cards" hidden></div>
</section>
<section class="panel" aria-labelledby="h-opponents"><h2 id="h-opponents">Official opponents</h2>
<ul class="opponents">${e.opponents.map(
    (o) =>
      html`<li><a href="${href(`/bot/${o.name}`, ladder)}">${o.display_name}</a> <code>${o.name}</code>${e.unavailable_opponents.includes(o.name) ? html` <span class="muted">(unavailable on this server)</span>` : ""}</li>`,
  )}</ul>
<p class="muted small">Signed in and enrolled, you can ask for one of them on the <a href="/account#events">account page</a>; your bot meets it the next time it queues.</p>
</section>
<section class="panel" aria-labelledby="h-submission"><h2 id="h-submission">Submission</h2>
${e.submission_url ? html`<p><a class="button" href="${e.submission_url}" rel="noopener">Submit</a></p>` : html`<p class="muted">No submission link.</p>`}
${e.submission_instructions ? html`<p class="instructions">${e.submission_instructions}</p>` : ""}
</section>
<section class="panel" aria-labelledby="h-leaderboard"><h2 id="h-leaderboard">Leaderboard of ${e.ladder.name}</h2>
${board}
</section>
</article>`;
}

export function eventPageRoutes(app: FastifyInstance, ctx: EventPageServices): void {
  const assets = webAssets();
  const shell = () => ({
    ...shellAssets(),
    styles: [assets.url("events.css")],
    scripts: [assets.url("event.js")],
  });

  const notFound = (reply: FastifyReply, id: string) =>
    sendPage(
      reply,
      {
        ...shell(),
        title: "Event not found",
        description: `There is no event ${JSON.stringify(id)}.`,
        page: "not-found",
        ladder: null,
        noindex: true,
        body: html`<section class="hero small"><h1>Event not found</h1><p>There is no event ${JSON.stringify(id)}.</p>
<p><a class="button" href="/events">All events</a></p></section>`,
      },
      404,
    );

  app.get("/events", async (_req, reply) => {
    const list = ctx.events.list();
    return sendPage(reply, {
      ...shell(),
      title: "Events",
      description: "Timed events with achievements on the ladders.",
      page: "events",
      ladder: null,
      body: html`<h1>Events</h1>
${list.length === 0 ? html`<p>No events right now.</p>` : ""}
<ul class="event-list">${list.map(
        (e) =>
          html`<li><a href="/events/${e.id}">${e.name}</a> <span class="phase phase-${e.phase}">${PHASE_TEXT[e.phase]}</span>
<span class="muted small">${e.opens_at ? inZone(e.opens_at, e.timezone) : ""} – ${e.closes_at ? inZone(e.closes_at, e.timezone) : ""}</span></li>`,
      )}</ul>`,
    });
  });

  app.get<{ Params: { id: string } }>("/events/:id", async (req, reply) => {
    const id = req.params.id;
    const e = ctx.events.all().find((x) => x.def.id === id);
    if (!e) return notFound(reply, id);
    const view = ctx.events.view(e);
    const board = leaderboardSection(
      await ctx.reads.leaderboard(view.ladder_id),
      view.ladder_id === DEFAULT_LADDER ? null : view.ladder_id,
    );
    return sendPage(reply, {
      ...shell(),
      title: view.name,
      description: view.description.slice(0, 200) || `The event ${view.name}`,
      page: "event",
      ladder: view.ladder_id === DEFAULT_LADDER ? null : view.ladder_id,
      body: eventBody(view, board),
    });
  });

  app.get<{ Params: { id: string } }>("/events/:id/image.webp", async (req, reply) => {
    const img = ctx.events.image(req.params.id);
    if (!img) return reply.code(404).send({ error: "no image", code: "not_found" });
    return reply
      .header("content-type", "image/webp")
      .header("cache-control", "public, max-age=300")
      .header("x-content-type-options", "nosniff")
      .send(img.webp);
  });
}
