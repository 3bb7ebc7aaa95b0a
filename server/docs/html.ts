// Markdown to a self-contained HTML page for /guide/<name> and /changelog. marked parses (CommonMark + GFM
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
    },
  });
  return marked;
}

const renderer = markdownRenderer();

export function markdownToHtml(markdown: string): string {
  usedIds = new Set();
  return renderer.parse(markdown, { async: false });
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1d232b;--bg:#fbfbf8;--muted:#5c6670;--line:#d9dcd6;--code:#f0f1ec;--link:#0b5cad}
@media (prefers-color-scheme:dark){:root{--fg:#e3e6e8;--bg:#15181b;--muted:#9aa3ab;--line:#30363c;--code:#1f2428;--link:#6cb4ff}}
*{box-sizing:border-box}body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header,main,footer{max-width:60rem;margin:0 auto;padding:0 1.25rem}
header{border-bottom:1px solid var(--line);padding-top:.75rem;padding-bottom:.75rem}
header nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.95rem}
a{color:var(--link)}h1,h2,h3,h4{line-height:1.25;margin:1.8em 0 .6em}h1{margin-top:1em}
h1 a.anchor,h2 a.anchor,h3 a.anchor,h4 a.anchor{color:inherit;text-decoration:none}
code,pre{font:.9em/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:4px}
code{padding:.1em .3em}pre{padding:.8em 1em;overflow:auto}pre code{padding:0;background:none}
table{border-collapse:collapse;display:block;overflow:auto;margin:1em 0}th,td{border:1px solid var(--line);padding:.35em .6em;text-align:left;vertical-align:top}
th{background:var(--code)}blockquote{margin:1em 0;padding:0 1em;border-left:3px solid var(--line);color:var(--muted)}
footer{color:var(--muted);font-size:.9rem;border-top:1px solid var(--line);margin-top:3rem;padding-top:1rem;padding-bottom:2rem}
`;

export interface PageOptions {
  title: string;
  /** Absolute canonical address of the page. */
  canonical: string;
  /** Rendered HTML of the main content. */
  body: string;
  description?: string;
  /** Extra header: e.g. X-Robots-Tag is set by the route; this adds the meta twin. */
  noindex?: boolean;
}

const NAV = [
  ["/guide", "Guides"],
  ["/guide/agents", "For agents"],
  ["/guide/bot-guide", "Bot guide"],
  ["/guide/api", "HTTP API"],
  ["/guide/rules", "Rules"],
  ["/guide/simulator", "Simulator"],
  ["/changelog", "Changelog"],
  ["/api", "GET /api"],
] as const;

/** A complete, self-contained page: inline CSS, no scripts, semantic landmarks. */
export function page(o: PageOptions): string {
  const nav = NAV.map(([href, label]) => `<a href="${href}">${escapeHtml(label)}</a>`).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.title)} · Arena ladder</title>
${o.description ? `<meta name="description" content="${escapeHtml(o.description)}">\n` : ""}${o.noindex ? '<meta name="robots" content="noindex">\n' : ""}<link rel="canonical" href="${escapeHtml(o.canonical)}">
<style>${STYLE}</style>
</head>
<body>
<header><nav aria-label="Documentation">
${nav}
</nav></header>
<main>
${o.body}
</main>
<footer>Markdown source and machine-readable forms: <a href="/docs">/docs</a>, <a href="/openapi.json">/openapi.json</a>, <a href="/llms.txt">/llms.txt</a>.</footer>
</body>
</html>
`;
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
