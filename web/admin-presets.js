// The console's settings presets: save the overrides in force under a name, put a preset in the settings form
// (to preview it and save), or apply one at once (at the loaded revision, like any save).
import { el, setBusy, table, time } from "./account-ui.js";
import { describe } from "./admin-limits.js";
import {
  current,
  editOverrides,
  ladderName,
  onSettings,
  renderSettings,
  saveFailed,
} from "./admin-settings.js";
import { $, failed, reload, say } from "./admin-shared.js";
import { api } from "./session.js";

const presetButton = (name, action, label) =>
  el(
    "button",
    { type: "button", class: "button small-button", "data-preset": name, "data-preset-action": action },
    label,
    el("span", { class: "visually-hidden" }, ` preset ${name}`),
  );

onSettings((s) => {
  $("presets").replaceChildren(
    table({
      id: "preset-table",
      caption: "Presets",
      empty: "No presets saved.",
      columns: [
        { label: "Preset" },
        { label: "Overrides", hideNarrow: true },
        { label: "Saved", hideNarrow: true },
        { label: "Actions" },
      ],
      rows: s.presets.map((p) => [
        p.name,
        el("span", { class: "small" }, describe(p.overrides, ladderName)),
        { value: time(p.created), sort: p.created },
        el(
          "span",
          { class: "row-actions" },
          presetButton(p.name, "edit", "Edit"),
          presetButton(p.name, "apply", "Apply"),
        ),
      ]),
    }),
  );
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
    const revision = current().revision;
    await api("/api/admin/settings/presets", { method: "POST", body: { revision, name } });
    event.target.reset();
    const [s] = await Promise.all([api("/api/admin/settings"), reload("audit")]);
    renderSettings(s);
    say(`The overrides of revision ${revision} are saved as the preset ${name}.`, "success");
  } catch (err) {
    await saveFailed(err);
  } finally {
    setBusy(button, false);
  }
});

$("presets").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-preset]");
  if (!button) return;
  const name = button.dataset.preset;
  const preset = current().presets.find((p) => p.name === name);
  if (button.dataset.presetAction === "edit") {
    editOverrides(preset.overrides);
    say(`The preset ${name} is in the form as unsaved changes: preview it, then save.`);
    $("settings-scope").focus();
    return;
  }
  if (!window.confirm(`Apply the preset ${name}? Its overrides replace the ones in force, at once.`)) return;
  setBusy(button, true);
  try {
    renderSettings(
      await api("/api/admin/settings", {
        method: "PUT",
        body: { revision: current().revision, preset: name },
      }),
    );
    await reload("audit");
    say(`The preset ${name} is in force (revision ${current().revision}).`, "success");
    $("h-settings").focus();
  } catch (err) {
    if (err?.code === "stale_revision") await saveFailed(err);
    else await failed(err);
  } finally {
    setBusy(button, false);
  }
});
