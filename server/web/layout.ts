// The document shell every page shares (head, navigation, footer) and the small formatting helpers pages use.
// `?ladder=<id>` is carried through every internal link so a scoped visit stays scoped.
import type { FastifyReply } from "fastify";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import { webAssets } from "./assets.ts";
import { type Html, html } from "./html.ts";

export interface PageShell {
  title: string;
  description: string;
  /** `data-page` on <body>: which client behaviour web/app.js switches on. */
  page: string;
  ladder: string | null;
  body: Html;
  noindex?: boolean;
  /** Extra module scripts (asset URLs). */
  scripts?: string[];
  /** The ladder switcher (server/site/ladders.ts); without it a non-default ladder is named in the header. */
  switcher?: Html | "";
  /** Extra stylesheets (asset URLs) after the shared one. */
  styles?: string[];
  /** Absolute canonical address of the page (from the configured public address). */
  canonical?: string;
  css: string;
  appJs: string;
  icon: string;
}

/** The shared assets every page links: the stylesheet, the page script and the icon. */
export function shellAssets(): Pick<PageShell, "css" | "appJs" | "icon"> {
  const assets = webAssets();
  return { css: assets.url("style.css"), appJs: assets.url("app.js"), icon: assets.url("icon.svg") };
}

/** Sends a page with the headers every page carries (strict CSP, no-cache, noindex when asked). */
export function sendPage(reply: FastifyReply, page: PageShell, status = 200) {
  return sendRendered(reply, layout(page), status, page.noindex === true);
}

/** Sends a page already laid out (`layout`'s text; a kept one, server/site/page-kit.ts) with those headers. */
export function sendRendered(reply: FastifyReply, text: string, status = 200, noindex = false) {
  reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    // Pages show live data: always revalidate. Assets carry their own long cache.
    .header("cache-control", "no-cache")
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "same-origin")
    .header(
      "content-security-policy",
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
  if (noindex) reply.header("x-robots-tag", "noindex");
  return reply.send(text);
}

/**
 * The page for a moment when its data cannot be read (the database is unreachable): 503 with a retry hint,
 * and no noindex, so crawlers come back rather than drop a page that exists.
 */
export function sendUnavailablePage(reply: FastifyReply, retryAfterS: number) {
  reply.header("retry-after", String(retryAfterS));
  return sendPage(
    reply,
    {
      ...shellAssets(),
      title: "Back in a moment",
      description: "The ladder cannot read its data right now.",
      page: "unavailable",
      ladder: null,
      body: html`<section class="hero small"><h1>Back in a moment</h1>
<p>The ladder cannot read its data right now. Matches keep their results; this page works again in a few seconds.</p>
<p><a class="button" href="">Try again</a></p></section>`,
    },
    503,
  );
}

/**
 * An error page inside the site's layout (unknown address, a failure while rendering a page): the same
 * header, navigation and footer as every page, a way back, and noindex.
 */
export function sendErrorPage(reply: FastifyReply, status: number, title: string, detail: string) {
  return sendPage(
    reply,
    {
      ...shellAssets(),
      title,
      description: detail,
      page: "error",
      ladder: null,
      noindex: true,
      body: html`<section class="hero small"><h1>${title}</h1><p>${detail}</p>
<p class="actions"><a class="button primary" href="/">Home</a> <a class="button" href="/ladder">The ladder</a> <a class="button" href="/guide">Guides</a></p></section>`,
    },
    status,
  );
}

const NAV: [string, string][] = [
  ["/ladder", "Ladder"],
  ["/create-bot", "Build a bot"],
  ["/play", "Play"],
  ["/guide", "Guides"],
  ["/account", "Account"],
];

/** An internal link that keeps the ladder scope. */
export function href(path: string, ladder: string | null, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ ...(ladder ? { ladder } : {}), ...extra }).toString();
  return q ? `${path}?${q}` : path;
}

export function layout(p: PageShell): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title} · Arena ladder</title>
<meta name="description" content="${p.description}">
<meta name="color-scheme" content="light dark">
${p.noindex ? html`<meta name="robots" content="noindex">` : ""}
${p.canonical ? html`<link rel="canonical" href="${p.canonical}">` : ""}
<link rel="icon" href="${p.icon}" type="image/svg+xml">
<link rel="stylesheet" href="${p.css}">
${(p.styles ?? []).map((s) => html`<link rel="stylesheet" href="${s}">`)}
<script type="module" src="${p.appJs}"></script>
${(p.scripts ?? []).map((s) => html`<script type="module" src="${s}"></script>`)}
</head>
<body data-page="${p.page}"${p.ladder ? html` data-ladder="${p.ladder}"` : ""}>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<nav aria-label="Main">
<a class="brand" href="${href("/", p.ladder)}"><img src="${p.icon}" alt="" width="28" height="28"> Arena ladder</a>
<ul>${NAV.map(
    ([path, label]) =>
      html`<li><a href="${href(path, p.ladder)}"${p.page === path.slice(1) ? html` aria-current="page"` : ""}>${label}</a></li>`,
  )}</ul>
</nav>
${!p.switcher && p.ladder && p.ladder !== DEFAULT_LADDER ? html`<p class="scope">Ladder: <strong>${p.ladder}</strong></p>` : ""}
</header>
${p.switcher ?? ""}
<main id="main" tabindex="-1">
${p.body}
</main>
<footer class="site">
<p><a href="/guide">Docs</a> · <a href="/guide/api">API</a> · <a href="/starters">Starter bots</a> · <a href="/changelog">Changelog</a> · <a href="/llms.txt">llms.txt</a></p>
</footer>
</body>
</html>
`}`;
}

/** A timestamp shown in UTC by the server; web/app.js rewrites it as "3 min ago" for the reader. */
export function when(iso: string | null | undefined): Html | string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return html`<time datetime="${d.toISOString()}">${d.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A sortable table: every header cell gets a button (web/app.js sorts on click, keyboard included). */
export function table(o: {
  id: string;
  caption: string;
  columns: { label: string; numeric?: boolean; hideNarrow?: boolean }[];
  rows: Html[];
  empty: string;
  captionHidden?: boolean;
}): Html {
  if (o.rows.length === 0) return html`<p class="empty" id="${o.id}">${o.empty}</p>`;
  return html`<div class="table-wrap"><table class="data sortable" id="${o.id}">
<caption${o.captionHidden ? html` class="visually-hidden"` : ""}>${o.caption}</caption>
<thead><tr>${o.columns.map(
    (c) => html`<th scope="col"${classes(c)}><button type="button" class="sort">${c.label}</button></th>`,
  )}</tr></thead>
<tbody>${o.rows}</tbody>
</table></div>`;
}

function classes(c: { numeric?: boolean; hideNarrow?: boolean }): Html | string {
  const list = [c.numeric ? "num" : "", c.hideNarrow ? "wide-only" : ""].filter(Boolean).join(" ");
  return list ? html` class="${list}"` : "";
}

/** A table cell with a sort key when the shown text does not sort by itself (dates, ranks, "—"). */
export function td(
  content: unknown,
  o: { sort?: string | number | null; numeric?: boolean; hideNarrow?: boolean } = {},
): Html {
  const sort = o.sort === undefined ? "" : html` data-sort="${o.sort ?? ""}"`;
  return html`<td${classes(o)}${sort}>${content}</td>`;
}

/** An avatar orb: the avatar's name as a label (cosmetic; SPEC 2 Avatars), or a plain orb. */
export function avatar(name: string | null | undefined, displayName: string): Html {
  const initial = (displayName.trim()[0] ?? "?").toUpperCase();
  return html`<span class="orb${name ? ` orb-${name}` : ""}" aria-hidden="true" title="${name ?? "plain orb"}">${initial}</span>`;
}
