// The console's live settings (SPEC 4.6, 8): a form with one number per limit, server-wide or for one ladder,
// each showing the value in force and where it comes from (default, global, ladder); edits collect in a draft
// that Preview shows across every ladder before Save puts it in force at the loaded revision. A save refused
// because someone else saved first (409 stale_revision) says so and offers a reload; fields the server refuses
// are marked where they are. The overrides can also be edited as JSON (Advanced). Presets: web/admin-presets.js.
import { el, setBusy, table, time } from "./account-ui.js";
import { copy, differences, inherited, own, resolve, SERVER, setOwn, sourceOf } from "./admin-limits.js";
import { $, defineScreen, failed, reload, say } from "./admin-shared.js";
import { ApiError, api } from "./session.js";

/** The last answer of GET or PUT /api/admin/settings. */
let settings = null;
/** Every ladder, for names: [{id, name}]. */
let ladders = [];
/** The overrides being edited: the saved ones until a field changes. */
let draft = null;
/** The scope on screen: SERVER or a ladder id. */
let scope = SERVER;
/** Problems with fields, `${scope}|${limit}` -> words: the form's own checks and the server's. */
const problems = new Map();
const listeners = [];

export const current = () => settings;
export const ladderName = (id) =>
  id === SERVER ? "server-wide" : (ladders.find((l) => l.id === id)?.name ?? id);
/** Runs `fn(settings)` each time the settings are shown afresh (the presets list does). */
export const onSettings = (fn) => listeners.push(fn);

const infoOf = (limit) => settings.limits.find((l) => l.name === limit);
const fieldId = (limit) => `limit-${limit}`;
const SOURCE_WORDS = {
  default: "the default (start-up flag)",
  global: "the server-wide override",
  ladder: "this ladder's override",
};
const unit = (i) => (i.unit ? ` ${i.unit}` : "");

// ---- rendering ------------------------------------------------------------------------------------------
export function renderSettings(s) {
  settings = s;
  draft = copy(s.overrides);
  problems.clear();
  $("settings-stale").hidden = true;
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
  const scopes = [SERVER, ...Object.keys(s.effective.ladders)];
  if (!scopes.includes(scope)) scope = SERVER;
  $("settings-scope").replaceChildren(
    ...scopes.map((id) =>
      el(
        "option",
        { value: id, selected: id === scope },
        id === SERVER ? "Server-wide (every ladder)" : `${ladderName(id)} (${id})`,
      ),
    ),
  );
  $("settings-help").textContent =
    `{"global": {limit: value}, "ladders": {"<ladder id>": {limit: value}}}. Limits: ${s.limits.map((l) => l.name).join(", ")}. ` +
    `A ladder may override: ${s.ladder_limits.join(", ")}.`;
  $("settings-changes").replaceChildren();
  renderFields();
  renderEffective();
  for (const fn of listeners) fn(s);
}

function renderEffective() {
  const s = settings;
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
}

/** One row per limit the scope may set: label, number, reset, where the value comes from, any problem. */
function renderFields() {
  const shown = settings.limits.filter((l) => scope === SERVER || l.ladder);
  const globalOnly = settings.limits.filter((l) => !l.ladder).map((l) => l.name);
  $("settings-scope-help").textContent =
    scope === SERVER
      ? "Every ladder uses these unless it sets its own."
      : `Only ${ladderName(scope)}; a field left at the server-wide value follows it. Server-wide only (bots, versions and owners are shared by every ladder): ${globalOnly.join(", ")}.`;
  $("settings-fields").replaceChildren(...shown.map(fieldRow));
  renderDraft();
}

function fieldRow(i) {
  const id = fieldId(i.name);
  const value = own(draft, scope, i.name) ?? inherited(settings.defaults, draft, scope, i.name);
  return el(
    "div",
    { class: "limit-row", "data-limit": i.name },
    el(
      "label",
      { for: id, class: "limit-label" },
      i.name,
      " ",
      el("span", { class: "muted small" }, `${i.about}${i.unit ? `, in ${i.unit}` : ""}`),
    ),
    el(
      "div",
      { class: "limit-input" },
      el("input", {
        type: "number",
        id,
        class: "limit-value",
        name: i.name,
        min: i.min,
        max: i.max,
        step: 1,
        inputmode: "numeric",
        value,
        "aria-describedby": `${id}-info ${id}-error`,
      }),
      el(
        "button",
        { type: "button", class: "button small-button", "data-reset": i.name },
        "Reset",
        el("span", { class: "visually-hidden" }, ` ${i.name}`),
      ),
    ),
    el("p", { class: "small limit-info", id: `${id}-info` }),
    el("p", { class: "field-error", id: `${id}-error`, hidden: true }),
  );
}

/** The row's words and state, from the draft (the input itself is left as typed). */
function updateRow(limit) {
  const row = $("settings-fields").querySelector(`[data-limit="${limit}"]`);
  if (!row) return;
  const i = infoOf(limit);
  const id = fieldId(limit);
  const source = sourceOf(draft, scope, limit);
  const value = resolve(settings.defaults, draft, scope)[limit];
  const saved = resolve(settings.defaults, settings.overrides, scope)[limit];
  const savedSource = sourceOf(settings.overrides, scope, limit);
  const changed = value !== saved || source !== savedSource;
  const mine = own(draft, scope, limit);
  const capped = mine !== undefined && mine !== value;
  row.dataset.source = source;
  row.toggleAttribute("data-changed", changed);
  $(`${id}-info`).replaceChildren(
    el(
      "span",
      {},
      el("span", { class: `badge source-${source}` }, source),
      " ",
      `${value}${unit(i)} from ${SOURCE_WORDS[source]}`,
      capped ? ` (capped at the server's ${value})` : "",
      changed
        ? [" · ", el("span", { class: "badge changed" }, "changed"), ` in force now: ${saved}${unit(i)}`]
        : "",
    ),
  );
  row.querySelector("[data-reset]").disabled = mine === undefined;
  const problem = problems.get(`${scope}|${limit}`);
  const error = $(`${id}-error`);
  error.textContent = problem ?? "";
  error.hidden = !problem;
  const input = $(id);
  if (problem) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}

/** The unsaved changes in words, the rows' states, and the JSON view when nobody is typing in it. */
function renderDraft() {
  for (const i of settings.limits) updateRow(i.name);
  const changes = differences(settings.overrides, draft);
  const show = (v) => (v === undefined ? "unset" : String(v));
  $("settings-draft").textContent =
    changes.length === 0
      ? "No unsaved changes."
      : `Unsaved: ${changes.map((c) => `${ladderName(c.scope)} ${c.limit} ${show(c.from)} → ${show(c.to)}`).join("; ")}.`;
  $("settings-discard").disabled = changes.length === 0 && problems.size === 0;
  if (document.activeElement !== $("settings-overrides"))
    $("settings-overrides").value = JSON.stringify(draft, null, 2);
}

// ---- editing --------------------------------------------------------------------------------------------
/** Reads a field into the draft: empty means "no override here"; a bad number is a problem, not a value. */
function readField(input) {
  const limit = input.name;
  const i = infoOf(limit);
  const key = `${scope}|${limit}`;
  const text = input.value.trim();
  problems.delete(key);
  if (text === "" && !input.validity.badInput) setOwn(draft, scope, limit, undefined);
  else {
    const n = input.valueAsNumber;
    if (!Number.isInteger(n) || n < i.min || n > i.max)
      problems.set(key, `${limit}: enter a whole number from ${i.min} to ${i.max}.`);
    else if (
      own(settings.overrides, scope, limit) === undefined &&
      n === inherited(settings.defaults, draft, scope, limit)
    )
      // Typing back the value it follows leaves it following (no override that pins it).
      setOwn(draft, scope, limit, undefined);
    else setOwn(draft, scope, limit, n);
  }
  renderDraft();
}

$("settings-fields").addEventListener("input", (event) => {
  if (event.target.matches("input[type=number]")) readField(event.target);
});
// A field left empty shows the value it follows again.
$("settings-fields").addEventListener("change", (event) => {
  const input = event.target;
  if (input.matches("input[type=number]") && input.value.trim() === "" && !input.validity.badInput)
    input.value = inherited(settings.defaults, draft, scope, input.name);
});
$("settings-fields").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-reset]");
  if (!button) return;
  const limit = button.dataset.reset;
  setOwn(draft, scope, limit, undefined);
  problems.delete(`${scope}|${limit}`);
  $(fieldId(limit)).value = inherited(settings.defaults, draft, scope, limit);
  renderDraft();
  $(fieldId(limit)).focus();
});
$("settings-scope").addEventListener("change", (event) => {
  scope = event.target.value;
  renderFields();
});
$("settings-discard").addEventListener("click", () => {
  draft = copy(settings.overrides);
  problems.clear();
  renderFields();
  say("Your unsaved changes are discarded.");
});
$("settings-json").addEventListener("click", () => {
  let parsed;
  try {
    parsed = JSON.parse($("settings-overrides").value);
  } catch (err) {
    say(`The overrides are not valid JSON: ${err.message}`, "error");
    return $("settings-overrides").focus();
  }
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (!isObject(parsed) || ![parsed.global, parsed.ladders].every((v) => v === undefined || isObject(v))) {
    say('The overrides must be an object: {"global": {...}, "ladders": {"<ladder id>": {...}}}.', "error");
    return $("settings-overrides").focus();
  }
  draft = { ...parsed, global: parsed.global ?? {}, ladders: parsed.ladders ?? {} };
  problems.clear();
  renderFields();
  say("The JSON is in the form: preview it, then save.");
});

/** Moves to a field with a problem (switching scope if needed) and says what is wrong. */
function reportProblems(lead) {
  const [key, first] = problems.entries().next().value;
  const [where, limit] = key.split("|");
  if (where !== scope) {
    scope = where;
    $("settings-scope").value = where;
    renderFields();
  }
  const others = problems.size > 1 ? ` (${problems.size} fields to fix)` : "";
  say(`${lead}: ${ladderName(where)} ${first}${others}`, "error");
  $(fieldId(limit))?.focus();
}

/**
 * A 400 that names fields ("ladders.club.tick_ms") marks them; one the form cannot show (an unknown ladder or
 * limit typed as JSON) is said in words.
 */
function serverRefused(err) {
  const issues = err instanceof ApiError && err.status === 400 ? err.body.issues : null;
  if (!Array.isArray(issues)) return false;
  problems.clear();
  const loose = [];
  for (const issue of issues) {
    const parts = issue.path.split(".");
    const [where, limit] =
      parts[0] === "global" && parts.length === 2
        ? [SERVER, parts[1]]
        : parts[0] === "ladders" && parts.length === 3
          ? [parts[1], parts[2]]
          : [null, null];
    if (where !== null && infoOf(limit) && (where === SERVER || infoOf(limit).ladder))
      problems.set(`${where}|${limit}`, `${limit}: ${issue.message}`);
    else loose.push(`${issue.path || "(the whole)"}: ${issue.message}`);
  }
  if (loose.length > 0) {
    renderDraft();
    say(`The server refused the overrides: ${loose.join("; ")}.`, "error");
    $("settings-advanced").open = true;
  } else reportProblems("The server refused a limit");
  return true;
}

// ---- a save refused for a stale revision ---------------------------------------------------------------------
let unsaved = null;

/**
 * Someone saved first: nothing was changed. Says so plainly and offers the reload (the edit is kept till then).
 * A preview finds it out before any save: then it warns that a save would be refused.
 */
function staleRefused(now, { preview = false } = {}) {
  unsaved = differences(settings.overrides, draft);
  $("settings-stale-text").textContent = preview
    ? `Someone changed the settings since you loaded them (they are now at revision ${now}): a save would be refused. Reload the settings, check them, and make your change again.`
    : `Someone changed the settings while you were editing (they are now at revision ${now}), so yours were not saved. Reload the settings, check them, and make your change again.`;
  $("settings-stale").hidden = false;
  say(
    preview
      ? `Someone changed the settings meanwhile (now revision ${now}): reload them before saving.`
      : `Someone changed the settings meanwhile (now revision ${now}), so yours were not saved: reload them.`,
    "error",
  );
  $("settings-reload").focus();
}

export async function saveFailed(err) {
  if (err instanceof ApiError && err.code === "stale_revision") return staleRefused(err.body.revision ?? "?");
  if (serverRefused(err)) return;
  await failed(err);
}

$("settings-reload").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  const mine = unsaved ?? [];
  unsaved = null;
  setBusy(button, true);
  try {
    await Promise.all([loadSettings(), reload("audit")]);
    // The edit is kept for reference only: saving it as it was would undo the other admin's change unseen.
    const show = (v) => (v === undefined ? "unset" : String(v));
    if (mine.length > 0)
      $("settings-changes").replaceChildren(
        el(
          "details",
          { id: "unsaved-edit", open: true },
          el("summary", {}, "Your edit (not saved)"),
          el(
            "ul",
            {},
            mine.map((c) => el("li", {}, `${ladderName(c.scope)} ${c.limit}: ${show(c.to)}`)),
          ),
        ),
      );
    say(
      `Reloaded: revision ${settings.revision} is in force.${mine.length ? " Your edit is listed below the form: make it again if it still applies." : ""}`,
      "success",
    );
    $("h-settings").focus();
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
});

// ---- preview and save -----------------------------------------------------------------------------------
function renderChanges(r) {
  const rank = (l) => (l === null ? "" : l);
  const changes = [...r.changes].sort((a, b) => rank(a.ladder).localeCompare(rank(b.ladder)));
  const onLadders = new Set(changes.filter((c) => c.ladder !== null).map((c) => c.ladder)).size;
  const where = [
    changes.some((c) => c.ladder === null) ? "server-wide" : "",
    onLadders ? `on ${onLadders} ${onLadders === 1 ? "ladder" : "ladders"}` : "",
  ]
    .filter(Boolean)
    .join(" and ");
  // el() flattens the nested parts (replaceChildren would print an array as text).
  $("settings-changes").replaceChildren(
    el(
      "div",
      {},
      el("h3", {}, "Preview"),
      r.stale ? el("p", { class: "muted small" }, `Compared with revision ${r.revision}, in force now.`) : "",
      changes.length === 0
        ? el("p", { class: "empty", id: "change-table" }, "Nothing would change.")
        : [
            el(
              "p",
              { class: "small" },
              `${changes.length} ${changes.length === 1 ? "value" : "values"} would change: ${where}.`,
            ),
            table({
              id: "change-table",
              caption: "What would change",
              empty: "",
              columns: [
                { label: "Ladder" },
                { label: "Limit" },
                { label: "From", numeric: true },
                { label: "To", numeric: true },
              ],
              rows: changes.map((c) => [
                c.ladder === null ? "server-wide" : ladderName(c.ladder),
                c.limit,
                String(c.from),
                String(c.to),
              ]),
            }),
          ],
      el("p", { class: "muted small" }, "Nothing has changed yet: Save applies it."),
    ),
  );
}

$("settings-preview").addEventListener("click", async (event) => {
  if (problems.size > 0) return reportProblems("Fix the limit first");
  const button = event.currentTarget;
  setBusy(button, true);
  try {
    const r = await api("/api/admin/settings/preview", {
      method: "POST",
      body: { overrides: draft, revision: settings.revision },
    });
    renderChanges(r);
    if (r.stale) staleRefused(r.revision, { preview: true });
    else
      say(
        r.changes.length === 0
          ? "The preview shows no change."
          : `The preview shows ${r.changes.length} changes.`,
      );
  } catch (err) {
    if (!serverRefused(err)) await failed(err);
  } finally {
    setBusy(button, false);
  }
});

$("settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (problems.size > 0) return reportProblems("Nothing was saved");
  const button = $("settings-save");
  setBusy(button, true);
  try {
    renderSettings(
      await api("/api/admin/settings", {
        method: "PUT",
        body: { revision: settings.revision, overrides: draft },
      }),
    );
    await reload("audit");
    say(`Settings saved: revision ${settings.revision} is in force.`, "success");
  } catch (err) {
    await saveFailed(err);
  } finally {
    setBusy(button, false);
  }
});

/** Puts overrides (a preset's) in the form as unsaved changes, to preview and then save. */
export function editOverrides(overrides) {
  draft = copy(overrides);
  draft.global ??= {};
  draft.ladders ??= {};
  problems.clear();
  renderFields();
}

export async function loadSettings() {
  const [s, list] = await Promise.all([api("/api/admin/settings"), api("/api/admin/ladders")]);
  ladders = list;
  renderSettings(s);
}

defineScreen("settings", {
  load: loadSettings,
  clear: () => {
    for (const id of [
      "settings-changes",
      "settings-effective",
      "settings-fields",
      "settings-scope",
      "settings-revision",
      "presets",
    ])
      $(id).replaceChildren();
    $("settings-overrides").value = "";
    $("settings-draft").textContent = "";
    settings = null;
    draft = null;
    unsaved = null;
  },
});
