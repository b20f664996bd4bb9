// The studio's render URL builder (issue 23) in headless Chromium over real HTTP: an Editor opens it from a design
// card, changes the headline, gets a signed link and copies it; the link answers an image whose pixels differ from the
// unchanged link's, the preview <img> loaded it, and the API's refusal is shown; a set's size and WEBP are honoured.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { DEMO_DESIGNS } from '../../src/cli/demo-designs.js';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { launchBrowser } from './browser.js';
import { signInInvited } from './studio-harness.js';

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

describe('the render URL builder in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let projectName: string;
  let projectId: number;
  let designHash: string;
  let setHash: string;
  const contexts: BrowserContext[] = [];

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await startTestApp({ publicUrl: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    const call = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response;
    };
    const kit = (await call('/v1/brandkits/create', { name: 'Links kit' })).brandKit.id;
    projectName = 'Render links';
    const project = (await call('/v1/projects', { name: projectName, brandKitId: kit })).project;
    projectId = project.id;
    const design = DEMO_DESIGNS[0];
    designHash = (
      await call('/v1/templates/import', { projectId: project.id, name: design.name, document: design.document })
    ).template.id;
    const set = DEMO_DESIGNS[1];
    setHash = (await call('/v1/templates/import', { projectId: project.id, name: set.name, document: set.document }))
      .template.id;
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
  });

  /** An Editor of the team, signed in through the invite page (as test/browser/studio-pages.test.ts does). */
  async function signedIn(): Promise<Page> {
    const context = await browser.newContext();
    contexts.push(context);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    await signInInvited(t, page, { projectId });
    return page;
  }

  /** The image a link answers, decoded to raw RGBA by sharp. */
  async function pixels(url: string, type = 'image/png') {
    const res = await fetch(url);
    assert.equal(res.status, 200, `${url}: ${res.status}`);
    assert.equal((res.headers.get('content-type') ?? '').split(';')[0], type);
    return sharp(Buffer.from(await res.arrayBuffer()))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  }

  test('change the headline, get and copy the signed link: its image differs and the preview loaded', async () => {
    const page = await signedIn();
    const projects = page.getByRole('combobox', { name: /^Project/ });
    await projects.getByRole('option', { name: projectName }).waitFor({ state: 'attached' });
    await projects.selectOption({ label: projectName });
    const name = DEMO_DESIGNS[0].name;
    await page.getByRole('button', { name: `Render URL of ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Render URL of ${name}` });
    await dialog.waitFor();
    const headline = dialog.getByLabel('headline', { exact: true });
    await headline.waitFor();
    const original = await headline.inputValue();
    assert.ok(original.length > 0, 'the field starts with the design’s own text');

    const linkField = dialog.getByLabel('Signed link');
    const preview = dialog.getByRole('img', { name: `Preview of the render URL of ${name}` });
    const getLink = async (previous: string | null) => {
      await dialog.getByRole('button', { name: 'Get signed link' }).click();
      await linkField.waitFor();
      if (previous !== null) {
        await page.waitForFunction(([el, before]) => (el as unknown as { value: string }).value !== before, [
          await linkField.elementHandle(),
          previous,
        ] as const);
      }
      return linkField.inputValue();
    };

    const unchanged = await getLink(null);
    assert.ok(unchanged.startsWith(`${origin}/r/`), unchanged);
    assert.ok(!unchanged.includes('headline='), 'an untouched value is not in the link');

    await headline.fill('Hello Ada, 50% off today');
    const changed = await getLink(unchanged);
    assert.ok(changed.startsWith(`${origin}/r/`), changed);
    assert.match(changed, /[?&]headline=Hello%20Ada%2C%2050%25%20off%20today(&|$)/);
    assert.match(changed, /[?&]s=[0-9a-f]{64}$/);

    // The preview is an <img> of the link itself: it loaded once the browser decoded the image.
    await page.waitForFunction(
      (el) =>
        (el as unknown as { complete: boolean }).complete &&
        (el as unknown as { naturalWidth: number }).naturalWidth > 0,
      await preview.elementHandle(),
    );
    assert.equal(await preview.getAttribute('src'), changed);

    await dialog.getByRole('button', { name: 'Copy link' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Link copied.' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), changed);

    const [a, b] = await Promise.all([pixels(unchanged), pixels(changed)]);
    assert.deepEqual([a.info.width, a.info.height], [b.info.width, b.info.height]);
    assert.ok(a.info.width > 0 && a.info.height > 0);
    let differing = 0;
    for (let i = 0; i < a.data.length; i += 4) {
      if (
        a.data[i] !== b.data[i] ||
        a.data[i + 1] !== b.data[i + 1] ||
        a.data[i + 2] !== b.data[i + 2] ||
        a.data[i + 3] !== b.data[i + 3]
      ) {
        differing++;
      }
    }
    assert.ok(differing > 100, `the changed headline changes the image (${differing} pixels differ)`);

    // The API's refusal is shown, and no link is handed out: here the design was deleted while the dialog was open.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/v1/templates',
      headers: t.owner.headers,
      payload: { hash: designHash },
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    await dialog.getByRole('button', { name: 'Get signed link' }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', new RegExp(designHash));
    await linkField.waitFor({ state: 'detached' });
  });

  test('a size of a set and a format: the link names both and answers that image', async () => {
    const page = await signedIn();
    const projects = page.getByRole('combobox', { name: /^Project/ });
    await projects.getByRole('option', { name: projectName }).waitFor({ state: 'attached' });
    await projects.selectOption({ label: projectName });
    const name = DEMO_DESIGNS[1].name;
    await page.getByRole('button', { name: `Render URL of ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Render URL of ${name}` });
    const sizes = (
      await t.app.inject({
        method: 'GET',
        url: `/v1/templates/${setHash}/design-sizes`,
        headers: t.owner.headers,
      })
    ).json().response as { hash: string; name: string; width: number; height: number }[];
    assert.ok(sizes.length > 1, 'the demo set has several sizes');
    const last = sizes[sizes.length - 1];
    const sizeSelect = dialog.getByRole('combobox', { name: /^Size/ });
    await sizeSelect.getByRole('option', { name: `${last.name} (${last.width}×${last.height})` }).waitFor({
      state: 'attached',
    });
    await sizeSelect.selectOption(last.hash);
    await dialog.getByRole('combobox', { name: /^Image format/ }).selectOption('webp');
    await dialog.getByRole('button', { name: 'Get signed link' }).click();
    const linkField = dialog.getByLabel('Signed link');
    await linkField.waitFor();
    const link = await linkField.inputValue();
    assert.ok(link.startsWith(`${origin}/r/${setHash}/${last.hash}.webp?`), link);
    const image = await pixels(link, 'image/webp');
    assert.deepEqual([image.info.width, image.info.height], [last.width, last.height]);
  });
});
