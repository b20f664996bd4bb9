// Reading pixels of encoded frames in tests: PNG through pngjs, JPEG and WEBP through Skia's decoder.
import assert from 'node:assert/strict';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { PNG } from 'pngjs';

export type Rgba = [number, number, number, number];

export interface Pixels {
  width: number;
  height: number;
  at(x: number, y: number): Rgba;
}

export function decodePng(bytes: Buffer): Pixels {
  const png = PNG.sync.read(bytes);
  return {
    width: png.width,
    height: png.height,
    at(x, y) {
      const i = (png.width * y + x) * 4;
      return [...png.data.subarray(i, i + 4)] as Rgba;
    },
  };
}

/** Any format Skia decodes (JPEG, WEBP, PNG). */
export async function decodeAny(bytes: Buffer): Promise<Pixels> {
  const image = await loadImage(bytes);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const data = ctx.getImageData(0, 0, image.width, image.height).data;
  return {
    width: image.width,
    height: image.height,
    at(x, y) {
      const i = (image.width * y + x) * 4;
      return [data[i], data[i + 1], data[i + 2], data[i + 3]];
    },
  };
}

/** Asserts a pixel is within `tolerance` of `expected` in every channel (lossy formats, anti-aliasing). */
export function assertPixel(pixels: Pixels, x: number, y: number, expected: readonly number[], tolerance = 0): void {
  const actual = pixels.at(x, y);
  const ok = expected.every((v, c) => Math.abs(actual[c] - v) <= tolerance);
  assert.ok(ok, `pixel (${x}, ${y}) is [${actual}], expected [${expected}] ± ${tolerance}`);
}
