// The ladder dashboard (`/ladder`): the leaderboard with its sparklines, the heat map, live and online bots,
// upsets and recent matches, and the same sections as HTML for its live updates (`/ladder/sections`).
import type { FastifyInstance } from "fastify";
import type { LeaderboardRowT } from "../api/responses.ts";
import { heatmapSection } from "../insight/pages.ts";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import { onAir, RECENT_WINDOW, upsets } from "../spectate/service.ts";
import { type Html, html } from "../web/html.ts";
import {
  BOARD_TOP,
  leaderboardSection,
  liveSection,
  matchesTable,
  onlineSection,
  upsetsSection,
} from "../web/sections.ts";
import { ladderFacts, ladderSwitcher, phaseHint } from "./ladders.ts";
import type { PageKit, SitePageServices } from "./page-kit.ts";

/** Games a leaderboard sparkline shows. */
const SPARK_GAMES = 30;

export function ladderRoutes(app: FastifyInstance, ctx: SitePageServices, kit: PageKit): void {
  const { read, shell, on, wholeBoard, ladderOf, sendKept, laddersFor, notFound } = kit;
  /**
   * The rendered leaderboard section by the board it shows (the reads' frozen answer, the same array until a
   * result, a bot change or who is online changes it), with what else it shows as a key: its sparklines and the
   * rendered rows' rank intervals. Rendering 100 rows is most of the dashboard's own cost (issue 38).
   */
  const boardHtml = new WeakMap<readonly LeaderboardRowT[], Map<string, Html>>();
  function boardSection(
    board: LeaderboardRowT[],
    ladder: string | null,
    trends: Map<string, number[]>,
    interval: ((r: LeaderboardRowT) => { low: number; high: number } | null) | undefined,
    top: number | null,
  ): Html {
    const shown = top === null ? board : board.slice(0, top);
    const key = JSON.stringify([
      ladder,
      top,
      [...trends],
      interval ? shown.map((r) => interval(r)).map((i) => (i ? `${i.low}-${i.high}` : "")) : null,
    ]);
    let kept = boardHtml.get(board);
    const hit = kept?.get(key);
    if (hit) return hit;
    const made = leaderboardSection(board, ladder, trends, interval, top);
    if (!Object.isFrozen(board)) return made;
    if (!kept || kept.size >= 8) {
      kept = new Map();
      boardHtml.set(board, kept);
    }
    kept.set(key, made);
    return made;
  }
  // ---- ladder dashboard -----------------------------------------------------------------------------------
  /** The latest ratings of the top ten's ranked versions, by bot name, for the leaderboard's sparklines. */
  async function topTrends(board: LeaderboardRowT[], ladder: string | null): Promise<Map<string, number[]>> {
    const res = await read(() => ctx.reads.trends(board.slice(0, 10), SPARK_GAMES, on(ladder)));
    return res.body ?? new Map();
  }

  type SectionId = "leaderboard" | "matrix" | "live" | "online" | "recent" | "upsets";
  type Sections = { signature: string } & Record<SectionId, Html>;
  /**
   * The dashboard's data, read (each read is kept: server/reads, server/insight), with the inputs that name
   * everything its sections show and the sections' rendering, done only when a kept page or section set is
   * not made from the same inputs.
   */
  async function ladderSections(
    ladder: string | null,
    wholeBoard = false,
  ): Promise<{ signature: string; inputs: unknown[]; render(): Sections } | null> {
    const [board, status, lobby, recent, ranks, matrix] = await Promise.all([
      read(() => ctx.reads.leaderboard(on(ladder))),
      read(() => ctx.reads.status(on(ladder))),
      read(() => ctx.reads.lobby(on(ladder))),
      read(() => ctx.reads.matches({ limit: RECENT_WINDOW, ...(ladder ? { ladder } : {}) })),
      // Issue 33: each row's 95 % rank interval and the top's win-chance heat map (server/insight).
      read(() => ctx.insight.board.intervals(on(ladder))),
      read(() => ctx.insight.board.heatmap(on(ladder))),
    ]);
    if (!board.body || !status.body) return null;
    const rows = board.body;
    const st = status.body;
    // The same fingerprint web/app.js computes from /api/status: it refetches these sections when it changes.
    const signature = JSON.stringify([
      st.matches.map((m) => m.id).sort(),
      st.online.map((o) => `${o.name}:${o.state}:${o.version}`).sort(),
    ]);
    const matches = recent.body ?? [];
    const trends = await topTrends(rows, ladder);
    const paced = onAir(matches, Date.now());
    return {
      signature,
      inputs: [
        rows,
        wholeBoard,
        trends,
        ranks.body?.intervalSet ?? null,
        matrix.body ?? null,
        // The live section: the matches being played with their ticks, the capacity, the paced replays' ticks.
        JSON.stringify([st.matches, st.capacity]),
        paced.map((p) => `${p.match.id}:${p.tick}`).join(","),
        JSON.stringify(lobby.body ?? []),
        matches,
      ],
      render: () => ({
        signature,
        // The top of the board up front; the whole board when asked for (?board=all).
        leaderboard: boardSection(
          rows,
          ladder,
          trends,
          ranks.body ? ranks.body.of : undefined,
          wholeBoard ? null : BOARD_TOP,
        ),
        matrix: matrix.body ? heatmapSection(matrix.body, ladder) : html``,
        live: liveSection(st, ladder, paced),
        online: onlineSection(lobby.body ?? [], ladder),
        recent: matchesTable(matches.slice(0, 20), ladder, "recent", "Recent matches"),
        upsets: upsetsSection(upsets(matches), ladder),
      }),
    };
  }

  app.get("/ladder", async (req, reply) => {
    const ladder = ladderOf(req);
    const [s, ladders] = await Promise.all([ladderSections(ladder, wholeBoard(req)), laddersFor(ladder)]);
    if (!s) return notFound(reply, ladder, "Ladder", `There is no ladder ${JSON.stringify(ladder)}.`);
    const current = ladders.find((l) => l.id === (ladder ?? DEFAULT_LADDER));
    const now = Date.now();
    const inputs = [
      ...s.inputs,
      s.signature,
      JSON.stringify(ladders),
      current ? phaseHint(current, now) : null,
    ];
    return sendKept(reply, `ladder\0${ladder ?? ""}\0${wholeBoard(req)}`, inputs, () => {
      const parts = s.render();
      const section = (id: SectionId, title: string) =>
        html`<section class="panel panel-${id}" aria-labelledby="h-${id}"><h2 id="h-${id}">${title}</h2><div data-section="${id}">${parts[id]}</div></section>`;
      return {
        ...shell,
        title: current?.name ?? "Ladder",
        description: "Leaderboard, matches being played, recent results and the bots online.",
        page: "ladder",
        ladder,
        switcher: ladderSwitcher(ladders, ladder, "/ladder"),
        body: html`<h1>${current?.name ?? "Ladder"} <span class="live-dot" data-live-state="on" title="Updates live">live</span></h1>
${current ? ladderFacts(current, now) : ""}
<p class="visually-hidden" aria-live="polite" id="live-announcer"></p>
<div class="dashboard" data-signature="${s.signature}">
${section("leaderboard", "Leaderboard")}
${section("matrix", "Who beats whom")}
${section("live", "Being played now")}
${section("online", "Online")}
${section("upsets", "Recent upsets")}
${section("recent", "Recent matches")}
</div>`,
      };
    });
  });

  // The dashboard's live update: the same sections as HTML, re-rendered (web/app.js swaps them in).
  app.get("/ladder/sections", async (req, reply) => {
    const ladder = ladderOf(req);
    const made = await ladderSections(ladder, wholeBoard(req));
    if (!made) return reply.code(404).send({ error: "unknown ladder", code: "unknown_ladder" });
    reply.header("cache-control", "no-store");
    const { signature, ...sections } = made.render();
    return {
      signature,
      sections: Object.fromEntries(Object.entries(sections).map(([k, v]) => [k, v.value])),
    };
  });
}
