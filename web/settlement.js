// The staff screen of settlements (/admin/settlement): the form schedules one through the admin operation with
// the signed-in admin's session, a scheduled one's Cancel button cancels it before it begins, and the page then
// reloads to show the ladder's new phase.
import { statusLine } from "./account-ui.js";
import { api, explain, signedIn } from "./session.js";

function adminScreen() {
  const form = document.getElementById("settlement-form");
  const status = document.getElementById("settlement-form-status");
  if (!form || !status) return;
  const tell = statusLine(status);
  if (!signedIn()) tell("Sign in with an admin account to schedule a settlement.", "error");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const ladder = String(f.get("ladder"));
    const startsIn = Number(f.get("starts_in") || 0);
    const duration = String(f.get("duration") || "");
    const startsAt = Date.now() + startsIn * 60_000;
    const body = {
      top_k: Number(f.get("top_k")),
      game_budget: Number(f.get("game_budget")),
      ...(startsIn > 0 ? { starts_at: new Date(startsAt).toISOString() } : {}),
      ...(duration ? { ends_at: new Date(startsAt + Number(duration) * 60_000).toISOString() } : {}),
    };
    try {
      await api(`/api/admin/ladders/${encodeURIComponent(ladder)}/settlement`, { method: "POST", body });
      location.reload();
    } catch (err) {
      tell(explain(err), "error");
    }
  });
  for (const button of document.querySelectorAll("button[data-cancel]")) {
    button.addEventListener("click", async () => {
      const ladder = button.getAttribute("data-cancel");
      try {
        await api(`/api/admin/ladders/${encodeURIComponent(ladder)}/settlement`, { method: "DELETE" });
        location.reload();
      } catch (err) {
        tell(explain(err), "error");
      }
    });
  }
}

if (document.body.dataset.page === "admin-settlement") adminScreen();
