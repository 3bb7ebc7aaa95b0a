// A tournament as it is read (issue 34, part 3): the games and byes scored as pairing.ts counts them, and the JSON
// view of a tournament (its settings, entrants, rounds with their pairings and games, and the standings, live
// until the final ones are written). Pure functions of the stored rows, so a restart or another process reads
// the same answer; the catalog (catalog.ts) reads the rows and hands them here.
import { type Bye, type PlayedGame, standings, TIE_BREAKS } from "./pairing.ts";
import type { EntrantRow, GameRow, TournamentRow } from "./store.ts";

/** The games and byes as pairing.ts scores them. */
export function scored(rows: readonly GameRow[]): { games: PlayedGame[]; byes: Bye[] } {
  const games: PlayedGame[] = [];
  const byes: Bye[] = [];
  for (const g of rows) {
    if (g.b_id === null) byes.push({ round: g.round, player: g.a_id, points: g.points_a ?? 0 });
    else if (g.state === "done")
      games.push({
        round: g.round,
        a: g.a_id,
        b: g.b_id,
        pointsA: g.points_a,
        pointsB: g.points_b,
        forfeit: g.forfeit,
      });
  }
  return { games, byes };
}

export function tournamentView(
  row: TournamentRow,
  entrants: EntrantRow[],
  games: GameRow[],
  publicUrl: string,
) {
  const name = new Map(entrants.map((e) => [e.bot_id, e.bot_name]));
  const nameOf = (id: string) => name.get(id) ?? id;
  const seeded = entrants.filter((e) => e.seed !== null);
  const { games: played, byes } = scored(games);
  const live = standings(
    seeded.map((e) => e.bot_id),
    played,
    byes,
  ).map((s) => ({ ...s, player: nameOf(s.player) }));
  const table = row.standings ?? live;
  const rounds = [];
  for (let r = 1; r <= row.round; r++) {
    const inRound = games.filter((g) => g.round === r);
    const pairings = [...new Set(inRound.map((g) => g.pairing))].map((p) => {
      const gs = inRound.filter((g) => g.pairing === p);
      const first = gs[0]!;
      const sum = (k: "points_a" | "points_b") =>
        gs.every((g) => g.state === "done") ? gs.reduce((s, g) => s + (g[k] ?? 0), 0) : null;
      return {
        a: nameOf(first.a_id),
        b: first.b_id === null ? null : nameOf(first.b_id),
        bye: first.b_id === null,
        points_a: sum("points_a"),
        points_b: first.b_id === null ? null : sum("points_b"),
        state: gs.every((g) => g.state === "done")
          ? "done"
          : gs.some((g) => g.state === "playing")
            ? "playing"
            : "waiting",
        games:
          first.b_id === null
            ? []
            : gs.map((g) => ({
                game: g.game,
                state: g.state,
                map: g.map,
                match_id: g.match_id,
                points_a: g.points_a,
                points_b: g.points_b,
                winner:
                  g.state !== "done" || g.points_a === g.points_b
                    ? null
                    : nameOf((g.points_a ?? 0) > (g.points_b ?? 0) ? g.a_id : g.b_id!),
                forfeit: g.forfeit,
                reason: g.reason,
                started: g.started,
                ended: g.ended,
                match_url: g.match_id ? `${publicUrl}/match/${g.match_id}` : null,
                replay_url: g.match_id ? `${publicUrl}/replays/${g.match_id}.jsonl.gz` : null,
              })),
      };
    });
    rounds.push({ round: r, pairings });
  }
  const checkinOpens = new Date(Date.parse(row.starts_at) - row.checkin_s * 1000).toISOString();
  return {
    id: row.id,
    name: row.name,
    ladder_id: row.ladder_id,
    format: row.format,
    state: row.state,
    rated: row.rated,
    round: row.round,
    round_count: row.rounds,
    games_per_pairing: row.games_per_pairing,
    starts_at: row.starts_at,
    checkin_opens_at: checkinOpens,
    forfeit_after_s: row.forfeit_after_s,
    note: row.note,
    created: row.created,
    started: row.started,
    ended: row.ended,
    entrants: (row.state === "scheduled" ? entrants : seeded).map((e) => ({
      bot: e.bot_name,
      seed: e.seed,
      checked_in: e.checked_in,
    })),
    scoring:
      "a game: win 1, draw 1/2 (a voided match too), loss 0 (a forfeit too); a Swiss bye: a won pairing",
    tie_breaks: [...TIE_BREAKS],
    final: row.standings !== null,
    standings: table.map(({ player, rank, ...s }) => ({ rank, bot: player, ...s })),
    rounds,
    url: `${publicUrl}/tournaments/${row.id}`,
  };
}
