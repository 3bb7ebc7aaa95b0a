// The built-in identity provider's emailed links (sign-up confirmation, password reset): what they say and
// how often an address receives one. At most three emails of a kind per address in a quarter of an hour,
// and a resent confirmation at most once a minute: a mail cannon is not a feature. The mail is queued in the
// durable email outbox (server/mail/identity.ts), never handed to the transport here: the outbox's one sender
// paces it with all other mail (identity mail first) and turns a hung mail server into an incident. The link
// is a secret: it is never logged, and the outbox drops it from the stored body once the mail is settled.
import { IdentityOutbox } from "../mail/identity.ts";
import type { Mailer } from "../mail/transport.ts";

const WINDOW_MS = 15 * 60_000;
const PER_WINDOW = 3;
export const REPEAT_EVERY_MS = 60_000;

export type LinkKind = "signup" | "recovery";
/** What an address may be sent, each counted on its own: links, and notices that carry no link. */
export type MailKind = LinkKind | "notice" | "resend";

export class LinkMail {
  private readonly sent = new Map<string, number[]>();

  private readonly outbox: IdentityOutbox;

  /** `mailer` must be the outbox's IdentityOutbox (its type stays Mailer for the provider's deps). */
  constructor(
    mailer: Mailer,
    private readonly base: string,
  ) {
    if (!(mailer instanceof IdentityOutbox))
      throw new Error(
        "LinkMail needs the email outbox (IdentityOutbox), not a transport: identity mail is paced there",
      );
    this.outbox = mailer;
  }

  /** Whether an email of this kind may go to this address now; `gapMs` since the last one. */
  allowed(kind: MailKind, email: string, gapMs: number): boolean {
    const now = Date.now();
    const times = (this.sent.get(`${kind}:${email.toLowerCase()}`) ?? []).filter((t) => now - t < WINDOW_MS);
    const last = times.at(-1) ?? 0;
    return times.length < PER_WINDOW && now - last >= gapMs;
  }

  /** Counts a use of an allowance that is not itself an email (a resend request, paced on its own). */
  note(kind: MailKind, email: string): void {
    const key = `${kind}:${email.toLowerCase()}`;
    const now = Date.now();
    this.sent.set(key, [...(this.sent.get(key) ?? []).filter((t) => now - t < WINDOW_MS), now]);
  }

  /**
   * Queues a link in the outbox (resolves once committed there; the outbox sends it in its turn). A failed
   * enqueue throws (the provider answers 503 email_send_failed) and is not counted, so the person may ask
   * again at once.
   */
  async send(kind: LinkKind, email: string, token: string, redirect: string): Promise<void> {
    const key = `${kind}:${email.toLowerCase()}`;
    const now = Date.now();
    const times = (this.sent.get(key) ?? []).filter((t) => now - t < WINDOW_MS);
    this.sent.set(key, [...times, now]);
    if (this.sent.size > 100_000) this.sent.delete(this.sent.keys().next().value as string);
    const link = `${this.base}/verify?token=${token}&type=${kind}&redirect_to=${encodeURIComponent(redirect)}`;
    const signup = kind === "signup";
    const subject = signup ? "Confirm your Arena Ladder account" : "Reset your Arena Ladder password";
    const lead = signup
      ? "Confirm your email address to finish creating your Arena Ladder account. The link confirms the password chosen in the sign-up that sent it; if you did not just sign up, ignore this email."
      : "Someone asked to reset the password of your Arena Ladder account. If it was not you, ignore this email.";
    const note = signup
      ? "Open the link in the same browser you used to sign up (a sign-up made in a browser is confirmed only there). It confirms this sign-up only, never another one made with this address"
      : "Open the link in the same browser you used to ask for it. It works once, and only the newest link works";
    const valid = signup ? "for 24 hours" : "for one hour";
    try {
      await this.outbox.send({
        to: email,
        subject,
        text: `${lead}\n\n${link}\n\n${note}, ${valid}.\n`,
        html: `<p>${lead}</p><p><a href="${link.replace(/&/g, "&amp;")}">${signup ? "Confirm my email" : "Reset my password"}</a></p><p>${note}, ${valid}.</p>`,
      });
    } catch (err) {
      this.sent.set(key, times);
      throw err;
    }
  }

  /**
   * Tells an address that a sign-up was not recorded because another person's sign-up waits for it: no
   * link (a link would confirm a password its opener did not choose), and what the owner can do.
   */
  async notice(email: string, waitingSince: string, accountPage: string): Promise<void> {
    const key = `notice:${email.toLowerCase()}`;
    const now = Date.now();
    const times = (this.sent.get(key) ?? []).filter((t) => now - t < WINDOW_MS);
    this.sent.set(key, [...times, now]);
    const lead = `Someone just signed up with this email address, but an earlier sign-up made at ${waitingSince} is still waiting for its confirmation, so the new one was not recorded and has no link.`;
    const advice = `If you made the earlier sign-up, use the link in its email. If you did not, do not open that link: it would set a password someone else chose. To create the account yourself, sign up at ${accountPage} in a browser: a browser sign-up is confirmed only in the browser that made it.`;
    try {
      await this.outbox.send({
        to: email,
        subject: "A second sign-up with your email address was not recorded",
        text: `${lead}\n\n${advice}\n`,
        html: `<p>${lead}</p><p>${advice.replace(accountPage, `<a href="${accountPage}">${accountPage}</a>`)}</p>`,
      });
    } catch (err) {
      this.sent.set(key, times);
      throw err;
    }
  }
}
