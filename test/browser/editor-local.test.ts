// The editor draws what it knows of the packager's markup itself (issue 19): with the server's drawings held back, a
// colour, a hide and a z-order change already show on the canvas; once they arrive the canvas says the same. Fonts
// travel once: a later drawing names the faces the page holds, and its answer leaves them out.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page, Route } from 'playwright-core';
import { DEMO_DESIGNS } from '../../src/cli/demo-designs.js';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { type Studio, startStudio } from './studio-harness.js';

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

/** Polls `check` in the page until it holds (a loaded machine: a generous deadline, no fixed sleep). */
async function until(page: Page, check: string, what: string) {
  await page.waitForFunction(check, undefined, { timeout: 60_000 }).catch((error) => {
    throw new Error(`the canvas did not show ${what}`, { cause: error });
  });
}

describe('the editor canvas draws colour, visibility and order itself', () => {
  let studio: Studio;
  let hash: string;

  before(async () => {
    studio = await startStudio('Local paint');
    const design = DEMO_DESIGNS[0];
    hash = await studio.importDesign(design.name, design.document);
  });
  after(async () => {
    await studio?.close();
  });

  test('with the server held back, the change shows; the server then draws the same', async () => {
    const page = await studio.signIn();
    // Every canvas request and answer, to read what travels.
    const requests: Array<{ knownFaces?: string[] }> = [];
    const answers: Array<{ faces: string[]; fontCss: string }> = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/studio/canvas')) requests.push(r.postDataJSON());
    });
    // A body still being read when the page closes at the end is not an answer; its rejection is dropped here rather
    // than failing the file after the test (seen once in CI).
    page.on('response', (r) => {
      if (r.url().endsWith('/v1/studio/canvas') && r.ok()) {
        r.json().then(
          (body) => answers.push(body.response),
          () => {},
        );
      }
    });

    // The first answer, awaited itself: the listener above reads its body asynchronously, and may not have pushed it
    // yet when the canvas already shows (a CI run failed on that).
    const firstAnswer = page.waitForResponse((r) => r.url().endsWith('/v1/studio/canvas') && r.ok());
    await page.goto(`${studio.origin}/app/designs/${hash}/edit`);
    await page.locator('[data-testid=canvas][aria-busy=false] [data-element-name=headline]').waitFor();
    const first = (await (await firstAnswer).json()).response as { faces: string[] };
    assert.ok(first.faces.length >= 1, 'the first drawing brings its faces');
    const layers = page.getByRole('complementary', { name: 'Layers' });
    const box = (name: string) => `document.querySelector('[data-testid=canvas] [data-element-name=${name}]')`;

    // Hold every drawing from here on.
    const held: Route[] = [];
    await page.route('**/v1/studio/canvas', (route) => {
      held.push(route);
    });
    await layers.getByRole('button', { name: 'cta' }).click();
    await page.getByLabel('Button colour').fill('#ff0000');
    await until(page, `getComputedStyle(${box('cta')}.firstElementChild).backgroundColor === 'rgb(255, 0, 0)'`, 'red');
    const toolbar = page.getByRole('toolbar', { name: 'Edit' });
    await toolbar.getByRole('button', { name: 'Send backward' }).click();
    await until(
      page,
      `(() => { const names = [...${box('cta')}.parentElement.children].map((b) => b.dataset.elementName); return names.indexOf('cta') < names.indexOf('headline'); })()`,
      'the button behind the headline',
    );
    await toolbar.getByRole('button', { name: 'Show or hide' }).click();
    await until(page, `getComputedStyle(${box('cta')}).display === 'none'`, 'the button hidden');
    assert.ok(held.length >= 1, 'the drawings were asked for and are still held');
    for (const route of held) await route.continue();
    await page.unroute('**/v1/studio/canvas');

    // The server's drawing of the last change arrives and says the same.
    await until(page, `document.querySelector('[data-testid=canvas]').getAttribute('aria-busy') === 'false'`, 'done');
    await until(
      page,
      `(() => { const b = ${box('cta')}; const names = [...b.parentElement.children].map((x) => x.dataset.elementName); return getComputedStyle(b).display === 'none' && getComputedStyle(b.firstElementChild).backgroundColor === 'rgb(255, 0, 0)' && names.indexOf('cta') < names.indexOf('headline'); })()`,
      'the server drawing with the same changes',
    );

    // Fonts once: a later request names the faces the page holds; no answer brings one of those again.
    const last = requests[requests.length - 1];
    assert.ok((last.knownFaces ?? []).length >= 1, JSON.stringify(last));
    const firstFaces = new Set(first.faces);
    for (const answer of answers.slice(1)) {
      for (const face of answer.faces) assert.ok(!firstFaces.has(face), `${face} was sent twice`);
    }
  });
});
