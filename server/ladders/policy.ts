// The live operational policy of SPEC section 8: every limit in force, as GET /api reports it under
// `operational_policy` and the admin usage route repeats it. One place, so the two never disagree. Limits
// come live from the settings service; the rest are fixed constants and start-up facts.
import type { Config } from "../config.ts";
import { IDLE_MESSAGES_PER_SECOND, MAX_MESSAGE_BYTES, MESSAGES_PER_TICK } from "../connection/rules.ts";
import type { CoreLimits } from "../kernel/settings.ts";
import { DISCOVERY_EVERY, REMATCH_HOLD_MS } from "../matchmaker/matchmaker.ts";
import { QUALIFYING_GAMES } from "../ratings/book.ts";

/** `ladder` names whose limits these are (a ladder may override some live); null for the server-wide ones. */
export function operationalPolicy(config: Config, limits: CoreLimits, ladder: string | null = null) {
  return {
    ladder,
    startup_ms: limits.startup_ms,
    tick_ms: limits.tick_ms,
    match_budget_ms: limits.match_budget_ms,
    max_consecutive_failures: 10,
    reconnect_grace_ms: limits.reconnect_grace_ms,
    max_message_bytes: MAX_MESSAGE_BYTES,
    messages_per_tick: MESSAGES_PER_TICK,
    idle_messages_per_second: IDLE_MESSAGES_PER_SECOND,
    matchIntervalMs: limits.matchIntervalMs,
    maxConcurrentMatches: limits.maxConcurrentMatches,
    maxConcurrentPerOwner: limits.maxConcurrentPerOwner,
    matchesPerHourPerBot: limits.matchesPerHourPerBot,
    matchesPerDayPerOwner: limits.matchesPerDayPerOwner,
    maxBotsPerOwner: limits.maxBotsPerOwner,
    newVersionsPerDay: limits.newVersionsPerDay,
    qualifyingGames: QUALIFYING_GAMES,
    rematch_hold_ms: REMATCH_HOLD_MS,
    discovery_share: `1/${DISCOVERY_EVERY}`,
    replaysPerBot: 200,
    drain_timeout_ms: config.drainTimeoutMs,
    ping_interval_ms: config.pingIntervalMs,
    anonymous_development: config.anonymousDev,
  };
}
