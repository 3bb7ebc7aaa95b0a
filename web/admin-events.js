// The console's events (SPEC 4.6): every event with its phase, window, readiness, flags and award counts, and
// one event at a time managed in detail: its schedule (the window rules are the server's; its answer is shown),
// submission link and instructions, image (raw bytes with their own Content-Type and the alt text header),
// an account's progress with a revoke button per award, and reconcile (dry run, apply). No flag is ever here.
import { el, setBusy, table, time } from "./account-ui.js";
import { $, badge, defineScreen, failed, say } from "./admin-shared.js";
import { ApiError, accessToken, api } from "./session.js";

let openEvent = null;
let lookedUp = null;

function renderEvents(list) {
  $("events-admin").replaceChildren(
    table({
      id: "event-table",
      caption: "Events",
      empty: "No events in the manifest.",
      columns: [
        { label: "Event" },
        { label: "Phase" },
        { label: "Window", hideNarrow: true },
        { label: "Ready" },
        { label: "Awards", numeric: true, hideNarrow: true },
        { label: "Actions" },
      ],
      rows: list.map((e) => [
        {
          value: [
            el("a", { href: `/events/${encodeURIComponent(e.id)}` }, e.name),
            " ",
            el("code", { class: "small" }, e.id),
          ],
          sort: e.name,
        },
        badge(e.enabled ? e.phase : "disabled", `phase-${e.phase}`),
        [
          e.opens_at ? ["opens ", time(e.opens_at)] : "",
          el("br"),
          e.closes_at ? ["closes ", time(e.closes_at)] : "",
        ],
        [
          e.ready ? "ready" : "not ready",
          e.flag_mode === "testing"
            ? [" ", badge("testing flags")]
            : e.flags_configured
              ? ""
              : [" ", badge("no flags")],
          e.earning_unavailable ? [el("br"), el("span", { class: "small" }, e.earning_unavailable)] : "",
        ],
        {
          value: String(e.counts.reduce((s, c) => s + c.valid, 0)),
          sort: e.counts.reduce((s, c) => s + c.valid, 0),
        },
        el(
          "button",
          { type: "button", class: "button small-button", "data-event-open": e.id },
          "Manage",
          el("span", { class: "visually-hidden" }, ` ${e.name}`),
        ),
      ]),
    }),
  );
}

function renderDetail(e) {
  const fresh = openEvent?.id !== e.id;
  openEvent = e;
  $("event-detail").hidden = false;
  $("h-event-detail").textContent = e.name;
  $("event-facts").replaceChildren(
    el("dt", {}, "Ladder"),
    el("dd", {}, e.ladder.name),
    el("dt", {}, "Phase"),
    el("dd", {}, e.phase),
    el("dt", {}, "Display zone"),
    el("dd", {}, e.timezone),
    el("dt", {}, "Revision"),
    el("dd", {}, String(e.revision)),
    el("dt", {}, "Facts kept"),
    el("dd", {}, String(e.facts)),
    el("dt", {}, "Awards (valid / revoked)"),
    el("dd", {}, e.counts.map((c) => `${c.id} ${c.valid}/${c.revoked}`).join(", ")),
  );
  if (fresh) {
    $("event-opens").value = e.opens_at ?? "";
    $("event-closes").value = e.closes_at ?? "";
    $("event-submission-url").value = e.submission_url ?? "";
    $("event-submission-text").value = e.submission_instructions;
    $("event-account").replaceChildren();
    $("event-reconcile").replaceChildren();
    lookedUp = null;
  }
  $("event-image").replaceChildren(
    e.image
      ? el("img", {
          src: e.image.url,
          alt: e.image.alt,
          width: Math.min(e.image.width, 320),
          class: "event-image",
        })
      : el("p", { class: "muted small" }, "No image."),
  );
  $("event-image-delete").disabled = !e.image;
}

async function loadEvents() {
  const list = await api("/api/admin/events");
  renderEvents(list);
  if (openEvent) {
    const e = list.find((x) => x.id === openEvent.id);
    if (e) renderDetail(e);
  }
}

defineScreen("events", {
  load: loadEvents,
  clear: () => {
    for (const id of ["events-admin", "event-account", "event-reconcile", "event-image"])
      $(id).replaceChildren();
    $("event-detail").hidden = true;
    openEvent = null;
    lookedUp = null;
  },
});

/** Runs a change to the open event and reloads the screen; the server's refusal is said as it is. */
async function change(button, run, message) {
  setBusy(button, true);
  try {
    await run();
    say(message, "success");
    await loadEvents();
    if (lookedUp) await showAccount(lookedUp);
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
}

const path = (tail = "") => `/api/admin/events/${encodeURIComponent(openEvent.id)}${tail}`;

$("events-screen").addEventListener("click", async (event) => {
  const open = event.target.closest("button[data-event-open]");
  if (open) {
    setBusy(open, true);
    try {
      const list = await api("/api/admin/events");
      renderDetail(list.find((x) => x.id === open.dataset.eventOpen));
      $("h-event-detail").focus();
    } catch (err) {
      await failed(err);
    } finally {
      setBusy(open, false);
    }
    return;
  }
  const revoke = event.target.closest("button[data-revoke]");
  if (revoke && openEvent && lookedUp) {
    const reason = $(`revoke-reason-${revoke.dataset.revoke}`).value.trim();
    if (!reason) return say("Give a reason (1-1000 characters) for the revocation.", "error");
    await change(
      revoke,
      () =>
        api(
          path(
            `/accounts/${encodeURIComponent(lookedUp)}/achievements/${encodeURIComponent(revoke.dataset.revoke)}/revoke`,
          ),
          {
            method: "POST",
            body: { reason },
          },
        ),
      "Award revoked.",
    );
  }
});

$("event-schedule-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (!openEvent) return;
  const button = event.submitter ?? event.target.querySelector("button");
  void change(
    button,
    () =>
      api(path("/schedule"), {
        method: "PUT",
        body: { opens_at: $("event-opens").value.trim(), closes_at: $("event-closes").value.trim() },
      }),
    "Schedule saved.",
  );
});

$("event-submission-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (!openEvent) return;
  const button = event.submitter ?? event.target.querySelector("button");
  const url = $("event-submission-url").value.trim();
  void change(
    button,
    () =>
      api(path("/submission"), {
        method: "PUT",
        body: {
          submission_url: url === "" ? null : url,
          submission_instructions: $("event-submission-text").value,
        },
      }),
    "Submission saved.",
  );
});

$("event-image-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (!openEvent) return;
  const button = event.submitter ?? event.target.querySelector("button[type=submit]");
  const file = $("event-image-file").files?.[0];
  if (!file) return say("Choose an image file first.", "error");
  const alt = $("event-image-alt").value.trim();
  void change(
    button,
    async () => {
      // Raw bytes with the file's own type: the API takes no JSON here.
      const res = await fetch(path("/image"), {
        method: "PUT",
        headers: {
          authorization: `Bearer ${await accessToken()}`,
          "content-type": file.type || "application/octet-stream",
          ...(alt ? { "x-arena-image-alt": encodeURIComponent(alt) } : {}),
        },
        body: file,
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) throw new ApiError(res.status, body.code, body.error ?? `upload failed (${res.status})`);
    },
    "Image saved.",
  );
});

$("event-image-delete").addEventListener("click", (event) => {
  if (!openEvent) return;
  void change(event.currentTarget, () => api(path("/image"), { method: "DELETE" }), "Image removed.");
});

async function showAccount(ref) {
  const d = await api(path(`/accounts/${encodeURIComponent(ref)}`));
  lookedUp = d.account.handle ?? d.account.id;
  $("event-account").replaceChildren(
    el(
      "p",
      {},
      `${d.account.handle ?? d.account.id}: enrollment ${d.enrollment ?? "none"}, ${d.facts.length} matches kept.`,
    ),
    table({
      id: "event-account-table",
      caption: "Achievements of the account",
      empty: "No achievements.",
      columns: [{ label: "Achievement" }, { label: "Progress" }, { label: "Award" }, { label: "Revoke" }],
      rows: d.achievements.map((a) => [
        a.name,
        `${a.progress.current}/${a.progress.target}`,
        a.revoked_at
          ? ["revoked ", time(a.revoked_at), a.revoked_reason ? `: ${a.revoked_reason}` : ""]
          : a.earned
            ? ["earned ", time(a.earned_at)]
            : "—",
        a.earned
          ? el(
              "span",
              {},
              el(
                "label",
                { for: `revoke-reason-${a.id}`, class: "visually-hidden" },
                `Reason to revoke ${a.name}`,
              ),
              el("input", { id: `revoke-reason-${a.id}`, maxlength: 1000, placeholder: "reason" }),
              " ",
              el(
                "button",
                { type: "button", class: "button small-button danger", "data-revoke": a.id },
                "Revoke",
              ),
            )
          : "",
      ]),
    }),
  );
}

$("event-account-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!openEvent) return;
  const button = event.submitter ?? event.target.querySelector("button");
  setBusy(button, true);
  try {
    await showAccount($("event-account-ref").value.trim());
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
});

for (const [id, apply] of [
  ["event-reconcile-dry", false],
  ["event-reconcile-apply", true],
]) {
  $(id).addEventListener("click", async (event) => {
    if (!openEvent) return;
    const button = event.currentTarget;
    setBusy(button, true);
    try {
      const r = await api(path("/reconcile"), { method: "POST", body: { apply } });
      $("event-reconcile").replaceChildren(
        el(
          "p",
          {},
          `${r.facts.reduce((s, f) => s + f.matches, 0)} matches kept for ${r.facts.length} accounts; ${r.missing_awards.length} awards missing${apply ? `; ${r.applied} restored` : ""}.`,
        ),
        el(
          "ul",
          {},
          r.missing_awards.map((m) => el("li", {}, `${m.account_id}: ${m.achievement_id}`)),
        ),
      );
      say(apply ? "Reconciled." : "Dry run done: nothing changed.", "success");
      if (apply) await loadEvents();
    } catch (err) {
      await failed(err);
    } finally {
      setBusy(button, false);
    }
  });
}
