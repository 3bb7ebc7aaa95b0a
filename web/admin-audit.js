// The console's audit log: the latest entries, filtered by kind. Every screen that changes something reloads it.
import { el, table, time } from "./account-ui.js";
import { $, defineScreen, failed } from "./admin-shared.js";
import { api } from "./session.js";

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

async function loadAudit() {
  const kind = $("audit-kind").value;
  renderAudit(await api(`/api/admin/audit?limit=100${kind ? `&kind=${encodeURIComponent(kind)}` : ""}`));
}

defineScreen("audit", { load: loadAudit, clear: () => $("audit").replaceChildren() });

$("audit-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  await loadAudit().catch(failed);
});
