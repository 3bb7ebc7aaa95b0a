// The console's owner keys (legacy keys for anonymous local ladders: create one, list them) and usage (the
// limits in force, capacity, matches per bot and per owner).
import { el, setBusy, showSecret, table, time } from "./account-ui.js";
import { $, defineScreen, failed, reload, say } from "./admin-shared.js";
import { api } from "./session.js";

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

defineScreen("usage", {
  load: async () => {
    const [owners, usage] = await Promise.all([api("/api/admin/owners"), api("/api/admin/usage")]);
    renderOwners(owners);
    renderUsage(usage);
  },
  clear: () => {
    $("owners").replaceChildren();
    $("usage").replaceChildren();
  },
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
    await reload("usage", "audit");
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
});
