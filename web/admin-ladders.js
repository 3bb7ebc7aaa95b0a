// The console's ladders: every ladder of the manifest, and one ladder at a time managed in detail: its members
// (approve, revoke, with an optional reason) and, on an invitation ladder, its invitations (create one for an
// account or for anyone, its code shown once; delete one).
import { el, setBusy, showSecret, table, time } from "./account-ui.js";
import { $, badge, defineScreen, failed, reload, say } from "./admin-shared.js";
import { api } from "./session.js";

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

defineScreen("ladders", {
  load: loadLadders,
  clear: () => {
    for (const id of ["ladders", "ladder-members", "ladder-invitations"]) $(id).replaceChildren();
    openLadder = null;
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
