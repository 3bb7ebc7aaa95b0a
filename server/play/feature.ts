// The running matches as features: the match pool (Piscina workers stepping matches), the stall clock and the
// live matches that start, watch and end each one (`live`), and their table by id (`matches`). On a drain the
// server waits here for the matches to finish; on a stop they are abandoned (SPEC 3.3: no row, no `end`) and
// the pool's workers end.
import { MatchPool } from "../../pool/pool.ts";
import { defineFeature } from "../kernel/feature.ts";
import { bothMeters } from "../ops/health.ts";
import { StallClock } from "../runner/stall-clock.ts";
import { HUMAN_TICK_MS, LiveMatches } from "./live-matches.ts";

declare module "../kernel/feature.ts" {
  interface Overrides {
    /** How long a pool worker may take to answer before the match is abandoned (default 15 s). */
    workerTimeoutMs?: number;
    /** Tests shorten the fixed two-minute turn of human games to see its timeouts. */
    humanTickMs?: number;
  }
}

/** How long a stopping server waits for the matches it abandons to settle (a journal write under way). */
const ABANDON_WAIT_MS = 5_000;

export const liveFeature = defineFeature({
  name: "live",
  needs: ["results", "replays", "lobby", "health", "meters"],
  build: (kernel, { results, replays, lobby, health, meters }) => {
    const { config, log, bus, settings, overrides } = kernel;
    const pool = new MatchPool({ workers: config.workers });
    const stalls = new StallClock();
    const live = new LiveMatches({
      pool,
      results,
      stalls,
      replays,
      log,
      bus,
      lobby,
      settings,
      publicUrl: config.publicUrl,
      workerTimeoutMs: overrides.workerTimeoutMs ?? 15_000,
      humanTickMs: overrides.humanTickMs ?? HUMAN_TICK_MS,
      // The admin health view always counts ticks; the Prometheus metrics too when they are on.
      tickMeter: (mode: string) => bothMeters(health.tickMeter(), meters?.tickMeter(mode) ?? null),
    });
    results.onCommitted((r) => live.committed(r));
    return live;
  },
  drain: (live) => live.whenIdle(),
  stop: (live, _kernel, { results }) => {
    // A result still waiting for the database stays in the journal for the next start.
    results.stop();
    return live.shutdown(ABANDON_WAIT_MS);
  },
});

export const matchesFeature = defineFeature({
  name: "matches",
  needs: ["live"],
  build: (_kernel, { live }) => live.byId,
});
