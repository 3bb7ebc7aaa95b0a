// Bot health kept up to date as results arrive (issue 38): a version's window is read from the store once, then
// each committed result is pushed onto it, and the summary is what summariseHealth says of the same matches.
import { describe, expect, it } from "vitest";
import type { MatchStatsT } from "../../engine/protocol.ts";
import { HEALTH_MATCHES, summariseHealth } from "../../server/bots/health.ts";
import { HealthWindows } from "../../server/bots/health-windows.ts";
import type { MatchRecord } from "../../server/store/types.ts";
import { matchRecord } from "../helpers/match-records.ts";

const A = { id: "b_a", name: "alpha" };
const B = { id: "b_b", name: "beta" };

/** A result where alpha (fighter `seat`) idled `idles` turns. */
function result(id: string, idles: number, seat = 0, o: Partial<MatchRecord> = {}): MatchRecord {
  const m = matchRecord(id, seat === 0 ? [A, B] : [B, A], o);
  if (m.stats) m.stats.fighters[seat]!.server_idles = { timeout: idles };
  return m;
}

/** A store holding `matches` (newest last) that counts its reads; versionStats as SqlStore answers it. */
function store(matches: MatchRecord[]) {
  const s = {
    reads: 0,
    gate: null as Promise<void> | null,
    async versionStats(botId: string, label: string, limit: number) {
      s.reads++;
      const rows = matches
        .filter((m) => !m.voided && m.stats)
        .flatMap((m) =>
          m.bots
            .filter((b) => b.bot_id === botId && b.version === label)
            .map((b) => ({ fighter: b.fighter, stats: m.stats as MatchStatsT })),
        )
        .reverse()
        .slice(0, limit);
      if (s.gate) await s.gate;
      return rows;
    },
  };
  return s;
}

describe("HealthWindows", () => {
  it("reads a version's window once and answers what summariseHealth says of it", async () => {
    const stored = [result("m1", 2), result("m2", 4, 1), result("m3", 0)];
    const st = store(stored);
    const w = new HealthWindows(st);
    const expected = summariseHealth(await st.versionStats(A.id, "v1", HEALTH_MATCHES));
    st.reads = 0;
    expect(await w.of(A.id, "v1")).toEqual(expected);
    expect(await w.of(A.id, "v1")).toEqual(expected);
    expect(st.reads).toBe(1);
    expect(await w.of(A.id, "v9")).toBeNull();
  });

  it("takes in each committed result without reading the store again", async () => {
    const stored = [result("m1", 2), result("m2", 4, 1)];
    const st = store(stored);
    const w = new HealthWindows(st);
    expect((await w.of(A.id, "v1"))?.matches).toBe(2);
    const next = result("m3", 10, 1);
    stored.push(next);
    w.record(next);
    // A voided result and one without stats are not health (the store leaves them out too).
    w.record(result("m4", 50, 0, { voided: true }));
    w.record(result("m5", 50, 0, { stats: null }));
    const reads = st.reads;
    const h = await w.of(A.id, "v1");
    expect(st.reads).toBe(reads);
    expect(h).toEqual(summariseHealth(await st.versionStats(A.id, "v1", HEALTH_MATCHES)));
    expect(h?.matches).toBe(3);
    // The opponent's version is a window of its own, read when first asked for.
    expect((await w.of(B.id, "v1"))?.matches).toBe(3);
  });

  it("keeps the latest HEALTH_MATCHES matches: the oldest falls out", async () => {
    const stored = Array.from({ length: HEALTH_MATCHES }, (_, i) => result(`m${i}`, i === 0 ? 100 : 0));
    const st = store(stored);
    const w = new HealthWindows(st);
    expect((await w.of(A.id, "v1"))?.idle_pct).toBeGreaterThan(0);
    const next = result("newest", 0);
    stored.push(next);
    w.record(next);
    const h = await w.of(A.id, "v1");
    expect(h?.matches).toBe(HEALTH_MATCHES);
    expect(h?.idle_pct_by_reason.timeout).toBe(
      summariseHealth(await st.versionStats(A.id, "v1", HEALTH_MATCHES))?.idle_pct_by_reason.timeout,
    );
  });

  it("reads again when a result arrived while the window was being read", async () => {
    const stored = [result("m1", 1)];
    const st = store(stored);
    let open: () => void = () => {};
    st.gate = new Promise((r) => {
      open = r;
    });
    const w = new HealthWindows(st);
    const first = w.of(A.id, "v1");
    const late = result("m2", 3);
    stored.push(late);
    w.record(late);
    open();
    await first;
    st.gate = null;
    expect((await w.of(A.id, "v1"))?.matches).toBe(2);
  });

  it("reads again after another node's result, which the window may already hold (cluster mode)", async () => {
    const stored = [result("m1", 2)];
    const st = store(stored);
    const w = new HealthWindows(st);
    // The other node committed m2 before this window was read: the window has it already.
    stored.push(result("m2", 4));
    expect((await w.of(A.id, "v1"))?.matches).toBe(2);
    w.forget(stored[1]!);
    const reads = st.reads;
    expect((await w.of(A.id, "v1"))?.matches).toBe(2);
    expect(st.reads).toBe(reads + 1);
  });
});
