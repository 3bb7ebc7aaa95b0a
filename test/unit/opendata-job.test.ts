// The daily open-data dump job (server/opendata/feature.ts): a catch-up soon after start, then each UTC midnight
// plus a grace; a run that fails (the database away) is tried again five minutes later, not the next day, even
// though the failure comes after the scheduler asked for the next time.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { Scheduler } from "../../server/kernel/scheduler.ts";
import { dumpJob } from "../../server/opendata/feature.ts";

const MIN = 60_000;

describe("the open data dump job", () => {
  it("retries a failed run five minutes later, then goes back to the daily time", async () => {
    let now = Date.parse("2026-11-28T10:00:00Z");
    const scheduler = new Scheduler(pino({ level: "silent" }), () => now);
    const runs: number[] = [];
    let fail = true;
    const job = dumpJob(
      {
        log: pino({ level: "silent" }),
        catchUp: async (at = now) => {
          runs.push(at);
          if (fail) throw new Error("database away");
        },
      },
      { pending: true, failed: false },
      () => scheduler.reschedule(),
    );
    scheduler.add(job);
    const advance = async (ms: number) => {
      now += ms;
      await scheduler.tick(now);
      await new Promise((r) => setImmediate(r));
    };
    await advance(30_000); // the catch-up after start
    expect(runs).toHaveLength(1);
    await advance(4 * MIN);
    expect(runs).toHaveLength(1);
    await advance(1 * MIN); // five minutes after the failure
    expect(runs).toHaveLength(2);
    fail = false;
    await advance(5 * MIN);
    expect(runs).toHaveLength(3); // the retry that succeeds
    await advance(5 * MIN);
    expect(runs).toHaveLength(3); // and then nothing until the next day
    expect(job.nextAt(now)! - now).toBeGreaterThan(60 * MIN);
    scheduler.stop();
  });
});
