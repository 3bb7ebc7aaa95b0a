// The page an email's unsubscribe link opens (`/email/unsubscribe?token=`): it says which category the link is
// for and opts out only when the reader presses the button (web/unsubscribe.js posts to the API), so a mail
// scanner that follows links changes nothing. Mail clients use the List-Unsubscribe header's one-click POST.
import type { FastifyInstance } from "fastify";
import { webAssets } from "../web/assets.ts";
import { html } from "../web/html.ts";
import { sendPage, shellAssets } from "../web/layout.ts";

export function unsubscribePage(app: FastifyInstance): void {
  app.get("/email/unsubscribe", async (_req, reply) => {
    // The token is in the address: it is never sent on to another site.
    reply.header("referrer-policy", "no-referrer");
    return sendPage(reply, {
      ...shellAssets(),
      title: "Email settings",
      description: "Unsubscribe from one kind of email.",
      page: "unsubscribe",
      ladder: null,
      noindex: true,
      scripts: [webAssets().url("unsubscribe.js")],
      body: html`<section class="hero small" aria-labelledby="h-unsub"><h1 id="h-unsub">Email settings</h1>
<p id="unsub-text" role="status" aria-live="polite">Checking your link…</p>
<p><button class="button primary" type="button" id="unsub-button" hidden>Unsubscribe</button></p>
<p class="muted small">You can change every kind of email on your <a href="/account">account page</a>.</p>
</section>`,
    });
  });
}
