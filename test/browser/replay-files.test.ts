// Replays anywhere (issue 35) in real headless Chromium: the viewer opens a local .jsonl.gz from the file picker
// and by drag and drop on /view (decompressed in the page, no request carries it), draws it to its last frame
// as the file says, and shows the arena-sim fork command for the tick on screen, which run as shown gives the
// file back; /view/<id>#t=N opens a ladder replay at tick N, stepping keeps the tick in the address, and the
// copy-link control copies the link to the tick on screen. A file that is not a replay is an error message.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { houseBot } from "../../engine/house/index.ts";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { CHROMIUM_MISSING, launchBrowser } from "../helpers/browser.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";
import { runCli } from "../sim/helpers.ts";

interface ViewerState {
  status: string;
  frame: number;
  tick: number | null;
  frames: { tick: number; state: unknown }[];
  source: { kind: string; name: string } | null;
  header: { match_id: string } | null;
  error: string | null;
}

describe("replay files and tick links in the viewer", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  const tmp = mkdtempSync(join(tmpdir(), "viewer-files-"));
  let localFile = "";
  let tickLines: { tick: number; state: unknown }[] = [];

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    srv = await startServer({ tickMs: 200, startupMs: 1000 });
    browser = await launchBrowser();
    // A replay as the simulator writes it, on "the reader's disk", with a name a shell would need quoted.
    const { match } = await playMatch(
      [strategySeat(houseBot("brawler")), strategySeat(houseBot("champion"))],
      {
        matchId: "sim-columns-21-4",
        seed: 4,
        map: "columns-21",
      },
    );
    localFile = join(tmp, "my replay.jsonl.gz");
    writeFileSync(localFile, match.replay.gzip());
    tickLines = match.replay
      .linesFrom(0)
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === "tick")
      .map((l) => ({ tick: l.tick, state: l.state }));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  async function open(path: string): Promise<{ page: Page; requests: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: srv.url });
    const page = await context.newPage();
    page.on("pageerror", (err) => {
      throw new Error(`page error on ${path}: ${err.message}`);
    });
    const requests: string[] = [];
    page.on("request", (r) =>
      requests.push(`${r.method()} ${r.url()} body=${r.postDataBuffer()?.length ?? 0}`),
    );
    await page.goto(`${srv.url}${path}`);
    return { page, requests };
  }

  const viewer = (page: Page) =>
    page.evaluate(() => {
      const v = (window as unknown as { __viewer: ViewerState }).__viewer;
      return {
        status: v.status,
        frame: v.frame,
        tick: v.tick,
        frames: v.frames.map((f) => ({ tick: f.tick, state: f.state })),
        source: v.source,
        header: v.header ? { match_id: v.header.match_id } : null,
        error: v.error,
      };
    });

  const waitReady = (page: Page, kind: string) =>
    page.waitForFunction(
      (k) => {
        const v = (window as unknown as { __viewer?: ViewerState }).__viewer;
        return v?.status === "ready" && v.source?.kind === k;
      },
      kind,
      { timeout: 15_000 },
    );

  it("opens a local file from the picker, nothing uploaded, and shows the fork command for the tick", async () => {
    const { page, requests } = await open("/view");
    await page.waitForLoadState("networkidle");
    expect(await viewer(page)).toMatchObject({ status: "empty" });
    // Nothing loads before a file is chosen: the board says so instead of "Loading the replay…".
    expect(await page.locator("#viewer-status").textContent()).toBe(
      "No replay yet: choose a replay file below, or drop one on the board.",
    );
    const before = requests.length;
    await page.locator("#replay-file").setInputFiles(localFile);
    await waitReady(page, "file");
    // Read in the page: no request after the pick sends anything (the page's own polls are bodiless GETs).
    for (const r of requests.slice(before)) expect(r).toMatch(/^GET [^ ]+ body=0$/);
    const v = await viewer(page);
    expect(v.header!.match_id).toBe("sim-columns-21-4");
    expect(v.frames).toEqual(tickLines);
    expect(await page.locator("#viewer-source").textContent()).toContain(
      "my replay.jsonl.gz from your computer",
    );

    await page.keyboard.press("End");
    const last = tickLines.at(-1)!;
    expect(await page.locator("#board").getAttribute("data-tick")).toBe(String(last.tick));
    // The fork command on screen follows the tick, and run as shown (both seats replay) gives the file back.
    await page.keyboard.press("Home");
    for (let i = 0; i < 12; i++) await page.keyboard.press("ArrowRight");
    const cmd = (await page.locator("#fork-cmd").textContent())!;
    expect(cmd).toBe("node arena-sim.mjs fork 'my replay.jsonl.gz' --tick 12 --a replay --b replay");
    const out = join(tmp, "fork.jsonl.gz");
    const r = await runCli([
      "fork",
      localFile,
      "--tick",
      "12",
      "--a",
      "replay",
      "--b",
      "replay",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(Buffer.compare(readFileSync(out), readFileSync(localFile))).toBe(0);
    await page.locator("#btn-copy-fork").click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(cmd);
    // A local file has no link to share: the control says so instead of copying the page's address.
    expect(await page.locator("#btn-copy-link").isDisabled()).toBe(true);
    await page.close();
  });

  it("opens a file dropped on the board, and says so when a file is not a replay", async () => {
    const { page } = await open("/view");
    await page.waitForLoadState("networkidle");
    const drop = async (name: string, bytes: Buffer) => {
      const transfer = await page.evaluateHandle(
        ([n, b64]) => {
          const dt = new DataTransfer();
          const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
          dt.items.add(new File([data], n, { type: "application/gzip" }));
          return dt;
        },
        [name, bytes.toString("base64")] as const,
      );
      await page.dispatchEvent("#board", "dragover", { dataTransfer: transfer });
      await page.dispatchEvent("#board", "drop", { dataTransfer: transfer });
    };
    await drop("dropped.jsonl.gz", readFileSync(localFile));
    await waitReady(page, "file");
    const v = await viewer(page);
    expect(v.source!.name).toBe("dropped.jsonl.gz");
    expect(v.frames).toHaveLength(tickLines.length);
    expect(await page.locator("#fork-cmd").textContent()).toBe(
      "node arena-sim.mjs fork dropped.jsonl.gz --tick 0 --a replay --b replay",
    );
    await drop("notes.jsonl.gz", Buffer.from("these are my notes, not a replay"));
    await page.waitForFunction(
      () => (window as unknown as { __viewer: ViewerState }).__viewer.status === "error",
    );
    expect(await page.locator("#viewer-status").textContent()).toContain("Cannot show this match:");
    await page.close();
  });

  it("a link carries the tick (/view/<id>#t=N), stepping keeps it, and copy-link copies it", async () => {
    const bot = new BotClient(srv.wsUrl, await srv.register("tick-link-bot"));
    await bot.open();
    const hello = await bot.queueForMatch();
    const id = hello.match_id as string;
    const since = bot.received.length;
    const stop = bot.autoplay((o) => ({
      type: "turn",
      tick: o.tick,
      move: (o.moves as { dir: string }[])[0]?.dir,
    }));
    bot.send({ type: "ready" });
    const end = await bot.next("end", undefined, 120_000, since);
    stop();
    bot.close();
    const served = gunzipSync(
      Buffer.from(await (await fetch(`${srv.url}/replays/${id}.jsonl.gz`)).arrayBuffer()),
    )
      .toString("utf8")
      .split("\n")
      .filter((l) => l.startsWith('{"type":"tick"'));
    const t = Math.min(12, served.length - 1);
    expect(end.final_tick as number).toBeGreaterThan(t);

    const { page } = await open(`/view/${id}#t=${t}`);
    await waitReady(page, "url");
    expect((await viewer(page)).tick).toBe(t);
    expect(await page.locator("#fork-cmd").textContent()).toBe(
      `node arena-sim.mjs fork ${id}.jsonl.gz --tick ${t} --a replay --b replay`,
    );
    await page.keyboard.press("ArrowRight");
    expect(new URL(page.url()).hash).toBe(`#t=${t + 1}`);
    await page.locator("#btn-copy-link").click();
    const link = `${srv.url}/view/${id}#t=${t + 1}`;
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    expect(await page.locator("#copy-status").textContent()).toContain(link);
    // Following a changed address moves the board.
    await page.evaluate(() => {
      location.hash = "#t=3";
    });
    await page.waitForFunction(() => (window as unknown as { __viewer: ViewerState }).__viewer.tick === 3);
    await page.close();
  }, 180_000);
});
