// The identity provider's emails (sign-up confirmation, password reset) enter the durable outbox here, so
// they are paced with every other mail (one submission per `emailIntervalMs`), survive a restart, and a hung
// mail server shows up as an incident instead of a stalled sign-up request. It is a Mailer in shape, so
// the identity provider's LinkMail (server/accounts/links.ts) keeps using it as it used the transport: `send`
// resolves once the mail is committed to the outbox (not once it is sent) and throws when it could not be.

import type { Store } from "../store/types.ts";
import type { Mail, Mailer } from "./transport.ts";

export class IdentityOutbox implements Mailer {
  constructor(
    private readonly store: Pick<Store, "work">,
    /** The transport the outbox sender uses: its mode is this mailer's. */
    private readonly transport: Mailer,
  ) {}

  get mode(): "smtp" | "outbox" {
    return this.transport.mode;
  }

  /** Queues the mail (committed when this resolves); the sender is woken by the commit. */
  async send(mail: Mail): Promise<void> {
    await this.store.work((u) =>
      u.outbox({
        category: "identity",
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      }),
    );
  }
}
