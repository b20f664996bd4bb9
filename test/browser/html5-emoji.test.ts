// Colour emoji in an HTML5 package against the PNG of the same design: the same glyphs should show, so the count of
// colourful pixels (channel spread over 60) should match within 10 %. Known gap, kept visible as a TODO: the package's
// subset of Noto Color Emoji (subset-font on harfbuzzjs) comes out without its COLR and CPAL tables, so Chromium draws
// the monochrome outlines. Measured on this design: 0 colourful pixels in the package, 3807 in the PNG.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { readDocument } from '../../src/domain/design.schema.js';
import { packageHtml5 } from '../../src/formats/html5/package.js';
import { renderImage } from '../../src/formats/pipeline.js';
import { AD_ORIGIN, CHROMIUM, finishAnimations, launchBrowser, servePackage } from './browser.js';

let browser: Browser | undefined;
before(async () => {
  assert.ok(fs.existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM}: apt-get install chromium`);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

async function colourful(png: Buffer): Promise<number> {
  const { data } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let count = 0;
  for (let i = 0; i < data.length; i += 3) {
    const high = Math.max(data[i]!, data[i + 1]!, data[i + 2]!);
    const low = Math.min(data[i]!, data[i + 1]!, data[i + 2]!);
    if (high - low > 60) count++;
  }
  return count;
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
              text: 'Sale 🎉🔥👍🏽❤️🚀',
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

test('an HTML5 package shows the colour emoji the PNG shows', {
  todo: 'the emoji subset loses its COLR/CPAL tables (subset-font on harfbuzzjs); see docs/decisions.md, issue 16',
}, async () => {
  const pkg = await packageHtml5(document, 0, {}, {});
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
  const [html5, raster] = [await colourful(shot), await colourful(png)];
  assert.ok(raster > 1000, `the PNG shows colour emoji (${raster} colourful pixels)`);
  assert.ok(Math.abs(html5 - raster) <= raster * 0.1, `HTML5 ${html5} colourful pixels, PNG ${raster}`);
});
