// Where the service's own emails come from: real data, on the one scheduler. Each producer writes its mail
// through a unit of work with a dedupe key, so running again (after a restart, on a second server, on a late
// timer) never queues the same mail twice:
// - onboarding: an account created in the last two days that has had no welcome mail;
// - weekly_digest: every Monday 09:00 UTC, the previous week of each account's bots (games, wins, rating
//   change, best win), for accounts whose bots played;
// - bot_health: after a match, a player version whose latest 20 games show trouble (at most weekly per version);
// - event_reminders: a day before a ladder's window opens and before it closes, to its members; and
//   `remindEvent` for the events feature to call with its own audience;
// - admin_warnings: incidents (mail.ts) and matches aborted by a failing worker (at most hourly);
// - achievements: `achievementEarned`, for the events feature (no flag in it).
import type { Logger } from "pino";
import { summariseHealth } from "../bots/health.ts";
import type { DomainEvents } from "../kernel/bus.ts";
import type { Services } from "../kernel/feature.ts";
import type { ScheduledJob } from "../kernel/scheduler.ts";
import type { EmailCategory, Unit } from "../kernel/unit-of-work.ts";
import type { Store } from "../store/types.ts";
import * as messages from "./messages.ts";
import type { MailParts } from "./templates.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const REMIND_BEFORE_MS = DAY;
/** Games of a version looked at for its health mail, and the least that says anything. */
const HEALTH_WINDOW = 20;
const HEALTH_MIN_GAMES = 5;
/**
 * A version's health is looked at on its first rated game this process sees and then every fifth: it is a
 * summary of its last twenty games, so one game more changes little, and looking after every game was two
 * database reads per seat per match on the ladder's busiest path.
 */
const HEALTH_CHECK_EVERY = HEALTH_MIN_GAMES;

/** The Monday 00:00 UTC that starts the week holding `t`. */
export function weekStart(t: number): number {
  const d = new Date(t);
  const day = (d.getUTCDay() + 6) % 7; // Monday 0
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - day * DAY;
}

/** The next Monday 09:00 UTC strictly after `t`. */
export function nextDigestAt(t: number): number {
  const at = weekStart(t) + 9 * HOUR;
  return at > t ? at : at + 7 * DAY;
}

/** Why a version's health is bad (an empty list: it is fine). */
export function healthProblems(h: ReturnType<typeof summariseHealth>): string[] {
  if (!h || h.matches < HEALTH_MIN_GAMES) return [];
  const out: string[] = [];
  if (h.idle_pct >= 25) out.push(`${h.idle_pct}% of its turns were idle (late or missing replies)`);
  if (h.refused_pct >= 25) out.push(`${h.refused_pct}% of its turns were refused`);
  if (h.disqualifications > 0) out.push(`${h.disqualifications} disqualification(s)`);
  if (h.disconnects >= 3) out.push(`${h.disconnects} disconnects`);
  return out;
}

/** The mail service's queue (mail.ts), which the producers write to inside their units of work. */
export interface MailQueue {
  queue(
    u: Unit,
    category: EmailCategory,
    accountId: string,
    parts: MailParts,
    opts?: { dedupeKey?: string; announcementId?: string },
  ): Promise<boolean>;
}

export interface ProducerDeps {
  store: Store;
  /** Where a version's health window is read. */
  matchStore: Pick<Services["matchStore"], "versionStats">;
  /** The accounts' table, typed by its feature (server/accounts/store-feature.ts). */
  accountStore: Pick<Services["accountStore"], "account">;
  mail: MailQueue;
  ladders: () => Services["ladders"];
  publicUrl: string;
  log: Logger;
  admins: () => Promise<string[]>;
}

export class MailProducers {
  /** Rated games seen per bot version (`botId:version`) since start, for HEALTH_CHECK_EVERY. */
  private readonly healthGames = new Map<string, number>();

  constructor(private readonly d: ProducerDeps) {}

  private get base() {
    return this.d.publicUrl;
  }

  private work<T>(fn: (u: Unit) => Promise<T>) {
    return this.d.store.work(fn);
  }

  /** The scheduled jobs: onboarding every minute, the weekly digest, ladder window reminders hourly. */
  jobs(): ScheduledJob[] {
    return [
      {
        name: "mail: onboarding",
        nextAt: (now) => now + MINUTE,
        run: async () => void (await this.onboarding()),
      },
      {
        name: "mail: weekly digest",
        nextAt: (now) => nextDigestAt(now),
        run: async (now) => void (await this.weeklyDigest(now)),
      },
      {
        name: "mail: event reminders",
        nextAt: (now) => Math.min(now + HOUR, ...this.reminderTimes().filter((t) => t > now)),
        run: async (now) => void (await this.ladderReminders(now)),
      },
    ];
  }

  /** Welcome mail for accounts created in the last two days that have none yet; returns how many. */
  async onboarding(): Promise<number> {
    const rows = await this.d.store.db.query(
      `SELECT a.id, a.handle FROM accounts a
       WHERE a.created > now() - interval '2 days' AND a.banned_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM email_outbox o WHERE o.dedupe_key = 'onboarding:' || a.id)
       ORDER BY a.created LIMIT 200`,
    );
    let n = 0;
    for (const r of rows) {
      const id = String(r.id);
      const queued = await this.work((u) =>
        this.d.mail.queue(
          u,
          "onboarding",
          id,
          messages.welcome(this.base, (r.handle as string | null) ?? null),
          {
            dedupeKey: `onboarding:${id}`,
          },
        ),
      );
      if (queued) n++;
    }
    return n;
  }

  /** The digest of the week before the one holding `now`, for each account whose bots played in it. */
  async weeklyDigest(now: number): Promise<number> {
    const to = weekStart(now);
    const from = to - 7 * DAY;
    const rows = await this.d.store.db.query(
      `SELECT b.account_id, a.handle, mb.bot_id, b.name, m.id AS match_id, m.winner_bot_id, m.ended,
              mb.rating_before, mb.rating_after, o.name AS opponent, o.rating_before AS opponent_rating
       FROM match_bots mb
       JOIN matches m ON m.id = mb.match_id
       JOIN bots b ON b.id = mb.bot_id
       JOIN accounts a ON a.id = b.account_id
       JOIN match_bots o ON o.match_id = mb.match_id AND o.fighter <> mb.fighter
       WHERE m.ended >= $1 AND m.ended < $2 AND NOT m.voided AND NOT mb.house AND a.banned_at IS NULL
       ORDER BY m.seq`,
      [new Date(from).toISOString(), new Date(to).toISOString()],
    );
    const byAccount = new Map<
      string,
      { handle: string | null; bots: Map<string, messages.DigestBot & { best: number }> }
    >();
    for (const r of rows) {
      const acct = String(r.account_id);
      const entry = byAccount.get(acct) ?? { handle: (r.handle as string | null) ?? null, bots: new Map() };
      byAccount.set(acct, entry);
      const botId = String(r.bot_id);
      const b = entry.bots.get(botId) ?? {
        name: String(r.name),
        games: 0,
        wins: 0,
        rating_change: null,
        best_win: null,
        best: Number.NEGATIVE_INFINITY,
      };
      entry.bots.set(botId, b);
      b.games++;
      if (r.rating_before != null && r.rating_after != null)
        b.rating_change = Math.round(
          (b.rating_change ?? 0) + Number(r.rating_after) - Number(r.rating_before),
        );
      if (r.winner_bot_id === botId) {
        b.wins++;
        const strength = r.opponent_rating == null ? 0 : Number(r.opponent_rating);
        if (strength > b.best) {
          b.best = strength;
          b.best_win = { opponent: String(r.opponent), match_id: String(r.match_id) };
        }
      }
    }
    const week = new Date(from).toISOString().slice(0, 10);
    let n = 0;
    for (const [accountId, e] of byAccount) {
      const bots = [...e.bots.values()].map(({ best: _best, ...b }) => b);
      const queued = await this.work((u) =>
        this.d.mail.queue(
          u,
          "weekly_digest",
          accountId,
          messages.weeklyDigest(this.base, e.handle, week, bots),
          {
            dedupeKey: `weekly_digest:${accountId}:${week}`,
          },
        ),
      );
      if (queued) n++;
    }
    return n;
  }

  /** After a match: health mail for a troubled player version; an admin warning for a worker failure. */
  async onMatchFinished(e: DomainEvents["MatchFinished"]): Promise<void> {
    const m = e.match;
    if (m.voided && m.note && /worker/i.test(m.note)) {
      const hour = new Date().toISOString().slice(0, 13);
      const admins = await this.d.admins();
      await this.work(async (u) => {
        for (const id of admins)
          await this.d.mail.queue(
            u,
            "admin_warnings",
            id,
            messages.adminWarning(this.base, "a match worker failed", [
              `Match ${m.id} was aborted: ${m.note}.`,
              "The pool replaced the worker; see the operations guide if this repeats.",
            ]),
            { dedupeKey: `admin_warnings:worker:${hour}:${id}` },
          );
      });
    }
    if (m.mode !== "ranked") return;
    for (const seat of m.bots) {
      if (seat.house) continue;
      const accountId = e.accounts[seat.fighter] ?? null;
      if (!accountId) continue;
      const key = `${seat.bot_id}:${seat.version}`;
      const seen = (this.healthGames.get(key) ?? 0) + 1;
      this.healthGames.set(key, seen);
      if (seen !== 1 && seen % HEALTH_CHECK_EVERY !== 0) continue;
      const health = summariseHealth(
        await this.d.matchStore.versionStats(seat.bot_id, seat.version, HEALTH_WINDOW),
      );
      const problems = healthProblems(health);
      if (!health || problems.length === 0) continue;
      const account = await this.d.accountStore.account(accountId);
      const week = new Date(weekStart(Date.now())).toISOString().slice(0, 10);
      await this.work((u) =>
        this.d.mail.queue(
          u,
          "bot_health",
          accountId,
          messages.botHealth(this.base, account?.handle ?? null, {
            bot: seat.name,
            version: seat.version,
            games: health.matches,
            problems,
          }),
          { dedupeKey: `bot_health:${seat.bot_id}:${seat.version}:${week}` },
        ),
      );
    }
  }

  private reminderTimes(): number[] {
    const out: number[] = [];
    for (const l of this.d.ladders().all())
      for (const t of [l.def.opens_at, l.def.closes_at]) if (t) out.push(Date.parse(t) - REMIND_BEFORE_MS);
    return out;
  }

  /** A day before a ladder opens or closes: its members (pending or active) are reminded once. */
  async ladderReminders(now: number): Promise<number> {
    let n = 0;
    for (const l of this.d.ladders().all())
      for (const [what, at] of [
        ["opens", l.def.opens_at],
        ["closes", l.def.closes_at],
      ] as const) {
        if (!at) continue;
        const t = Date.parse(at);
        if (now < t - REMIND_BEFORE_MS || now >= t) continue;
        const rows = await this.d.store.db.query(
          "SELECT account_id FROM ladder_members WHERE ladder_id = $1 AND state <> 'revoked'",
          [l.id],
        );
        n += await this.remindEvent({
          eventId: `ladder:${l.id}`,
          name: l.def.name,
          what,
          at,
          accountIds: rows.map((r) => String(r.account_id)),
          url: `${this.base}/ladder?ladder=${encodeURIComponent(l.id)}`,
        });
      }
    return n;
  }

  /** Event reminders for any audience (the events feature calls this from its own schedule). */
  async remindEvent(e: {
    eventId: string;
    name: string;
    what: "opens" | "closes";
    at: string;
    accountIds: readonly string[];
    url?: string;
  }): Promise<number> {
    let n = 0;
    for (const id of e.accountIds) {
      const account = await this.d.accountStore.account(id);
      if (!account) continue;
      const queued = await this.work((u) =>
        this.d.mail.queue(
          u,
          "event_reminders",
          id,
          messages.eventReminder(this.base, account.handle, {
            event: e.name,
            what: e.what,
            at: e.at,
            ...(e.url ? { url: e.url } : {}),
          }),
          { dedupeKey: `event_reminders:${e.eventId}:${e.what}:${e.at}:${id}` },
        ),
      );
      if (queued) n++;
    }
    return n;
  }

  /**
   * The achievement mail (never the flag): inside the caller's unit of work when given (the award and its mail
   * commit together), else in a unit of its own. Once per account, event and achievement.
   */
  async achievementEarned(
    a: {
      accountId: string;
      eventId: string;
      event: string;
      achievementId: string;
      achievement: string;
      bot?: string | null;
    },
    u?: Unit,
  ): Promise<boolean> {
    const account = await this.d.accountStore.account(a.accountId);
    if (!account) return false;
    const write = (unit: Unit) =>
      this.d.mail.queue(
        unit,
        "achievements",
        a.accountId,
        messages.achievement(this.base, account.handle, {
          event: a.event,
          achievement: a.achievement,
          bot: a.bot ?? null,
        }),
        { dedupeKey: `achievements:${a.accountId}:${a.eventId}:${a.achievementId}` },
      );
    return u ? write(u) : this.work(write);
  }
}
