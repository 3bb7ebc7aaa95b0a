// The one sender of the email outbox, a job on the scheduler: at most one submission per `emailIntervalMs`
// (a live setting, never under a second; counted from the end of one submission to the start of the next),
// one at a time. Each mail is claimed (pending -> sending, committed)
// before it is handed to SMTP and settled after: accepted, failed (the server definitely refused it), unknown
// (the connection broke after the message may have been taken: never resent) or back to pending (nothing was
// submitted). A transport that breaks opens the global incident `*`, a temporary refusal for a recipient opens
// one for the recipient's domain; mail of a scope with an open incident waits until an operator resolves it.
// A recipient who opted out, was banned or deleted, or has no known address is `skipped` without a send.
// Identity mail (sign-up and recovery links) goes first, is never opted out of, and without SMTP is the only
// mail delivered (as an .eml file, unpaced: the pacing protects a mail server). The SMTP transport has
// connection, greeting and socket timeouts (--smtp-timeout), so a hung server costs seconds and opens an
// incident as soon as a send is in doubt.
import type { Logger } from "pino";
import type { ScheduledJob } from "../kernel/scheduler.ts";
import type { Candidate, MailStore } from "./store.ts";
import { UNSUBSCRIBE_PLACEHOLDER } from "./templates.ts";
import type { UnsubscribeTokens } from "./tokens.ts";
import type { Mailer } from "./transport.ts";

/** How often an idle sender looks for mail queued without a wake-up (another server on the same database). */
const IDLE_POLL_MS = 30_000;
/** Identity mail older than this is skipped: the longest-lived link it can carry (sign-up, 24 h) is dead. */
export const IDENTITY_MAIL_TTL_MS = 24 * 3_600_000;

export type Outcome =
  | { state: "accepted"; detail: string }
  | { state: "failed"; detail: string }
  | { state: "unknown"; detail: string; incident: string }
  | { state: "pending"; detail: string; incident: { scope: "*" | "domain"; problem: string } };

interface SmtpError {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
  /** nodemailer: which of its timeouts fired (CONNECT_TIMEOUT, GREETING_TIMEOUT, SOCKET_TIMEOUT). */
  timeoutType?: string;
}

/**
 * Failures that happen before any connection to the SMTP server exists (or while it refuses to let us in):
 * nothing was submitted, so the mail stays pending. Nodemailer names the stage `CONN` even for a connection
 * that closed in the middle of a message, so only the error itself tells these apart.
 */
const NOT_CONNECTED = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ECONNRESET.*connect/;

/** What an SMTP submission's error means for the mail (exported for its unit test). */
export function classify(err: unknown): Exclude<Outcome, { state: "accepted" }> {
  const e = (err ?? {}) as SmtpError;
  const said = (e.response ?? e.message ?? String(err)).slice(0, 300);
  const rc = e.responseCode;
  // Connecting or waiting for the greeting (or a STARTTLS upgrade) took too long: nothing was submitted.
  if (e.timeoutType === "CONNECT_TIMEOUT" || e.timeoutType === "GREETING_TIMEOUT")
    return {
      state: "pending",
      detail: `not sent: ${said}`,
      incident: { scope: "*", problem: `transport: the SMTP server did not answer in time (${said})` },
    };
  // The server went silent later: nodemailer does not say at which step, and after DATA the message may
  // have been taken, so the mail is in doubt (never resent) and sending pauses.
  if (e.timeoutType === "SOCKET_TIMEOUT")
    return {
      state: "unknown",
      detail: `outcome unknown: the SMTP server stopped answering (${said})`,
      incident: `delivery in doubt: the SMTP server stopped answering in the middle of a send (${said})`,
    };
  if (rc && rc >= 500) return { state: "failed", detail: `refused: ${said}` };
  if (rc && rc >= 400) {
    const scope = e.command === "RCPT TO" ? ("domain" as const) : ("*" as const);
    return {
      state: "pending",
      detail: `deferred: ${said}`,
      incident: { scope, problem: `temporary refusal: ${said}` },
    };
  }
  if (e.code === "EDNS" || e.code === "EAUTH" || e.code === "ETLS" || NOT_CONNECTED.test(e.message ?? ""))
    return {
      state: "pending",
      detail: `not sent: ${said}`,
      incident: { scope: "*", problem: `transport: ${said}` },
    };
  // Anything else happened while (or after) the message was being handed over: it may have been taken.
  return { state: "unknown", detail: `outcome unknown: ${said}`, incident: `delivery interrupted: ${said}` };
}

export interface SenderDeps {
  store: MailStore;
  mailer: Mailer;
  tokens: UnsubscribeTokens;
  publicUrl: string;
  log: Logger;
  intervalMs: () => number;
  /** Opens an incident (with its admin warning) in one unit of work. */
  openIncident: (scope: string, problem: string) => Promise<void>;
  /** Asks the scheduler to look at the job's times again. */
  reschedule: () => void;
  clock?: () => number;
}

export class OutboxSender implements ScheduledJob {
  readonly name = "email-outbox";
  private lastSubmit = 0;
  private busy = false;
  /** Nothing sendable was found at the last look: poll slowly until woken. */
  private idle = false;
  private stopped = false;
  /** Settles when the send under way (if any) is over (tests, shutdown). */
  current: Promise<void> = Promise.resolve();
  /** The number of submissions made since start (the admin emails screen). */
  submitted = 0;

  constructor(private readonly d: SenderDeps) {}

  get paused(): boolean {
    return this.stopped;
  }

  nextAt(now: number): number | null {
    if (this.busy || this.stopped) return null;
    if (this.idle) return now + IDLE_POLL_MS;
    if (this.d.mailer.mode !== "smtp") return now;
    return Math.max(now, this.lastSubmit + this.d.intervalMs());
  }

  /** New mail was committed (or an incident resolved): look again. */
  wake(): void {
    this.idle = false;
    this.d.reschedule();
  }

  stop(): void {
    this.stopped = true;
  }

  run(): void {
    if (this.busy || this.stopped) return;
    this.busy = true;
    this.current = this.step()
      .catch((err) => this.d.log.error({ err }, "email outbox step failed"))
      .finally(() => {
        this.busy = false;
        this.d.reschedule();
      });
  }

  /** Skips what must not go, then submits at most one mail. */
  private async step(): Promise<void> {
    const open = await this.d.store.openIncidents();
    if (open.some((i) => i.scope === "*")) {
      this.idle = true;
      return;
    }
    for (;;) {
      const c = await this.d.store.nextPending(this.d.mailer.mode !== "smtp");
      if (!c) {
        this.idle = true;
        return;
      }
      const skip = skipReason(c, (this.d.clock ?? Date.now)());
      if (skip) {
        await this.d.store.settle(c.id, "pending", "skipped", skip);
        continue;
      }
      const address = c.address!;
      const domain = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
      if (!(await this.d.store.claim(c.id, domain))) continue;
      this.submitted++;
      let outcome: Outcome;
      try {
        outcome = await this.submit(c, address);
      } finally {
        // The interval runs from the end of this submission, not its start: the receiving server then sees
        // the next one at least the interval after this one's MAIL FROM, however long either connection took
        // to open (measured from the start, a slow connect here and a quick one next fell under a second).
        this.lastSubmit = (this.d.clock ?? Date.now)();
      }
      await this.d.store.settle(c.id, "sending", outcome.state, outcome.detail);
      if (outcome.state === "unknown") await this.d.openIncident("*", outcome.incident);
      if (outcome.state === "pending")
        await this.d.openIncident(outcome.incident.scope === "*" ? "*" : domain, outcome.incident.problem);
      if (outcome.state !== "accepted")
        this.d.log.warn({ mail: c.id, state: outcome.state, detail: outcome.detail }, "email not accepted");
      return;
    }
  }

  private async submit(c: Candidate, address: string): Promise<Outcome> {
    // Identity mail is transactional: no unsubscribe link or headers (there is nothing to opt out of).
    if (c.category === "identity" || c.account_id === null) {
      try {
        await this.d.mailer.send({
          to: address,
          subject: c.subject,
          text: c.text,
          html: c.html,
          headers: { "X-Ladder-Category": "identity" },
        });
        const where =
          this.d.mailer.mode === "smtp" ? "accepted by the SMTP server" : "written to the outbox folder";
        return { state: "accepted", detail: where };
      } catch (err) {
        return classify(err);
      }
    }
    const token = encodeURIComponent(this.d.tokens.issue(c.account_id, c.category));
    // People follow the link to a page with a button; mail clients post one-click to the header's address.
    const page = `${this.d.publicUrl}/email/unsubscribe?token=${token}`;
    const url = `${this.d.publicUrl}/api/email/unsubscribe?token=${token}`;
    try {
      await this.d.mailer.send({
        to: address,
        subject: c.subject,
        text: c.text.replaceAll(UNSUBSCRIBE_PLACEHOLDER, page),
        html: c.html.replaceAll(UNSUBSCRIBE_PLACEHOLDER, page),
        headers: {
          "List-Unsubscribe": `<${url}>`,
          "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
          "X-Ladder-Category": c.category,
        },
      });
      return { state: "accepted", detail: "accepted by the SMTP server" };
    } catch (err) {
      return classify(err);
    }
  }
}

/** Why a pending mail is not sent at all, or null. */
export function skipReason(c: Candidate, now: number): string | null {
  // Identity mail goes to the address it was asked for, whatever the account's state or settings: the
  // identity provider decided it may go. Only a link that can no longer work is dropped.
  if (c.category === "identity") {
    if (!c.address) return "no address is known for the account";
    return now - Date.parse(c.created) > IDENTITY_MAIL_TTL_MS
      ? "the account link expired before it was sent"
      : null;
  }
  if (!c.account_exists) return "the account no longer exists";
  if (c.banned) return "the account is banned";
  if (!c.address) return "no address is known for the account";
  if (c.category === "announcements") return c.email_announcements ? null : "the recipient opted out";
  return c.email_preferences[c.category] === false ? "the recipient opted out" : null;
}
