// Screenshot baselines for the page tests: a page's first screen (the viewport, not the whole page), shrunk
// four times by averaging 4x4 pixel blocks so each committed PNG stays a few kilobytes, compared with
// test/browser/baselines/<name>.png by pixelmatch. Tolerance: pixelmatch's per-pixel colour threshold 0.2, and
// at most 1.5 % of the shrunk pixels may differ (anti-aliasing, a font hinting change); a moved or missing
// block, a colour change or a broken layout differs far more. `UPDATE_BASELINES=1` rewrites the baselines
// instead of comparing (npm run test:baselines, docs/testing.md). A failed comparison leaves the actual shot
// and the diff in test-artifacts/baselines/.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pixelmatch from "pixelmatch";
import type { Locator, Page } from "playwright-core";
import { PNG } from "pngjs";

export const BASELINES = join(process.cwd(), "test", "browser", "baselines");
const ARTIFACTS = join(process.cwd(), "test-artifacts", "baselines");
export const UPDATING = process.env.UPDATE_BASELINES === "1";
/** Share of the shrunk image's pixels that may differ. */
export const MAX_DIFF_RATIO = 0.015;
const SHRINK = 4;

function shrink(src: PNG): PNG {
  const w = Math.floor(src.width / SHRINK);
  const h = Math.floor(src.height / SHRINK);
  const out = new PNG({ width: w, height: h });
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let c = 0; c < 4; c++) {
        let sum = 0;
        for (let dy = 0; dy < SHRINK; dy++)
          for (let dx = 0; dx < SHRINK; dx++)
            sum += src.data[((y * SHRINK + dy) * src.width + x * SHRINK + dx) * 4 + c]!;
        out.data[(y * w + x) * 4 + c] = Math.round(sum / (SHRINK * SHRINK));
      }
  return out;
}

export interface VisualResult {
  name: string;
  diffRatio: number;
  updated: boolean;
}

/** Compares the page's first screen with its baseline (or writes the baseline when updating). */
export async function matchesBaseline(page: Page, name: string, mask: Locator[] = []): Promise<VisualResult> {
  const shot = await page.screenshot({
    animations: "disabled",
    caret: "hide",
    scale: "css",
    mask,
    maskColor: "#888888",
  });
  const small = shrink(PNG.sync.read(shot));
  const file = join(BASELINES, `${name}.png`);
  if (UPDATING) {
    mkdirSync(BASELINES, { recursive: true });
    writeFileSync(file, PNG.sync.write(small, { colorType: 2 }));
    return { name, diffRatio: 0, updated: true };
  }
  if (!existsSync(file))
    throw new Error(`no baseline ${file}: run \`npm run test:baselines\` and commit the images`);
  const base = PNG.sync.read(readFileSync(file));
  if (base.width !== small.width || base.height !== small.height) {
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, `${name}.actual.png`), PNG.sync.write(small));
    return { name, diffRatio: 1, updated: false };
  }
  const diff = new PNG({ width: small.width, height: small.height });
  const differing = pixelmatch(base.data, small.data, diff.data, small.width, small.height, {
    threshold: 0.2,
  });
  const diffRatio = differing / (small.width * small.height);
  if (diffRatio > MAX_DIFF_RATIO) {
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, `${name}.actual.png`), PNG.sync.write(small));
    writeFileSync(join(ARTIFACTS, `${name}.diff.png`), PNG.sync.write(diff));
  }
  return { name, diffRatio, updated: false };
}
