// The console's accounts: search (the same search the ladders screen uses to find an account to approve), the
// accounts table, and each account's role, ban, unban and delete.
import { el, table, time } from "./account-ui.js";
import { botButton } from "./admin-overview.js";
import { $, act, badge, defineScreen, failed } from "./admin-shared.js";
import { api } from "./session.js";

/** Accounts whose handle, id or bot name matches `q` (any case), newest first: GET /api/admin/accounts. */
export function findAccounts(q, limit = 100) {
  return api(`/api/admin/accounts?limit=${limit}${q ? `&q=${encodeURIComponent(q)}` : ""}`);
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

async function loadAccounts() {
  renderAccounts(await findAccounts($("account-q").value.trim()));
}

defineScreen("accounts", { load: loadAccounts, clear: () => $("accounts").replaceChildren() });

const AFTER = ["overview", "accounts", "audit"];

document.addEventListener("click", (event) => {
  const button = event.target.closest("#admin-console button[data-account][data-action]");
  if (!button) return;
  const { account, action, role } = button.dataset;
  const base = `/api/admin/accounts/${encodeURIComponent(account)}`;
  if (action === "role") {
    return void act(
      button,
      "h-accounts",
      async () => {
        const r = await api(`${base}/role`, { method: "POST", body: { role } });
        return `${r.handle ?? account} is now ${r.admin ? "an admin" : "a player"}.`;
      },
      AFTER,
    );
  }
  if (action === "ban" || action === "unban") {
    if (
      action === "ban" &&
      !window.confirm(`Ban ${account}? Its routes and keys are refused and its bots disconnected.`)
    )
      return;
    return void act(
      button,
      "h-accounts",
      async () => {
        await api(`${base}/${action}`, { method: "POST" });
        return `${account} is ${action === "ban" ? "banned" : "no longer banned"}.`;
      },
      AFTER,
    );
  }
  if (action === "delete") {
    if (
      !window.confirm(
        `Delete the account ${account}? Its handle and keys go; its bots are banned. This is final.`,
      )
    )
      return;
    return void act(
      button,
      "h-accounts",
      async () => {
        const r = await api(base, { method: "DELETE" });
        return `${r.handle ?? r.deleted} is deleted; ${r.banned_bots.length} bots banned.`;
      },
      AFTER,
    );
  }
});

$("account-search").addEventListener("submit", async (event) => {
  event.preventDefault();
  await loadAccounts().catch(failed);
});
