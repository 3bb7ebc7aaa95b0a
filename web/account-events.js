// The account page's events (SPEC 4.5): for each listed event, five achievement cards with progress, earned or
// revoked time and reason, evidence links and a reveal button for an earned flag; the pending opponent request
// with a form to ask for an official opponent or cancel. Loaded once the account is shown (#signed-in), from
// the event routes with this browser's session. A revealed flag is shown in the card and kept nowhere else.
import { el, ladderInText, setBusy, statusLine, time } from "./account-ui.js";
import { api, explain } from "./session.js";

const $ = (id) => document.getElementById(id);
const root = $("account-events");
const say = statusLine($("events-status"));

function card(eventId, a) {
  const state = a.revoked_at ? "revoked" : a.earned ? "earned" : "locked";
  const node = el(
    "li",
    { class: `achievement-card ${state}`, "data-achievement": a.id },
    el("h4", {}, a.name),
    a.description ? el("p", { class: "small" }, a.description) : "",
    el("progress", {
      max: a.progress.target,
      value: a.progress.current,
      "aria-label": `${a.name}: progress`,
    }),
    el("p", { class: "small" }, `${a.progress.current} of ${a.progress.target}`),
    a.earned ? el("p", { class: "small" }, "Earned ", time(a.earned_at)) : "",
    a.revoked_at
      ? el(
          "p",
          { class: "small" },
          "Revoked ",
          time(a.revoked_at),
          a.revoked_reason ? `: ${a.revoked_reason}` : "",
        )
      : "",
    a.evidence.length > 0
      ? el(
          "p",
          { class: "small" },
          "Evidence: ",
          a.evidence.slice(0, 5).map((u, i) => [i ? ", " : "", el("a", { href: u }, `match ${i + 1}`)]),
        )
      : "",
  );
  if (a.flag_available) {
    const out = el("code", { class: "flag", "data-flag": a.id, hidden: true });
    const button = el(
      "button",
      { type: "button", class: "button small-button", "data-reveal": a.id },
      "Reveal flag",
      el("span", { class: "visually-hidden" }, ` of ${a.name}`),
    );
    button.addEventListener("click", async () => {
      setBusy(button, true);
      try {
        const r = await api(
          `/api/account/events/${encodeURIComponent(eventId)}/achievements/${encodeURIComponent(a.id)}/reveal`,
          { method: "POST" },
        );
        out.textContent = r.flag;
        out.hidden = false;
        say(`Flag of ${a.name} revealed.`, "success");
      } catch (err) {
        say(explain(err), "error");
      } finally {
        setBusy(button, false);
      }
    });
    node.append(el("p", {}, button), out);
  }
  return node;
}

function requestBlock(v) {
  const id = v.event.id;
  if (v.request) {
    const cancel = el(
      "button",
      { type: "button", class: "button small-button", "data-cancel": id },
      "Cancel request",
    );
    cancel.addEventListener("click", () => change(cancel, id, { method: "DELETE" }, "Request cancelled."));
    return el(
      "p",
      { class: "small" },
      `Waiting: ${v.request.bot_name ?? v.request.bot_id} meets ${v.request.opponent} the next time it queues. `,
      cancel,
    );
  }
  if (v.event.phase !== "open" || v.bots.length === 0 || v.enrollment !== "active") return "";
  const botSel = el(
    "select",
    { name: "bot", id: `req-bot-${id}` },
    v.bots.map((b) => el("option", { value: b.id }, `${b.name}${b.online ? "" : " (offline)"}`)),
  );
  const oppSel = el(
    "select",
    { name: "opponent", id: `req-opp-${id}` },
    v.event.opponents.map((o) => el("option", { value: o.name }, o.display_name)),
  );
  const submit = el("button", { type: "submit", class: "button small-button" }, "Ask");
  const form = el(
    "form",
    { class: "inline", "data-request": id },
    el("label", { for: `req-bot-${id}` }, "Bot"),
    botSel,
    el("label", { for: `req-opp-${id}` }, "Official opponent"),
    oppSel,
    submit,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void change(
      submit,
      id,
      { method: "POST", body: { bot_id: botSel.value, opponent: oppSel.value } },
      "Asked: your bot meets that opponent the next time it queues.",
    );
  });
  return form;
}

async function change(button, eventId, opts, message) {
  setBusy(button, true);
  try {
    await api(`/api/account/events/${encodeURIComponent(eventId)}/opponent`, opts);
    say(message, "success");
    await load();
  } catch (err) {
    say(explain(err), "error");
  } finally {
    setBusy(button, false);
  }
}

function eventBlock(v) {
  const e = v.event;
  return el(
    "article",
    { class: "account-event", "data-event": e.id },
    el(
      "h3",
      {},
      el("a", { href: `/events/${encodeURIComponent(e.id)}` }, e.name),
      " ",
      el("span", { class: `phase phase-${e.phase}` }, e.phase),
    ),
    v.enrollment === "active"
      ? ""
      : el(
          "p",
          { class: "small" },
          `To earn these achievements, enroll on ${ladderInText(e.ladder.name)} with `,
          el(
            "a",
            { href: `#ladder-h-${encodeURIComponent(e.ladder.id)}` },
            "its Enroll button under Ladders",
          ),
          ". Matches played before you enroll do not count.",
        ),
    requestBlock(v),
    el(
      "ol",
      { class: "cards", "aria-label": `${e.name}: achievements` },
      v.achievements.map((a) => card(e.id, a)),
    ),
  );
}

let loading = null;
async function load() {
  try {
    const events = await fetch("/api/events").then((r) => r.json());
    const views = await Promise.all(
      events.map((e) => api(`/api/account/events/${encodeURIComponent(e.id)}/achievements`)),
    );
    root.replaceChildren(
      ...(views.length ? views.map(eventBlock) : [el("p", { class: "muted" }, "No events right now.")]),
    );
  } catch (err) {
    say(explain(err), "error");
  }
}

// The account script shows #signed-in once the session is accepted: load then, and not before.
const signedInView = $("signed-in");
function maybeLoad() {
  if (signedInView && !signedInView.hidden && loading === null) loading = load();
}
if (root && signedInView) {
  new MutationObserver(maybeLoad).observe(signedInView, { attributes: true, attributeFilter: ["hidden"] });
  maybeLoad();
  // Enrolling on a ladder (the Ladders section) changes what its events say and offer.
  document.addEventListener("arena:enrolled", () => {
    loading = load();
  });
}
