// Headless Chromium for the browser tests: Debian's chromium driven by playwright-core (no browser
// downloads on this network). The flags keep it from reaching for Google's services, which this machine's
// closed network refuses. Tests skip with CHROMIUM_MISSING as their reason when the package is missing (a
// skip that fails a CI run; .ci/run installs it).
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const CHROMIUM_MISSING = HAVE_CHROMIUM
  ? null
  : `${CHROMIUM} is missing (install Debian's chromium package)`;

/** Where screenshots go for a reviewer to look at (ignored by git). */
export const SHOTS = join(process.cwd(), "test-artifacts", "screenshots");

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
