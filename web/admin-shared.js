// What every screen of the admin console shares: the status line, the console's three states (signed out,
// refused, open), the screens' registry (so a change on one screen can reload another, and a refusal can wipe
// them all), and the handling of a failed admin call. The screens are web/admin-*.js; web/admin.js starts them.
import { el, setBusy, statusLine } from "./account-ui.js";
import { ApiError, explain, signOut } from "./session.js";

export const $ = (id) => document.getElementById(id);
export const say = statusLine($("admin-status"));
export const badge = (text, cls = "") => el("span", { class: `badge ${cls}` }, text);

export function show(view) {
  $("admin-loading").hidden = true;
  $("admin-signed-out").hidden = view !== "signed-out";
  $("admin-refused").hidden = view !== "refused";
  $("admin-console").hidden = view !== "console";
}

/** Each screen by name: `load()` fetches and renders it, `clear()` removes everything it shows and holds. */
const screens = new Map();

/** A console section added by a screen's own module (card, heading, and its entry in the console's nav). */
export function section(id, title, ...children) {
  const s = el(
    "section",
    { class: "card", "aria-labelledby": `h-${id}` },
    el("h2", { id: `h-${id}`, tabindex: "-1" }, title),
    ...children,
  );
  $("admin-console").append(s);
  document.querySelector(".console-nav ul")?.append(el("li", {}, el("a", { href: `#h-${id}` }, title)));
  return s;
}

export function defineScreen(name, { load, clear }) {
  screens.set(name, { load, clear });
}

/** Loads the named screens again (at once, in parallel). */
export function reload(...names) {
  return Promise.all(names.map((n) => screens.get(n).load()));
}

/** Closes the console: the data it held is removed, not just hidden. */
export function refuse(text) {
  for (const s of screens.values()) s.clear();
  $("refused-text").textContent = text;
  show("refused");
}

/** Handles a failed admin call: a lost session or role closes the console; anything else is reported. */
export async function failed(err) {
  if (err instanceof ApiError) {
    if (err.code === "not_admin")
      return refuse("Your account is not an admin of this ladder, so the console is closed to you.");
    if (err.code === "admin_required")
      return refuse("You are not signed in with an admin account. Sign in with one on the account page.");
    if (err.code === "account_banned") return refuse("This account is banned.");
    if (err.status === 401) {
      await signOut();
      say(explain(err), "error");
      return show("signed-out");
    }
  }
  say(explain(err), "error");
}

/**
 * Runs a change from `button` (busy meanwhile): says its message, reloads the named screens, and puts focus
 * back where it was or, if that element went with the reload, on the heading `fallback`.
 */
export async function act(button, fallback, run, screensToReload) {
  setBusy(button, true);
  try {
    const message = await run();
    say(message, "success");
    const focused = document.activeElement;
    await reload(...screensToReload);
    if (!focused?.isConnected || focused === document.body) $(fallback)?.focus();
  } catch (err) {
    await failed(err);
  } finally {
    setBusy(button, false);
  }
}
