// A brand font in an HTML5 package, in a real browser: the package's subset web font draws the text where the PNG
// export draws it (decoded pixels, the HTML5 suite's tolerance), and differs clearly from the same text in Inter.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { type DesignDocument, readDocument } from '../../src/domain/design.schema.js';
import { packageHtml5 } from '../../src/formats/html5/package.js';
import { renderImage } from '../../src/formats/pipeline.js';
import { useBrandFamilies } from '../../src/render/text/brand-fonts.js';
import { comparePngs } from '../render/golden.js';
import { AD_ORIGIN, finishAnimations, launchBrowser, servePackage } from './browser.js';

const TOLERANCE = 48;
const MAX_DIFFERING = 0.02;
const FONT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/fonts/DejaVuSerif.ttf');
const FAMILY = 'PlacardBrandBrowserTest';

function design(family: string): DesignDocument {
  return readDocument({
    name: 'Brand',
    sizes: [
      {
        name: 'Banner',
        width: 300,
        height: 250,
        backgroundColor: '#FFFFFF',
        slides: [
          {
            duration: 2,
            elements: [
              {
                type: 'text',
                name: 'headline',
                x: 12,
                y: 20,
                width: 276,
                height: 120,
                text: 'Hamburg Quality 1234, wrapped over lines',
                fontFamily: family,
                fontVariant: '400',
                fontSize: 30,
                color: '#111827',
              },
            ],
          },
        ],
      },
    ],
  });
}

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
  useBrandFamilies([
    {
      name: FAMILY,
      displayName: 'DejaVu Serif',
      faces: [{ fontId: 1, variant: '400', path: FONT, embeddable: true, fileName: 'DejaVuSerif.ttf' }],
    },
  ]);
});
after(async () => {
  await browser?.close();
});

async function screenshot(doc: DesignDocument): Promise<Buffer> {
  const pkg = await packageHtml5(doc, 0, { quality: 100 }, {});
  const page = await browser.newPage({ viewport: { width: 300, height: 250 } });
  try {
    assert.deepEqual(await servePackage(page, pkg.files), [], 'the package loads only its own files');
    await page.goto(`${AD_ORIGIN}/index.html`);
    await finishAnimations(page);
    return await page.screenshot({ clip: { x: 0, y: 0, width: 300, height: 250 } });
  } finally {
    await page.close();
  }
}

describe('a brand font in an HTML5 package', () => {
  test('renders in Chromium like the PNG export, and not like Inter', async () => {
    const doc = design(FAMILY);
    const shot = await screenshot(doc);
    const png = await renderImage(doc, 0, 0, { format: 'png' });
    const same = comparePngs(shot, png, TOLERANCE);
    assert.ok(same.differing / (300 * 250) < MAX_DIFFERING, `${same.differing} pixels differ from the PNG`);
    const inter = await renderImage(design('Inter'), 0, 0, { format: 'png' });
    const other = comparePngs(shot, inter, TOLERANCE);
    assert.ok(other.differing > 4 * same.differing + 200, `only ${other.differing} pixels differ from Inter`);
  });
});
