// The admin console over the admin routes (docs/accounts.md, "Administration"): overview, accounts (role, ban,
// unban, delete), bot moderation (suspend, activate, ban), ladders (members, approvals, invitations), live
// settings (preview, save at a revision, presets), owner keys, usage and the audit log. The server
// rendered an empty shell; nothing is shown until /api/admin/overview has accepted this session, and a
// refusal (401 admin_required, 403 not_admin) shows only the "not an admin" state.
import { bindSecretPanel, el, setBusy, showSecret, statusLine, table, time } from "./account-ui.js";
import { ApiError, api, explain, signedIn, signOut } from "./session.js";

const $ = (id) => document.getElementById(id);
const say = statusLine($("admin-status"));

function show(view) {
  $("admin-loading").hidden = true;
  $("admin-signed-out").hidden = view !== "signed-out";
  $("admin-refused").hidden = view !== "refused";
  $("admin-console").hidden = view !== "console";
}

/** Closes the console: the data it held is removed, not just hidden. */
function refuse(text) {
  for (const id of [
    "overview",
    "moderated",
    "accounts",
    "owners",
    "usage",
    "audit",
    "ladders",
    "ladder-members",
    "ladder-invitations",
    "settings-changes",
    "settings-effective",
    "presets",
  ])
    $(id).replaceChildren();
  $("settings-overrides").value = "";
  settings = null;
  openLadder = null;
  $("refused-text").textContent = text;
  show("refused");
}

/** Handles a failed admin call: a lost session or role closes the console; anything else is reported. */
async function failed(err) {
  if (err instanceof ApiError) {
    if (err.code === "not_admin")
      return refuse("Your account is not an admin of this ladder, so the console is closed to you.");
    if (err.code === "admin_required")
      return refuse("You are not signed in with an admin account. Sign in with one on the account page.");
    if (err.code === "account_banned") return refuse("This account is banned.");
    if (err.status === 401) {
      await signOut();
      say(explain(err), "error");
      return show("signed-out");
    }
  }
  say(explain(err), "error");
}

const badge = (text, cls = "") => el("span", { class: `badge ${cls}` }, text);

// ---- sections ---------------------------------------------------------------------------------------------
function renderOverview(o) {
  const fact = (label, value) => el("div", {}, el("dt", {}, label), el("dd", {}, value));
  const s = o.status;
  $("overview").replaceChildren(
    el(
      "dl",
      { class: "facts" },
      fact("You", `${o.you.handle ?? o.you.id} (${o.you.via === "agent_key" ? "agent key" : "session"})`),
      fact("Bots connected", String(s.connected_bots)),
      fact("Matches running", `${s.running_matches} of ${s.max_concurrent}`),
      fact("Draining", s.draining ? "yes" : "no"),
      fact("Bots", `${o.bots.total}`),
      ...Object.entries(o.bots.by_status).map(([k, n]) =>
        fact(k.charAt(0).toUpperCase() + k.slice(1), String(n)),
      ),
    ),
    el("h3", {}, "Admins"),
    el(
      "ul",
      { class: "plain-list", id: "admin-list" },
      o.admins.map((a) =>
        el("li", {}, a.handle ?? "(no handle yet)", a.configured ? [" ", badge("configured")] : ""),
      ),
    ),
  );
  $("moderated").replaceChildren(
    table({
      id: "moderated-bots",
      caption: "Suspended and banned bots",
      empty: "No bot is suspended or banned.",
      columns: [{ label: "Bot" }, { label: "Status" }, { label: "Owner" }, { label: "Actions" }],
      rows: o.bots.moderated.map((b) => [
        el("a", { href: `/bot/${encodeURIComponent(b.name)}` }, b.name),
        badge(b.status, `status-${b.status}`),
        b.owner,
        b.status === "suspended"
          ? el("span", { class: "row-actions" }, botButton(b.name, "activate"), " ", botButton(b.name, "ban"))
          : "",
      ]),
    }),
  );
}

function botButton(name, action) {
  return el(
    "button",
    {
      type: "button",
      class: `button small-button${action === "ban" ? " danger" : ""}`,
      "data-bot": name,
      "data-action": action,
    },
    action.charAt(0).toUpperCase() + action.slice(1),
    el("span", { class: "visually-hidden" }, ` ${name}`),
  );
}

function accountButton(ref, label, action, extra = {}) {
  return el(
    "button",
    {
      type: "button",
      class: `button small-button${action === "delete" || action === "ban" ? " danger" : ""}`,
      "data-account": ref,
      "data-action": action,
      ...extra,
    },
    label,
    el("span", { class: "visually-hidden" }, ` ${ref}`),
  );
}

function renderAccounts(r) {
  $("accounts").replaceChildren(
    el("p", { class: "muted small" }, `${r.found} found of ${r.total} accounts.`),
    table({
      id: "account-table",
      caption: "Accounts",
      empty: "No account matches.",
      columns: [
        { label: "Handle" },
        { label: "Created", hideNarrow: true },
        { label: "Role" },
        { label: "Bots" },
        { label: "Keys", numeric: true, hideNarrow: true },
        { label: "Actions" },
      ],
      rows: r.accounts.map((a) => {
        const ref = a.handle ?? a.id;
        const actions = [];
        if (!a.configured && !a.banned)
          actions.push(
            accountButton(ref, a.admin ? "Make player" : "Make admin", "role", {
              "data-role": a.admin ? "player" : "admin",
            }),
          );
        if (!a.admin) {
          actions.push(a.banned ? accountButton(ref, "Unban", "unban") : accountButton(ref, "Ban", "ban"));
          actions.push(accountButton(ref, "Delete", "delete"));
        }
        return [
          {
            value: a.handle
              ? el("a", { href: `/user/${encodeURIComponent(a.handle)}` }, a.handle)
              : el("code", { class: "small" }, a.id),
            sort: ref,
          },
          { value: time(a.created), sort: a.created },
          [
            a.admin ? badge(a.configured ? "admin (configured)" : "admin", "online") : "player",
            a.banned ? [" ", badge("banned", "status-banned")] : "",
          ],
          a.bots.length === 0
            ? "—"
            : el(
                "ul",
                { class: "plain-list" },
                a.bots.map((b) =>
                  el(
                    "li",
                    {},
                    b.name,
                    " ",
                    b.status !== "active" ? badge(b.status, `status-${b.status}`) : "",
                    b.online ? badge("online", "online") : "",
                    b.status === "active" ? [" ", botButton(b.name, "suspend")] : "",
                    b.status === "suspended" ? [" ", botButton(b.name, "activate")] : "",
                  ),
                ),
              ),
          { value: String(a.keys), sort: a.keys },
          el("span", { class: "row-actions" }, actions),
        ];
      }),
    }),
  );
}

function renderOwners(list) {
  $("owners").replaceChildren(
    table({
      id: "owner-table",
      caption: "Owner keys",
      empty: "No owner keys.",
      columns: [
        { label: "Owner" },
        { label: "Bot limit", numeric: true },
        { label: "Bots" },
        { label: "Created", hideNarrow: true },
      ],
      rows: list.map((o) => [
        o.name,
        o.max_bots ?? "default",
        Array.isArray(o.bots)
          ? o.bots.map((b) => (typeof b === "string" ? b : b.name)).join(", ") || "—"
          : String(o.bots ?? "—"),
        { value: time(o.created), sort: o.created },
      ]),
    }),
  );
}

function renderUsage(u) {
  const words = (k) => k.replace(/([A-Z])/g, " $1").toLowerCase();
  $("usage").replaceChildren(
    el("p", {}, `Matches running: ${u.capacity.running} of ${u.capacity.max}.`),
    el(
      "details",
      {},
      el("summary", {}, "Limits in force"),
      el(
        "dl",
        { class: "facts" },
        Object.entries(u.limits).map(([k, v]) =>
          el("div", {}, el("dt", {}, words(k)), el("dd", {}, String(v))),
        ),
      ),
    ),
    el("h3", {}, "Bots"),
    table({
      id: "usage-bots",
      caption: "Matches per bot",
      empty: "No matches in the last day.",
      columns: [
        { label: "Bot" },
        { label: "Owner" },
        { label: "Last hour", numeric: true },
        { label: "Last day", numeric: true },
      ],
      rows: u.bots.map((b) => [b.name, b.house ? "house" : b.owner, String(b.last_hour), String(b.last_day)]),
    }),
    el("h3", {}, "Owners"),
    table({
      id: "usage-owners",
      caption: "Matches per owner",
      empty: "No matches in the last day.",
      columns: [
        { label: "Owner" },
        { label: "Last hour", numeric: true },
        { label: "Last day", numeric: true },
      ],
      rows: u.owners.map((o) => [o.owner, String(o.last_hour), String(o.last_day)]),
    }),
  );
}

function renderAudit(entries) {
  $("audit").replaceChildren(
    table({
      id: "audit-table",
      caption: "Audit log",
      empty: "Nothing recorded.",
      columns: [
        { label: "When" },
        { label: "Kind" },
        { label: "Subject" },
        { label: "Detail", hideNarrow: true },
      ],
      rows: entries.map((e) => [
        { value: time(e.at), sort: e.at },
        e.kind,
        e.subject,
        el("code", { class: "small detail" }, JSON.stringify(e.detail)),
      ]),
    }),
  );
}

// ---- loading ----------------------------------------------------------------------------------------------
async function loadOverview() {
  renderOverview(await api("/api/admin/overview"));
}
async function loadAccounts() {
  const q = $("account-q").value.trim();
  renderAccounts(await api(`/api/admin/accounts?limit=100${q ? `&q=${encodeURIComponent(q)}` : ""}`));
}
async function loadAudit() {
  const kind = $("audit-kind").value;
  renderAudit(await api(`/api/admin/audit?limit=100${kind ? `&kind=${encodeURIComponent(kind)}` : ""}`));
}
async function loadRest() {
  const [owners, usage] = await Promise.all([api("/api/admin/owners"), api("/api/admin/usage")]);
  renderOwners(owners);
  renderUsage(usage);
}

/** After a change: everything it can affect, then focus back where it was or on the section's heading. */
async function reload(fallbackHeading) {
  const focused = document.activeElement;
  await Promise.all([loadOverview(), loadAccounts(), loadAudit()]);
  if (!focused?.isConnected || focused === document.body) $(fallbackHeading)?.focus();
}

async function act(button, fallback, run) {
  setBusy(button, true);
  try {
    const message = await run();
    say(message, "success");
    await reload(fallback);
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
}

const BOT_QUESTIONS = {
  ban: (n) => `Ban ${n}? It is disconnected, its token is replaced, and a ban cannot be undone here.`,
};

function moderateBot(button, name, action) {
  const ask = BOT_QUESTIONS[action];
  if (ask && !window.confirm(ask(name))) return;
  return act(button, "h-moderate", async () => {
    const r = await api(`/api/admin/bots/${encodeURIComponent(name)}/${action}`, { method: "POST" });
    return `${r.name} is now ${r.status}.`;
  });
}

$("bot-action-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("bot-action-name").value.trim();
  const action = event.submitter?.value ?? "suspend";
  if (!/^[A-Za-z0-9_-]{2,24}$/.test(name)) {
    say("Enter a bot name: 2-24 letters, digits, - or _.", "error");
    $("bot-action-name").focus();
    return;
  }
  void moderateBot(event.submitter, name, action);
});

document.addEventListener("click", (event) => {
  const button = event.target.closest("#admin-console button[data-action]");
  if (!button) return;
  const { bot, account, action, role } = button.dataset;
  if (bot) return void moderateBot(button, bot, action);
  if (!account) return;
  const base = `/api/admin/accounts/${encodeURIComponent(account)}`;
  if (action === "role") {
    return void act(button, "h-accounts", async () => {
      const r = await api(`${base}/role`, { method: "POST", body: { role } });
      return `${r.handle ?? account} is now ${r.admin ? "an admin" : "a player"}.`;
    });
  }
  if (action === "ban" || action === "unban") {
    if (
      action === "ban" &&
      !window.confirm(`Ban ${account}? Its routes and keys are refused and its bots disconnected.`)
    )
      return;
    return void act(button, "h-accounts", async () => {
      await api(`${base}/${action}`, { method: "POST" });
      return `${account} is ${action === "ban" ? "banned" : "no longer banned"}.`;
    });
  }
  if (action === "delete") {
    if (
      !window.confirm(
        `Delete the account ${account}? Its handle and keys go; its bots are banned. This is final.`,
      )
    )
      return;
    return void act(button, "h-accounts", async () => {
      const r = await api(base, { method: "DELETE" });
      return `${r.handle ?? r.deleted} is deleted; ${r.banned_bots.length} bots banned.`;
    });
  }
});

$("account-search").addEventListener("submit", async (event) => {
  event.preventDefault();
  await loadAccounts().catch(failed);
});
$("audit-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  await loadAudit().catch(failed);
});

$("owner-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = event.submitter;
  const name = $("owner-name").value.trim();
  const max = $("owner-max").value.trim();
  if (!name) {
    say("Enter an owner name.", "error");
    return $("owner-name").focus();
  }
  setBusy(button, true);
  try {
    const r = await api("/api/admin/owners", {
      method: "POST",
      body: max ? { name, max_bots: Number(max) } : { name },
    });
    event.target.reset();
    showSecret(`Owner key of ${r.name}. ${r.note}`, r.owner_key);
    say(`Owner key for ${r.name} created. Copy it now: it is shown once.`, "success");
    await Promise.all([loadRest(), loadAudit()]);
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
});

// ---- ladders: definitions, members, invitations ------------------------------------------------------------
let openLadder = null;

function phaseBadge(l) {
  const phase = l.enabled ? l.phase : "disabled";
  return badge(phase, `phase-${phase}`);
}

function renderLadders(list) {
  $("ladders").replaceChildren(
    table({
      id: "ladder-table",
      caption: "Ladders",
      empty: "No ladders.",
      columns: [
        { label: "Ladder" },
        { label: "Phase" },
        { label: "Access", hideNarrow: true },
        { label: "Window", hideNarrow: true },
        { label: "Actions" },
      ],
      rows: list.map((l) => [
        {
          value: [
            el("a", { href: `/ladder?ladder=${encodeURIComponent(l.id)}` }, l.name),
            " ",
            el("code", { class: "small" }, l.id),
            l.visible ? "" : [" ", badge("hidden")],
          ],
          sort: l.name,
        },
        phaseBadge(l),
        l.access,
        [
          l.opens_at ? ["opens ", time(l.opens_at)] : "",
          l.opens_at && l.closes_at ? el("br") : "",
          l.closes_at ? ["closes ", time(l.closes_at)] : "",
          l.opens_at || l.closes_at ? "" : "always",
        ],
        el(
          "button",
          { type: "button", class: "button small-button", "data-ladder": l.id, "data-ladder-action": "open" },
          "Manage",
          el("span", { class: "visually-hidden" }, ` ${l.name}`),
        ),
      ]),
    }),
  );
}

function memberButton(m, action) {
  const ref = m.handle ?? m.account;
  return el(
    "button",
    {
      type: "button",
      class: `button small-button${action === "revoke" ? " danger" : ""}`,
      "data-member": m.account,
      "data-label": ref,
      "data-ladder-action": action,
    },
    action === "approve" ? "Approve" : "Revoke",
    el("span", { class: "visually-hidden" }, ` ${ref}`),
  );
}

const MEMBERSHIP_CLASS = { active: "online", pending: "status-pending", revoked: "status-banned" };

function renderLadderDetail(d) {
  openLadder = d;
  $("ladder-detail").hidden = false;
  $("h-ladder-detail").textContent = `${d.name} (${d.id})`;
  const fact = (label, value) => el("div", {}, el("dt", {}, label), el("dd", {}, value));
  $("ladder-facts").replaceChildren(
    fact("Phase", phaseBadge(d)),
    fact("Access", d.access),
    fact("Visible", d.visible ? "yes" : "no"),
    fact("Opens", d.opens_at ? time(d.opens_at) : "—"),
    fact("Closes", d.closes_at ? time(d.closes_at) : "—"),
  );
  $("ladder-members").replaceChildren(
    table({
      id: "member-table",
      caption: `Members of ${d.name}`,
      empty: "Nobody has enrolled yet.",
      columns: [
        { label: "Account" },
        { label: "Membership" },
        { label: "Changed", hideNarrow: true },
        { label: "Reason", hideNarrow: true },
        { label: "Actions" },
      ],
      rows: d.members.map((m) => [
        {
          value: m.handle
            ? el("a", { href: `/user/${encodeURIComponent(m.handle)}` }, m.handle)
            : el("code", { class: "small" }, m.account),
          sort: m.handle ?? m.account,
        },
        [
          badge(m.membership, MEMBERSHIP_CLASS[m.membership] ?? ""),
          m.invitation ? [" ", el("span", { class: "muted small" }, "invited")] : "",
        ],
        { value: time(m.updated ?? m.since), sort: m.updated ?? m.since },
        m.reason ?? "—",
        el(
          "span",
          { class: "row-actions" },
          m.membership !== "active" ? memberButton(m, "approve") : "",
          m.membership === "active" || m.membership === "pending" ? [" ", memberButton(m, "revoke")] : "",
        ),
      ]),
    }),
  );
  const byInvitation = d.access === "invitation";
  $("invitations-block").hidden = !byInvitation;
  $("ladder-invitations").replaceChildren(
    byInvitation
      ? table({
          id: "invitation-table",
          caption: `Invitations to ${d.name}`,
          empty: "No invitations.",
          columns: [
            { label: "Invitation" },
            { label: "For" },
            { label: "Created", hideNarrow: true },
            { label: "Used" },
            { label: "By", hideNarrow: true },
            { label: "Actions" },
          ],
          rows: d.invitations.map((i) => [
            el("code", { class: "small" }, i.id),
            i.handle ?? i.account ?? "anyone",
            { value: time(i.created), sort: i.created },
            { value: i.used_at ? time(i.used_at) : "unused", sort: i.used_at ?? "" },
            i.used_by ? el("code", { class: "small" }, i.used_by) : "—",
            el(
              "button",
              {
                type: "button",
                class: "button small-button danger",
                "data-invitation": i.id,
                "data-ladder-action": "uninvite",
              },
              "Delete",
              el("span", { class: "visually-hidden" }, ` invitation ${i.id}`),
            ),
          ]),
        })
      : "",
  );
}

async function loadLadders() {
  renderLadders(await api("/api/admin/ladders"));
  if (openLadder) await loadLadder(openLadder.id);
}
async function loadLadder(id) {
  renderLadderDetail(await api(`/api/admin/ladders/${encodeURIComponent(id)}`));
}

/** Runs a ladder change, then shows the ladder again and the audit log with it. */
async function ladderChange(button, run) {
  setBusy(button, true);
  try {
    const message = await run();
    await Promise.all([loadLadder(openLadder.id), loadAudit()]);
    say(message, "success");
    $("h-ladder-detail").focus();
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
}

$("ladders-screen").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-ladder-action]");
  if (!button) return;
  const action = button.dataset.ladderAction;
  if (action === "open") {
    setBusy(button, true);
    try {
      await loadLadder(button.dataset.ladder);
      $("h-ladder-detail").focus();
    } catch (err) {
      await failed(err);
    } finally {
      setBusy(button, false);
    }
    return;
  }
  if (!openLadder) return;
  const base = `/api/admin/ladders/${encodeURIComponent(openLadder.id)}`;
  if (action === "approve" || action === "revoke") {
    const { member, label } = button.dataset;
    const reason = $("member-reason").value.trim();
    if (
      action === "revoke" &&
      !window.confirm(`Revoke ${label} on ${openLadder.name}? Their bots leave its queue.`)
    )
      return;
    return void ladderChange(button, async () => {
      const r = await api(`${base}/members/${encodeURIComponent(member)}/${action}`, {
        method: "POST",
        body: reason ? { reason } : {},
      });
      $("member-reason").value = "";
      return `${label} is ${r.membership === "active" ? "an active member" : r.membership} on ${openLadder.name}.`;
    });
  }
  if (action === "uninvite") {
    const id = button.dataset.invitation;
    if (!window.confirm(`Delete the invitation ${id}? Its code stops working.`)) return;
    return void ladderChange(button, async () => {
      await api(`${base}/invitations/${encodeURIComponent(id)}`, { method: "DELETE" });
      return `The invitation ${id} is deleted.`;
    });
  }
});

$("member-form").addEventListener("submit", (event) => event.preventDefault());

$("invitation-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!openLadder) return;
  const button = event.submitter ?? event.target.querySelector("button");
  const account = $("invitation-account").value.trim();
  setBusy(button, true);
  try {
    const r = await api(`/api/admin/ladders/${encodeURIComponent(openLadder.id)}/invitations`, {
      method: "POST",
      body: account ? { account } : {},
    });
    event.target.reset();
    await Promise.all([loadLadder(openLadder.id), loadAudit()]);
    const who = r.handle ?? r.account ?? null;
    showSecret(
      `Invitation code to ${openLadder.name}${who ? ` for ${who}` : " for anyone"}: it works once, entered on the account page.`,
      r.code,
    );
    say("Invitation created. Copy its code now: it is shown once.", "success");
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
});

// ---- settings: overrides, preview, save at a revision, presets ----------------------------------------------
let settings = null;

function renderSettings(s) {
  settings = s;
  // el() flattens the nested parts (replaceChildren would print an array as text).
  $("settings-revision").replaceChildren(
    el(
      "span",
      {},
      "Revision ",
      el("strong", { id: "settings-rev" }, String(s.revision)),
      s.updated
        ? [" · saved ", time(s.updated), s.updated_by ? ` by ${s.updated_by}` : ""]
        : " · never changed",
    ),
  );
  $("settings-overrides").value = JSON.stringify(s.overrides, null, 2);
  $("settings-help").textContent =
    `{"global": {limit: value}, "ladders": {"<ladder id>": {limit: value}}}. Limits: ${Object.keys(s.defaults).join(", ")}. ` +
    `A ladder may override: ${s.ladder_limits.join(", ")}.`;
  $("settings-changes").replaceChildren();
  const ladderIds = Object.keys(s.effective.ladders);
  $("settings-effective").replaceChildren(
    table({
      id: "effective-table",
      caption: "Limits in force",
      empty: "",
      columns: [
        { label: "Limit" },
        { label: "Default", numeric: true },
        { label: "Server-wide", numeric: true },
        ...ladderIds.map((id) => ({ label: id, numeric: true, hideNarrow: true })),
      ],
      rows: Object.keys(s.defaults).map((k) => [
        k,
        String(s.defaults[k]),
        String(s.effective.global[k]),
        ...ladderIds.map((id) => String(s.effective.ladders[id][k])),
      ]),
    }),
  );
  $("presets").replaceChildren(
    table({
      id: "preset-table",
      caption: "Presets",
      empty: "No presets saved.",
      columns: [{ label: "Preset" }, { label: "Overrides", hideNarrow: true }, { label: "Actions" }],
      rows: s.presets.map((p) => [
        p.name,
        el("code", { class: "small detail" }, JSON.stringify(p.overrides)),
        el(
          "button",
          { type: "button", class: "button small-button", "data-preset": p.name },
          "Apply",
          el("span", { class: "visually-hidden" }, ` preset ${p.name}`),
        ),
      ]),
    }),
  );
}

async function loadSettings() {
  renderSettings(await api("/api/admin/settings"));
}

/** The overrides typed in, or null (and the reason said) when they are not JSON. */
function typedOverrides() {
  try {
    return JSON.parse($("settings-overrides").value);
  } catch (err) {
    say(`The overrides are not valid JSON: ${err.message}`, "error");
    $("settings-overrides").focus();
    return null;
  }
}

/** A save refused because someone saved first: say so, then show what is in force now. */
async function staleSave(err) {
  if (!(err instanceof ApiError && err.code === "stale_revision")) return false;
  const mine = $("settings-overrides").value;
  await Promise.all([loadSettings(), loadAudit()]);
  // The edit is kept for reference only: saving it as it was would undo the other admin's change unseen.
  $("settings-changes").replaceChildren(
    el(
      "details",
      { id: "unsaved-edit" },
      el("summary", {}, "Your edit (not saved)"),
      el("pre", {}, el("code", {}, mine)),
    ),
  );
  say(
    `The settings changed meanwhile (now revision ${settings.revision}), so yours were not saved. They are reloaded: check them and save again.`,
    "error",
  );
  $("h-settings").focus();
  return true;
}

function renderChanges(r) {
  const words = (l) => (l === null ? "server-wide" : l);
  $("settings-changes").replaceChildren(
    el("h3", {}, "Preview"),
    r.stale
      ? el(
          "p",
          { class: "notice" },
          `The settings changed since you loaded them: they are now at revision ${r.revision}.`,
        )
      : "",
    r.changes.length === 0
      ? el("p", { class: "empty", id: "change-table" }, "Nothing would change.")
      : table({
          id: "change-table",
          caption: "What would change",
          empty: "",
          columns: [
            { label: "Ladder" },
            { label: "Limit" },
            { label: "From", numeric: true },
            { label: "To", numeric: true },
          ],
          rows: r.changes.map((c) => [words(c.ladder), c.limit, String(c.from), String(c.to)]),
        }),
    el("p", { class: "muted small" }, "Nothing has changed yet: Save applies it."),
  );
}

$("settings-preview").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  const overrides = typedOverrides();
  if (overrides === null) return;
  setBusy(button, true);
  try {
    const r = await api("/api/admin/settings/preview", {
      method: "POST",
      body: { overrides, revision: settings.revision },
    });
    renderChanges(r);
    say(
      r.changes.length === 0
        ? "The preview shows no change."
        : `The preview shows ${r.changes.length} changes.`,
    );
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
});

$("settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = event.submitter ?? event.target.querySelector("button[type=submit]");
  const overrides = typedOverrides();
  if (overrides === null) return;
  setBusy(button, true);
  try {
    renderSettings(
      await api("/api/admin/settings", { method: "PUT", body: { revision: settings.revision, overrides } }),
    );
    await loadAudit();
    say(`Settings saved: revision ${settings.revision} is in force.`, "success");
  } catch (err) {
    if (!(await staleSave(err))) await failed(err);
  } finally {
    setBusy(button, false);
  }
});

$("preset-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = event.submitter ?? event.target.querySelector("button");
  const name = $("preset-name").value.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/.test(name)) {
    say(
      "Name the preset: 1-64 letters, digits, spaces, ., _ or -, starting with a letter or digit.",
      "error",
    );
    return $("preset-name").focus();
  }
  setBusy(button, true);
  try {
    await api("/api/admin/settings/presets", { method: "POST", body: { revision: settings.revision, name } });
    event.target.reset();
    await Promise.all([loadSettings(), loadAudit()]);
    say(`The overrides of revision ${settings.revision} are saved as the preset ${name}.`, "success");
  } catch (err) {
    if (!(await staleSave(err))) await failed(err);
  } finally {
    setBusy(button, false);
  }
});

$("presets").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-preset]");
  if (!button) return;
  const name = button.dataset.preset;
  if (!window.confirm(`Apply the preset ${name}? Its overrides replace the ones in force, at once.`)) return;
  setBusy(button, true);
  try {
    renderSettings(
      await api("/api/admin/settings", {
        method: "PUT",
        body: { revision: settings.revision, preset: name },
      }),
    );
    await loadAudit();
    say(`The preset ${name} is in force (revision ${settings.revision}).`, "success");
    $("h-settings").focus();
  } catch (err) {
    if (!(await staleSave(err))) await failed(err);
  } finally {
    setBusy(button, false);
  }
});

async function start() {
  bindSecretPanel(say);
  if (!signedIn()) return show("signed-out");
  try {
    // The overview is the gate: only after it succeeds does anything else load or show.
    const overview = await api("/api/admin/overview");
    renderOverview(overview);
    show("console");
    await Promise.all([loadAccounts(), loadRest(), loadAudit(), loadLadders(), loadSettings()]);
  } catch (err) {
    await failed(err);
  }
}

void start();
