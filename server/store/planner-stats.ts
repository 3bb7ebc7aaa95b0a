// Planner statistics for the embedded database (issue 38). PostgreSQL's autovacuum daemon runs ANALYZE as tables
// grow; PGlite runs no background workers, so on the embedded database no table ever had statistics: the
// planner guessed every row count and, at 100,000 stored games, chose plans that read whole tables (a house
// bot's page took over a minute). So the store analyzes the embedded database itself, by autovacuum's own rule:
// once at open (after the migrations), and again when the matches written since the last analyze exceed
// 50 + 10 % of the matches it counted then (autovacuum_analyze_threshold and autovacuum_analyze_scale_factor's
// defaults). On PostgreSQL autovacuum does this and nothing here runs.
import type { Db } from "../db/db.ts";

/** autovacuum_analyze_threshold's and autovacuum_analyze_scale_factor's defaults. */
const THRESHOLD = 50;
const SCALE = 0.1;

export class PlannerStats {
  private written = 0;
  private counted = 0;
  private running: Promise<void> | null = null;

  constructor(private readonly db: Db) {}

  /** Whether this database needs the store to keep its statistics (the embedded one). */
  get active(): boolean {
    return this.db.driver === "pglite";
  }

  /** Analyzes every table now; resolves when done. */
  async analyze(): Promise<void> {
    if (!this.active) return;
    this.written = 0;
    await this.db.exec("ANALYZE");
    const rows = await this.db.query<{ n: unknown }>(
      "SELECT reltuples AS n FROM pg_class WHERE oid = 'matches'::regclass",
    );
    this.counted = Math.max(0, Number(rows[0]?.n ?? 0));
  }

  /** `n` matches were written: analyzes in the background once enough have been. */
  wrote(n: number): void {
    if (!this.active) return;
    this.written += n;
    if (this.running || this.written <= THRESHOLD + SCALE * this.counted) return;
    this.running = this.analyze()
      .catch(() => {
        // Statistics are an optimisation: a failed analyze (the database closing, say) is tried again later.
      })
      .finally(() => {
        this.running = null;
      });
  }

  /** Waits for a background analyze under way (closing the store). */
  async settled(): Promise<void> {
    await this.running;
  }
}
