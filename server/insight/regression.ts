// Version regression alerts (issue 33, part 5): a new version that has played enough to be judged and rates
// clearly below the version before it. The rule: the version has at least QUALIFYING_GAMES (30) rated games on
// the ladder, and its predecessor's rating minus its own is more than twice their combined standard error,
// sqrt(se_new^2 + se_old^2). The predecessor is the latest version of the same bot created before it that has
// rated games on that ladder (a version that never played there says nothing about strength). An equal version
// differs by noise, about one combined error, and raises nothing.
//
// The state is computed from the ladder's rating book whenever it is asked (the bot and account pages,
// GET /api/me, GET /api/account), so it is always the truth of the last fit: a version that recovers stops
// showing the alert. The email goes out once per version and ladder: the first time a rated game of that version
// finds it regressed, a bot_health mail is queued with a dedupe key of its own (the outbox refuses a second one
// even after a restart), and the account's email preferences decide at sending time (server/mail/sender.ts).
import type { Logger } from "pino";
import type { AccountStore } from "../accounts/account-store.ts";
import type { BotStore } from "../bots/bot-store.ts";
import type { BotDirectory } from "../bots/directory.ts";
import type { DomainEvents } from "../kernel/bus.ts";
import { Kept } from "../kernel/kept.ts";
import type { Unit } from "../kernel/unit-of-work.ts";
import type { Ladders } from "../ladders/registry.ts";
import type { MailService } from "../mail/mail.ts";
import type { MailParts } from "../mail/templates.ts";
import { QUALIFYING_GAMES, type RatingBook, versionKey } from "../ratings/book.ts";
import type { Store, VersionRow } from "../store/types.ts";

/** How many combined standard errors below its predecessor a version must rate to raise the alert. */
export const REGRESSION_ERRORS = 2;

export interface Regression {
  ladder: string;
  bot: string;
  version: string;
  predecessor: string;
  games: number;
  predecessor_games: number;
  rating: number;
  rating_deviation: number;
  predecessor_rating: number;
  predecessor_deviation: number;
  /** Predecessor's rating minus this version's. */
  drop: number;
  /** sqrt(deviation^2 + predecessor deviation^2). */
  combined_error: number;
}

/**
 * The regression of `label` against its predecessor on one book, or null. `versions` are the bot's versions
 * in creation order (the store's order).
 */
export function regressionOf(
  book: Pick<RatingBook, "get" | "gamesOf">,
  ladder: string,
  bot: { id: string; name: string },
  versions: readonly Pick<VersionRow, "label">[],
  label: string,
): Regression | null {
  const at = versions.findIndex((v) => v.label === label);
  if (at <= 0) return null;
  const key = versionKey(bot.id, label);
  if (book.gamesOf(key) < QUALIFYING_GAMES) return null;
  let before: string | null = null;
  for (let i = at - 1; i >= 0 && before === null; i--)
    if (book.gamesOf(versionKey(bot.id, versions[i]!.label)) > 0) before = versions[i]!.label;
  if (before === null) return null;
  const now = book.get(key);
  const then = book.get(versionKey(bot.id, before));
  const combined = Math.sqrt(now.deviation ** 2 + then.deviation ** 2);
  const drop = then.rating - now.rating;
  if (!(drop > REGRESSION_ERRORS * combined)) return null;
  return {
    ladder,
    bot: bot.name,
    version: label,
    predecessor: before,
    games: now.games,
    predecessor_games: then.games,
    rating: Math.round(now.rating),
    rating_deviation: Math.round(now.deviation),
    predecessor_rating: Math.round(then.rating),
    predecessor_deviation: Math.round(then.deviation),
    drop: Math.round(drop),
    combined_error: Math.round(combined),
  };
}

/** The sentence the pages say about a regression. */
export function regressionSentence(r: Regression): string {
  return (
    `Version ${r.version} rates ${r.drop} points below ${r.predecessor} (${r.rating} ±${r.rating_deviation} ` +
    `after ${r.games} rated games, against ${r.predecessor_rating} ±${r.predecessor_deviation}): more than ` +
    `twice their combined standard error (${r.combined_error}), so it is very likely weaker.`
  );
}

/** The bot-health mail of a regression. */
export function regressionMail(base: string, handle: string | null, r: Regression): MailParts {
  return {
    subject: `${r.bot} (${r.version}) is weaker than ${r.predecessor}`,
    greeting: handle ? `Hello ${handle},` : "Hello,",
    paragraphs: [
      `After ${r.games} rated games on the ${r.ladder} ladder, version ${r.version} of ${r.bot} rates ${r.drop} points below version ${r.predecessor}:`,
      "The drop is more than twice the two ratings' combined standard error, so it is very unlikely to be bad luck. You may want to compare the two versions' matches, or queue the earlier one again.",
    ],
    list: [
      `${r.version}: ${r.rating} ±${r.rating_deviation} (${r.games} rated games)`,
      `${r.predecessor}: ${r.predecessor_rating} ±${r.predecessor_deviation} (${r.predecessor_games} rated games)`,
    ],
    link: { label: `Open ${r.bot}`, url: `${base}/bot/${encodeURIComponent(r.bot)}` },
  };
}

export interface RegressionDeps {
  ladders: Pick<Ladders, "all" | "get">;
  botDirectory: Pick<BotDirectory, "snapshot">;
  store: Pick<Store, "botWrites">;
  botStore: Pick<BotStore, "versions">;
  accountStore: Pick<AccountStore, "account" | "accountBots">;
  mail: Pick<MailService, "queue">;
  work<T>(fn: (u: Unit) => Promise<T>): Promise<T>;
  publicUrl: string;
  log: Logger;
}

export class RegressionAlerts {
  /** Versions already mailed about (or found mailed) by this process: `ladder|botId|label`. */
  private readonly mailed = new Set<string>();
  /** Each bot's versions as last read, with the store's bot-write count then (any bot or version change moves it). */
  private readonly versionLists = new Map<string, { generation: number; list: VersionRow[] }>();
  /** ofBotNamed's answers by their inputs, and each bot snapshot's bots by name. */
  private readonly kept = new Kept<Regression[]>(1_000);
  private readonly byName = new WeakMap<object, Map<string, { id: string; name: string }>>();

  constructor(private readonly d: RegressionDeps) {}

  /**
   * A bot's versions, read again only after a bot or version changed: after each rated game of an established
   * version the check needs them, and a query per seat per game would be the alert's whole cost.
   */
  private async versionsOf(botId: string): Promise<VersionRow[]> {
    const generation = this.d.store.botWrites.generation;
    const kept = this.versionLists.get(botId);
    if (kept && kept.generation === generation) return kept.list;
    const list = await this.d.botStore.versions(botId);
    this.versionLists.set(botId, { generation, list });
    return list;
  }

  /** The regressions of one bot's versions, on every ladder (or one). */
  async ofBot(bot: { id: string; name: string }, ladder?: string): Promise<Regression[]> {
    return this.regressionsOf(bot, await this.d.botStore.versions(bot.id), ladder);
  }

  private regressionsOf(
    bot: { id: string; name: string },
    versions: VersionRow[],
    ladder: string | undefined,
  ): Regression[] {
    const out: Regression[] = [];
    for (const l of this.d.ladders.all()) {
      if (ladder !== undefined && l.id !== ladder) continue;
      for (const v of versions) {
        const r = regressionOf(l.ratings, l.id, bot, versions, v.label);
        if (r) out.push(r);
      }
    }
    return out;
  }

  /**
   * The regressions of a bot by name (none for an unknown one), kept by what they are made from: the bot's
   * row, its versions (both read again after a bot write) and each ladder's fit (bot pages ask on every view).
   */
  async ofBotNamed(name: string, ladder?: string): Promise<Regression[]> {
    const snap = await this.d.botDirectory.snapshot();
    let names = this.byName.get(snap);
    if (!names) {
      names = new Map(snap.bots.map((b) => [b.name, b]));
      this.byName.set(snap, names);
    }
    const bot = names.get(name);
    if (!bot) return [];
    const versions = await this.d.botStore.versions(bot.id);
    const fits = this.d.ladders
      .all()
      .filter((l) => ladder === undefined || l.id === ladder)
      .map((l) => l.ratings.stamp);
    return this.kept.get(`${ladder ?? ""}\0${bot.id}`, [bot, versions, ...fits], () =>
      this.regressionsOf(bot, versions, ladder),
    );
  }

  /** The regressions of an account's bots. */
  async ofAccount(accountId: string): Promise<Regression[]> {
    const bots = await this.d.accountStore.accountBots(accountId);
    const all = await Promise.all(bots.filter((b) => b.status !== "banned").map((b) => this.ofBot(b)));
    return all.flat();
  }

  /**
   * After a rated game: each player seat's version that is regressed now gets its one email. Cheap for the
   * many games that cannot raise one: a version under 30 rated games is passed over before any read.
   */
  async onMatchFinished(e: DomainEvents["MatchFinished"]): Promise<void> {
    const m = e.match;
    if (!e.rated || m.mode !== "ranked" || m.voided) return;
    const l = this.d.ladders.get(m.ladder_id);
    if (!l) return;
    for (const seat of m.bots) {
      const accountId = e.accounts[seat.fighter] ?? null;
      if (seat.house || !accountId) continue;
      const id = `${l.id}|${seat.bot_id}|${seat.version}`;
      if (this.mailed.has(id)) continue;
      if (l.ratings.gamesOf(versionKey(seat.bot_id, seat.version)) < QUALIFYING_GAMES) continue;
      const versions = await this.versionsOf(seat.bot_id);
      const r = regressionOf(l.ratings, l.id, { id: seat.bot_id, name: seat.name }, versions, seat.version);
      if (!r) continue;
      this.mailed.add(id);
      const account = await this.d.accountStore.account(accountId);
      const queued = await this.d.work((u) =>
        this.d.mail.queue(
          u,
          "bot_health",
          accountId,
          regressionMail(this.d.publicUrl, account?.handle ?? null, r),
          {
            dedupeKey: `bot_regression:${l.id}:${seat.bot_id}:${seat.version}`,
          },
        ),
      );
      if (queued)
        this.d.log.info({ bot: seat.name, version: seat.version, ladder: l.id }, "regression alert");
    }
  }
}
