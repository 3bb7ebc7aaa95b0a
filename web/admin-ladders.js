// The console's ladders: every ladder of the manifest, and one ladder at a time managed in detail: its members
// (approve, revoke, with an optional reason; any account found with the accounts search can be approved, also
// one that never enrolled) and, on an invitation ladder, its invitations (create one for an account or for
// anyone, its code shown once; delete one).
import { el, setBusy, showSecret, table, time } from "./account-ui.js";
import { findAccounts } from "./admin-accounts.js";
import { $, badge, defineScreen, failed, reload, say } from "./admin-shared.js";
import { api } from "./session.js";

let openLadder = null;
/** The last account search on the open ladder: {q, found, accounts}. */
let search = null;

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
  if (openLadder?.id !== d.id) {
    search = null;
    $("member-find").value = "";
    $("member-find-error").hidden = true;
  }
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
  renderSearch();
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

/**
 * The accounts the search found, with their membership on the open ladder: one without any gets an Approve
 * button (the same action as the members table's); the others are managed in that table.
 */
function renderSearch() {
  const box = $("member-find-results");
  if (!search || !openLadder) return box.replaceChildren();
  const membership = new Map(openLadder.members.map((m) => [m.account, m.membership]));
  const more = search.found > search.accounts.length;
  box.replaceChildren(
    el(
      "div",
      {},
      more
        ? el(
            "p",
            { class: "muted small" },
            `${search.found} match: the newest ${search.accounts.length} are shown.`,
          )
        : "",
      table({
        id: "member-find-table",
        caption: `Accounts matching ${search.q}`,
        empty: `No account matches "${search.q}".`,
        columns: [{ label: "Account" }, { label: `On ${openLadder.name}` }, { label: "Actions" }],
        rows: search.accounts.map((a) => {
          const m = membership.get(a.id) ?? null;
          return [
            { value: a.handle ?? el("code", { class: "small" }, a.id), sort: a.handle ?? a.id },
            [
              m ? badge(m, MEMBERSHIP_CLASS[m] ?? "") : el("span", { class: "muted small" }, "not enrolled"),
              a.banned ? [" ", badge("banned", "status-banned")] : "",
            ],
            m === null
              ? memberButton({ account: a.id, handle: a.handle }, "approve")
              : el("span", { class: "muted small" }, "see the members above"),
          ];
        }),
      }),
    ),
  );
}

async function loadLadders() {
  renderLadders(await api("/api/admin/ladders"));
  if (openLadder) await loadLadder(openLadder.id);
}
async function loadLadder(id) {
  renderLadderDetail(await api(`/api/admin/ladders/${encodeURIComponent(id)}`));
}

defineScreen("ladders", {
  load: loadLadders,
  clear: () => {
    for (const id of ["ladders", "ladder-members", "ladder-invitations", "member-find-results"])
      $(id).replaceChildren();
    openLadder = null;
    search = null;
  },
});

/** Runs a ladder change, then shows the ladder again and the audit log with it. */
async function ladderChange(button, run) {
  setBusy(button, true);
  try {
    const message = await run();
    await Promise.all([loadLadder(openLadder.id), reload("audit")]);
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

$("member-find-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!openLadder) return;
  const button = event.submitter ?? event.target.querySelector("button");
  const input = $("member-find");
  const error = $("member-find-error");
  const q = input.value.trim();
  const miss = (text) => {
    error.textContent = text;
    error.hidden = false;
    say(text, "error");
    input.focus();
  };
  error.hidden = true;
  if (!q) return miss("Enter a handle, an account id or a bot name to find the account.");
  setBusy(button, true);
  try {
    const r = await findAccounts(q, 10);
    search = { q, found: r.found, accounts: r.accounts };
    renderSearch();
    if (r.accounts.length === 0) miss(`No account matches "${q}".`);
    else say(`${r.found === 1 ? "One account matches" : `${r.found} accounts match`} "${q}".`);
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
});

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
    await Promise.all([loadLadder(openLadder.id), reload("audit")]);
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
