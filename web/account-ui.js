// Small DOM helpers shared by the account page and the admin console: elements built without innerHTML (so
// names and handles can never become markup), the status line, busy buttons, sortable tables and the
// one-time secret panel.
import { initSorting, initTimes } from "./app.js";

/** `el("a", {href}, "text", child)`: attributes set as attributes, children as text or nodes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    node.setAttribute(k, v === true ? "" : String(v));
  }
  // Any depth: a table cell may be a list holding lists (a role and, after it, [" ", a badge]).
  for (const c of children.flat(Number.POSITIVE_INFINITY)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

/** The page's aria-live status line: `say(text, "error" | "success" | "info")`. */
export function statusLine(node) {
  return (text, kind = "info") => {
    node.textContent = text;
    node.dataset.kind = kind;
  };
}

export function setBusy(button, busy) {
  if (!button) return;
  button.disabled = busy;
  if (busy) button.setAttribute("aria-busy", "true");
  else button.removeAttribute("aria-busy");
}

/** A ladder's name inside a sentence: "the Public ladder" for a name that ends in "ladder", else the name. */
export function ladderInText(name) {
  return /\sladder$/i.test(name) ? `the ${name}` : name;
}

/** A UTC timestamp as a <time> that app.js rewrites as "5 min ago". */
export function time(iso) {
  if (!iso) return "—";
  return el("time", { datetime: iso }, `${iso.slice(0, 16).replace("T", " ")} UTC`);
}

/**
 * A data table in the same markup as the server's (server/web/layout.ts), so it looks the same and sorts by
 * column heading. `columns`: [{label, numeric?, hideNarrow?}]; `rows`: arrays of cells (text, nodes, or
 * {value, sort} for a cell whose text does not sort by itself).
 */
export function table({ id, caption, columns, rows, empty }) {
  if (rows.length === 0) return el("p", { class: "empty", id }, empty);
  const cls = (c) =>
    [c.numeric ? "num" : "", c.hideNarrow ? "wide-only" : ""].filter(Boolean).join(" ") || null;
  const t = el(
    "table",
    { class: "data sortable", id },
    el("caption", { class: "visually-hidden" }, caption),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        columns.map((c) =>
          el("th", { scope: "col", class: cls(c) }, el("button", { type: "button", class: "sort" }, c.label)),
        ),
      ),
    ),
    el(
      "tbody",
      {},
      rows.map((r) =>
        el(
          "tr",
          {},
          r.map((cell, i) => {
            const plain =
              cell === null || typeof cell !== "object" || cell instanceof Node || Array.isArray(cell);
            return el(
              "td",
              { class: cls(columns[i]), "data-sort": plain ? null : (cell.sort ?? "") },
              plain ? cell : cell.value,
            );
          }),
        ),
      ),
    ),
  );
  const wrap = el("div", { class: "table-wrap" }, t);
  initSorting(wrap);
  initTimes(wrap);
  return wrap;
}

/** Copies a node's text; without clipboard access, selects it so Ctrl+C (or the menu) copies it. */
async function copyFrom(node, say) {
  try {
    await navigator.clipboard.writeText(node.textContent);
    say("Copied to the clipboard.", "success");
  } catch {
    // No clipboard permission (or no secure context).
    const range = document.createRange();
    range.selectNodeContents(node);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    say("Selected: copy it with Ctrl+C (or ⌘C).");
  }
}

/** The one-time secret panel's buttons: copy (the secret or a command), and "I have copied it", which wipes them. */
export function bindSecretPanel(say) {
  const panel = document.getElementById("secret-panel");
  let returnTo = null;
  document
    .getElementById("secret-copy")
    .addEventListener("click", () => copyFrom(document.getElementById("secret-value"), say));
  panel.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-copy]");
    if (button) void copyFrom(document.getElementById(button.dataset.copy), say);
  });
  document.getElementById("secret-done").addEventListener("click", () => {
    hideSecret();
    (returnTo?.isConnected ? returnTo : document.getElementById("main")).focus();
  });
  panel.addEventListener("secret-shown", (e) => {
    returnTo = e.detail;
  });
}

/** Single quotes for a POSIX shell: tokens and addresses are pasted as they are, whatever they hold. */
const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

/**
 * The ready-to-paste commands that download a starter from this server, install it and run it with a bot's
 * token. `botEndpoint` is the server's bot socket (ws:// for plain HTTP, wss:// behind HTTPS); the downloads
 * are on the same host over http(s).
 */
export function starterCommands(botEndpoint, token) {
  const base = botEndpoint.replace(/^ws/, "http").replace(/\/bot$/, "");
  const env = `ARENA_TOKEN=${quote(token)} ARENA_URL=${quote(botEndpoint)}`;
  return {
    typescript: [
      `curl -fsSL ${quote(`${base}/download/bots/typescript.tar.gz`)} | tar -xz`,
      "cd arena-starter-typescript && npm install",
      `${env} npm start`,
    ].join("\n"),
    python: [
      `curl -fsSL ${quote(`${base}/download/bots/python.tar.gz`)} | tar -xz`,
      // A virtual environment of its own: a system Python of Debian 12, Ubuntu 23.04 or Homebrew refuses a
      // plain `pip install` (PEP 668, "externally-managed-environment"), which stopped the pasted command there.
      "cd arena-starter-python && python3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt",
      `${env} .venv/bin/python starter_bot.py`,
    ].join("\n"),
  };
}

/**
 * Shows a secret once, moves focus to it (so a screen reader reads it next) and keeps it only in the DOM.
 * `commands` ({typescript, python}, for a bot token) fills the panel's ready-to-run starter commands.
 */
export function showSecret(note, secret, commands = null) {
  const panel = document.getElementById("secret-panel");
  panel.dispatchEvent(new CustomEvent("secret-shown", { detail: document.activeElement }));
  document.getElementById("secret-note").textContent = note;
  document.getElementById("secret-value").textContent = secret;
  document.getElementById("secret-commands").hidden = !commands;
  for (const lang of ["typescript", "python"])
    document.getElementById(`command-${lang}`).textContent = commands?.[lang] ?? "";
  panel.hidden = false;
  panel.scrollIntoView({ block: "nearest" });
  panel.focus();
}

export function hideSecret() {
  document.getElementById("secret-value").textContent = "";
  document.getElementById("secret-note").textContent = "";
  for (const lang of ["typescript", "python"]) document.getElementById(`command-${lang}`).textContent = "";
  document.getElementById("secret-commands").hidden = true;
  document.getElementById("secret-panel").hidden = true;
}
