// The console's overview (who you are, the server's status, the admins) and bot moderation: the suspended and
// banned bots, the "moderate a bot" form and every bot's suspend, activate and ban buttons (also those in the
// accounts table).
import { el, table } from "./account-ui.js";
import { $, act, badge, defineScreen, say } from "./admin-shared.js";
import { api, whoami } from "./session.js";

/** A bot's moderation button; clicks anywhere in the console are handled below by its data attributes. */
export function botButton(name, action) {
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

function renderOverview(o) {
  const fact = (label, value) => el("div", {}, el("dt", {}, label), el("dd", {}, value));
  const s = o.status;
  $("overview").replaceChildren(
    el(
      "dl",
      { class: "facts" },
      // A person, not an account id: the handle, else the signed-in email (an agent key has no email here).
      fact(
        "You",
        `${o.you.handle ?? whoami()?.email ?? "an account without a handle"} (${o.you.via === "agent_key" ? "agent key" : "session"})`,
      ),
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
        el(
          "li",
          {},
          // Named as the "You" line names one: the handle, else (for you) the email you signed in with; no
          // other admin's address leaves the service.
          a.handle ?? (a.you ? (whoami()?.email ?? "you (no handle yet)") : "an admin without a handle yet"),
          a.you ? [" ", badge("you")] : "",
          a.configured ? [" ", badge("configured")] : "",
        ),
      ),
    ),
  );
  // The section's own heading names the table: no hidden caption repeating it to a screen reader.
  const moderated = table({
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
  });
  const caption = moderated.querySelector("caption");
  if (caption) {
    caption.remove();
    moderated.querySelector("table").setAttribute("aria-labelledby", "h-moderated");
  }
  $("moderated").replaceChildren(moderated);
}

/** The console's gate: the first admin call; the rest loads only after it succeeded. */
export async function loadOverview() {
  renderOverview(await api("/api/admin/overview"));
}

defineScreen("overview", {
  load: loadOverview,
  clear: () => {
    $("overview").replaceChildren();
    $("moderated").replaceChildren();
  },
});

const BOT_QUESTIONS = {
  ban: (n) => `Ban ${n}? It is disconnected, its token is replaced, and a ban cannot be undone here.`,
};

function moderateBot(button, name, action) {
  const ask = BOT_QUESTIONS[action];
  if (ask && !window.confirm(ask(name))) return;
  return act(
    button,
    "h-moderate",
    async () => {
      const r = await api(`/api/admin/bots/${encodeURIComponent(name)}/${action}`, { method: "POST" });
      return `${r.name} is now ${r.status}.`;
    },
    ["overview", "accounts", "audit"],
  );
}

$("bot-action-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("bot-action-name");
  const name = input.value.trim();
  const action = event.submitter?.value ?? "suspend";
  // The input's pattern is the server's bot-name rule (server/kernel/names.ts), written into the page.
  if (!new RegExp(`^(?:${input.pattern})$`, "v").test(name)) {
    say("Enter a bot name: 2-24 letters, digits, - or _.", "error");
    $("bot-action-name").focus();
    return;
  }
  void moderateBot(event.submitter, name, action);
});

document.addEventListener("click", (event) => {
  const button = event.target.closest("#admin-console button[data-bot][data-action]");
  if (button) void moderateBot(button, button.dataset.bot, button.dataset.action);
});
