// The design editor (issue 19) in headless Chromium over real HTTP, found by role and label: open a demo design,
// select `headline` in the layers, change its text and the button's colour, drag the button, undo and redo, save,
// export a PNG whose pixels show the change at the new place, and a canvas that differs from that PNG in under 2% of
// its pixels; a stale save in a second tab gets the conflict prompt; a draft survives a reload; a Viewer cannot edit;
// a design made from scratch with a text, a brand kit image and a button exports as built. Screenshots for the README.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { DEMO_DESIGNS } from '../../src/cli/demo-designs.js';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { launchBrowser } from './browser.js';
import { signInInvited } from './studio-harness.js';

const FONT = new URL('../fixtures/fonts/DejaVuSerif.ttf', import.meta.url);

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

type Rgba = [number, number, number, number];
function pixel(png: PNG, x: number, y: number): Rgba {
  const i = (png.width * y + x) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2], png.data[i + 3]];
}
function near(a: Rgba, b: [number, number, number], tolerance = 24) {
  return Math.abs(a[0] - b[0]) <= tolerance && Math.abs(a[1] - b[1]) <= tolerance && Math.abs(a[2] - b[2]) <= tolerance;
}
/** Share of pixels whose any channel differs by more than `tolerance` (anti-aliasing of edges aside). */
function differingShare(a: PNG, b: PNG, tolerance = 40): number {
  assert.equal(a.width, b.width);
  assert.equal(a.height, b.height);
  let differ = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (
      Math.abs(a.data[i] - b.data[i]) > tolerance ||
      Math.abs(a.data[i + 1] - b.data[i + 1]) > tolerance ||
      Math.abs(a.data[i + 2] - b.data[i + 2]) > tolerance
    ) {
      differ++;
    }
  }
  return differ / (a.width * a.height);
}

describe('the design editor in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let projectId: number;
  let kitId: number;
  let images: http.Server;
  let origin: string;
  const hashes: string[] = [];
  const contexts: BrowserContext[] = [];
  const logs: string[] = [];

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await startTestApp({ publicUrl: origin, allowPrivateUrls: true });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    // A brand kit image source: a 40x30 green PNG served locally.
    const green = new PNG({ width: 40, height: 30 });
    for (let i = 0; i < green.data.length; i += 4) green.data.set([16, 185, 129, 255], i);
    const bytes = PNG.sync.write(green);
    images = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(bytes));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    const call = async (method: 'POST', url: string, payload: object) => {
      const res = await t.app.inject({ method, url, headers: t.owner.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    kitId = (await call('POST', '/v1/brandkits/create', { name: 'Kit' })).response.brandKit.id;
    projectId = (await call('POST', '/v1/projects', { name: 'Spring campaign', brandKitId: kitId })).response.project
      .id;
    for (const design of DEMO_DESIGNS) {
      const imported = await call('POST', '/v1/templates/import', {
        projectId,
        name: design.name,
        document: design.document,
      });
      hashes.push(imported.response.template.id);
    }
    const { port: imagePort } = images.address() as AddressInfo;
    await call('POST', '/v1/brandkit/uploadAssets', {
      brandkitId: kitId,
      sources: [`http://127.0.0.1:${imagePort}/green.png`],
    });
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
    images?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1400, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    // Page errors fail the test with their message rather than as a timeout elsewhere.
    page.on('pageerror', (error) => logs.push(`pageerror: ${error.message}`));
    page.on('console', (m) => m.type() === 'error' && logs.push(`console: ${m.text()}`));
    return page;
  }

  async function invited(role: 'Editor' | 'Viewer') {
    const page = await newPage();
    const user = await signInInvited(t, page, { role, projectId });
    return { user, page };
  }

  async function openDesign(page: Page, name: string) {
    await page.getByRole('button', { name: new RegExp(`^(Edit|Open) ${name}$`) }).click();
    await page
      .getByRole('heading', { name: `Editing ${name}` })
      .waitFor()
      .catch(async (error) => {
        throw new Error(`the editor did not open: ${(await page.content()).slice(0, 3000)} ${logs.join('; ')}`, {
          cause: error,
        });
      });
    await page.locator('[data-testid=canvas] [data-element-name]').first().waitFor();
  }

  /** Waits until the canvas has no drawing on its way (the server's layout of the last change is shown). */
  async function settled(page: Page) {
    await page.locator('[data-testid=canvas][aria-busy=false]').waitFor();
  }

  async function storedDocument(hash: string) {
    const res = await t.app.inject({ method: 'GET', url: `/v1/templates/${hash}/document`, headers: t.owner.headers });
    return res.json().response;
  }

  async function exportPng(page: Page, name: string): Promise<PNG> {
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Export ${name}` });
    await dialog.getByLabel('File type').selectOption('png');
    await dialog.getByRole('button', { name: 'Start export' }).click();
    const link = dialog.getByRole('link', { name: /^Download / });
    await link.waitFor({ timeout: 20_000 }).catch(async (error) => {
      throw new Error(`no download link; the dialog reads: ${await dialog.textContent()}`, { cause: error });
    });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const png = PNG.sync.read(fs.readFileSync(await download.path()));
    await dialog.getByRole('button', { name: /Close/ }).click();
    return png;
  }

  const layers = (page: Page) => page.getByRole('complementary', { name: 'Layers' });

  test('edit a demo design: text, colour, drag, undo/redo, save, export shows it; the canvas is the export', async () => {
    const { page } = await invited('Editor');
    const name = DEMO_DESIGNS[0].name;
    await openDesign(page, name);
    await page.screenshot({ path: 'docs/img/editor-open.png' });

    await layers(page).getByRole('button', { name: 'headline' }).click();
    await page.getByRole('form', { name: 'Properties of headline' }).waitFor();
    await page.getByLabel('Text', { exact: true }).fill('Fresh deals all week');
    await page.locator('[data-element-name=headline]', { hasText: 'Fresh' }).waitFor();

    await layers(page).getByRole('button', { name: 'cta' }).click();
    await page.getByLabel('Button colour').fill('#ff0000');
    await settled(page);

    // Drag the button by (+120, −40): from (16, 194) to (136, 154).
    const box = await page.locator('[data-testid=canvas] [data-element-name=cta]').boundingBox();
    assert.ok(box);
    await page.mouse.move(box.x + 30, box.y + 10);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + 30 + 12 * i, box.y + 10 - 4 * i);
    await page.mouse.up();
    await page.getByLabel('X', { exact: true }).and(page.locator('input')).waitFor();
    assert.equal(await page.getByLabel('X', { exact: true }).inputValue(), '136');
    assert.equal(await page.getByLabel('Y', { exact: true }).inputValue(), '154');
    await page.screenshot({ path: 'docs/img/editor-editing.png' });

    const toolbar = page.getByRole('toolbar', { name: 'Edit' });
    await toolbar.getByRole('button', { name: 'Undo' }).click();
    assert.equal(await page.getByLabel('X', { exact: true }).inputValue(), '16');
    const boxBack = await page.locator('[data-testid=canvas] [data-element-name=cta]').boundingBox();
    assert.equal(Math.round((boxBack?.x ?? 0) - box.x), 0, 'the canvas shows the undone position');
    await toolbar.getByRole('button', { name: 'Redo' }).click();
    assert.equal(await page.getByLabel('X', { exact: true }).inputValue(), '136');

    await toolbar.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved/ })
      .waitFor();
    const stored = await storedDocument(hashes[0]);
    const elements = stored.sizes[0].slides[0].elements;
    const cta = elements.find((e: { name: string }) => e.name === 'cta');
    assert.equal(elements.find((e: { name: string }) => e.name === 'headline').text, 'Fresh deals all week');
    assert.deepEqual([cta.x, cta.y, cta.fill], [136, 154, '#FF0000']);

    const png = await exportPng(page, name);
    assert.ok(near(pixel(png, 140, 172), [255, 0, 0]), `button at its new place: ${pixel(png, 140, 172)}`);
    assert.ok(!near(pixel(png, 20, 212), [255, 0, 0]), 'nothing red at the old place');

    await page.keyboard.press('Escape'); // no handles over the canvas
    await settled(page);
    const shot = PNG.sync.read(await page.locator('[data-testid=canvas]').screenshot());
    const share = differingShare(shot, png);
    assert.ok(share < 0.02, `the canvas differs from the exported PNG in ${(share * 100).toFixed(2)}% of pixels`);
  });

  test('a stale save in a second tab gets the conflict message and loses nothing', async () => {
    const { page } = await invited('Editor');
    const name = DEMO_DESIGNS[1].name;
    await openDesign(page, name);
    const second = await page.context().newPage();
    await second.goto(page.url());
    await second.getByRole('heading', { name: `Editing ${name}` }).waitFor();

    await layers(page).getByRole('button', { name: 'headline' }).click();
    await page.getByLabel('Text', { exact: true }).fill('From the first tab');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved/ })
      .waitFor();

    await layers(second).getByRole('button', { name: 'headline' }).click();
    await second.getByLabel('Text', { exact: true }).fill('From the second tab');
    await second.getByRole('button', { name: 'Save' }).click();
    const prompt = second.getByRole('alertdialog', { name: 'This design changed elsewhere' });
    await prompt.waitFor();
    assert.match((await prompt.textContent()) ?? '', /Someone else saved this design/);
    assert.equal(await second.getByLabel('Text', { exact: true }).inputValue(), 'From the second tab');
    assert.equal((await storedDocument(hashes[1])).sizes[0].slides[0].elements[2].text, 'From the first tab');
    await second.screenshot({ path: 'docs/img/editor-conflict.png' });

    await prompt.getByRole('button', { name: 'Save mine over it' }).click();
    await second
      .getByRole('status')
      .filter({ hasText: /^Saved/ })
      .waitFor();
    assert.equal((await storedDocument(hashes[1])).sizes[0].slides[0].elements[2].text, 'From the second tab');
  });

  test('a draft survives a reload and is offered back', async () => {
    const { page } = await invited('Editor');
    const name = DEMO_DESIGNS[0].name;
    await openDesign(page, name);
    await layers(page).getByRole('button', { name: 'headline' }).click();
    await page.getByLabel('Text', { exact: true }).fill('Typed, never saved');
    await page.reload();
    const prompt = page.getByRole('alertdialog', { name: 'Restore your unsaved changes?' });
    await prompt.waitFor();
    await prompt.getByRole('button', { name: 'Restore draft' }).click();
    await layers(page).getByRole('button', { name: 'headline' }).click();
    assert.equal(await page.getByLabel('Text', { exact: true }).inputValue(), 'Typed, never saved');
    assert.notEqual(
      (await storedDocument(hashes[0])).sizes[0].slides[0].elements.find((e: { name: string }) => e.name === 'headline')
        .text,
      'Typed, never saved',
    );
  });

  test('a Viewer can open a design but not edit it', async () => {
    const { page } = await invited('Viewer');
    const name = DEMO_DESIGNS[0].name;
    await openDesign(page, name);
    await page.getByRole('status').filter({ hasText: 'View only' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Add text' }).count(), 0);
    await layers(page).getByRole('button', { name: 'headline' }).click();
    assert.equal(await page.getByLabel('Text', { exact: true }).isDisabled(), true);
  });

  test('a new design from scratch with a text, a brand kit image and a button exports as built', async () => {
    const { page } = await invited('Editor');
    await page.getByRole('button', { name: 'New design' }).click();
    await page.getByLabel('Design name').fill('From scratch');
    await page.getByLabel('Start from').selectOption({ label: 'Medium Rectangle (300x250)' });
    await page.getByRole('button', { name: 'Create and edit' }).click();
    await page.getByRole('heading', { name: 'Editing From scratch' }).waitFor();

    await page.getByRole('button', { name: 'Add text' }).click();
    await page.getByLabel('Text', { exact: true }).fill('Hello');
    await page.getByLabel('Y', { exact: true }).fill('10');

    await page.getByRole('button', { name: 'Add image' }).click();
    await page.getByRole('group', { name: 'Brand kit images' }).getByRole('button', { name: /^Use / }).click();
    await page.getByLabel('X', { exact: true }).fill('0');
    await page.getByLabel('Y', { exact: true }).fill('60');
    await page.getByLabel('Width', { exact: true }).fill('100');
    await page.getByLabel('Height', { exact: true }).fill('80');

    await page.getByRole('button', { name: 'Add button' }).click();
    await page.getByLabel('X', { exact: true }).fill('150');
    await page.getByLabel('Y', { exact: true }).fill('180');
    await settled(page);
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved/ })
      .waitFor();
    await page.screenshot({ path: 'docs/img/editor-new.png' });

    const png = await exportPng(page, 'From scratch');
    assert.equal(png.width, 300);
    assert.ok(near(pixel(png, 50, 100), [16, 185, 129]), `brand kit image: ${pixel(png, 50, 100)}`);
    assert.ok(near(pixel(png, 155, 200), [37, 99, 235]), `button: ${pixel(png, 155, 200)}`);
    assert.ok(near(pixel(png, 250, 120), [255, 255, 255]), 'white background elsewhere');
    // The text: dark ink somewhere in its box.
    let ink = false;
    for (let y = 10; y < 50 && !ink; y++) for (let x = 50; x < 250 && !ink; x++) ink = pixel(png, x, y)[0] < 100;
    assert.ok(ink, 'the text is drawn');
  });

  test('font pickers offer the catalogue and the brand fonts; an image uploaded from disk becomes the source', async () => {
    // A brand font of the team, and a design of this test's own.
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(FONT)]), 'DejaVuSerif.ttf');
    const font = await fetch(`${origin}/v1/brandkit/${kitId}/fonts`, {
      method: 'POST',
      headers: t.owner.headers,
      body: form,
    });
    assert.equal(font.status, 200, await font.text());
    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: t.owner.headers,
      payload: { projectId, name: 'Pickers', document: DEMO_DESIGNS[0].document },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const hash = imported.json().response.template.id;

    const { page } = await invited('Editor');
    await openDesign(page, 'Pickers');
    await layers(page).getByRole('button', { name: 'headline' }).click();
    const family = page.getByLabel('Font', { exact: true });
    await family.locator('option', { hasText: 'DejaVu Serif (brand font)' }).waitFor({ state: 'attached' });
    assert.ok((await family.locator('option').count()) > 2, 'the bundled families are listed too');
    await family.selectOption('DejaVu Serif');
    const variant = page.getByLabel('Font variant');
    await variant.locator('option', { hasText: 'Regular (400)' }).waitFor({ state: 'attached' });
    await variant.selectOption('400');
    await settled(page);

    // An image element, then a red PNG uploaded from disk as its source.
    await page.getByRole('button', { name: 'Add image' }).click();
    await page.getByRole('group', { name: 'Brand kit images' }).getByRole('button', { name: /^Use / }).first().click();
    await page.getByLabel('X', { exact: true }).fill('200');
    await page.getByLabel('Y', { exact: true }).fill('150');
    await page.getByLabel('Width', { exact: true }).fill('100');
    await page.getByLabel('Height', { exact: true }).fill('100');
    const before = await page.getByLabel('Image source').inputValue();
    const red = new PNG({ width: 20, height: 20 });
    for (let i = 0; i < red.data.length; i += 4) red.data.set([255, 0, 0, 255], i);
    const file = `${t.config.dataDir}/red-upload.png`;
    fs.writeFileSync(file, PNG.sync.write(red));
    await page.getByLabel('Upload image').setInputFiles(file);
    await page.waitForFunction(`document.getElementById('prop-src').value !== ${JSON.stringify(before)}`);
    const source = await page.getByLabel('Image source').inputValue();
    // The asset's link: served by the API (/files/assets/…) or, scaled out, a presigned S3 link (/<bucket>/assets/…).
    assert.match(source, /^http:\/\/127\.0\.0\.1:\d+\/(files|placard-t-[^/]+)\/assets\//);
    await settled(page);

    await page.getByRole('toolbar', { name: 'Edit' }).getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved/ })
      .waitFor();
    const elements = (await storedDocument(hash)).sizes[0].slides[0].elements;
    const headline = elements.find((e: { name: string }) => e.name === 'headline');
    assert.deepEqual([headline.fontFamily, headline.fontVariant], ['DejaVu Serif', '400']);
    const image = elements.find((e: { type: string }) => e.type === 'image');
    assert.equal(image.src, source);
    const png = await exportPng(page, 'Pickers');
    assert.ok(near(pixel(png, 250, 200), [255, 0, 0]), `the uploaded image is drawn: ${pixel(png, 250, 200)}`);
  });

  test('versions: keep one, preview it on the canvas, restore it', async () => {
    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: t.owner.headers,
      payload: { projectId, name: 'Versioned', document: DEMO_DESIGNS[0].document },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const hash = imported.json().response.template.id;
    const { page } = await invited('Editor');
    await openDesign(page, 'Versioned');
    const toolbar = page.getByRole('toolbar', { name: 'Edit' });
    const saveAndWait = async () => {
      await toolbar.getByRole('button', { name: 'Save' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^Saved/ })
        .waitFor();
    };
    await layers(page).getByRole('button', { name: 'headline' }).click();
    await page.getByLabel('Text', { exact: true }).fill('Version A');
    await settled(page);
    await saveAndWait();
    await page.getByRole('button', { name: 'Versions' }).click();
    await page.getByLabel('Version name').fill('Launch copy');
    await page.getByRole('button', { name: 'Keep version' }).click();
    const list = page.getByRole('list', { name: 'Design versions' });
    await list.getByRole('listitem', { name: 'Launch copy' }).waitFor();

    await page.getByLabel('Text', { exact: true }).fill('Version B');
    await settled(page);
    await saveAndWait();
    await page.locator('[data-testid=canvas] [data-element-name=headline]', { hasText: 'Version B' }).waitFor();

    await list.getByRole('button', { name: 'Preview Launch copy' }).click();
    await page.getByRole('status').filter({ hasText: 'Previewing “Launch copy”' }).waitFor();
    await page.locator('[data-testid=canvas] [data-element-name=headline]', { hasText: 'Version A' }).waitFor();
    await page.screenshot({ path: 'docs/img/editor-versions.png', fullPage: true });
    await list.getByRole('button', { name: 'Close the preview of Launch copy' }).click();
    await page.locator('[data-testid=canvas] [data-element-name=headline]', { hasText: 'Version B' }).waitFor();
    const stored = async () =>
      (await storedDocument(hash)).sizes[0].slides[0].elements.find((e: { name: string }) => e.name === 'headline')
        .text;
    assert.equal(await stored(), 'Version B', 'a preview changes nothing');

    await list.getByRole('button', { name: 'Restore Launch copy' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Restored “Launch copy”/ })
      .first()
      .waitFor();
    await page.locator('[data-testid=canvas] [data-element-name=headline]', { hasText: 'Version A' }).waitFor();
    assert.equal(await stored(), 'Version A');
    // The restore kept what it replaced, so it can be undone.
    await list.getByRole('listitem', { name: 'Before restoring “Launch copy”' }).waitFor();
  });

  test('align to the size, copy and paste (buttons and Ctrl+C / Ctrl+V), then save', async () => {
    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: t.owner.headers,
      payload: { projectId, name: 'Aligned', document: DEMO_DESIGNS[0].document },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const hash = imported.json().response.template.id;
    const { page } = await invited('Editor');
    await openDesign(page, 'Aligned');
    const toolbar = page.getByRole('toolbar', { name: 'Edit' });
    await layers(page).getByRole('button', { name: 'cta', exact: true }).click();
    const width = Number(await page.getByLabel('Width', { exact: true }).inputValue());
    const height = Number(await page.getByLabel('Height', { exact: true }).inputValue());
    await toolbar.getByRole('button', { name: 'Align right' }).click();
    assert.equal(await page.getByLabel('X', { exact: true }).inputValue(), String(300 - width));
    await toolbar.getByRole('button', { name: 'Align bottom' }).click();
    assert.equal(await page.getByLabel('Y', { exact: true }).inputValue(), String(250 - height));
    await toolbar.getByRole('button', { name: 'Align centre' }).click();
    assert.equal(await page.getByLabel('X', { exact: true }).inputValue(), String(Math.round((300 - width) / 2)));

    await toolbar.getByRole('button', { name: 'Copy' }).click();
    await toolbar.getByRole('button', { name: 'Paste' }).click();
    await layers(page).getByRole('button', { name: 'cta 2' }).waitFor();
    await page.getByRole('form', { name: 'Properties of cta 2' }).waitFor();
    // The keyboard: the pasted copy is selected; Ctrl+C / Ctrl+V makes a third.
    await page
      .locator('[data-testid=canvas]')
      .click({ position: { x: 2, y: 2 } })
      .catch(() => undefined);
    await layers(page).getByRole('button', { name: 'cta 2' }).click();
    await page.keyboard.press('Control+c');
    await page.keyboard.press('Control+v');
    await layers(page).getByRole('button', { name: 'cta 3' }).waitFor();
    await settled(page);
    await toolbar.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved/ })
      .waitFor();
    const elements = (await storedDocument(hash)).sizes[0].slides[0].elements as {
      name: string;
      x: number;
      y: number;
      label: string;
    }[];
    const ctas = elements.filter((e) => e.name.startsWith('cta'));
    assert.deepEqual(
      ctas.map((e) => e.name),
      ['cta', 'cta 2', 'cta 3'],
    );
    const [original, second, third] = ctas;
    assert.deepEqual([original.x, original.y], [Math.round((300 - width) / 2), 250 - height]);
    assert.equal(second.label, original.label);
    // Pasted beside the original, kept inside the size.
    assert.ok(second.x > original.x && second.x + width <= 300, `x ${second.x}`);
    assert.ok(third.y <= 250 - height, `y ${third.y}`);
  });

  test('all sizes side by side: every size of the set drawn at once, each editable on its own', async () => {
    const set = DEMO_DESIGNS.find((d) => d.document.sizes.length === 4);
    assert.ok(set, 'the 4-size demo set');
    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: t.owner.headers,
      payload: { projectId, name: 'Side by side', document: set.document },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const hash = imported.json().response.template.id;
    const { page } = await invited('Editor');
    await openDesign(page, 'Side by side');
    await page.getByLabel('All sizes').check();
    const canvases = page.getByRole('img', { name: /^Canvas of / });
    for (let i = 0; i < 4; i++) await canvases.nth(i).locator('[data-element-name=cta]').waitFor();
    assert.equal(await canvases.count(), 4);
    await page.screenshot({ path: 'docs/img/editor-all-sizes.png', fullPage: true });

    // The third size's button: selecting it there edits that size only.
    const before = await storedDocument(hash);
    await canvases.nth(2).locator('[data-element-name=cta]').click();
    await page.getByRole('form', { name: 'Properties of cta' }).waitFor();
    await page.getByLabel('X', { exact: true }).fill('5');
    await page.getByRole('toolbar', { name: 'Edit' }).getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved/ })
      .waitFor();
    const after = await storedDocument(hash);
    const ctaX = (doc: { sizes: { slides: { elements: { name: string; x: number }[] }[] }[] }, i: number) =>
      doc.sizes[i].slides[0].elements.find((e) => e.name === 'cta')?.x;
    assert.equal(ctaX(after, 2), 5);
    for (const i of [0, 1, 3]) assert.equal(ctaX(after, i), ctaX(before, i), `size ${i} keeps its button`);

    await page.getByLabel('One size').check();
    assert.equal(await canvases.count(), 1);
  });
});
