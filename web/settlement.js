// The staff screen of settlements (/admin/settlement): the form schedules one through the admin operation with
// the signed-in admin's session; a scheduled one's Change button turns the form into its new schedule (PUT),
// its Cancel button cancels it before it begins; the page then reloads to show the ladder's new phase.
import { statusLine } from "./account-ui.js";
import { api, explain, signedIn } from "./session.js";

function adminScreen() {
  const form = document.getElementById("settlement-form");
  const status = document.getElementById("settlement-form-status");
  if (!form || !status) return;
  const tell = statusLine(status);
  if (!signedIn()) tell("Sign in with an admin account to schedule a settlement.", "error");
  const field = (name) => form.elements.namedItem(name);
  const mode = document.getElementById("settlement-form-mode");
  const submit = document.getElementById("settlement-form-submit");
  /** The ladder whose scheduled settlement the form changes, or null: the form schedules a new one. */
  let editing = null;
  const setEditing = (ladder) => {
    editing = ladder;
    mode.hidden = ladder === null;
    document.getElementById("settlement-form-ladder").textContent = ladder ?? "";
    submit.textContent = ladder === null ? "Schedule" : "Save the change";
    field("ladder").disabled = ladder !== null;
  };
  document.getElementById("settlement-form-new").addEventListener("click", () => setEditing(null));
  for (const button of document.querySelectorAll("button[data-edit]")) {
    button.addEventListener("click", () => {
      const ladder = button.getAttribute("data-edit");
      field("ladder").value = ladder;
      field("top_k").value = button.dataset.topK;
      field("game_budget").value = button.dataset.gameBudget;
      field("event").value = button.dataset.event;
      setEditing(ladder);
      field("top_k").focus();
    });
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const ladder = editing ?? String(f.get("ladder"));
    const event = String(f.get("event") || "");
    const startsIn = Number(f.get("starts_in") || 0);
    const duration = String(f.get("duration") || "");
    const startsAt = Date.now() + startsIn * 60_000;
    const body = {
      top_k: Number(f.get("top_k")),
      game_budget: Number(f.get("game_budget")),
      ...(startsIn > 0 ? { starts_at: new Date(startsAt).toISOString() } : {}),
      ...(duration ? { ends_at: new Date(startsAt + Number(duration) * 60_000).toISOString() } : {}),
      ...(event ? { event } : {}),
    };
    try {
      const method = editing === null ? "POST" : "PUT";
      await api(`/api/admin/ladders/${encodeURIComponent(ladder)}/settlement`, { method, body });
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
