// The live operational policy (GET /api operational_policy) reports SPEC 8's limits: with the default
// configuration, exactly the SPEC's table; with others, each configured value under its own name.
import { describe, expect, it } from "vitest";
import { type Config, parseConfig, testConfig } from "../../server/config.ts";
import { defaultLimits } from "../../server/kernel/settings.ts";
import { operationalPolicy } from "../../server/ladders/policy.ts";

describe("operational policy (SPEC 8)", () => {
  it("with the default configuration, reports the SPEC's values", () => {
    const defaults = parseConfig(["--anonymous-dev"], {}) as Config;
    expect(operationalPolicy(defaults, defaultLimits(defaults), "public")).toEqual({
      ladder: "public",
      startup_ms: 10_000,
      tick_ms: 1_000,
      match_budget_ms: 300_000,
      max_consecutive_failures: 10,
      reconnect_grace_ms: 10_000,
      max_message_bytes: 4_096,
      messages_per_tick: 5,
      idle_messages_per_second: 50,
      matchIntervalMs: 300,
      maxConcurrentMatches: 320,
      maxConcurrentPerOwner: 40,
      matchesPerHourPerBot: 10_000,
      matchesPerDayPerOwner: 50_000,
      maxBotsPerOwner: 50,
      newVersionsPerDay: 1_000,
      qualifyingGames: 30,
      rematch_hold_ms: 10_000,
      discovery_share: "1/7",
      replaysPerBot: 200,
      drain_timeout_ms: 600_000,
      ping_interval_ms: 25_000,
      anonymous_development: true,
    });
  });

  it("reports each configured value under its own name", () => {
    const c = testConfig({
      startupMs: 1,
      tickMs: 2,
      matchBudgetMs: 3,
      reconnectGraceMs: 4,
      matchIntervalMs: 5,
      maxConcurrent: 6,
      ownerConcurrency: 7,
      hourlyQuota: 8,
      dailyOwnerQuota: 9,
      maxBots: 11,
      newVersionsPerDay: 12,
      drainTimeoutMs: 13,
      pingIntervalMs: 14,
      anonymousDev: false,
    });
    expect(operationalPolicy(c, defaultLimits(c))).toMatchObject({
      startup_ms: 1,
      tick_ms: 2,
      match_budget_ms: 3,
      reconnect_grace_ms: 4,
      matchIntervalMs: 5,
      maxConcurrentMatches: 6,
      maxConcurrentPerOwner: 7,
      matchesPerHourPerBot: 8,
      matchesPerDayPerOwner: 9,
      maxBotsPerOwner: 11,
      newVersionsPerDay: 12,
      drain_timeout_ms: 13,
      ping_interval_ms: 14,
      anonymous_development: false,
    });
  });
});
