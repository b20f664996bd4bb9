// Colour emoji in an HTML5 package against the PNG of the same design: the same glyphs should show, so the count of
// colourful pixels (channel spread over 60) should match within 10 % and sit in the same places. Noto Color Emoji's
// colour glyphs are an OpenType SVG table, which Chromium does not draw (0 colourful pixels in the package against
// 3807 in the PNG before formats/html5/emoji-images.ts drew them as images from the same font).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { readDocument } from '../../src/domain/design.schema.js';
import { packageHtml5 } from '../../src/formats/html5/package.js';
import { renderImage } from '../../src/formats/pipeline.js';
import { AD_ORIGIN, finishAnimations, launchBrowser, servePackage } from './browser.js';

let browser: Browser | undefined;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Where the colourful pixels are (channel spread over 60), as a mask of the 300×120 banner. */
async function colourful(png: Buffer): Promise<Uint8Array> {
  const { data } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const mask = new Uint8Array(data.length / 3);
  for (let i = 0; i < data.length; i += 3) {
    const high = Math.max(data[i]!, data[i + 1]!, data[i + 2]!);
    const low = Math.min(data[i]!, data[i + 1]!, data[i + 2]!);
    if (high - low > 60) mask[i / 3] = 1;
  }
  return mask;
}

const count = (mask: Uint8Array) => mask.reduce((sum, v) => sum + v, 0);

/** Colourful pixels of `a` with no colourful pixel of `b` within one pixel (3×3). */
function strays(a: Uint8Array, b: Uint8Array, width: number): number {
  let out = 0;
  const height = a.length / width;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!a[y * width + x]) continue;
      let near = false;
      for (let dy = -1; dy <= 1 && !near; dy++) {
        for (let dx = -1; dx <= 1 && !near; dx++) {
          const [nx, ny] = [x + dx, y + dy];
          near = nx >= 0 && ny >= 0 && nx < width && ny < height && b[ny * width + nx] === 1;
        }
      }
      if (!near) out++;
    }
  }
  return out;
}

const document = readDocument({
  name: 'Emoji',
  sizes: [
    {
      name: 'Banner',
      width: 300,
      height: 120,
      backgroundColor: '#FFFFFF',
      slides: [
        {
          elements: [
            {
              name: 'copy',
              type: 'text',
              x: 10,
              y: 10,
              width: 280,
              height: 100,
              text: 'Sale 🎉🔥👍🏽❤️🚀❤',
              fontFamily: 'Inter',
              fontSize: 36,
              color: '#000000',
            },
          ],
        },
      ],
    },
  ],
});

for (const [label, settings] of [
  ['as web fonts', {}],
  ['as text SVGs (convertCustomFonts)', { convertCustomFonts: true }],
] as const) {
  test(`an HTML5 package with its text ${label} shows the colour emoji the PNG shows`, async () => {
    const pkg = await packageHtml5(document, 0, settings, {});
    const page = await browser!.newPage({ viewport: { width: 300, height: 120 } });
    let shot: Buffer;
    try {
      await servePackage(page, pkg.files);
      await page.goto(`${AD_ORIGIN}/index.html`);
      await finishAnimations(page);
      shot = await page.screenshot({ clip: { x: 0, y: 0, width: 300, height: 120 } });
    } finally {
      await page.close();
    }
    const png = await renderImage(document, 0, 0, { format: 'png' });
    const [html5Mask, rasterMask] = [await colourful(shot), await colourful(png)];
    const [html5, raster] = [count(html5Mask), count(rasterMask)];
    assert.ok(raster > 1000, `the PNG shows colour emoji (${raster} colourful pixels)`);
    assert.ok(Math.abs(html5 - raster) <= raster * 0.1, `HTML5 ${html5} colourful pixels, PNG ${raster}`);
    // The same glyphs in the same places: colourful pixels with none of the other render within a pixel, both ways.
    const apart = strays(html5Mask, rasterMask, 300) + strays(rasterMask, html5Mask, 300);
    assert.ok(apart < (html5 + raster) * 0.05, `${apart} colourful pixels apart (HTML5 ${html5}, PNG ${raster})`);
    console.log(`emoji ${label}: HTML5 ${html5}, PNG ${raster} colourful pixels, ${apart} apart`);
  });
}
