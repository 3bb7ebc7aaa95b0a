// Scrimmages and batch tests (issue 34, parts 1 and 2). An owner asks for unrated games between one of their
// bots and chosen opponents; this service keeps the requests, claims the bots involved out of the ranked queue
// (a lobby hold), starts each game when both bots are ready (human play's way: the requester's bot queued,
// the opponent queued or a house bot), counts the owner's limits from the live settings, and records each
// result when its MatchFinished arrives. Games are stored as matches of mode `scrimmage`: rated nowhere.
//
// This file puts the parts together: the requests, batches and games at run time with the owner's limits and the
// checks every request makes (catalog.ts, which this extends), starting games and recording results (`games`:
// games.ts), lone requests and the opt-in (`requests`: requests.ts), batch tests (`batchTests`: batches.ts), and
// the timer that ties them.
import { BatchTests } from "./batches.ts";
import { ScrimmageCatalog, type ScrimmageDeps } from "./catalog.ts";
import { ScrimmageGames } from "./games.ts";
import { ScrimmageRequests } from "./requests.ts";

export class ScrimmageService extends ScrimmageCatalog {
  readonly games: ScrimmageGames;
  readonly requests: ScrimmageRequests;
  readonly batchTests: BatchTests;

  constructor(d: ScrimmageDeps) {
    super(d);
    this.games = new ScrimmageGames(this, d);
    this.requests = new ScrimmageRequests(this, d, this.games);
    this.batchTests = new BatchTests(this, d, this.games);
    d.lobby.hold({ claims: (p) => this.claims(p), queued: () => this.games.tryStart() });
  }

  /** The timer: expire old requests, close games whose result never came, and start what is ready. */
  sweep(now = Date.now()): void {
    void this.games
      .dropOrphans(now)
      .catch((err: unknown) => this.d.log.error({ err }, "could not look for batches of removed bots"));
    this.games.expire(now);
    this.games.lostResults(now);
    this.games.tryStart(now);
  }
}
