// Preflight in the studio (issue 20), in headless Chromium over real HTTP, found by role and label: a design whose
// headline overflows its box shows the finding in the editor (the canvas box outlined, with an aria-description
// naming it, and a list naming the element) and in the export dialog before exporting; editing the text so that it
// fits removes the mark as the user types, before any save.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { type Studio, startStudio } from './studio-harness.js';

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

const LONG = 'An extraordinarily long headline that can never fit into this small box at this size';

function overflowing() {
  return {
    name: 'Overflow',
    sizes: [
      {
        name: 'Medium Rectangle',
        width: 300,
        height: 250,
        backgroundColor: '#FFFFFF',
        slides: [
          {
            duration: 3,
            elements: [
              {
                type: 'text',
                name: 'headline',
                x: 20,
                y: 20,
                width: 260,
                height: 40,
                text: LONG,
                fontFamily: 'Inter',
                fontVariant: '700',
                fontSize: 28,
                color: '#111827',
              },
              {
                type: 'text',
                name: 'body',
                x: 20,
                y: 120,
                width: 260,
                height: 40,
                text: 'Fits well.',
                fontFamily: 'Inter',
                fontVariant: '400',
                fontSize: 16,
                color: '#111827',
              },
            ],
          },
        ],
      },
    ],
  };
}

describe('preflight in the studio (Chromium)', () => {
  let studio: Studio;

  before(async () => {
    studio = await startStudio('Checks');
    await studio.importDesign('Overflow', overflowing());
  });
  after(async () => {
    await studio?.close();
  });
  const signedIn = () => studio.signIn();

  test('an overflowing headline is marked in the editor and listed in the export dialog; fixing it clears the mark', async () => {
    const page = await signedIn();
    await page.getByRole('button', { name: /^(Edit|Open) Overflow$/ }).click();
    const heading = page.getByRole('heading', { name: 'Editing Overflow' });
    await heading.waitFor().catch(async (error) => {
      throw new Error(`the editor did not open: ${studio.logs.join('; ')}`, { cause: error });
    });

    // The mark on the canvas: the headline's box is outlined and described; the body, which fits, is not.
    const headline = page.locator('[data-testid=canvas] [data-element-name=headline][data-finding=error]');
    await headline.waitFor({ timeout: 20_000 });
    const description = await headline.getAttribute('aria-description');
    assert.match(description ?? '', /error: Text overflows its box/);
    assert.match(
      (await headline.getAttribute('style')) ?? '',
      /outline: rgb\(220, 38, 38\) dashed 2px/,
      'a red dashed outline',
    );
    assert.equal(
      await page.locator('[data-testid=canvas] [data-element-name=body]').getAttribute('aria-description'),
      null,
    );
    // The list beside the canvas names the element; choosing it selects the headline.
    const list = page.getByRole('list', { name: 'Preflight findings' });
    const item = list.getByRole('listitem').filter({ hasText: 'Text overflows its box' });
    await item.waitFor();
    await item.getByRole('button', { name: 'headline' }).click();
    await page.getByRole('form', { name: 'Properties of headline' }).waitFor();
    await page.screenshot({ path: 'docs/img/preflight-editor.png' });

    // The export dialog lists the design's findings before anything is exported.
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Export Overflow' });
    const before = dialog.getByRole('list', { name: 'Findings before export' });
    await before.getByRole('listitem').filter({ hasText: 'headline' }).filter({ hasText: 'Text overflows' }).waitFor();
    await page.screenshot({ path: 'docs/img/preflight-export-dialog.png' });
    await dialog.getByRole('button', { name: /Close/ }).click();

    // Editing the text so that it fits removes the mark as the user types (nothing saved).
    await page.getByLabel('Text', { exact: true }).fill('Short');
    await page.locator('[data-testid=canvas] [data-element-name=headline]:not([data-finding])').waitFor({
      timeout: 20_000,
    });
    assert.equal(await page.getByRole('list', { name: 'Preflight findings' }).count(), 0);
    assert.deepEqual(
      studio.logs.filter((line) => line.startsWith('pageerror')),
      [],
    );
  });
});
