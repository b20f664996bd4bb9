// HTML5 packages in a real browser: for the fixture designs, the package after its animation ends looks like the PNG
// export of the same size (decoded pixels, per-pixel tolerance, under 2 % of pixels differing), and a click opens the
// click-tag URL with the requested target.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { DesignDocument } from '../../src/domain/design.schema.js';
import { packageHtml5 } from '../../src/render/formats/html5/package.js';
import type { Html5Settings } from '../../src/render/formats/html5/settings.js';
import { renderImage } from '../../src/render/pipeline.js';
import { comparePngs } from '../render/golden.js';
import { type RenderMedia, startRenderMedia } from '../render/render-media.js';
import { AD_ORIGIN, finishAnimations, launchBrowser, servePackage } from './browser.js';

/** Per-channel difference that counts as equal: browsers and Skia anti-alias glyph and curve edges differently. */
const TOLERANCE = 48;
const MAX_DIFFERING = 0.02;

let browser: Browser;
let media: RenderMedia;
before(async () => {
  [browser, media] = await Promise.all([launchBrowser(), startRenderMedia()]);
});
after(async () => {
  await browser?.close();
  await media?.close();
});

async function screenshotOf(doc: DesignDocument, sizeIndex: number, settings: Html5Settings = {}) {
  const pkg = await packageHtml5(doc, sizeIndex, settings, { fetcher: media.fetcher });
  const size = doc.sizes[sizeIndex];
  const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
  try {
    const refused = await servePackage(page, pkg.files);
    await page.goto(`${AD_ORIGIN}/index.html`);
    await finishAnimations(page);
    const shot = await page.screenshot({ clip: { x: 0, y: 0, width: size.width, height: size.height } });
    return { shot, refused, pkg };
  } finally {
    await page.close();
  }
}

/** The fixtures of the golden tests whose every element an HTML5 package draws (code-poster draws an embed instead). */
const FIXTURES = [
  'shapes',
  'gradient',
  'stroke',
  'image-fit',
  'svg',
  'rotation',
  'opacity',
  'visibility',
  'background',
  'text-align',
  'text-markdown',
  'text-fit',
  'text-scripts',
  'button',
];

describe('an HTML5 package looks like the PNG export once its animation ends', () => {
  for (const name of FIXTURES) {
    test(name, async () => {
      const doc = media.fixture(name);
      for (let s = 0; s < doc.sizes.length; s++) {
        const { shot, refused } = await screenshotOf(doc, s, { quality: 100 });
        assert.deepEqual(refused, [], 'the package loads only its own files');
        const png = await renderImage(doc, s, doc.sizes[s].slides.length - 1, { format: 'png', fetcher: media.fetcher });
        const { differing, width, height } = comparePngs(shot, png, TOLERANCE);
        const share = differing / (width * height);
        assert.ok(share < MAX_DIFFERING, `${name} size ${s}: ${(share * 100).toFixed(2)} % of pixels differ`);
      }
    });
  }
});
