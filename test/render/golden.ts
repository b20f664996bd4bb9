// Golden images: a rendered PNG is compared with test/render/fixtures/<name>.png pixel by pixel. A pixel differs when
// any channel is off by more than `tolerance` (anti-aliasing may move by a few levels between Skia builds); the render
// matches while at most `maxDiffPixels` pixels differ. The default is tight enough that moving any fixture element by
// one pixel fails (golden.test.ts proves it on the thinnest one). `UPDATE_GOLDEN=1 npm test -- test/render/…` writes
// the goldens instead; look at them before committing. On a mismatch the actual image and a diff map (differing
// pixels red) are written next to the temp dir so they can be viewed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';

/** Per-channel difference (0..255) that still counts as equal: anti-aliasing may move by a few levels. */
export const DEFAULT_TOLERANCE = 8;
/** Pixels allowed to differ: a 1 px move of even a hairline changes at least 2. */
export const DEFAULT_MAX_DIFF_PIXELS = 1;

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

export interface GoldenOptions {
  /** Largest per-channel difference (0..255) that still counts as equal. Default DEFAULT_TOLERANCE (8). */
  tolerance?: number;
  /** Most pixels allowed to differ. Default DEFAULT_MAX_DIFF_PIXELS (1). */
  maxDiffPixels?: number;
}

export interface Comparison {
  width: number;
  height: number;
  /** Pixels whose largest channel difference passes the tolerance. */
  differing: number;
  /** Largest channel difference seen. */
  worst: number;
  /** RGBA of the diff map: differing pixels red, the rest a faded copy of the expected image. */
  diff: Buffer;
}

export function comparePngs(actual: Buffer, expected: Buffer, tolerance = DEFAULT_TOLERANCE): Comparison {
  const a = PNG.sync.read(actual);
  const e = PNG.sync.read(expected);
  if (a.width !== e.width || a.height !== e.height) {
    throw new Error(`the render is ${a.width}x${a.height} but the golden is ${e.width}x${e.height}`);
  }
  const diff = Buffer.alloc(a.data.length);
  let differing = 0;
  let worst = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    let most = 0;
    for (let c = 0; c < 4; c++) most = Math.max(most, Math.abs(a.data[i + c] - e.data[i + c]));
    worst = Math.max(worst, most);
    if (most > tolerance) {
      differing++;
      diff.set([255, 0, 0, 255], i);
    } else {
      const grey = 255 - Math.round((255 - (e.data[i] + e.data[i + 1] + e.data[i + 2]) / 3) * 0.3);
      diff.set([grey, grey, grey, 255], i);
    }
  }
  return { width: a.width, height: a.height, differing, worst, diff };
}

/** Throws (naming the counts and where the evidence was written) unless `actual` matches the golden `name`. */
export function expectGolden(name: string, actual: Buffer, options: GoldenOptions = {}): void {
  const file = path.join(FIXTURES, `${name}.png`);
  if (process.env.UPDATE_GOLDEN === '1') {
    fs.writeFileSync(file, actual);
    return;
  }
  if (!fs.existsSync(file)) {
    throw new Error(`no golden ${path.relative(process.cwd(), file)}; run with UPDATE_GOLDEN=1 to write it`);
  }
  const result = comparePngs(actual, fs.readFileSync(file), options.tolerance ?? DEFAULT_TOLERANCE);
  const allowed = options.maxDiffPixels ?? DEFAULT_MAX_DIFF_PIXELS;
  if (result.differing <= allowed) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `golden-${name}-`));
  fs.writeFileSync(path.join(dir, 'actual.png'), actual);
  const map = new PNG({ width: result.width, height: result.height });
  result.diff.copy(map.data);
  fs.writeFileSync(path.join(dir, 'diff.png'), PNG.sync.write(map));
  throw new Error(
    `${name}: ${result.differing} pixels differ from the golden (at most ${allowed} may; worst channel difference ${result.worst}); actual and diff written to ${dir}`,
  );
}
