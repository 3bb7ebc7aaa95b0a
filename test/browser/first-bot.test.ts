// A bot author's first minutes, in real headless Chromium at desktop and phone width: sign up on /account,
// confirm through the emailed link, choose a handle, register a bot, copy the command the token panel prints
// for a starter, run it in a shell, and see the bot's ranked match on its page. The command runs as pasted
// (curl, tar, cd, the environment, the start command) in a fresh folder; the one stand-in is the install step
// (this machine has no package registry): `npm install` links the repository's node_modules (ws and tsx are
// there), and the Python command's `python3 -m venv .venv` makes a real virtual environment that also sees
// Debian's python3-websockets, so the real `.venv/bin/python -m pip install` in it finds websockets installed.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESKTOP, PHONE, status, watch } from "../helpers/account-pages.ts";
import { linkIn, outboxMail, startAccountServer } from "../helpers/accounts.ts";
import { CHROMIUM_MISSING, launchBrowser, SHOTS } from "../helpers/browser.ts";
import type { TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PYTHON = "/usr/bin/python3";
const pythonReady = spawnSync(PYTHON, ["-c", "import websockets"]).status === 0;

/** A folder of stand-ins put first on PATH: the install steps only (see the header); everything else is real. */
function shims(): string {
  const dir = mkdtempSync(join(tmpdir(), "starter-shims-"));
  const npm = spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim();
  writeFileSync(
    join(dir, "npm"),
    `#!/bin/sh\nif [ "$1" = install ]; then ln -s '${root}node_modules' node_modules; exit 0; fi\nexec '${npm}' "$@"\n`,
  );
  writeFileSync(
    join(dir, "python3"),
    `#!/bin/sh\nif [ "$1" = -m ] && [ "$2" = venv ]; then shift 2; exec ${PYTHON} -m venv --system-site-packages "$@"; fi\nexec ${PYTHON} "$@"\n`,
  );
  chmodSync(join(dir, "npm"), 0o755);
  chmodSync(join(dir, "python3"), 0o755);
  return dir;
}

describe("from sign-up to a ranked match with a starter, in headless Chromium", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let shimDir: string;
  const running: ChildProcess[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    [srv, browser] = await Promise.all([startAccountServer({ tickMs: 300 }), launchBrowser()]);
    shimDir = shims();
    dirs.push(shimDir);
  }, 60_000);
  afterAll(async () => {
    // Each starter runs in its own process group (detached): stop the group, the shell and the bot in it.
    for (const p of running) if (p.pid && p.exitCode === null) process.kill(-p.pid, "SIGTERM");
    await browser?.close();
    await srv?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  for (const viewport of [DESKTOP, PHONE]) {
    it(`${viewport.width} px: the footer and /create-bot lead to the /starters page, whose buttons download each starter`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      await page.goto(`${srv.url}/create-bot`);
      expect(await page.locator("footer a", { hasText: "Starter bots" }).getAttribute("href")).toBe(
        "/starters",
      );
      // "Create an account" in step 4 leads there (it was words alone).
      expect(await page.getByRole("link", { name: "Create an account" }).getAttribute("href")).toBe(
        "/account",
      );
      await page.getByRole("link", { name: "TypeScript or Python starter" }).click();
      await page.waitForURL(`${srv.url}/starters`);
      expect(await page.locator("h1").textContent()).toBe("Starter bots");
      // Each archive link answers with the archive itself.
      const links = await page
        .locator("a[download]")
        .evaluateAll((as) => as.map((a) => a.getAttribute("href")));
      expect(links).toEqual([
        "/download/bots/typescript.tar.gz",
        "/download/bots/typescript.zip",
        "/download/bots/python.tar.gz",
        "/download/bots/python.zip",
      ]);
      for (const href of links) {
        const res = await fetch(`${srv.url}${href}`);
        expect(res.status, href!).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/^application\/(gzip|zip)$/);
      }
      // The commands on the page name this server's bot socket.
      expect(await page.locator("main").textContent()).toContain(
        `ARENA_URL='${srv.url.replace(/^http/, "ws")}/bot'`,
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)).toBe(
        false,
      );
      await page.close();
    });
  }

  const cases = [
    { lang: "typescript", viewport: DESKTOP, width: "desktop", n: 1 },
    { lang: "python", viewport: PHONE, width: "phone", n: 2 },
  ] as const;

  for (const c of cases) {
    it(`${c.width} (${c.viewport.width} px): the printed ${c.lang} command runs the starter into a ranked match`, async (ctx) => {
      if (c.lang === "python" && !pythonReady) ctx.skip();
      const email = `author${c.n}@example.com`;
      const password = "a long test password";
      const handle = `author${c.n}`;
      const botName = `first-${c.lang}`;
      const context = await browser.newContext({ viewport: c.viewport, hasTouch: c.width === "phone" });
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: srv.url });
      const page = watch(await context.newPage());

      // Sign up and confirm in the same browser.
      await page.goto(`${srv.url}/account`);
      await page.locator("#signed-out").waitFor();
      const asked = Date.now() - 1;
      await page.locator("#signup-email").fill(email);
      await page.locator("#signup-password").fill(password);
      await page.getByRole("button", { name: "Create account" }).click();
      await status(page, "account-status", "confirmation link");
      await page.goto(linkIn(await outboxMail(srv.dataDir, email, asked)));
      await page.locator("#signed-in").waitFor();

      // A handle, then a bot.
      await page.locator("#handle-input").fill(handle);
      await page.locator("#handle-form button[type=submit]").click();
      await status(page, "account-status", `Your handle is now ${handle}`);
      await page.locator("#register-name").fill(botName);
      await page.locator("#register-form button[type=submit]").click();
      await page.locator("#secret-commands").waitFor();
      const token = (await page.locator("#secret-value").textContent()) ?? "";
      expect(token.length).toBeGreaterThan(20);
      await page.screenshot({ path: join(SHOTS, `first-bot-token-${c.width}.png`), fullPage: true });

      // The command block fits the page: no sideways scrolling at this width.
      expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)).toBe(
        false,
      );

      // Copy the printed command with its button and read it back from the clipboard.
      const label = c.lang === "typescript" ? "TypeScript" : "Python";
      await page.getByRole("button", { name: `Copy the ${label} command` }).click();
      await status(page, "account-status", "Copied");
      const command = await page.evaluate(() => navigator.clipboard.readText());
      const endpoint = `${srv.url.replace(/^http/, "ws")}/bot`;
      expect(command).toContain(`ARENA_URL='${endpoint}'`);
      expect(command).toContain(`ARENA_TOKEN='${token}'`);
      expect(command).toContain(`${srv.url}/download/bots/${c.lang}.tar.gz`);
      // Python: installed into a virtual environment of the folder, never into the system Python, which
      // Debian 12 / Ubuntu 23.04+ / Homebrew refuse ("externally-managed-environment", PEP 668; this machine's
      // /usr/bin/python3 is one: the old `python3 -m pip install` stopped the pasted command there).
      if (c.lang === "python") {
        expect(command).toContain(
          "python3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt",
        );
        expect(command).toMatch(/ \.venv\/bin\/python starter_bot\.py$/);
      }
      // Behind HTTPS the same panel prints wss:// and https:// (the page's own command builder, fed the address
      // GET /api reports on such a ladder); a quote in a token cannot break out of the shell's quoting.
      // (A string, so the test runner does not rewrite the page's own dynamic import.)
      const secure = (await page.evaluate(
        `import("/assets/account-ui.js").then((ui) => ui.starterCommands("wss://ladder.example/bot", "t'k"))`,
      )) as { typescript: string; python: string };
      for (const text of [secure.typescript, secure.python]) {
        expect(text).toMatch(
          /^curl -fsSL 'https:\/\/ladder\.example\/download\/bots\/(typescript|python)\.tar\.gz'/,
        );
        expect(text).toContain(`ARENA_TOKEN='t'\\''k' ARENA_URL='wss://ladder.example/bot'`);
      }

      // Run it as pasted, in a fresh folder.
      const work = mkdtempSync(join(tmpdir(), `starter-${c.lang}-`));
      dirs.push(work);
      let output = "";
      const shell = spawn("bash", ["-e", "-c", command], {
        cwd: work,
        detached: true,
        env: { ...process.env, PATH: `${shimDir}:${dirname(process.execPath)}:${process.env.PATH}` },
      });
      running.push(shell);
      shell.stdout.on("data", (d: Buffer) => {
        output += d.toString();
      });
      shell.stderr.on("data", (d: Buffer) => {
        output += d.toString();
      });

      // The bot connects, queues and is paired: its page lists a finished ranked match.
      // Making the Python starter's virtual environment takes up to half a minute on a loaded machine.
      const deadline = Date.now() + 120_000;
      let matchId: string | null = null;
      while (!matchId) {
        if (shell.exitCode !== null) throw new Error(`the starter stopped (${shell.exitCode}):\n${output}`);
        if (Date.now() > deadline) throw new Error(`no match within 120 s; the starter said:\n${output}`);
        await page.goto(`${srv.url}/bot/${botName}`);
        matchId = await page
          .locator("tr[data-match]")
          .first()
          .getAttribute("data-match", { timeout: 500 })
          .catch(() => null);
        if (!matchId) await page.waitForTimeout(500);
      }
      await page.screenshot({ path: join(SHOTS, `first-bot-match-${c.width}.png`), fullPage: true });
      const match = await srv.get<{ mode: string; bots: { name: string }[] }>(`/api/matches/${matchId}`);
      expect(match.body.mode).toBe("ranked");
      expect(match.body.bots.map((b) => b.name)).toContain(botName);
      const exited = new Promise((resolve) => shell.once("exit", resolve));
      process.kill(-shell.pid!, "SIGTERM");
      await exited;
      running.splice(running.indexOf(shell), 1);
      await context.close();
    }, 180_000);
  }
});
