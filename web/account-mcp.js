// The account page's "AI applications" card: the tool endpoint's address and the clients this account approved
// (through /account/mcp/authorize), each with its last use and a Revoke button (DELETE
// /api/account/mcp/clients/<id>: its tokens stop working at once).
import { el, setBusy } from "./account-ui.js";

const $ = (id) => document.getElementById(id);

/** Fills the card from the Account resource (`mcp_url`, `mcp_clients`). */
export function renderMcpClients(account) {
  const card = $("mcp-card");
  if (!card) return;
  $("mcp-url").textContent = account.mcp_url ?? "turned off on this ladder";
  const clients = account.mcp_clients ?? [];
  $("mcp-client-list").replaceChildren(
    ...(clients.length === 0
      ? [el("li", { class: "muted small" }, "No applications approved.")]
      : clients.map((c) =>
          el(
            "li",
            { "data-client": c.client_id },
            el("strong", {}, c.name),
            " ",
            el("code", { class: "small" }, c.client_id),
            el(
              "span",
              { class: "muted small" },
              ` · approved ${c.created.slice(0, 10)} · ${c.last_used ? `last used ${c.last_used.slice(0, 10)}` : "never used"} `,
            ),
            el(
              "button",
              { type: "button", class: "button revoke-client", "data-id": c.client_id, "data-name": c.name },
              "Revoke",
              el("span", { class: "visually-hidden" }, ` ${c.name}`),
            ),
          ),
        )),
  );
}

/** Revoke buttons: `api` calls the ladder with the session, `done(message)` refreshes and reports. */
export function bindMcpClients({ api, done, fail }) {
  $("mcp-client-list")?.addEventListener("click", async (event) => {
    const button = event.target.closest("button.revoke-client");
    if (!button) return;
    const { id, name } = button.dataset;
    if (!window.confirm(`Revoke ${name}? It loses access to your account at once.`)) return;
    setBusy(button, true);
    try {
      await api(`/api/account/mcp/clients/${encodeURIComponent(id)}`, { method: "DELETE" });
      await done(`${name} is revoked.`);
    } catch (err) {
      fail(err);
    } finally {
      setBusy(button, false);
    }
  });
}
