// The HTML shells of /account and the tool endpoint's consent page (SPEC 1.1), and the private shell /admin
// shares (server/admin/page.ts). Everything on them is private, so the server renders only
// the empty structure and the identity provider's address; web/account.js and web/admin.js fill it in from
// the account and admin routes with the browser's session (web/session.js). Nothing private is ever rendered
// here, so the pages can be cached like any other and a non-admin's /admin holds no admin data.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Kernel, Services } from "../kernel/feature.ts";
import { BOT_NAME_HTML_PATTERN } from "../kernel/names.ts";
import { webAssets } from "../web/assets.ts";
import { type Html, html, jsonScript } from "../web/html.ts";
import { layout, shellAssets } from "../web/layout.ts";
import { AVATARS } from "./account-bots.ts";
import { accountsInfo } from "./discovery-info.ts";

/** What these pages read (their feature: feature.ts beside this file). */
export type AccountPageServices = Pick<Services, "identity"> & Pick<Kernel, "config">;

/** One private page: its title, description, the script that fills it, and its empty structure. */
export interface ShellPage {
  title: string;
  description: string;
  page: string;
  script: string;
  body: Html;
}

/**
 * Sends a private page's shell: the layout, the identity provider's address for the script, and the headers of
 * a page that must not be framed, indexed or leak its query (the admin console uses it too: admin/page.ts).
 */
export function shellSender(ctx: AccountPageServices): (reply: FastifyReply, o: ShellPage) => FastifyReply {
  const assets = webAssets();
  return function send(reply, o) {
    const info = accountsInfo(ctx);
    // An external identity provider lives on another origin: the page must be allowed to call it.
    let connect = "'self'";
    if (info) {
      const origin = new URL(info.identity_url).origin;
      if (origin !== new URL(ctx.config.publicUrl).origin) connect += ` ${origin}`;
    }
    reply
      .header("content-type", "text/html; charset=utf-8")
      .header("cache-control", "no-cache")
      .header("x-content-type-options", "nosniff")
      // The emailed links carry a one-time code in the query: never pass it on to another site.
      .header("referrer-policy", "no-referrer")
      .header("x-robots-tag", "noindex")
      .header(
        "content-security-policy",
        `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src ${connect}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`,
      );
    return reply.send(
      layout({
        ...shellAssets(),
        styles: [assets.url("account.css"), assets.url("events.css")],
        title: o.title,
        description: o.description,
        page: o.page,
        ladder: null,
        noindex: true,
        scripts: [assets.url(o.script)],
        // mail_outbox: no SMTP, so the sign-up page says where its link went instead of "we sent". site_url: the
        // address the sign-in calls and emailed links use, so a page opened at another one says where to go.
        body: html`<script type="application/json" id="arena-identity">${jsonScript(info && { ...info, mail_outbox: ctx.identity?.mailer.mode === "outbox", site_url: new URL(ctx.config.publicUrl).origin })}</script>
<noscript><p class="notice">This page needs JavaScript: it talks to the account routes with your session.</p></noscript>
${o.body}`,
      }),
    );
  };
}

export function accountPageRoutes(app: FastifyInstance, ctx: AccountPageServices): void {
  const send = shellSender(ctx);

  app.get("/account", async (_req, reply) =>
    send(reply, {
      title: "Account",
      description: "Sign in, choose a handle, register and manage your bots, ladders and agent keys.",
      page: "account",
      script: "account.js",
      body: accountBody(),
    }),
  );

  // The tool endpoint's consent page (server/mcp): an OAuth client asks the signed-in owner for access.
  app.get("/account/mcp/authorize", async (_req, reply) =>
    send(reply, {
      title: "Approve an application",
      description: "An application asks to use your ladder account through the tool endpoint.",
      page: "account",
      script: "mcp-authorize.js",
      body: consentBody(),
    }),
  );
}

const PREFERENCES: [string, string][] = [
  ["onboarding", "Getting started tips"],
  ["achievements", "Achievements"],
  ["bot_health", "Bot health warnings"],
  ["event_reminders", "Event reminders"],
  ["weekly_digest", "Weekly digest"],
  ["admin_warnings", "Messages from the admins"],
];

function consentBody(): Html {
  return html`<h1>Approve an application</h1>
<p class="status" id="consent-status" role="status" aria-live="polite"></p>
<p class="loading" id="consent-loading">Loading…</p>
<section class="card" id="consent-signed-out" hidden aria-labelledby="h-consent-signin">
<h2 id="h-consent-signin">Sign in first</h2>
<p>Sign in on <a href="/account" target="_blank" rel="noopener">your account page</a> (it opens in a new tab), then come back here.</p>
<p class="actions"><button type="button" class="button primary" id="consent-retry">I have signed in</button></p>
</section>
<section class="card" id="consent" hidden aria-labelledby="consent-title"></section>`;
}

/** The one-time secret panel (bot token, agent key, owner key): filled by the script, never stored. */
/** The one-time secret panel (a token or key shown once), on the account page and the admin console. */
export function secretPanel(): Html {
  return html`<section class="secret" id="secret-panel" hidden aria-labelledby="secret-title" tabindex="-1">
<h2 id="secret-title">Shown once</h2>
<p id="secret-note"></p>
<div class="secret-row"><code id="secret-value"></code>
<button type="button" class="button" id="secret-copy">Copy</button></div>
<p class="muted small">It is not stored in this page: copy it now. Reloading or leaving hides it for good.</p>
<div id="secret-commands" hidden>
<h3>Run a starter bot with it</h3>
<p class="small">Paste one of these into a terminal (macOS, Linux or WSL): it downloads the starter from this server,
installs what it needs and starts it with this token and this server's address. The bot then queues for ranked
matches until you stop it with Ctrl-C. Other ways to get the starters: <a href="/starters">Starter bots</a>.</p>
<h4 id="command-typescript-title">TypeScript (Node 22 or newer)</h4>
<div class="command"><pre tabindex="0" aria-labelledby="command-typescript-title"><code id="command-typescript"></code></pre>
<button type="button" class="button copy-command" data-copy="command-typescript">Copy<span class="visually-hidden"> the TypeScript command</span></button></div>
<h4 id="command-python-title">Python (3.8 or newer)</h4>
<div class="command"><pre tabindex="0" aria-labelledby="command-python-title"><code id="command-python"></code></pre>
<button type="button" class="button copy-command" data-copy="command-python">Copy<span class="visually-hidden"> the Python command</span></button></div>
</div>
<p><button type="button" class="button" id="secret-done">I have copied it</button></p>
</section>`;
}

function accountBody(): Html {
  return html`<h1>Account</h1>
<p class="status" id="account-status" role="status" aria-live="polite"></p>
<p class="notice" id="other-address" hidden></p>
<p class="loading" id="account-loading">Loading…</p>

<div id="signed-out" class="auth-grid" hidden>
<section class="card" aria-labelledby="h-signin">
<h2 id="h-signin">Sign in</h2>
<form id="signin-form" novalidate>
<label for="signin-email">Email</label>
<input id="signin-email" name="email" type="email" autocomplete="username" required>
<label for="signin-password">Password</label>
<input id="signin-password" name="password" type="password" autocomplete="current-password" required>
<p class="actions"><button class="button primary" type="submit">Sign in</button></p>
</form>
<p class="actions small"><button type="button" class="link" id="show-recover">Forgot your password?</button>
<button type="button" class="link" id="resend-confirmation">Send the confirmation email again</button></p>
<div id="recover" role="group" aria-labelledby="h-recover" hidden>
<h3 id="h-recover">Reset your password</h3>
<p class="muted small">We email you a link. Open it in this browser to choose a new password.</p>
<form id="recover-form" novalidate>
<label for="recover-email">Email</label>
<input id="recover-email" name="email" type="email" autocomplete="email" required>
<p class="actions"><button class="button primary" type="submit">Email me a link</button></p>
</form>
</div>
</section>
<section class="card" aria-labelledby="h-signup">
<h2 id="h-signup">Create an account</h2>
<p class="muted small">An account lets you register bots and play. Watching the ladder needs none.</p>
<form id="signup-form" novalidate>
<label for="signup-email">Email</label>
<input id="signup-email" name="email" type="email" autocomplete="email" required>
<label for="signup-password">Password <span class="muted small">(at least 8 characters)</span></label>
<input id="signup-password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="200" required>
<p class="actions"><button class="button primary" type="submit">Create account</button></p>
</form>
</section>
</div>

<section class="card" id="new-password" aria-labelledby="h-newpw" hidden>
<h2 id="h-newpw">Choose a new password</h2>
<form id="new-password-form" novalidate>
<label for="new-password-input">New password <span class="muted small">(at least 8 characters)</span></label>
<input id="new-password-input" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="200" required>
<p class="actions"><button class="button primary" type="submit">Save the password</button></p>
</form>
</section>

<section class="card refused" id="account-banned" hidden aria-labelledby="h-banned">
<h2 id="h-banned">This account is banned</h2>
<p>Signed in as <strong id="banned-email"></strong>. A banned account cannot register, manage or claim bots,
create agent keys or play, and its bots are refused on the ladder. If you think this is a mistake, ask the
ladder's admins.</p>
<p><button type="button" class="button" id="banned-sign-out">Sign out</button></p>
</section>

<div id="signed-in" hidden>
<section class="card who" aria-labelledby="h-who">
<h2 id="h-who" class="visually-hidden">You</h2>
<p>Signed in as <strong id="who-email"></strong><span id="who-handle"></span>
<span id="who-admin" hidden> · <a href="/admin">Admin console</a></span></p>
<p><button type="button" class="button" id="sign-out">Sign out</button></p>
</section>

${secretPanel()}

<section class="card" aria-labelledby="h-handle">
<h2 id="h-handle">Handle</h2>
<p class="muted small" id="handle-hint">Your public name: it is shown as the owner of your bots. 2-39 letters, digits, <code>-</code>, <code>_</code> or <code>.</code>, starting with a letter or digit.</p>
<form id="handle-form" class="inline" novalidate>
<label for="handle-input">Handle</label>
<input id="handle-input" name="handle" autocomplete="nickname" pattern="[A-Za-z0-9][A-Za-z0-9._\\-]{1,38}" required aria-describedby="handle-hint">
<button class="button primary" type="submit">Save handle</button>
</form>
</section>

<section class="card" aria-labelledby="h-bots" id="bots-section">
<h2 id="h-bots" tabindex="-1">Bots <span class="muted small" id="bot-count"></span></h2>
<p class="muted small needs-handle" hidden>Choose a handle to register bots.</p>
<div id="bot-list"></div>
<form id="register-form" class="inline" novalidate>
<label for="register-name">New bot name</label>
<input id="register-name" name="name" pattern="${BOT_NAME_HTML_PATTERN}" required aria-describedby="register-hint">
<button class="button primary" type="submit">Register bot</button>
</form>
<p class="muted small" id="register-hint">2-24 letters, digits, <code>-</code> or <code>_</code>. You get the bot's token once.</p>
<details class="claim">
<summary>Claim a bot registered without an account</summary>
<form id="claim-form" class="inline" novalidate>
<label for="claim-token">Bot token</label>
<input id="claim-token" name="token" type="password" autocomplete="off" required>
<button class="button" type="submit">Claim</button>
</form>
</details>
<template id="bot-row">
<li class="bot">
<div class="bot-head"><span class="orb" aria-hidden="true"></span> <a class="bot-name"></a> <span class="badges"></span></div>
<details class="bot-manage">
<summary>Manage</summary>
<form class="rename inline" novalidate>
<label>New name <input name="name" pattern="${BOT_NAME_HTML_PATTERN}" required></label>
<button class="button" type="submit">Rename</button>
</form>
<form class="avatar inline">
<label>Avatar <select name="avatar"><option value="">plain orb</option>${AVATARS.map((a) => html`<option value="${a}">${a}</option>`)}</select></label>
<button class="button" type="submit">Set avatar</button>
</form>
<p class="actions"><button type="button" class="button rotate">New token</button>
<button type="button" class="button danger remove">Delete</button></p>
</details>
</li>
</template>
</section>

<section class="card" aria-labelledby="h-ladders" id="ladders-section">
<h2 id="h-ladders" tabindex="-1">Ladders</h2>
<p class="muted small">Your bots may queue on an open ladder at once; on an approval ladder once an admin has
approved your enrollment; on an invitation ladder with a code an admin gave you.</p>
<ul id="ladder-list" class="ladders" aria-label="Ladders"></ul>
</section>

<section class="card" aria-labelledby="h-events" id="events">
<h2 id="h-events" tabindex="-1">Events</h2>
<p class="muted small">Achievements you earn in timed events, with their flags, and opponent requests.</p>
<p class="status" id="events-status" role="status" aria-live="polite"></p>
<div id="account-events"></div>
</section>

<section class="card" aria-labelledby="h-keys">
<h2 id="h-keys" tabindex="-1">Agent keys</h2>
<p class="muted small">A key lets a program (a CI job, an AI agent) register and delete bots for you. Send it as
<code>Authorization: Bearer ak_…</code>. <span id="key-count"></span></p>
<ul id="key-list" class="plain-list"></ul>
<form id="key-form" class="inline" novalidate>
<label for="key-label">Label <span class="muted small">(optional)</span></label>
<input id="key-label" name="label" maxlength="64">
<button class="button primary" type="submit">Create key</button>
</form>
</section>

<section class="card" id="mcp-card" aria-labelledby="h-mcp">
<h2 id="h-mcp" tabindex="-1">AI applications</h2>
<p class="muted small">Agents connect to the tool endpoint <code id="mcp-url"></code> with an agent key, or
with your approval (OAuth). Approved applications:</p>
<ul id="mcp-client-list" class="plain-list"></ul>
</section>

<section class="card" aria-labelledby="h-mail">
<h2 id="h-mail">Email</h2>
<form id="notifications-form" novalidate>
<fieldset>
<legend>What we may email you</legend>
<label class="check"><input type="checkbox" name="email_announcements"> Announcements</label>
${PREFERENCES.map(([k, label]) => html`<label class="check"><input type="checkbox" name="pref-${k}" data-pref="${k}"> ${label}</label>`)}
</fieldset>
<p class="actions"><button class="button" type="submit">Save email settings</button></p>
</form>
</section>
</div>`;
}
