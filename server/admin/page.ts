// The admin console's page (SPEC 1.1, 4.6): the empty structure of /admin, sent as the accounts' private shell
// (server/accounts/account-pages.ts). web/admin.js fills it from the admin routes with the browser's session, so
// nothing private is rendered here and a non-admin's /admin holds no admin data.
import type { FastifyInstance } from "fastify";
import { type AccountPageServices, secretPanel, shellSender } from "../accounts/account-pages.ts";
import { BOT_NAME_HTML_PATTERN } from "../kernel/names.ts";
import { type Html, html } from "../web/html.ts";

export function adminPage(app: FastifyInstance, ctx: AccountPageServices): void {
  const send = shellSender(ctx);
  app.get("/admin", async (_req, reply) =>
    send(reply, {
      title: "Admin console",
      description:
        "Accounts, bots, moderation, ladders, live settings, usage and the audit log, for the ladder's admins.",
      page: "admin",
      script: "admin.js",
      body: adminBody(),
    }),
  );
}

function adminBody(): Html {
  return html`<h1>Admin console</h1>
<p class="status" id="admin-status" role="status" aria-live="polite"></p>
<p class="loading" id="admin-loading">Loading…</p>

<section class="card" id="admin-signed-out" hidden aria-labelledby="h-admin-out">
<h2 id="h-admin-out">Sign in first</h2>
<p>The admin console needs an admin's account. <a class="button primary" href="/account">Sign in</a></p>
</section>

<section class="card refused" id="admin-refused" hidden aria-labelledby="h-refused">
<h2 id="h-refused">Not an admin</h2>
<p id="refused-text">Your account is not an admin of this ladder, so the console is closed to you.</p>
<p><a class="button" href="/account">Back to your account</a></p>
</section>

<div id="admin-console" hidden>
<nav class="console-nav" aria-label="Console sections"><ul class="plain-list">${[
    ["h-overview", "Overview"],
    ["h-moderate", "Moderation"],
    ["h-accounts", "Accounts"],
    ["h-ladders", "Ladders"],
    ["h-events", "Events"],
    ["h-settings", "Settings"],
    ["h-owners", "Owner keys"],
    ["h-usage", "Usage"],
    ["h-audit", "Audit log"],
    // The staff screens of other features, on pages of their own.
    ["/admin/tournaments", "Tournaments"],
    ["/admin/settlement", "Settlement"],
  ].map(
    ([to, label]) => html`<li><a href="${to!.startsWith("/") ? to : `#${to}`}">${label}</a></li>`,
  )}</ul></nav>
${secretPanel()}
<section class="card" aria-labelledby="h-overview">
<h2 id="h-overview">Overview</h2>
<div id="overview"></div>
</section>

<section class="card" aria-labelledby="h-moderate">
<h2 id="h-moderate" tabindex="-1">Moderate a bot</h2>
<p class="muted small">Suspended bots are disconnected and refused until activated; a ban also replaces the token and is final.</p>
<form id="bot-action-form" class="inline" novalidate>
<label for="bot-action-name">Bot name</label>
<input id="bot-action-name" name="name" pattern="${BOT_NAME_HTML_PATTERN}" required>
<button class="button" type="submit" name="action" value="suspend">Suspend</button>
<button class="button" type="submit" name="action" value="activate">Activate</button>
<button class="button danger" type="submit" name="action" value="ban">Ban</button>
</form>
<h3 id="h-moderated">Suspended and banned bots</h3>
<div id="moderated"></div>
</section>

<section class="card" aria-labelledby="h-accounts">
<h2 id="h-accounts" tabindex="-1">Accounts</h2>
<form id="account-search" class="inline" role="search">
<label for="account-q">Handle, id or bot name</label>
<input id="account-q" name="q" type="search" maxlength="100">
<button class="button" type="submit">Search</button>
</form>
<div id="accounts"></div>
</section>

<section class="card" aria-labelledby="h-ladders" id="ladders-screen">
<h2 id="h-ladders" tabindex="-1">Ladders</h2>
<p class="muted small">Every ladder of the manifest, hidden and disabled ones included. Manage one to see its members
and invitations.</p>
<div id="ladders"></div>
<div id="ladder-detail" hidden>
<h3 id="h-ladder-detail" tabindex="-1"></h3>
<dl class="facts" id="ladder-facts"></dl>
<h4>Members</h4>
<form id="member-form" class="inline" novalidate>
<label for="member-reason">Reason <span class="muted small">(optional: recorded with the next approval or revocation)</span></label>
<input id="member-reason" name="reason" maxlength="1000">
</form>
<div id="ladder-members"></div>
<form id="member-find-form" class="inline" novalidate role="search">
<label for="member-find">Find an account to approve <span class="muted small">(handle, id or bot name: also an account that never enrolled)</span></label>
<input id="member-find" name="q" type="search" maxlength="100" autocomplete="off" aria-describedby="member-find-error">
<button class="button" type="submit">Find</button>
</form>
<p class="field-error" id="member-find-error" hidden></p>
<div id="member-find-results"></div>
<div id="invitations-block">
<h4>Invitations</h4>
<form id="invitation-form" class="inline" novalidate>
<label for="invitation-account">For the account <span class="muted small">(handle or id; leave empty for anyone)</span></label>
<input id="invitation-account" name="account" maxlength="128" autocomplete="off">
<button class="button primary" type="submit">Create invitation</button>
</form>
<div id="ladder-invitations"></div>
</div>
</div>
</section>

<section class="card" aria-labelledby="h-events" id="events-screen">
<h2 id="h-events" tabindex="-1">Events</h2>
<p class="muted small">Every event of the manifest: readiness, flags, awards. Manage one to move its window, set its
submission link and image, look up an account's progress, revoke an award or reconcile awards with the retained facts.</p>
<div id="events-admin"></div>
<div id="event-detail" hidden>
<h3 id="h-event-detail" tabindex="-1"></h3>
<dl class="facts" id="event-facts"></dl>
<h4>Schedule</h4>
<p class="muted small">Times with an offset (UTC shown). Only the future moves; an event on an event ladder moves with its ladder.</p>
<form id="event-schedule-form" class="inline" novalidate>
<label for="event-opens">Opens at</label>
<input id="event-opens" name="opens_at" required autocomplete="off" size="26">
<label for="event-closes">Closes at</label>
<input id="event-closes" name="closes_at" required autocomplete="off" size="26">
<button class="button primary" type="submit">Save schedule</button>
</form>
<h4>Submission</h4>
<form id="event-submission-form" novalidate>
<label for="event-submission-url">Submission link <span class="muted small">(HTTPS; empty for none)</span></label>
<input id="event-submission-url" name="submission_url" type="url" maxlength="2000" autocomplete="off">
<label for="event-submission-text">Instructions <span class="muted small">(at most 4000 characters)</span></label>
<textarea id="event-submission-text" name="submission_instructions" maxlength="4000" rows="4"></textarea>
<p class="actions"><button class="button primary" type="submit">Save submission</button></p>
</form>
<h4>Image</h4>
<div id="event-image"></div>
<form id="event-image-form" class="inline" novalidate>
<label for="event-image-file">PNG, JPEG or WebP <span class="muted small">(at most 5 MB; stored as WebP)</span></label>
<input id="event-image-file" name="file" type="file" accept="image/png,image/jpeg,image/webp">
<label for="event-image-alt">Alternative text</label>
<input id="event-image-alt" name="alt" maxlength="300" autocomplete="off">
<button class="button primary" type="submit">Upload</button>
<button class="button danger" type="button" id="event-image-delete">Remove image</button>
</form>
<h4>An account</h4>
<form id="event-account-form" class="inline" novalidate role="search">
<label for="event-account-ref">Handle or id</label>
<input id="event-account-ref" name="account" maxlength="128" autocomplete="off">
<button class="button" type="submit">Show</button>
</form>
<div id="event-account"></div>
<h4>Reconcile</h4>
<p class="muted small">Recomputes awards from the retained match facts. A dry run lists what is missing; applying
restores it. Revoked awards are never restored.</p>
<p class="actions"><button class="button" type="button" id="event-reconcile-dry">Dry run</button>
<button class="button primary" type="button" id="event-reconcile-apply">Apply</button></p>
<div id="event-reconcile"></div>
</div>
</section>

<section class="card" aria-labelledby="h-settings" id="settings-screen">
<h2 id="h-settings" tabindex="-1">Settings</h2>
<p class="muted small">Live limits. The start-up flags are the defaults, server-wide overrides sit on top of them
and a ladder's own overrides on top of those; a saved change takes effect at once. Saving needs the revision you
loaded: if someone saved meanwhile, nothing is changed and you are told.</p>
<p id="settings-revision"></p>
<div class="notice" id="settings-stale" role="alert" hidden>
<p id="settings-stale-text"></p>
<p><button type="button" class="button primary" id="settings-reload">Reload the settings</button></p>
</div>
<form id="settings-form" novalidate>
<label for="settings-scope">Limits of</label>
<select id="settings-scope" name="scope" aria-describedby="settings-scope-help"></select>
<p class="muted small" id="settings-scope-help"></p>
<div id="settings-fields" class="limit-fields"></div>
<p class="small" id="settings-draft" aria-live="polite"></p>
<p class="actions"><button class="button" type="button" id="settings-preview">Preview</button>
<button class="button primary" type="submit" id="settings-save">Save</button>
<button class="button" type="button" id="settings-discard">Discard changes</button></p>
<details id="settings-advanced">
<summary>Advanced: the overrides as JSON</summary>
<label for="settings-overrides">Overrides <span class="muted small">(JSON)</span></label>
<textarea id="settings-overrides" name="overrides" rows="10" spellcheck="false" autocomplete="off" aria-describedby="settings-help"></textarea>
<p class="muted small" id="settings-help"></p>
<p class="actions"><button class="button" type="button" id="settings-json">Use this JSON in the form</button></p>
</details>
</form>
<div id="settings-changes" aria-live="polite"></div>
<details>
<summary>Limits in force</summary>
<div id="settings-effective"></div>
</details>
<h3>Presets</h3>
<form id="preset-form" class="inline" novalidate>
<label for="preset-name">Preset name <span class="muted small">(saves the overrides in force, not unsaved changes, under this name)</span></label>
<input id="preset-name" name="name" maxlength="64" pattern="[A-Za-z0-9][A-Za-z0-9 _.\-]{0,63}" required>
<button class="button" type="submit">Save preset</button>
</form>
<div id="presets"></div>
</section>

<section class="card" aria-labelledby="h-owners">
<h2 id="h-owners">Owner keys</h2>
<p class="muted small">Legacy keys that register bots on anonymous local ladders only; never deletion.</p>
<form id="owner-form" class="inline" novalidate>
<label for="owner-name">Owner name</label>
<input id="owner-name" name="name" required>
<label for="owner-max">Bot limit <span class="muted small">(optional)</span></label>
<input id="owner-max" name="max_bots" type="number" min="1" max="100000" inputmode="numeric">
<button class="button primary" type="submit">Create owner key</button>
</form>
<div id="owners"></div>
</section>

<section class="card" aria-labelledby="h-usage">
<h2 id="h-usage">Usage</h2>
<div id="usage"></div>
</section>

<section class="card" aria-labelledby="h-audit">
<h2 id="h-audit">Audit log</h2>
<form id="audit-form" class="inline">
<label for="audit-kind">Kind</label>
<select id="audit-kind" name="kind"><option value="">all</option>${[
    "registration",
    "handle",
    "rename",
    "token_rotated",
    "claim",
    "agent_key",
    "bot_deleted",
    "bot_retired",
    "admin",
    "throttle",
  ].map((k) => html`<option value="${k}">${k}</option>`)}</select>
<button class="button" type="submit">Show</button>
</form>
<div id="audit"></div>
</section>
</div>`;
}
