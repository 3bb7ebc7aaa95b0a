// Markdown to HTML for /guide/<name> and /changelog, shown inside the site's layout. marked parses (CommonMark + GFM
// tables); this module decides what the output may contain: headings get stable ids for anchors, links
// between docs point at their /guide pages, and raw HTML inside Markdown is shown as text rather than trusted,
// so a doc edit can never inject markup or script into the site.
import { Marked, type Tokens } from "marked";
import { DOCS, docForFile } from "./catalog.ts";

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Anchor id of a heading: lowercase words joined by `-`; release numbers such as `0.44.0` keep their dots. */
export function slug(text: string): string {
  if (/^\d+\.\d+\.\d+$/.test(text.trim())) return text.trim();
  return (
    text
      .toLowerCase()
      .replace(/<[^>]*>/g, "")
      .replace(/&[a-z0-9#]+;/g, "")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "section"
  );
}

/** Where a link in a doc should go on the site: Markdown siblings become their guide pages. */
export function siteHref(href: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#") || href.startsWith("/")) return href;
  const [path = "", hash] = href.split("#", 2);
  const doc = docForFile(path);
  if (doc) return `/guide/${doc.name}${hash ? `#${hash}` : ""}`;
  if (path === "rules.json") return "/docs/rules.json";
  if (path.startsWith("schema/")) return `/docs/${path}`;
  return href;
}

// Ids already used on the page being rendered: a repeated heading gets `-2`, `-3`, ... (reset per page;
// rendering is synchronous, so pages cannot interleave).
let usedIds = new Set<string>();
function uniqueId(id: string): string {
  let out = id;
  for (let n = 2; usedIds.has(out); n++) out = `${id}-${n}`;
  usedIds.add(out);
  return out;
}

function markdownRenderer(): Marked {
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading(this: { parser: { parseInline(t: Tokens.Generic[]): string } }, { tokens, depth, text }) {
        const inner = this.parser.parseInline(tokens);
        const id = uniqueId(slug(text));
        return `<h${depth} id="${escapeHtml(id)}"><a class="anchor" href="#${escapeHtml(id)}">${inner}</a></h${depth}>\n`;
      },
      link(this: { parser: { parseInline(t: Tokens.Generic[]): string } }, { href, title, tokens }) {
        const t = title ? ` title="${escapeHtml(title)}"` : "";
        return `<a href="${escapeHtml(siteHref(href))}"${t}>${this.parser.parseInline(tokens)}</a>`;
      },
      html({ text }) {
        return escapeHtml(text);
      },
      // Code blocks and tables may be wider than a phone: they scroll inside the column and take the
      // keyboard focus so they can be scrolled without a mouse.
      code({ text, lang }) {
        const cls = lang ? ` class="language-${escapeHtml(lang.split(/\s/)[0]!)}"` : "";
        return `<pre tabindex="0"><code${cls}>${escapeHtml(text)}</code></pre>\n`;
      },
    },
  });
  return marked;
}

const renderer = markdownRenderer();

export function markdownToHtml(markdown: string): string {
  usedIds = new Set();
  return renderer
    .parse(markdown, { async: false })
    .replace(/<table>/g, '<div class="table-scroll" tabindex="0" role="region" aria-label="Table"><table>')
    .replace(/<\/table>/g, "</table></div>");
}

const NAV = [
  ["/guide", "All guides"],
  ["/guide/agents", "For agents"],
  ["/guide/bot-guide", "Bot guide"],
  ["/guide/api", "HTTP API"],
  ["/guide/rules", "Rules"],
  ["/guide/simulator", "Simulator"],
  ["/changelog", "Changelog"],
] as const;

/**
 * A guide's content for the site's layout (server/web/layout.ts): the guides' own table of contents, then the
 * rendered document in a prose column, then where the machine-readable forms are. `current` marks the page
 * being read in that list.
 */
export function guideArticle(body: string, current: string): string {
  const items = NAV.map(
    ([href, label]) =>
      `<li><a href="${href}"${href === current ? ' aria-current="page"' : ""}>${escapeHtml(label)}</a></li>`,
  ).join("");
  return `<nav class="guide-nav" aria-label="Guides"><ul>${items}</ul></nav>
<article class="prose">
${body}
<p class="muted small">Markdown source and machine-readable forms: <a href="/docs">/docs</a>, <a href="/openapi.json">/openapi.json</a>, <a href="/llms.txt">/llms.txt</a>.</p>
</article>`;
}

/**
 * The docs write addresses as `{base_url}` and `{bot_endpoint}` (and examples on `https://ladder.example`):
 * on this ladder's HTML guides they read as this ladder's own public address, so a reader can copy them.
 */
export function localizeAddresses(rendered: string, base: string): string {
  const http = escapeHtml(base);
  const ws = escapeHtml(base.replace(/^http/, "ws"));
  return rendered
    .replace(/\{base_url\}/g, http)
    .replace(/\{bot_endpoint\}/g, `${ws}/bot`)
    .replace(/https:\/\/ladder\.example(?![\w.-])/g, http)
    .replace(/wss:\/\/ladder\.example(?![\w.-])/g, ws);
}

/** The /guide index: every guide with its one-line description. */
export function guideIndexBody(available: ReadonlySet<string>): string {
  const items = DOCS.filter((d) => available.has(d.name))
    .map(
      (d) =>
        `<li><a href="/guide/${d.name}">${escapeHtml(d.title)}</a> — ${escapeHtml(d.about)} (<a href="/docs/${d.name}">Markdown</a>)</li>`,
    )
    .join("\n");
  return `<h1>Guides</h1>\n<p>Everything a bot author (or their agent) needs to build a bot and enter the ladder. Start with the agent guide or the bot guide.</p>\n<ul>\n${items}\n</ul>\n`;
}
