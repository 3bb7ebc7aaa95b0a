// The account page: sign up (confirmed by an emailed PKCE link), sign in, password recovery, then the account
// itself through the account routes: handle, bots (register, rename, token, avatar, delete or retire, claim),
// ladders (membership and enrollment), agent keys and email settings. Secrets (bot tokens, agent keys) are shown once in a panel and never stored.

import { bindMcpClients, renderMcpClients } from "./account-mcp.js";
import "./account-events.js";
import {
  bindSecretPanel,
  el,
  ladderInText,
  setBusy,
  showSecret,
  starterCommands,
  statusLine,
  time,
} from "./account-ui.js";
import {
  ApiError,
  accessToken,
  api,
  auth,
  exchangeCode,
  explain,
  identity,
  saveSession,
  signedIn,
  signOut,
  startPkce,
  whoami,
} from "./session.js";

const $ = (id) => document.getElementById(id);
const say = statusLine($("account-status"));
/**
 * The signed-out forms' answers: said in the page's status line above the forms and scrolled into view, since on
 * a phone the sign-up form is a screen below that line and its answer (or error) would be said out of sight.
 */
function sayShown(text, kind) {
  say(text, kind);
  $("account-status").scrollIntoView({ block: "nearest" });
}
const backTo = `${location.origin}/account`;
let current = null;

function show(view) {
  $("account-loading").hidden = true;
  $("signed-out").hidden = view !== "signed-out";
  $("signed-in").hidden = view !== "signed-in";
  $("new-password").hidden = view !== "new-password";
  $("account-banned").hidden = view !== "banned";
}

/** A banned account can do nothing here: say so instead of showing forms the server would refuse. */
function showBanned() {
  current = null;
  $("banned-email").textContent = whoami()?.email ?? "your account";
  show("banned");
}
const isBanned = (err) => err instanceof ApiError && err.code === "account_banned";

function showSignedOut(focus = false) {
  current = null;
  show("signed-out");
  if (focus) $("signin-email").focus();
}

/** Runs a form's action with its submit button busy; shows errors in plain words. */
function onSubmit(form, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = event.submitter ?? form.querySelector("button[type=submit]");
    setBusy(button, true);
    try {
      await action(new FormData(form), form);
    } catch (err) {
      if (form.closest("#signed-out")) sayShown(await signedOutError(err), "error");
      else say(explain(err), "error");
      if (isBanned(err)) showBanned();
      if (err instanceof ApiError && (err.code === "invalid_session" || err.code === "signed_out")) {
        await signOut();
        showSignedOut(true);
      }
    } finally {
      setBusy(button, false);
    }
  });
}

// ---- signed out -------------------------------------------------------------------------------------------
onSubmit($("signin-form"), async (data) => {
  const email = String(data.get("email")).trim();
  const password = String(data.get("password"));
  if (!email || !password) return say("Enter your email and password.", "error");
  const t = await auth("/token?grant_type=password", { body: { email, password } });
  saveSession(t);
  $("signin-form").reset();
  await load();
  say("You are signed in.");
});

onSubmit($("signup-form"), async (data, form) => {
  const email = String(data.get("email")).trim();
  const password = String(data.get("password"));
  if (!email.includes("@")) return sayShown("Enter your email address.", "error");
  if (password.length < 8) return sayShown("Use a password of at least 8 characters.", "error");
  const challenge = await startPkce("signup");
  await auth(`/signup?redirect_to=${encodeURIComponent(backTo)}`, {
    body: { email, password, ...challenge },
  });
  form.reset();
  $("signin-email").value = email;
  // A server without a mail server (SMTP) sends nothing: say where its link is instead.
  const outbox = (await identity().catch(() => null))?.mail_outbox === true;
  sayShown(
    outbox
      ? `Almost done: this server sends no email (no SMTP is configured), so the confirmation link for ${email} is in its outbox folder (the data folder's outbox/) and, on a local server, printed on its console. Open it in this browser to finish signing up.`
      : `Almost done: we sent a confirmation link to ${email}. Open it in this browser to finish signing up.`,
    "success",
  );
});

$("resend-confirmation").addEventListener("click", async (event) => {
  // Kept before any await: event.currentTarget is null once the event has been dispatched.
  const button = event.currentTarget;
  const email = $("signin-email").value.trim() || $("signup-email").value.trim();
  if (!email) {
    sayShown("Enter your email in the sign-in form first, then ask again.", "error");
    $("signin-email").focus();
    return;
  }
  setBusy(button, true);
  try {
    await auth(`/resend?redirect_to=${encodeURIComponent(backTo)}`, { body: { type: "signup", email } });
    sayShown(`If ${email} is waiting for confirmation, a new link is on its way.`, "success");
  } catch (err) {
    sayShown(await signedOutError(err), "error");
  } finally {
    setBusy(button, false);
  }
});

$("show-recover").addEventListener("click", () => {
  $("recover").hidden = false;
  $("recover-email").value = $("signin-email").value;
  $("recover-email").focus();
});

onSubmit($("recover-form"), async (data) => {
  const email = String(data.get("email")).trim();
  if (!email.includes("@")) return sayShown("Enter your email address.", "error");
  const challenge = await startPkce("recovery");
  await auth(`/recover?redirect_to=${encodeURIComponent(backTo)}`, { body: { email, ...challenge } });
  sayShown(
    `If an account uses ${email}, we sent it a link. Open it in this browser to choose a new password.`,
    "success",
  );
});

onSubmit($("new-password-form"), async (data, form) => {
  const password = String(data.get("password"));
  if (password.length < 8) return say("Use a password of at least 8 characters.", "error");
  await auth("/user", { method: "PUT", body: { password }, token: await accessToken() });
  form.reset();
  await load();
  say("Your new password is saved.", "success");
});

// ---- signed in: handle, bots, keys, email -----------------------------------------------------------------
for (const id of ["sign-out", "banned-sign-out"]) {
  $(id).addEventListener("click", async () => {
    await signOut();
    showSignedOut(true);
    say("You are signed out.");
  });
}

onSubmit($("handle-form"), async (data) => {
  const first = current?.handle === null;
  render(
    await api("/api/account/handle", { method: "PUT", body: { handle: String(data.get("handle")).trim() } }),
  );
  say(`Your handle is now ${current.handle}.`, "success");
  if (first) $("register-name").focus();
});

onSubmit($("register-form"), async (data, form) => {
  const made = await api("/api/account/bots", {
    method: "POST",
    body: { name: String(data.get("name")).trim() },
  });
  form.reset();
  await refresh();
  showSecret(
    `The token of ${made.name}. Your bot connects to ${made.bot_endpoint} with the header Authorization: Bearer <token>.`,
    made.token,
    starterCommands(made.bot_endpoint, made.token),
  );
  say(`${made.name} is registered. Copy its token now: it is shown once.`, "success");
});

onSubmit($("claim-form"), async (data, form) => {
  const r = await api("/api/account/claim", {
    method: "POST",
    body: { token: String(data.get("token")).trim() },
  });
  form.reset();
  await refresh();
  say(`${r.name} is now yours.`, "success");
});

onSubmit($("key-form"), async (data, form) => {
  const label = String(data.get("label")).trim();
  const made = await api("/api/account/keys", { method: "POST", body: label ? { label } : {} });
  form.reset();
  await refresh();
  showSecret(`Agent key ${made.label || made.id}. ${made.note}`, made.key);
  say("Key created. Copy it now: it is shown once.", "success");
});

onSubmit($("notifications-form"), async (data) => {
  const prefs = {};
  for (const box of $("notifications-form").querySelectorAll("input[data-pref]"))
    prefs[box.dataset.pref] = box.checked;
  render(
    await api("/api/account/notifications", {
      method: "PUT",
      body: { email_announcements: data.get("email_announcements") === "on", email_preferences: prefs },
    }),
  );
  say("Email settings saved.", "success");
});

// Bot actions: one listener for every row (rows are re-rendered after each change).
$("bot-list").addEventListener("submit", async (event) => {
  const form = event.target;
  const name = form.closest("li")?.dataset.name;
  if (!name) return;
  event.preventDefault();
  const button = event.submitter ?? form.querySelector("button");
  setBusy(button, true);
  const path = `/api/account/bots/${encodeURIComponent(name)}`;
  try {
    if (form.classList.contains("rename")) {
      const to = String(new FormData(form).get("name")).trim();
      const r = await api(`${path}/name`, { method: "PUT", body: { name: to } });
      await refresh();
      say(`${name} is now called ${r.name}.`, "success");
      focusBot(r.name);
    } else if (form.classList.contains("avatar")) {
      const avatar = String(new FormData(form).get("avatar")) || null;
      await api(`${path}/avatar`, { method: "PUT", body: { avatar } });
      await refresh();
      say(`${name} now has ${avatar ? `the ${avatar} avatar` : "a plain orb"}.`, "success");
      focusBot(name);
    }
  } catch (err) {
    say(explain(err), "error");
    if (isBanned(err)) showBanned();
  } finally {
    setBusy(button, false);
  }
});

$("bot-list").addEventListener("click", async (event) => {
  const button = event.target.closest("button.rotate, button.remove");
  const name = button?.closest("li")?.dataset.name;
  if (!button || !name) return;
  const bot = current?.bots.find((b) => b.name === name);
  const path = `/api/account/bots/${encodeURIComponent(name)}`;
  const rotate = button.classList.contains("rotate");
  const question = rotate
    ? `Make a new token for ${name}? The old one stops working at once and a connected bot is disconnected.`
    : bot?.played
      ? `Retire ${name}? It leaves the leaderboard for good and can no longer connect. Its page and matches stay.`
      : `Delete ${name}? Its name becomes free for anyone.`;
  if (!window.confirm(question)) return;
  setBusy(button, true);
  try {
    if (rotate) {
      const r = await api(`${path}/token`, { method: "POST" });
      // The bot socket's address as GET /api reports it (the rotation's answer carries only the token).
      const index = await fetch("/api").then((res) => res.json());
      showSecret(
        `The new token of ${r.name}. The old token no longer works.`,
        r.token,
        starterCommands(index.bot_endpoint, r.token),
      );
      say(`${r.name} has a new token. Copy it now: it is shown once.`, "success");
      await refresh();
    } else {
      const r = await api(path, { method: "DELETE" });
      await refresh();
      say(`${r.name} is ${r.outcome}.`, "success");
      $("h-bots").focus();
    }
  } catch (err) {
    say(explain(err), "error");
    if (isBanned(err)) showBanned();
  } finally {
    setBusy(button, false);
  }
});

$("key-list").addEventListener("click", async (event) => {
  const button = event.target.closest("button.revoke");
  if (!button) return;
  const { id, label } = button.dataset;
  if (!window.confirm(`Revoke the key ${label || id}? Programs using it stop working at once.`)) return;
  setBusy(button, true);
  try {
    await api(`/api/account/keys/${encodeURIComponent(id)}`, { method: "DELETE" });
    await refresh();
    say(`Key ${label || id} is revoked.`, "success");
    $("h-keys").focus();
  } catch (err) {
    say(explain(err), "error");
    if (isBanned(err)) showBanned();
  } finally {
    setBusy(button, false);
  }
});

bindMcpClients({
  api,
  done: async (message) => {
    await refresh();
    say(message, "success");
    $("h-mcp").focus();
  },
  fail: (err) => {
    say(explain(err), "error");
    if (isBanned(err)) showBanned();
  },
});

// ---- ladders: membership and enrollment -------------------------------------------------------------------
$("ladder-list").addEventListener("submit", async (event) => {
  const form = event.target.closest("form.enroll");
  if (!form) return;
  event.preventDefault();
  const li = form.closest("li");
  const id = li.dataset.ladder;
  const name = li.dataset.name;
  const error = li.querySelector(".field-error");
  const input = form.elements.invitation ?? null;
  const button = event.submitter ?? form.querySelector("button");
  const fail = (text) => {
    error.textContent = text;
    error.hidden = false;
    say(text, "error");
    (input ?? button).focus();
  };
  const code = input ? input.value.trim() : "";
  if (input && !code) return fail("Enter the invitation code an admin gave you.");
  setBusy(button, true);
  try {
    const list = await api(`/api/account/ladders/${encodeURIComponent(id)}/enrollment`, {
      method: "POST",
      body: code ? { invitation: code } : {},
    });
    renderLadders(list);
    // The events section reads the enrollment too: it loads again.
    document.dispatchEvent(new CustomEvent("arena:enrolled", { detail: { ladder: id } }));
    const now = list.find((l) => l.id === id);
    say(
      now?.membership === "pending"
        ? `You asked to enroll on ${ladderInText(name)}: an admin has to approve it.`
        : `You are enrolled on ${ladderInText(name)}: your bots may queue there.`,
      "success",
    );
    document.getElementById(`ladder-h-${id}`)?.focus();
  } catch (err) {
    fail(explain(err));
    if (isBanned(err)) showBanned();
  } finally {
    setBusy(button, false);
  }
});

const ACCESS_WORDS = { open: "open to all", approval: "needs approval", invitation: "by invitation" };
const MEMBERSHIP_BADGES = {
  active: ["enrolled", "online"],
  pending: ["pending approval", "status-pending"],
  revoked: ["revoked", "status-banned"],
};

/** What the account may do on a ladder: enroll (with a code on an invitation ladder), or why it cannot. */
function ladderAction(l) {
  const note = (text) => el("p", { class: "small" }, text);
  if (l.membership === "active") return note("You are enrolled: your bots may queue here.");
  if (l.membership === "pending") return note("Waiting for an admin to approve your enrollment.");
  if (l.membership === "revoked") return note("Your membership was revoked by the admins.");
  if (!l.enabled) return note("This ladder is disabled.");
  if (l.phase === "closed") return note("This ladder has closed: it takes no more enrollments.");
  // An open ladder takes every account's bots without enrolling (only a revocation closes it); its events count
  // only an enrolled account's matches (SPEC 3.7), so a ladder with events offers the one click that enrolls.
  const events = l.events ?? [];
  if (l.access === "open" && events.length === 0)
    return note("Open to every account: your bots may queue here.");
  const form = el("form", { class: "enroll inline", novalidate: true });
  if (l.access === "open")
    form.append(
      el(
        "span",
        { class: "small" },
        `Your bots may queue here. Enroll to take part in ${events.map((e) => e.name).join(", ")}: `,
      ),
    );
  if (l.access === "invitation")
    form.append(
      el("label", { for: `invitation-${l.id}` }, "Invitation code"),
      el("input", {
        id: `invitation-${l.id}`,
        name: "invitation",
        autocomplete: "off",
        spellcheck: "false",
        maxlength: 200,
        required: true,
        "aria-describedby": `ladder-error-${l.id}`,
      }),
    );
  form.append(
    el(
      "button",
      { class: "button primary", type: "submit" },
      "Enroll",
      el("span", { class: "visually-hidden" }, ` on ${ladderInText(l.name)}`),
    ),
  );
  if (l.access === "approval") form.append(el("span", { class: "muted small" }, "An admin approves it."));
  return form;
}

function ladderItem(l) {
  const phase = l.enabled ? l.phase : "disabled";
  const [label, cls] = MEMBERSHIP_BADGES[l.membership] ?? [l.access === "open" ? "" : "not enrolled", ""];
  const window = [
    l.opens_at ? ["Opens ", time(l.opens_at)] : null,
    l.opens_at && l.closes_at ? " · " : null,
    l.closes_at ? ["Closes ", time(l.closes_at)] : null,
  ];
  return el(
    "li",
    { "data-ladder": l.id, "data-name": l.name, "data-membership": l.membership ?? "none" },
    el(
      "h3",
      { id: `ladder-h-${l.id}`, tabindex: "-1" },
      el("a", { href: `/ladder?ladder=${encodeURIComponent(l.id)}` }, l.name),
      " ",
      el("span", { class: `badge phase-${phase}` }, phase),
      " ",
      el("span", { class: "badge" }, ACCESS_WORDS[l.access] ?? l.access),
      label ? [" ", el("span", { class: `badge membership ${cls}` }, label)] : "",
    ),
    l.description ? el("p", { class: "muted small" }, l.description) : null,
    l.opens_at || l.closes_at ? el("p", { class: "small" }, window) : null,
    ladderAction(l),
    el("p", { class: "field-error", id: `ladder-error-${l.id}`, hidden: true }),
  );
}

function renderLadders(list) {
  $("ladder-list").replaceChildren(...list.map(ladderItem));
}

function focusBot(name) {
  const link = [...$("bot-list").querySelectorAll("li")].find((li) => li.dataset.name === name);
  link?.querySelector(".bot-name")?.focus();
}

// ---- rendering --------------------------------------------------------------------------------------------
/** A version that rates clearly below its predecessor (issue 33), in the words of the bot page. */
function regressionText(r) {
  return (
    `Version ${r.version} rates ${r.drop} points below ${r.predecessor} on ${r.ladder} ` +
    `(${r.rating} ±${r.rating_deviation} after ${r.games} rated games, against ${r.predecessor_rating} ` +
    `±${r.predecessor_deviation}): more than twice their combined standard error, so it is very likely weaker.`
  );
}

function botRow(b, canAct, regressions = []) {
  const li = $("bot-row").content.firstElementChild.cloneNode(true);
  li.dataset.name = b.name;
  li.dataset.status = b.status;
  const orb = li.querySelector(".orb");
  orb.textContent = (b.display_name || b.name).charAt(0).toUpperCase();
  if (b.avatar) orb.classList.add(`orb-${b.avatar}`);
  const link = li.querySelector(".bot-name");
  link.textContent = b.display_name || b.name;
  link.href = `/bot/${encodeURIComponent(b.name)}`;
  const badges = li.querySelector(".badges");
  const badge = (text, cls = "") => badges.append(el("span", { class: `badge ${cls}` }, text), " ");
  if (b.online) badge("online", "online");
  if (b.status !== "active") badge(b.status, `status-${b.status}`);
  if (!b.played) badge("never played");
  if (regressions.length > 0) {
    badge("weaker new version", "warning");
    li.append(
      el(
        "ul",
        { class: "regressions small", "aria-label": `Weaker versions of ${b.name}` },
        ...regressions.map((r) => el("li", { "data-version": r.version }, regressionText(r))),
      ),
    );
  }
  const manage = li.querySelector(".bot-manage");
  const moderated = b.status === "suspended" || b.status === "banned";
  if (b.status === "retired" || b.status === "banned" || !canAct) manage.remove();
  else {
    manage.querySelector("summary").textContent = `Manage ${b.name}`;
    manage.querySelector(".rename input").value = b.name;
    manage.querySelector(".avatar select").value = b.avatar ?? "";
    const remove = manage.querySelector(".remove");
    remove.textContent = b.played ? "Retire" : "Delete";
    if (moderated) {
      // The server refuses these for a moderated bot (409 bot_moderated): do not offer them.
      manage.querySelector(".rename").remove();
      remove.remove();
    }
  }
  return li;
}

function render(account) {
  current = account;
  show("signed-in");
  const who = whoami();
  $("who-email").textContent = who?.email ?? "your account";
  $("who-handle").textContent = account.handle ? ` · handle ${account.handle}` : " · no handle yet";
  $("who-admin").hidden = !account.admin;
  if (document.activeElement !== $("handle-input")) $("handle-input").value = account.handle ?? "";
  const hasHandle = account.handle !== null;
  for (const hint of document.querySelectorAll(".needs-handle")) hint.hidden = hasHandle;
  for (const id of ["register-form", "claim-form", "key-form"]) {
    for (const c of $(id).elements) c.disabled = !hasHandle;
  }

  $("bot-count").textContent = `(${account.bot_count} of ${account.max_bots})`;
  const list = $("bot-list");
  if (account.bots.length === 0) list.replaceChildren(el("p", { class: "empty" }, "No bots yet."));
  else {
    const ul = el("ul", { class: "bots", "aria-label": "Your bots" });
    const regressions = account.regressions ?? [];
    for (const b of account.bots)
      ul.append(
        botRow(
          b,
          hasHandle,
          regressions.filter((r) => r.bot === b.name),
        ),
      );
    list.replaceChildren(ul);
  }

  $("key-count").textContent = `${account.agent_keys.length} of ${account.max_agent_keys} keys.`;
  $("key-list").replaceChildren(
    ...account.agent_keys.map((k) =>
      el(
        "li",
        { "data-key": k.id },
        el("strong", {}, k.label || "(no label)"),
        " ",
        el("code", { class: "small" }, k.id),
        el(
          "span",
          { class: "muted small" },
          ` · created ${k.created.slice(0, 10)} · ${k.last_used ? `last used ${k.last_used.slice(0, 10)}` : "never used"} `,
        ),
        el(
          "button",
          { type: "button", class: "button revoke", "data-id": k.id, "data-label": k.label },
          `Revoke`,
          el("span", { class: "visually-hidden" }, ` ${k.label || k.id}`),
        ),
      ),
    ),
  );

  renderMcpClients(account);

  const form = $("notifications-form");
  form.elements.email_announcements.checked = account.email_announcements;
  for (const box of form.querySelectorAll("input[data-pref]"))
    box.checked = account.email_preferences[box.dataset.pref] !== false;
}

async function refresh() {
  render(await api("/api/account"));
}

async function load() {
  if (!signedIn()) return showSignedOut();
  try {
    await refresh();
    // Ladders come from their own route; a failure there leaves the rest of the account usable.
    await api("/api/account/ladders").then(renderLadders, (err) => {
      $("ladder-list").replaceChildren(el("li", { class: "empty" }, explain(err)));
    });
    if (current.handle === null) $("handle-input").focus();
  } catch (err) {
    say(explain(err), "error");
    if (isBanned(err)) showBanned();
    else if (err instanceof ApiError && err.status === 401) {
      await signOut();
      showSignedOut();
    } else show("signed-in");
  }
}

/**
 * A page opened at another address than the server's own (127.0.0.1 for localhost, say): its sign-in calls are
 * refused by the page's security policy and its emailed links go to the server's address, so nothing here
 * works. Says so, with a link to this page at the right address; true when it did.
 */
async function checkAddress() {
  const site = (await identity().catch(() => null))?.site_url;
  if (!site || site === location.origin) return false;
  const here = `${site}${location.pathname}`;
  $("other-address").replaceChildren(
    `This server's address is ${site}, not ${location.origin}: signing up, signing in and the emailed links work only there. Open `,
    el("a", { href: here }, here),
    ".",
  );
  $("other-address").hidden = false;
  return true;
}

/** A signed-out form's failure in words: a call the browser refused before it left (this page at another
 * address than the server's) says where to go instead of the browser's "Failed to fetch". */
async function signedOutError(err) {
  if (!(err instanceof ApiError) && (await checkAddress()))
    return "Not sent: this page is not at the server's own address (see the note above).";
  return explain(err);
}

/** The page's entry: finish an emailed link first (PKCE code in the query, or a session or error in the fragment). */
async function start() {
  bindSecretPanel(say);
  const url = new URL(location.href);
  const fragment = new URLSearchParams(location.hash.slice(1));
  const code = url.searchParams.get("code");
  let recovery = false;
  // The code works once: take it out of the address (and history) before anything else.
  if (code || location.hash) history.replaceState(null, "", url.pathname);
  if (fragment.get("error") || fragment.get("error_code")) {
    const err = new ApiError(
      400,
      fragment.get("error_code") ?? fragment.get("error"),
      fragment.get("error_description") ?? "",
    );
    say(explain(err), "error");
  } else if (fragment.get("access_token")) {
    // A link asked for without PKCE (a sign-up or reset over plain HTTP) returns the session in the fragment.
    saveSession({
      access_token: fragment.get("access_token"),
      refresh_token: fragment.get("refresh_token"),
      expires_at: Number(fragment.get("expires_at")) || undefined,
      expires_in: Number(fragment.get("expires_in")) || 3600,
    });
    recovery = fragment.get("type") === "recovery";
    if (!recovery) say("Your email is confirmed and you are signed in.", "success");
  } else if (code) {
    try {
      recovery = (await exchangeCode(code)) === "recovery";
      if (!recovery) say("Your email is confirmed and you are signed in.", "success");
    } catch (err) {
      say(explain(err), "error");
    }
  }
  if (recovery && signedIn()) {
    show("new-password");
    say("Choose a new password.");
    $("new-password-input").focus();
    return;
  }
  await load();
}

void start();
