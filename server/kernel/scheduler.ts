// One clock for everything that must happen at a time (ladder phase changes now; event reminders and trims
// later): a single timer set for the earliest due job, instead of a timer per ladder. Jobs say when they are
// next due; after a job runs it is asked again, so a job that is due every day or on a moving window needs
// nothing more. Tests drive it with their own clock through `tick(now)`.
import type { Logger } from "pino";

export interface ScheduledJob {
  name: string;
  /** The next time (ms since the epoch) this job wants to run after `now`, or null for never. */
  nextAt(now: number): number | null;
  run(now: number): void | Promise<void>;
}

/** Node's timers take at most 2^31-1 ms; a later wake-up is re-armed when it fires. */
const MAX_DELAY_MS = 2_147_000_000;

export class Scheduler {
  private readonly jobs: ScheduledJob[] = [];
  /** When each job was last looked at: a job is due once its next time after that has come. */
  private readonly checkedAt = new Map<ScheduledJob, number>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly log: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  add(job: ScheduledJob): void {
    this.jobs.push(job);
    this.checkedAt.set(job, this.clock());
    this.arm();
  }

  /** Something changed a job's times (a schedule edit): set the timer again. */
  reschedule(): void {
    this.arm();
  }

  /** Runs every job due at `now`, then re-arms. */
  async tick(now = this.clock()): Promise<void> {
    for (const job of this.jobs) {
      // Asked from the last look, not from now: a timer that fires late must not skip the due time.
      const at = job.nextAt(this.checkedAt.get(job) ?? now);
      if (at === null || at > now) continue;
      this.checkedAt.set(job, now);
      try {
        await job.run(now);
      } catch (err) {
        this.log.error({ err, job: job.name }, "scheduled job failed");
      }
    }
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = this.clock();
    const next = Math.min(...this.jobs.map((j) => j.nextAt(this.checkedAt.get(j) ?? now) ?? Infinity));
    if (!Number.isFinite(next)) return;
    this.timer = setTimeout(() => void this.tick(), Math.min(MAX_DELAY_MS, Math.max(0, next - now)));
    this.timer.unref();
  }
}
