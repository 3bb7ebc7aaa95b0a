// The console's settings form in real headless Chromium: one number per limit, server-wide or for one ladder,
// each with the value in force and its source; a change is previewed (nothing changes), saved and in force at
// once (GET /api operational_policy and the admin settings say so); reset; fields refused by the form or by
// the server are marked where they are; a stale save is said plainly and the reload keeps the edit for
// reference; presets round-trip. Screenshots at desktop and phone width go to test-artifacts/screenshots/.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../server/ladders/manifest.ts";
import { contextFor, DESKTOP, PHONE, status, watch } from "../helpers/account-pages.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { HAVE_CHROMIUM, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { ladderDef } from "../helpers/ladders.ts";
import type { TestServer } from "../helpers/server.ts";

const manifest: Manifest = {
  version: 1,
  ladders: [
    ladderDef("public", { name: "Public ladder" }),
    ladderDef("club", { name: "Club ladder", access: "approval" }),
  ],
};

type Policy = Record<string, number>;

describe.skipIf(!HAVE_CHROMIUM)("the settings form in headless Chromium", () => {
  let srv: TestServer;
  let browser: Browser;
  let root: SignedIn;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([
      startAccountServer({ adminEmails: ["root@example.com"] }, { manifest }),
      launchBrowser(),
    ]);
    root = await signUp(srv, "root@example.com", "root");
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  const api = (method: string, path: string, body?: unknown) =>
    call(srv.url, method, path, { token: root.access, ...(body !== undefined ? { body } : {}) });
  const policy = async () => (await call(srv.url, "GET", "/api", {})).body.operational_policy as Policy;
  const settings = async () =>
    (await api("GET", "/api/admin/settings")).body as {
      revision: number;
      overrides: { global: Policy; ladders: Record<string, Policy> };
      effective: { global: Policy; ladders: Record<string, Policy> };
    };
  const sideways = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  async function consoleAt(size = DESKTOP) {
    const context = await contextFor(browser, root, size);
    const page = watch(await context.newPage());
    await page.goto(`${srv.url}/admin#h-settings`);
    await page.locator("#settings-fields .limit-row").first().waitFor();
    return { context, page };
  }
  const row = (page: Page, limit: string) => page.locator(`#settings-fields [data-limit='${limit}']`);
  const info = (page: Page, limit: string) => page.locator(`#limit-${limit}-info`);

  it("changes limits live per scope: value and source shown, preview first, then saved and in force", async () => {
    const before = await policy();
    const { context, page } = await consoleAt();
    // Server-wide: every limit, each with its value in force and where it comes from.
    const bots = page.getByLabel("maxBotsPerOwner");
    expect(await bots.inputValue()).toBe(String(before.maxBotsPerOwner));
    expect(await bots.getAttribute("min")).toBe("1");
    expect(await info(page, "maxBotsPerOwner").textContent()).toBe(
      `default ${before.maxBotsPerOwner} from the default (start-up flag)`,
    );
    expect(await page.locator("#settings-fields .limit-row").count()).toBe(14);
    expect(await page.locator("#settings-draft").textContent()).toBe("No unsaved changes.");

    await bots.fill("7");
    expect(await info(page, "maxBotsPerOwner").textContent()).toBe(
      `global 7 from the server-wide override · changed in force now: ${before.maxBotsPerOwner}`,
    );
    // One ladder: only the limits a ladder may set; the others are named as server-wide only.
    await page.getByLabel("Limits of").selectOption("club");
    expect(await page.locator("#settings-fields .limit-row").count()).toBe(9);
    expect(await row(page, "maxBotsPerOwner").count()).toBe(0);
    expect(await page.locator("#settings-scope-help").textContent()).toContain(
      "Server-wide only (bots, versions and owners are shared by every ladder): maxBotsPerOwner, newVersionsPerDay, emailIntervalMs, scrimmagesAtOncePerOwner, scrimmagesPerHourPerOwner.",
    );
    const hourly = page.getByLabel("matchesPerHourPerBot");
    expect(await hourly.inputValue()).toBe(String(before.matchesPerHourPerBot));
    await hourly.fill("3");
    expect(await info(page, "matchesPerHourPerBot").textContent()).toContain(
      "ladder 3 from this ladder's override",
    );
    expect(await page.locator("#settings-draft").textContent()).toBe(
      `Unsaved: server-wide maxBotsPerOwner unset → 7; Club ladder matchesPerHourPerBot unset → 3.`,
    );

    // Preview: what would change on each ladder, and nothing has changed yet.
    await page.getByRole("button", { name: "Preview" }).click();
    await status(page, "admin-status", "The preview shows");
    expect(await page.locator("#settings-changes").textContent()).toContain(
      "4 values would change: server-wide and on 2 ladders.",
    );
    const previewRows = await page.locator("#change-table tbody tr").allTextContents();
    expect(previewRows).toContain(`server-widemaxBotsPerOwner${before.maxBotsPerOwner}7`);
    expect(previewRows).toContain(`Club laddermatchesPerHourPerBot${before.matchesPerHourPerBot}3`);
    expect(previewRows).toContain(`Public laddermaxBotsPerOwner${before.maxBotsPerOwner}7`);
    expect(previewRows.some((r) => r.startsWith("Public laddermatchesPerHourPerBot"))).toBe(false);
    expect((await policy()).maxBotsPerOwner).toBe(before.maxBotsPerOwner);
    expect((await settings()).revision).toBe(0);
    await page.locator("#settings-screen").screenshot({ path: join(SHOTS, "settings-form-desktop.png") });

    // Save: in force at once.
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await status(page, "admin-status", "Settings saved: revision 1 is in force.");
    expect((await policy()).maxBotsPerOwner).toBe(7);
    const saved = await settings();
    expect(saved.overrides).toEqual({
      global: { maxBotsPerOwner: 7 },
      ladders: { club: { matchesPerHourPerBot: 3 } },
    });
    expect(saved.effective.ladders.club!.matchesPerHourPerBot).toBe(3);
    expect(saved.effective.ladders.public!.matchesPerHourPerBot).toBe(before.matchesPerHourPerBot);
    expect(await page.locator("#settings-rev").textContent()).toBe("1");
    // The scope stays on screen, its value now in force.
    expect(await info(page, "matchesPerHourPerBot").textContent()).toBe(
      "ladder 3 from this ladder's override",
    );

    // Reset: the ladder follows the server-wide value again.
    await page.getByRole("button", { name: "Reset matchesPerHourPerBot" }).click();
    expect(await hourly.inputValue()).toBe(String(before.matchesPerHourPerBot));
    expect(await info(page, "matchesPerHourPerBot").textContent()).toContain("default");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await status(page, "admin-status", "Settings saved: revision 2 is in force.");
    expect((await settings()).overrides).toEqual({ global: { maxBotsPerOwner: 7 }, ladders: {} });
    expect(await page.getByRole("button", { name: "Reset matchesPerHourPerBot" }).isDisabled()).toBe(true);

    // A value out of bounds is marked at its field and never sent.
    const tick = page.getByLabel("tick_ms");
    await tick.fill("5");
    expect(await page.locator("#limit-tick_ms-error").textContent()).toBe(
      "tick_ms: enter a whole number from 10 to 600000.",
    );
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await status(page, "admin-status", "Nothing was saved: Club ladder tick_ms: enter a whole number");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("limit-tick_ms");
    expect((await settings()).revision).toBe(2);
    await page.getByRole("button", { name: "Discard changes" }).click();

    // The same as JSON (Advanced) reaches the server, whose refusal is marked at the field it names.
    await page.getByText("Advanced: the overrides as JSON").click();
    await page
      .getByRole("textbox", { name: "Overrides (JSON)" })
      .fill(JSON.stringify({ global: { maxBotsPerOwner: 7, tick_ms: 5 } }));
    await page.getByRole("button", { name: "Use this JSON in the form" }).click();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await status(page, "admin-status", "The server refused a limit: server-wide tick_ms: Too small");
    expect(await page.getByLabel("Limits of").inputValue()).toBe("");
    expect(await page.locator("#limit-tick_ms-error").textContent()).toContain("tick_ms: Too small");
    expect(await page.getByLabel("tick_ms").getAttribute("aria-invalid")).toBe("true");
    expect((await settings()).revision).toBe(2);
    await page.getByRole("textbox", { name: "Overrides (JSON)" }).fill("{ not json");
    await page.getByRole("button", { name: "Use this JSON in the form" }).click();
    await status(page, "admin-status", "The overrides are not valid JSON");
    await context.close();
  }, 60_000);

  it("says plainly that someone else saved first, changes nothing, and reloads on request", async () => {
    const { context, page } = await consoleAt(PHONE);
    const s = await settings();
    await page.getByLabel("maxConcurrentPerOwner").fill("12");
    // Another admin saves meanwhile.
    const other = await api("PUT", "/api/admin/settings", {
      revision: s.revision,
      overrides: { ...s.overrides, global: { ...s.overrides.global, maxConcurrentPerOwner: 9 } },
    });
    expect(other.status).toBe(200);
    // A preview finds it out first: it warns that a save would be refused.
    const notice = page.getByRole("alert");
    await page.getByRole("button", { name: "Preview" }).click();
    await status(page, "admin-status", `now revision ${s.revision + 1}): reload them before saving.`);
    expect(await notice.textContent()).toContain("a save would be refused");
    // Saved anyway: refused, and nothing changes.
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await notice.filter({ hasText: "Someone changed the settings while you were editing" }).waitFor();
    expect(await notice.textContent()).toContain(
      `they are now at revision ${s.revision + 1}), so yours were not saved`,
    );
    await status(page, "admin-status", "so yours were not saved: reload them.");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("settings-reload");
    expect((await policy()).maxConcurrentPerOwner).toBe(9);
    await page.locator("#settings-screen").screenshot({ path: join(SHOTS, "settings-stale-phone.png") });

    await page.getByRole("button", { name: "Reload the settings" }).click();
    await status(page, "admin-status", `Reloaded: revision ${s.revision + 1} is in force.`);
    expect(await notice.isHidden()).toBe(true);
    expect(await page.getByLabel("maxConcurrentPerOwner").inputValue()).toBe("9");
    expect(await page.locator("#unsaved-edit li").allTextContents()).toEqual([
      "server-wide maxConcurrentPerOwner: 12",
    ]);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await page.locator("#settings-screen").screenshot({ path: join(SHOTS, "settings-form-phone.png") });
    await context.close();
  }, 60_000);

  it("saves the overrides in force as a preset, puts it in the form to preview, and applies it", async () => {
    const { context, page } = await consoleAt();
    const s = await settings();
    const inForce = (await policy()).maxConcurrentPerOwner;
    await page.getByLabel("Preset name").fill("busy night");
    await page.getByRole("button", { name: "Save preset" }).click();
    await status(
      page,
      "admin-status",
      `The overrides of revision ${s.revision} are saved as the preset busy night.`,
    );
    expect(
      await page.locator("#preset-table tbody tr").filter({ hasText: "busy night" }).textContent(),
    ).toContain(`server-wide: maxBotsPerOwner 7, maxConcurrentPerOwner ${inForce}`);

    // Back to the defaults, saved.
    await page.getByText("Advanced: the overrides as JSON").click();
    await page.getByRole("textbox", { name: "Overrides (JSON)" }).fill("{}");
    await page.getByRole("button", { name: "Use this JSON in the form" }).click();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await status(page, "admin-status", `revision ${s.revision + 1} is in force`);
    const defaults = await policy();
    expect(defaults.maxConcurrentPerOwner).not.toBe(inForce);

    // The preset in the form: a preview shows what it would bring back; nothing changes until it is applied.
    await page.getByRole("button", { name: "Edit preset busy night" }).click();
    await status(page, "admin-status", "The preset busy night is in the form as unsaved changes");
    expect(await page.getByLabel("maxConcurrentPerOwner").inputValue()).toBe(String(inForce));
    await page.getByRole("button", { name: "Preview" }).click();
    await status(page, "admin-status", "The preview shows");
    expect(await page.locator("#change-table tbody tr").allTextContents()).toContain(
      `server-widemaxConcurrentPerOwner${defaults.maxConcurrentPerOwner}${inForce}`,
    );
    expect((await policy()).maxConcurrentPerOwner).toBe(defaults.maxConcurrentPerOwner);
    await page.getByRole("button", { name: "Apply preset busy night" }).click();
    await status(page, "admin-status", `The preset busy night is in force (revision ${s.revision + 2}).`);
    expect(await policy()).toMatchObject({ maxBotsPerOwner: 7, maxConcurrentPerOwner: inForce });
    expect(await page.locator("#settings-draft").textContent()).toBe("No unsaved changes.");
    const audit = await api("GET", "/api/admin/audit?limit=50");
    expect((audit.body as unknown as { kind: string }[]).map((e) => e.kind)).toContain("settings_preset");
    await page.locator("#settings-screen").screenshot({ path: join(SHOTS, "settings-presets-desktop.png") });
    await context.close();
  }, 60_000);
});
