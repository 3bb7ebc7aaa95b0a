// Tournaments on the site (server/tournaments/): a tournament page refreshes its live part (state, standings,
// rounds) every few seconds while it is scheduled or running, by fetching the page again and swapping that
// part in; the staff screen schedules a tournament and cancels one through the admin operations.
import { statusLine } from "./account-ui.js";
import { api, explain, signedIn } from "./session.js";

const REFRESH_MS = 3000;

function livePage() {
  const refresh = async () => {
    const current = document.getElementById("tournament-live");
    if (!current || (current.dataset.state !== "scheduled" && current.dataset.state !== "running")) return;
    try {
      const res = await fetch(location.pathname, { headers: { accept: "text/html" } });
      if (res.ok) {
        const doc = new DOMParser().parseFromString(await res.text(), "text/html");
        const next = doc.getElementById("tournament-live");
        if (next) current.replaceWith(document.adoptNode(next));
      }
    } catch {
      // a failed refresh waits for the next one
    }
    setTimeout(refresh, REFRESH_MS);
  };
  setTimeout(refresh, REFRESH_MS);
}

function adminScreen() {
  const form = document.getElementById("tournament-form");
  const status = document.getElementById("tournament-form-status");
  if (!form || !status) return;
  const tell = statusLine(status);
  if (!signedIn()) tell("Sign in with an admin account to schedule tournaments.", "error");
  const start = form.elements.namedItem("starts_at");
  if (start && !start.value) start.value = new Date(Date.now() + 3_600_000).toISOString().slice(0, 16);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const format = String(f.get("format"));
    const body = {
      name: String(f.get("name")),
      ladder: String(f.get("ladder")),
      format,
      games_per_pairing: Number(f.get("games_per_pairing")),
      starts_at: `${String(f.get("starts_at"))}:00Z`,
      checkin_minutes: Number(f.get("checkin_minutes")),
      forfeit_after_s: Number(f.get("forfeit_after_s")),
      rated: f.get("rated") === "on",
      ...(format === "swiss" ? { rounds: Number(f.get("rounds")) } : {}),
    };
    try {
      const t = await api("/api/admin/tournaments", { method: "POST", body });
      location.href = `/tournaments/${t.id}`;
    } catch (err) {
      tell(explain(err), "error");
    }
  });
  document.addEventListener("click", async (e) => {
    const id = e.target instanceof HTMLElement ? e.target.dataset.cancel : undefined;
    if (!id) return;
    try {
      await api(`/api/admin/tournaments/${encodeURIComponent(id)}`, { method: "DELETE" });
      location.reload();
    } catch (err) {
      tell(explain(err), "error");
    }
  });
}

const page = document.body.dataset.page;
if (page === "tournament") livePage();
if (page === "admin-tournaments") adminScreen();
