// The documents the ladder publishes: which Markdown file in docs/ is served under which name, with a title
// and one line on what it is for. Read once at start-up (the files ship with the release). The same list
// feeds /docs, /guide, /llms.txt and /sitemap.xml, so an index never names a document that is not served.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../root.ts";

export { REPO_ROOT };
export const DOCS_DIR = join(REPO_ROOT, "docs");

export interface DocEntry {
  /** Served at /docs/<name> (Markdown) and /guide/<name> (HTML). */
  name: string;
  /** Path under docs/. */
  file: string;
  title: string;
  about: string;
}

/** In reading order for a newcomer: the agent guide first, the full SPEC last. */
export const DOCS: readonly DocEntry[] = [
  {
    name: "agents",
    file: "agents.md",
    title: "Guide for AI agents",
    about: "From GET /api to a bot on the ladder, step by step, for coding agents",
  },
  {
    name: "bot-guide",
    file: "bot-guide.md",
    title: "Bot guide",
    about: "The bot protocol walkthrough: every message with an example, limits, errors and what to do",
  },
  {
    name: "api",
    file: "api.md",
    title: "HTTP API",
    about: "Every HTTP route with examples, authentication and error codes",
  },
  {
    name: "events",
    file: "events.md",
    title: "Events (for organisers)",
    about:
      "Defining a timed event and its achievement conditions, supplying flags, the window rules, running it",
  },
  {
    name: "competitions",
    file: "competitions.md",
    title: "Scrimmages and batch tests",
    about:
      "Unrated games on demand against a chosen bot, batch tests with a summary, the opt-in and the limits",
  },
  {
    name: "accounts",
    file: "accounts.md",
    title: "Accounts, keys and administration",
    about: "Sign-up and sign-in, handles, agent keys, your bots' lifecycle, and the admin routes",
  },
  {
    name: "rules",
    file: "rules.md",
    title: "Game rules",
    about: "The arena, the tick order and every combat number",
  },
  {
    name: "frame-data",
    file: "frame-data.md",
    title: "Frame data",
    about: "Per-action timing tables: when each move and attack acts and when it is ready again",
  },
  {
    name: "ranged-attacks",
    file: "ranged-attacks.md",
    title: "Ranged attacks",
    about: "Aiming, line of sight, ricochets and frostburst areas",
  },
  {
    name: "simulator",
    file: "simulator.md",
    title: "Offline simulator",
    about: "arena-sim: play and verify matches offline (JavaScript or Python)",
  },
  {
    name: "ladder",
    file: "ladder.md",
    title: "Ratings and matchmaking",
    about: "How versions are rated and paired",
  },
  {
    name: "insights",
    file: "insights.md",
    title: "Insights for bot authors",
    about: "Health figures, provisional ratings, a match's diagnostics for its owner, and the matchups",
  },
  {
    name: "replay-format",
    file: "replay-format.md",
    title: "Replay format",
    about: "The gzipped JSON Lines replay files",
  },
  {
    name: "replays-and-data",
    file: "replays-and-data.md",
    title: "Replays and results as open material",
    about:
      "Watch, link and open replay files, fork a game at any tick, run a local league, refit the ratings from results",
  },
  {
    name: "operations",
    file: "operations.md",
    title: "Operations",
    about:
      "For operators: what survives a database outage, the result journal, and the WebSocket door budgets",
  },
  {
    name: "tick-order",
    file: "adr/0001-tick-order.md",
    title: "Tick order",
    about: "The decision record fixing the order of events within a tick",
  },
  {
    name: "changelog",
    file: "changelog.md",
    title: "Changelog",
    about: "Releases with their engine, rules and protocol versions and what bot authors must do",
  },
  {
    name: "spec",
    file: "spec.md",
    title: "Specification",
    about: "The complete service specification",
  },
];

export interface LoadedDoc extends DocEntry {
  markdown: string;
}

let published: Map<string, LoadedDoc> | null = null;
/** The documents this server publishes (docs/ beside the code), read once: they do not change while it runs. */
export function publishedDocs(): ReadonlyMap<string, LoadedDoc> {
  published ??= loadDocs();
  return published;
}

/** Every catalogued document that exists on disk, by name; also by its file name (`rules.md`). */
export function loadDocs(dir: string = DOCS_DIR): Map<string, LoadedDoc> {
  const out = new Map<string, LoadedDoc>();
  for (const d of DOCS) {
    const path = join(dir, d.file);
    if (!existsSync(path)) continue;
    out.set(d.name, { ...d, markdown: readFileSync(path, "utf8") });
  }
  return out;
}

/** The document a relative Markdown link such as `rules.md` or `adr/0001-tick-order.md#x` points at. */
export function docForFile(file: string): DocEntry | undefined {
  const clean = file.replace(/^\.\//, "").replace(/^\.\.\/docs\//, "");
  return DOCS.find((d) => d.file === clean);
}
