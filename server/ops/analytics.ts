// GET /api/admin/analytics (SPEC 4.6, 7.1): a range of whole UTC days, from and to inclusive, by default the
// last 30 days through today, at most 366 days; an invalid date, a reversed range, an end after today or a
// longer range is a 400. Every day of the range is in `daily`, with zeros where nothing happened.
import type { Db } from "../db/db.ts";
import { iso } from "../db/rows.ts";
import { errors } from "../errors.ts";

const DAY = 86_400_000;
export const MAX_DAYS = 366;
export const DEFAULT_DAYS = 30;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `YYYY-MM-DD` calendar date as ms at UTC midnight, or null when it is not a real date. */
export function parseDay(s: string): number | null {
  const m = DATE.exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return t;
}

export const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The checked range (ms at UTC midnight of both ends), or the 400 the SPEC asks for. */
export function analyticsRange(q: { from?: string | undefined; to?: string | undefined }, now = Date.now()) {
  const today = Date.UTC(
    new Date(now).getUTCFullYear(),
    new Date(now).getUTCMonth(),
    new Date(now).getUTCDate(),
  );
  const to = q.to === undefined ? today : parseDay(q.to);
  if (to === null) throw errors.badRequest(`to must be a date YYYY-MM-DD (got ${JSON.stringify(q.to)})`);
  const from = q.from === undefined ? to - (DEFAULT_DAYS - 1) * DAY : parseDay(q.from);
  if (from === null)
    throw errors.badRequest(`from must be a date YYYY-MM-DD (got ${JSON.stringify(q.from)})`);
  if (to > today) throw errors.badRequest(`to must not be after today (${dayOf(today)} UTC)`);
  if (from > to) throw errors.badRequest("from must not be after to");
  const days = Math.round((to - from) / DAY) + 1;
  if (days > MAX_DAYS) throw errors.badRequest(`the range is ${days} days; at most ${MAX_DAYS}`);
  return { from, to, days };
}

type Daily = {
  date: string;
  signups: number;
  active_accounts: number;
  active_bots: number;
  matches: Record<string, number>;
  voided: number;
};

export async function analytics(db: Db, range: { from: number; to: number; days: number }, now = Date.now()) {
  const start = new Date(range.from).toISOString();
  const end = new Date(range.to + DAY).toISOString();
  const day = (col: string) => `to_char((${col} AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`;
  const daily = new Map<string, Daily>();
  for (let t = range.from; t <= range.to; t += DAY)
    daily.set(dayOf(t), {
      date: dayOf(t),
      signups: 0,
      active_accounts: 0,
      active_bots: 0,
      matches: { ranked: 0, human: 0 },
      voided: 0,
    });
  const at = (d: unknown) => daily.get(String(d));

  for (const r of await db.query(
    `SELECT ${day("created")} AS d, count(*)::int AS n FROM accounts WHERE created >= $1 AND created < $2 GROUP BY 1`,
    [start, end],
  ))
    if (at(r.d)) at(r.d)!.signups = Number(r.n);
  for (const r of await db.query(
    `SELECT ${day("ended")} AS d, mode, voided, count(*)::int AS n FROM matches
     WHERE ended >= $1 AND ended < $2 GROUP BY 1, 2, 3`,
    [start, end],
  )) {
    const d = at(r.d);
    if (!d) continue;
    if (r.voided) d.voided += Number(r.n);
    else d.matches[String(r.mode)] = (d.matches[String(r.mode)] ?? 0) + Number(r.n);
  }
  for (const r of await db.query(
    `SELECT ${day("m.ended")} AS d, count(DISTINCT mb.bot_id)::int AS bots, count(DISTINCT b.account_id)::int AS accounts
     FROM match_bots mb JOIN matches m ON m.id = mb.match_id LEFT JOIN bots b ON b.id = mb.bot_id
     WHERE m.ended >= $1 AND m.ended < $2 AND NOT mb.house GROUP BY 1`,
    [start, end],
  )) {
    const d = at(r.d);
    if (!d) continue;
    d.active_bots = Number(r.bots);
    d.active_accounts = Number(r.accounts);
  }
  const totals = (
    await db.query(
      `SELECT count(DISTINCT mb.bot_id)::int AS bots, count(DISTINCT b.account_id)::int AS accounts
       FROM match_bots mb JOIN matches m ON m.id = mb.match_id LEFT JOIN bots b ON b.id = mb.bot_id
       WHERE m.ended >= $1 AND m.ended < $2 AND NOT mb.house`,
      [start, end],
    )
  )[0]!;
  const topBots = await db.query(
    `SELECT mb.bot_id, max(mb.name) AS name, count(*)::int AS games,
            count(*) FILTER (WHERE m.winner_bot_id = mb.bot_id)::int AS wins
     FROM match_bots mb JOIN matches m ON m.id = mb.match_id
     WHERE m.ended >= $1 AND m.ended < $2 AND NOT mb.house AND NOT m.voided
     GROUP BY mb.bot_id ORDER BY games DESC, wins DESC, name LIMIT 10`,
    [start, end],
  );
  const maps = await db.query(
    `SELECT map, count(*)::int AS games FROM matches WHERE ended >= $1 AND ended < $2 AND NOT voided
     GROUP BY map ORDER BY games DESC, map`,
    [start, end],
  );
  const current = (
    await db.query(
      `SELECT (SELECT count(*)::int FROM accounts) AS accounts,
              (SELECT count(*)::int FROM accounts WHERE banned_at IS NOT NULL) AS banned_accounts,
              (SELECT count(*)::int FROM bots WHERE NOT house AND status <> 'retired') AS bots,
              (SELECT count(*)::int FROM matches) AS matches`,
    )
  )[0]!;
  // Sign-ups are counted from when accounts were first stored (the accounts migration).
  const since = await db.query("SELECT applied FROM schema_migrations WHERE version = 3");
  const rows = [...daily.values()];
  const sum = (f: (d: Daily) => number) => rows.reduce((n, d) => n + f(d), 0);
  return {
    from: dayOf(range.from),
    to: dayOf(range.to),
    days: range.days,
    timezone: "UTC",
    generated: new Date(now).toISOString(),
    signup_tracking_since: since[0] ? iso(since[0].applied) : null,
    current: {
      accounts: Number(current.accounts),
      banned_accounts: Number(current.banned_accounts),
      bots: Number(current.bots),
      matches: Number(current.matches),
    },
    summary: {
      signups: sum((d) => d.signups),
      matches: { ranked: sum((d) => d.matches.ranked ?? 0), human: sum((d) => d.matches.human ?? 0) },
      voided: sum((d) => d.voided),
      active_accounts: Number(totals.accounts),
      active_bots: Number(totals.bots),
    },
    daily: rows,
    top_bots: topBots.map((r) => ({ name: String(r.name), games: Number(r.games), wins: Number(r.wins) })),
    maps: maps.map((r) => ({ map: String(r.map), games: Number(r.games) })),
  };
}
