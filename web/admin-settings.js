// The console's live settings: the overrides on top of the start-up flags, a preview of what a change would do
// on each ladder, saving at the loaded revision (a stale one is refused and said so), and presets.
import { el, setBusy, table, time } from "./account-ui.js";
import { $, defineScreen, failed, reload, say } from "./admin-shared.js";
import { ApiError, api } from "./session.js";

let settings = null;

function renderSettings(s) {
  settings = s;
  // el() flattens the nested parts (replaceChildren would print an array as text).
  $("settings-revision").replaceChildren(
    el(
      "span",
      {},
      "Revision ",
      el("strong", { id: "settings-rev" }, String(s.revision)),
      s.updated
        ? [" · saved ", time(s.updated), s.updated_by ? ` by ${s.updated_by}` : ""]
        : " · never changed",
    ),
  );
  $("settings-overrides").value = JSON.stringify(s.overrides, null, 2);
  $("settings-help").textContent =
    `{"global": {limit: value}, "ladders": {"<ladder id>": {limit: value}}}. Limits: ${Object.keys(s.defaults).join(", ")}. ` +
    `A ladder may override: ${s.ladder_limits.join(", ")}.`;
  $("settings-changes").replaceChildren();
  const ladderIds = Object.keys(s.effective.ladders);
  $("settings-effective").replaceChildren(
    table({
      id: "effective-table",
      caption: "Limits in force",
      empty: "",
      columns: [
        { label: "Limit" },
        { label: "Default", numeric: true },
        { label: "Server-wide", numeric: true },
        ...ladderIds.map((id) => ({ label: id, numeric: true, hideNarrow: true })),
      ],
      rows: Object.keys(s.defaults).map((k) => [
        k,
        String(s.defaults[k]),
        String(s.effective.global[k]),
        ...ladderIds.map((id) => String(s.effective.ladders[id][k])),
      ]),
    }),
  );
  $("presets").replaceChildren(
    table({
      id: "preset-table",
      caption: "Presets",
      empty: "No presets saved.",
      columns: [{ label: "Preset" }, { label: "Overrides", hideNarrow: true }, { label: "Actions" }],
      rows: s.presets.map((p) => [
        p.name,
        el("code", { class: "small detail" }, JSON.stringify(p.overrides)),
        el(
          "button",
          { type: "button", class: "button small-button", "data-preset": p.name },
          "Apply",
          el("span", { class: "visually-hidden" }, ` preset ${p.name}`),
        ),
      ]),
    }),
  );
}

async function loadSettings() {
  renderSettings(await api("/api/admin/settings"));
}

defineScreen("settings", {
  load: loadSettings,
  clear: () => {
    for (const id of ["settings-changes", "settings-effective", "presets"]) $(id).replaceChildren();
    $("settings-overrides").value = "";
    settings = null;
  },
});

/** The overrides typed in, or null (and the reason said) when they are not JSON. */
function typedOverrides() {
  try {
    return JSON.parse($("settings-overrides").value);
  } catch (err) {
    say(`The overrides are not valid JSON: ${err.message}`, "error");
    $("settings-overrides").focus();
    return null;
  }
}

/** A save refused because someone saved first: say so, then show what is in force now. */
async function staleSave(err) {
  if (!(err instanceof ApiError && err.code === "stale_revision")) return false;
  const mine = $("settings-overrides").value;
  await Promise.all([loadSettings(), reload("audit")]);
  // The edit is kept for reference only: saving it as it was would undo the other admin's change unseen.
  $("settings-changes").replaceChildren(
    el(
      "details",
      { id: "unsaved-edit" },
      el("summary", {}, "Your edit (not saved)"),
      el("pre", {}, el("code", {}, mine)),
    ),
  );
  say(
    `The settings changed meanwhile (now revision ${settings.revision}), so yours were not saved. They are reloaded: check them and save again.`,
    "error",
  );
  $("h-settings").focus();
  return true;
}

function renderChanges(r) {
  const words = (l) => (l === null ? "server-wide" : l);
  $("settings-changes").replaceChildren(
    el("h3", {}, "Preview"),
    r.stale
      ? el(
          "p",
          { class: "notice" },
          `The settings changed since you loaded them: they are now at revision ${r.revision}.`,
        )
      : "",
    r.changes.length === 0
      ? el("p", { class: "empty", id: "change-table" }, "Nothing would change.")
      : table({
          id: "change-table",
          caption: "What would change",
          empty: "",
          columns: [
            { label: "Ladder" },
            { label: "Limit" },
            { label: "From", numeric: true },
            { label: "To", numeric: true },
          ],
          rows: r.changes.map((c) => [words(c.ladder), c.limit, String(c.from), String(c.to)]),
        }),
    el("p", { class: "muted small" }, "Nothing has changed yet: Save applies it."),
  );
}

$("settings-preview").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  const overrides = typedOverrides();
  if (overrides === null) return;
  setBusy(button, true);
  try {
    const r = await api("/api/admin/settings/preview", {
      method: "POST",
      body: { overrides, revision: settings.revision },
    });
    renderChanges(r);
    say(
      r.changes.length === 0
        ? "The preview shows no change."
        : `The preview shows ${r.changes.length} changes.`,
    );
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
});

$("settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = event.submitter ?? event.target.querySelector("button[type=submit]");
  const overrides = typedOverrides();
  if (overrides === null) return;
  setBusy(button, true);
  try {
    renderSettings(
      await api("/api/admin/settings", { method: "PUT", body: { revision: settings.revision, overrides } }),
    );
    await reload("audit");
    say(`Settings saved: revision ${settings.revision} is in force.`, "success");
  } catch (err) {
    if (!(await staleSave(err))) await failed(err);
  } finally {
    setBusy(button, false);
  }
});

$("preset-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = event.submitter ?? event.target.querySelector("button");
  const name = $("preset-name").value.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/.test(name)) {
    say(
      "Name the preset: 1-64 letters, digits, spaces, ., _ or -, starting with a letter or digit.",
      "error",
    );
    return $("preset-name").focus();
  }
  setBusy(button, true);
  try {
    await api("/api/admin/settings/presets", { method: "POST", body: { revision: settings.revision, name } });
    event.target.reset();
    await Promise.all([loadSettings(), reload("audit")]);
    say(`The overrides of revision ${settings.revision} are saved as the preset ${name}.`, "success");
  } catch (err) {
    if (!(await staleSave(err))) await failed(err);
  } finally {
    setBusy(button, false);
  }
});

$("presets").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-preset]");
  if (!button) return;
  const name = button.dataset.preset;
  if (!window.confirm(`Apply the preset ${name}? Its overrides replace the ones in force, at once.`)) return;
  setBusy(button, true);
  try {
    renderSettings(
      await api("/api/admin/settings", {
        method: "PUT",
        body: { revision: settings.revision, preset: name },
      }),
    );
    await reload("audit");
    say(`The preset ${name} is in force (revision ${settings.revision}).`, "success");
    $("h-settings").focus();
  } catch (err) {
    if (!(await staleSave(err))) await failed(err);
  } finally {
    setBusy(button, false);
  }
});
