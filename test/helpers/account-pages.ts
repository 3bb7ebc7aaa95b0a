// Shared by the browser tests of /account and /admin: a page that fails the test on a script error and
// accepts confirmations (recording their questions), a browser context that already holds a session the way
// the account page stores it, and a wait for a status line's text.
import type { Browser, Page } from "playwright-core";
import type { SignedIn } from "./accounts.ts";

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** The questions of every confirm() a watched page asked (each accepted, as a person clicking OK would). */
export const dialogsOf = new WeakMap<Page, string[]>();

export function watch(page: Page): Page {
  const asked: string[] = [];
  dialogsOf.set(page, asked);
  page.on("pageerror", (err) => {
    throw new Error(`page error on ${page.url()}: ${err.message}`);
  });
  page.on("dialog", (d) => {
    asked.push(d.message());
    void d.accept();
  });
  return page;
}

/** A browser context already holding a session (as the account page stores it) for someone signed up by HTTP. */
export async function contextFor(
  browser: Browser,
  who: SignedIn,
  viewport: { width: number; height: number } = DESKTOP,
) {
  const context = await browser.newContext({ viewport });
  const exp = JSON.parse(Buffer.from(who.access.split(".")[1]!, "base64url").toString()).exp as number;
  const session = JSON.stringify({ access_token: who.access, refresh_token: who.refresh, expires_at: exp });
  await context.addInitScript((s) => {
    if (!localStorage.getItem("arena.session")) localStorage.setItem("arena.session", s);
  }, session);
  return context;
}

/** Waits until the status line `#id` says `text`. */
export const status = (page: Page, id: string, text: string) =>
  page.locator(`#${id}`).filter({ hasText: text }).waitFor({ timeout: 10_000 });
