// The live operational policy of SPEC section 8: every limit in force, as GET /api reports it under
// `operational_policy` and the admin usage route repeats it. One place, so the two never disagree.
import type { Config } from "../config.ts";
import { DISCOVERY_EVERY, REMATCH_HOLD_MS } from "../matchmaker/matchmaker.ts";
import { QUALIFYING_GAMES } from "../ratings/book.ts";
import { IDLE_MESSAGES_PER_SECOND, MAX_MESSAGE_BYTES, MESSAGES_PER_TICK } from "../socket/hub.ts";

export function operationalPolicy(config: Config) {
  return {
    startup_ms: config.startupMs,
    tick_ms: config.tickMs,
    match_budget_ms: config.matchBudgetMs,
    max_consecutive_failures: 10,
    reconnect_grace_ms: config.reconnectGraceMs,
    max_message_bytes: MAX_MESSAGE_BYTES,
    messages_per_tick: MESSAGES_PER_TICK,
    idle_messages_per_second: IDLE_MESSAGES_PER_SECOND,
    matchIntervalMs: config.matchIntervalMs,
    maxConcurrentMatches: config.maxConcurrent,
    maxConcurrentPerOwner: config.ownerConcurrency,
    matchesPerHourPerBot: config.hourlyQuota,
    matchesPerDayPerOwner: config.dailyOwnerQuota,
    maxBotsPerOwner: config.maxBots,
    newVersionsPerDay: config.newVersionsPerDay,
    qualifyingGames: QUALIFYING_GAMES,
    rematch_hold_ms: REMATCH_HOLD_MS,
    discovery_share: `1/${DISCOVERY_EVERY}`,
    replaysPerBot: 200,
    drain_timeout_ms: config.drainTimeoutMs,
    ping_interval_ms: config.pingIntervalMs,
    anonymous_development: config.anonymousDev,
  };
}
