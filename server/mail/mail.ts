// The mail service: queues the emails of SPEC 6.3 in the unit of work of the change that causes them, runs
// the outbox sender on the scheduler, answers unsubscribe tokens and keeps the sending incidents. Mail goes
// through the account mailer's transport (server/mail/transport.ts: nodemailer over SMTP); without SMTP it is
// kept in the outbox table, where GET /api/admin/emails shows it, until SMTP is configured.
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { errors } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import type { Scheduler } from "../kernel/scheduler.ts";
import type { Settings } from "../kernel/settings.ts";
import type { EmailCategory, Unit } from "../kernel/unit-of-work.ts";
import type { Store } from "../store/types.ts";
import { MailProducers } from "./producers.ts";
import { OutboxSender } from "./sender.ts";
import { MailStore, optOut } from "./store.ts";
import { CATEGORY_LABELS, type MailParts, render } from "./templates.ts";
import { UnsubscribeTokens } from "./tokens.ts";
import { type Mailer, makeMailer } from "./transport.ts";

/**
 * The incident scope for mail cut off by a crash (found `sending` at start). It pauses nothing (no recipient
 * domain is called that, and it is not `*`): the mail server is not at fault, but an operator should know
 * that some mail may or may not have arrived and will not be resent.
 */
export const INTERRUPTED_SCOPE = "interrupted";

export interface MailDeps {
  config: Config;
  store: Store;
  /** The accounts' table, typed by its feature (server/accounts/store-feature.ts). */
  accountStore: Pick<Services["accountStore"], "account">;
  /** Where the health mail reads a version's stats. */
  matchStore: Pick<Services["matchStore"], "versionStats">;
  settings: Settings;
  scheduler: Scheduler;
  log: Logger;
  /** The account mailer when the built-in identity provider has one (same transport); else one is made. */
  mailer: Mailer | null;
  /** Account ids of the admins in force now (configured list included). */
  admins: () => Promise<string[]>;
  /** The ladders (window reminders). */
  ladders: () => Services["ladders"];
}

declare module "../kernel/feature.ts" {
  interface Services {
    /** The outbox, for features that queue or count mail (provided by app.ts until mail is a feature). */
    mail: MailService;
  }
}

export class MailService {
  readonly mailer: Mailer;
  readonly store: MailStore;
  tokens!: UnsubscribeTokens;
  sender!: OutboxSender;
  /** The service's own mail from real data (onboarding, digest, health, reminders, achievements). */
  producers!: MailProducers;

  constructor(private readonly d: MailDeps) {
    // The outbox's tables are the mail feature's own, on the store's database.
    this.store = new MailStore(d.store.db);
    this.mailer =
      d.mailer ??
      makeMailer({
        smtpUrl: d.config.smtpUrl,
        from: d.config.mailFrom,
        dataDir: d.config.dataDir,
        timeoutMs: d.config.smtpTimeoutMs,
      });
  }

  /** "smtp": mail is sent; "outbox": no SMTP configured, mail is kept in the outbox table. */
  get mode(): "smtp" | "outbox" {
    return this.mailer.mode;
  }

  async start(): Promise<void> {
    this.tokens = new UnsubscribeTokens(await this.store.secret());
    const interrupted = await this.store.interrupted();
    if (interrupted.length > 0) {
      this.d.log.warn({ interrupted: interrupted.length }, "emails interrupted mid-send marked unknown");
      const which = interrupted.length === 1 ? "email was" : "emails were";
      await this.openIncident(
        INTERRUPTED_SCOPE,
        `${interrupted.length} ${which} being sent when the server stopped (outbox id ${interrupted.join(", ")}): ` +
          "each may or may not have arrived and is not resent (state unknown)",
      );
    }
    this.sender = new OutboxSender({
      store: this.store,
      mailer: this.mailer,
      tokens: this.tokens,
      publicUrl: this.d.config.publicUrl,
      log: this.d.log,
      intervalMs: () => this.d.settings.limits().emailIntervalMs,
      openIncident: (scope, problem) => this.openIncident(scope, problem),
      reschedule: () => this.d.scheduler.reschedule(),
    });
    this.d.store.onMailQueued(() => this.sender.wake());
    this.d.scheduler.add(this.sender);
    this.producers = new MailProducers({
      store: this.d.store,
      accountStore: this.d.accountStore,
      matchStore: this.d.matchStore,
      mail: this,
      ladders: this.d.ladders,
      publicUrl: this.d.config.publicUrl,
      log: this.d.log,
      admins: this.d.admins,
    });
    for (const job of this.producers.jobs()) this.d.scheduler.add(job);
  }

  stop(): void {
    this.sender?.stop();
  }

  /** Renders and queues one mail inside the caller's unit of work; false if its dedupe key was used. */
  queue(
    u: Unit,
    category: EmailCategory,
    accountId: string,
    parts: MailParts,
    opts: { dedupeKey?: string; announcementId?: string } = {},
  ): Promise<boolean> {
    const r = render(category, parts);
    return u.outbox({ category, accountId, subject: r.subject, text: r.text, html: r.html, ...opts });
  }

  /** Opens an incident for a scope (once while open), audited, with a warning mail to each admin. */
  async openIncident(scope: string, problem: string): Promise<void> {
    const admins = await this.d.admins();
    const pauses = scope !== INTERRUPTED_SCOPE;
    const opened = await this.d.store.work(async (u) => {
      if (!(await this.store.openIncident(scope, problem, u.q))) return false;
      await u.audit("email_incident", scope, { action: "opened", problem });
      for (const id of admins)
        await this.queue(u, "admin_warnings", id, {
          subject: pauses
            ? `Email sending paused for ${scope === "*" ? "all mail" : scope}`
            : "Emails in doubt after a restart",
          paragraphs: [
            `An email incident was opened for the scope ${scope}: ${problem}`,
            pauses
              ? "Mail of this scope waits in the outbox until an operator resolves the incident in the admin console (Emails)."
              : "Other mail keeps going. Check the mail server's log for these emails, then resolve the incident in the admin console (Emails).",
          ],
          link: { label: "Open the admin console", url: `${this.d.config.publicUrl}/admin` },
        });
      return true;
    });
    if (opened) this.d.log.warn({ scope, problem }, "email incident opened");
  }

  async resolveIncident(scope: string, reason: string, by: string) {
    const resolved = await this.d.store.work(async (u) => {
      const row = await this.store.resolveIncident(scope, by, reason, u.q);
      if (!row) throw errors.notFound(`an open email incident for the scope ${JSON.stringify(scope)}`);
      await u.audit("email_incident", scope, { action: "resolved", reason, by });
      return row;
    });
    this.sender.wake();
    return resolved;
  }

  /** What a token says, for GET (read-only); a token of an account that no longer exists is not valid. */
  async inspect(token: string) {
    const read = this.tokens.read(token);
    const claim =
      typeof read === "string" || (await this.d.accountStore.account(read.accountId)) ? read : "invalid";
    if (typeof claim === "string")
      return {
        valid: false,
        reason: claim,
        message:
          claim === "expired"
            ? "This unsubscribe link has expired (links are valid for 90 days). Change your email settings on your account page."
            : "This unsubscribe link is not valid. Change your email settings on your account page.",
      };
    return {
      valid: true,
      category: claim.category,
      label: CATEGORY_LABELS[claim.category],
      message: `Unsubscribe from "${CATEGORY_LABELS[claim.category]}" emails.`,
    };
  }

  /** Opts out of the token's category (POST); an invalid or expired token is a 400. */
  async unsubscribe(token: string) {
    const claim = this.tokens.read(token);
    if (claim === "expired") throw errors.badRequest("this unsubscribe link has expired (valid for 90 days)");
    if (claim === "invalid") throw errors.badRequest("this unsubscribe link is not valid");
    const changed = await this.d.store.work(async (u) => {
      const was = await optOut(u.q, claim.accountId, claim.category);
      if (was === null) throw errors.badRequest("this unsubscribe link is not valid (no such account)");
      if (was) await u.audit("email_unsubscribe", claim.accountId, { category: claim.category });
      return was;
    });
    return {
      unsubscribed: true,
      category: claim.category,
      label: CATEGORY_LABELS[claim.category],
      already: !changed,
      message: changed
        ? `You will no longer get "${CATEGORY_LABELS[claim.category]}" emails.`
        : `You were already unsubscribed from "${CATEGORY_LABELS[claim.category]}" emails.`,
    };
  }
}
