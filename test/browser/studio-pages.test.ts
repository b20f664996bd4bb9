// The studio's remaining pages in headless Chromium over real HTTP (issue 18), found by label and role: brand kit
// fonts uploaded from disk (stored faces listed, a non-font and a too-large file refused with their reasons), an asset
// added by link and its rejection shown; an Admin changes a user's role and deletes a user; webhooks created, their
// deliveries listed and redelivered, and deleted. Every change is checked through the API, not only on the page.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { DEMO_DESIGNS } from '../../src/cli/demo-designs.js';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { launchBrowser } from './browser.js';
import { signInInvited } from './studio-harness.js';

const FONT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/fonts/DejaVuSerif.ttf');

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

describe('the studio pages in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let kitId: number;
  let receiver: http.Server;
  let receiverBase: string;
  let received = 0;
  const contexts: BrowserContext[] = [];

  before(async () => {
    const port = await freePort();
    t = await startTestApp({ publicUrl: `http://127.0.0.1:${port}` });
    await t.app.listen({ port, host: '127.0.0.1' });
    receiver = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received++;
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    const kit = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: t.owner.headers,
      payload: { name: 'Spring kit' },
    });
    assert.equal(kit.statusCode, 200, kit.body);
    kitId = kit.json().response.brandKit.id;
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    await t?.close();
  });

  /** A user of the team with this role, signed in through the invite page. */
  async function signedIn(role: 'Admin' | 'Editor' | 'Viewer'): Promise<Page> {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.on('dialog', (dialog) => dialog.accept()); // the delete confirmations
    await signInInvited(t, page, { role });
    return page;
  }

  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: t.owner.headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response;
  };

  test('brand kit fonts: upload from disk, a non-font and a too-large file are refused with their reasons', async () => {
    const page = await signedIn('Editor');
    await page.getByRole('link', { name: 'Brand kits' }).click();
    await page.getByRole('heading', { name: 'Brand kits' }).waitFor();
    await page
      .getByRole('combobox', { name: /^Brand kit/ })
      .getByRole('option', { name: 'Spring kit' })
      .waitFor({ state: 'attached' });

    await page.getByLabel('Font files').setInputFiles(FONT);
    await page.getByRole('button', { name: 'Upload fonts' }).click();
    await page.getByRole('status').filter({ hasText: '1 font stored.' }).waitFor();
    await page.getByRole('list', { name: 'Brand fonts' }).getByText('DejaVu Serif 400').waitFor();
    const fonts = await get(`/v1/brandkit/${kitId}/fonts`);
    assert.deepEqual(
      fonts.nodes.map((f: { family: string; variant: string; fileName: string }) => [f.family, f.variant, f.fileName]),
      [['DejaVu Serif', '400', 'DejaVuSerif.ttf']],
    );

    // Not a font: the server decides by content and says why; nothing is stored.
    await page.getByLabel('Font files').setInputFiles({
      name: 'notes.ttf',
      mimeType: 'font/ttf',
      buffer: Buffer.from('this is not a font at all'),
    });
    await page.getByRole('button', { name: 'Upload fonts' }).click();
    const problems = page.getByRole('alert').filter({ hasText: 'notes.ttf:' });
    await problems.waitFor();
    // Too large: refused before any byte is sent.
    await page.getByLabel('Font files').setInputFiles({
      name: 'huge.otf',
      mimeType: 'font/otf',
      buffer: Buffer.alloc(10 * 1024 * 1024 + 1),
    });
    await page.getByRole('button', { name: 'Upload fonts' }).click();
    await page.getByRole('alert').filter({ hasText: 'huge.otf is larger than the 10 MB' }).waitFor();
    assert.equal((await get(`/v1/brandkit/${kitId}/fonts`)).nodes.length, 1);
  });

  test('brand kit assets: a link is added and its rejection is shown with the reason', async () => {
    const page = await signedIn('Editor');
    await page.getByRole('link', { name: 'Brand kits' }).click();
    // A private address is refused by the fetcher: the asset ends INVALID and the page says why.
    await page.getByLabel('Asset link').fill('http://10.0.0.1/logo.png');
    await page.getByRole('button', { name: 'Add asset' }).click();
    const card = page.getByRole('list', { name: 'Brand assets' }).getByRole('listitem');
    await card.filter({ hasText: 'Rejected:' }).waitFor();
    const assets = await get(`/v1/brandkit/${kitId}/assets`);
    assert.equal(assets.nodes.length, 1);
    assert.equal(assets.nodes[0].status, 'INVALID');
    assert.ok((await card.textContent())?.includes(assets.nodes[0].error));
  });

  test('brand kit colours: added, named, picked and saved; the API answers them', async () => {
    const page = await signedIn('Editor');
    await page.getByRole('link', { name: 'Brand kits' }).click();
    await page.getByRole('heading', { name: 'Colours' }).waitFor();
    await page.getByRole('button', { name: 'Add colour' }).click();
    await page.getByLabel('Colour 1 name').fill('Primary');
    await page.getByLabel('Colour 1 value').fill('#1a73e8');
    await page.getByRole('button', { name: 'Add colour' }).click();
    await page.getByLabel('Colour 2 name').fill('Ink');
    await page.getByLabel('Colour 2 value').fill('#202124');
    await page.getByRole('button', { name: 'Save colours' }).click();
    await page.getByRole('status').filter({ hasText: 'Colours saved.' }).waitFor();
    const kit = (await get('/v1/brandkits')).nodes.find((k: { id: number }) => k.id === kitId);
    assert.deepEqual(kit.colors, [
      { name: 'Primary', hex: '#1a73e8' },
      { name: 'Ink', hex: '#202124' },
    ]);
    // A duplicate name is refused with the API's sentence, and what was typed stays.
    await page.getByLabel('Colour 2 name').fill('primary');
    await page.getByRole('button', { name: 'Save colours' }).click();
    await page.getByRole('alert').filter({ hasText: 'already has a colour named "primary"' }).waitFor();
    assert.equal(await page.getByLabel('Colour 2 name').inputValue(), 'primary');
    await page.getByRole('button', { name: 'Remove colour primary', exact: true }).click();
    await page.getByRole('button', { name: 'Save colours' }).click();
    await page.getByRole('status').filter({ hasText: 'Colours saved.' }).waitFor();
    const saved = (await get('/v1/brandkits')).nodes.find((k: { id: number }) => k.id === kitId);
    assert.deepEqual(saved.colors, [{ name: 'Primary', hex: '#1a73e8' }]);
  });

  test('brand kit assets: a PNG uploaded from disk with a progress bar is listed; a non-image says why', async () => {
    const page = await signedIn('Editor');
    await page.getByRole('link', { name: 'Brand kits' }).click();
    await page.getByRole('heading', { name: 'Assets' }).waitFor();
    const file = path.join(t.config.dataDir, 'upload-logo.png');
    fs.writeFileSync(
      file,
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#00ff00' } })
        .png()
        .toBuffer(),
    );
    // Records every value the progress bar shows, so the test sees it without timing the upload.
    await page.evaluate(`(() => {
      window.seenProgress = [];
      new MutationObserver(() => {
        const bar = document.querySelector('progress[aria-label="Asset upload progress"]');
        if (bar) window.seenProgress.push(String(bar.value));
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);
    await page.getByLabel('Asset files').setInputFiles(file);
    await page.getByRole('button', { name: 'Upload assets' }).click();
    await page.getByRole('status').filter({ hasText: '1 asset stored.' }).waitFor();
    const card = page.getByRole('list', { name: 'Brand assets' }).getByRole('listitem', { name: 'upload-logo' });
    await card.filter({ hasText: 'Ready, 64×48' }).waitFor();
    const seen = (await page.evaluate('window.seenProgress')) as string[];
    assert.ok(seen.length > 0, 'the progress bar was shown');
    const assets = await get(`/v1/brandkit/${kitId}/assets`);
    const stored = assets.nodes.find((a: { name: string }) => a.name === 'upload-logo');
    assert.deepEqual([stored.status, stored.format, stored.width, stored.height], ['VALID', 'png', 64, 48]);

    await page.getByLabel('Asset files').setInputFiles({
      name: 'notes.png',
      mimeType: 'image/png',
      buffer: Buffer.from('this is not an image'),
    });
    await page.getByRole('button', { name: 'Upload assets' }).click();
    await page.getByRole('alert').filter({ hasText: 'notes.png: is not an image, audio or video file' }).waitFor();
  });

  test('a Viewer sees the brand kits without write controls and no Team or Webhooks pages', async () => {
    const page = await signedIn('Viewer');
    await page.getByRole('link', { name: 'Brand kits' }).click();
    await page.getByRole('heading', { name: 'Fonts' }).waitFor();
    assert.equal(await page.getByLabel('Font files').count(), 0);
    assert.equal(await page.getByLabel('Asset link').count(), 0);
    assert.equal(await page.getByLabel('Asset files').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Save colours' }).count(), 0);
    await page.getByRole('list', { name: 'Brand colours' }).getByText('Primary').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Webhooks' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Team' }).count(), 0);
  });

  test('team: an Admin changes a role and deletes a user', async () => {
    const page = await signedIn('Admin');
    const editor = await t.userWith('Editor');
    const viewer = await t.userWith('Viewer');
    const users = await get('/v1/users?limit=100');
    const nameOf = (id: number) => users.nodes.find((u: { id: number }) => u.id === id).name as string;
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByLabel(`Role of ${nameOf(editor.userId)}`).selectOption({ label: 'Viewer' });
    const roleOf = async (id: number) =>
      (await get('/v1/users?limit=100')).nodes.find((u: { id: number }) => u.id === id)?.role.name;
    for (let i = 0; (await roleOf(editor.userId)) !== 'Viewer'; i++) {
      assert.ok(i < 200, 'the role change never reached the API');
      await page.waitForTimeout(25);
    }
    // An Admin may not make anyone an Owner: the API's sentence is shown and nothing changes.
    await page.getByLabel(`Role of ${nameOf(viewer.userId)}`).selectOption({ label: 'Owner' });
    await page.getByRole('alert').waitFor();
    assert.equal(await roleOf(viewer.userId), 'Viewer');
    assert.equal(await page.getByLabel(`Role of ${nameOf(viewer.userId)}`).inputValue(), '4');

    await page.getByRole('button', { name: `Delete ${nameOf(viewer.userId)}` }).click();
    await page.getByRole('cell', { name: viewer.email }).waitFor({ state: 'detached' });
    assert.equal(await roleOf(viewer.userId), undefined);
  });

  test('webhooks: create, a delivery listed and redelivered, delete', async () => {
    const page = await signedIn('Admin');
    const actions = (await get('/v1/webhookActions')) as { id: number; name: string }[];
    const userCreated = actions.find((a) => a.id === 9);
    assert.ok(userCreated, 'action 9 exists');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Webhook name').fill('Team changes');
    await page.getByLabel('Webhook URL').fill(`${receiverBase}/hook`);
    await page.getByRole('checkbox', { name: userCreated.name, exact: true }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('cell', { name: 'Team changes', exact: true }).waitFor();
    const hooks = (await get('/v1/webhooks')) as { id: number; name: string; webhookUrl: string }[];
    assert.deepEqual(
      hooks.map((h) => [h.name, h.webhookUrl]),
      [['Team changes', `${receiverBase}/hook`]],
    );

    await t.userWith('Viewer'); // the event
    type Listed = { id: string; status: string; attempts: unknown[] };
    let delivery: Listed | undefined;
    for (let i = 0; !delivery; i++) {
      assert.ok(i < 600, 'the delivery never succeeded');
      const { nodes } = (await get('/v1/webhooks/deliveries')) as { nodes: Listed[] };
      delivery = nodes.find((n) => n.status === 'succeeded');
      if (!delivery) await page.waitForTimeout(25);
    }
    await page.reload();
    const redeliver = page.getByRole('button', { name: `Redeliver ${userCreated.name} ${delivery.id.slice(0, 8)}` });
    const before = received;
    await redeliver.click();
    for (let i = 0; received === before; i++) {
      assert.ok(
        i < 600,
        `the redelivery never reached the receiver; the page reads: ${await page.textContent('main')}`,
      );
      await page.waitForTimeout(25);
    }
    // The receiver can hear the redelivery before the worker records its attempt (scaled out): wait for the record.
    let attempts = 0;
    for (let i = 0; attempts < 2 && i < 400; i++) {
      const { nodes } = (await get('/v1/webhooks/deliveries')) as { nodes: Listed[] };
      attempts = nodes.find((n) => n.id === delivery.id)?.attempts.length ?? 0;
      if (attempts < 2) await page.waitForTimeout(25);
    }
    assert.ok(attempts >= 2, `the redelivery's attempt was not recorded (${attempts} attempts)`);

    await page.getByRole('button', { name: 'Delete webhook Team changes' }).click();
    await page.getByRole('cell', { name: 'Team changes', exact: true }).waitFor({ state: 'detached' });
    assert.deepEqual(await get('/v1/webhooks'), []);
  });

  test('share page: a comment is pinned by clicking on the design', async () => {
    const call = async (method: 'POST', url: string, payload: object) => {
      const res = await t.app.inject({ method, url, headers: t.owner.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response;
    };
    const project = await call('POST', '/v1/projects', { name: 'Review', brandKitId: kitId });
    const design = DEMO_DESIGNS[0];
    const imported = await call('POST', '/v1/templates/import', {
      projectId: project.project.id,
      name: design.name,
      document: design.document,
    });
    const hash = imported.template.id as string;
    const link = (await get(`/v1/shareLink/${hash}`)).shareLinkUrl as string;
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(link);
    await page.getByLabel('Your name').fill('Rita');
    await page.getByLabel('Comment', { exact: true }).fill('Move the logo here');
    await page.getByRole('button', { name: 'Pin on the design' }).click();
    const target = page.getByRole('button', { name: 'Click on the design where the comment belongs' });
    await target.waitFor();
    // A real pointer click at a point of the layer (30, 40 from the design's top-left corner).
    const box = await target.boundingBox();
    assert.ok(box);
    await page.mouse.click(box.x + 30, box.y + 40);
    await page
      .getByRole('status')
      .filter({ hasText: 'Pinned at 30, 40.' })
      .waitFor({ timeout: 5000 })
      .catch(async (error) => {
        throw new Error(`errors: ${pageErrors.join(' | ')}; status: ${await page.textContent('#pin-status')}`, {
          cause: error,
        });
      });
    await target.waitFor({ state: 'hidden' }); // the ad is clickable again
    await page.getByRole('button', { name: 'Post comment' }).click();
    await page.getByRole('listitem', { name: 'Comment by Rita' }).waitFor();
    const [thread] = (await get(`/v1/shareLink/${hash}`)).comments.threads;
    assert.equal(thread.text, 'Move the logo here');
    assert.deepEqual([thread.position.x, thread.position.y], [30, 40]);
  });

  test('designs: create a project, a card lists its sizes, rename and delete a design and a folder', async () => {
    const page = await signedIn('Editor');
    await page.getByLabel('New project name').fill('Autumn');
    await page.getByRole('button', { name: 'Create project' }).click();
    const projectSelect = page.getByRole('combobox', { name: /^Project/ });
    await projectSelect.getByRole('option', { name: 'Autumn' }).waitFor({ state: 'attached' });
    const projects = (await get('/v1/projects?limit=100')).nodes as { id: number; name: string }[];
    const autumn = projects.find((p) => p.name === 'Autumn');
    assert.ok(autumn, 'the project was created through the API');
    const design = DEMO_DESIGNS[0];
    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: t.owner.headers,
      payload: { projectId: autumn.id, name: design.name, document: design.document },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const hash = imported.json().response.template.id as string;
    const sizes = (await get(`/v1/templates/${hash}/design-sizes`)) as { width: number; height: number }[];
    await page.reload();
    await projectSelect.selectOption({ label: 'Autumn' });
    await page.getByRole('listitem', { name: design.name }).waitFor();
    const caption = await page.getByLabel(`Sizes of ${design.name}`).textContent();
    for (const s of sizes)
      assert.ok(caption?.includes(`${s.width}×${s.height}`), `${caption} lists ${s.width}×${s.height}`);

    await page.getByRole('button', { name: `Rename ${design.name}` }).click();
    await page.getByLabel(`New name for ${design.name}`).fill('Autumn banner');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('listitem', { name: 'Autumn banner' }).waitFor();
    const listed = async () =>
      ((await get(`/v1/templates?projectId=${autumn.id}`)).nodes as { id: string; name: string }[]).map((n) => n.name);
    assert.deepEqual(await listed(), ['Autumn banner']);

    await page.getByLabel('New folder name').fill('Drafts');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await page.getByRole('button', { name: 'Drafts', exact: true }).click();
    await page.getByRole('button', { name: 'Rename folder Drafts' }).click();
    await page.getByLabel('New name for folder Drafts').fill('Archive');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('button', { name: 'Archive', exact: true }).waitFor();
    const folders = async () =>
      ((await get(`/v1/folders?projectId=${autumn.id}`)).folders as { name: string }[]).map((f) => f.name);
    assert.deepEqual(await folders(), ['Archive']);
    await page.getByRole('button', { name: 'Delete folder Archive' }).click();
    await page.getByRole('button', { name: 'Archive', exact: true }).waitFor({ state: 'detached' });
    assert.deepEqual(await folders(), []);

    await page.getByRole('button', { name: 'Delete Autumn banner' }).click();
    await page.getByRole('listitem', { name: 'Autumn banner' }).waitFor({ state: 'detached' });
    assert.deepEqual(await listed(), []);
  });

  test('export dialog: the GIF presets are the API values, and a finished export is listed under recent exports', async () => {
    const page = await signedIn('Editor');
    await page.getByLabel('New project name').fill('Winter');
    await page.getByRole('button', { name: 'Create project' }).click();
    const projectSelect = page.getByRole('combobox', { name: /^Project/ });
    await projectSelect.getByRole('option', { name: 'Winter' }).waitFor({ state: 'attached' });
    const projects = (await get('/v1/projects?limit=100')).nodes as { id: number; name: string }[];
    const winter = projects.find((p) => p.name === 'Winter');
    assert.ok(winter);
    const design = DEMO_DESIGNS[0];
    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: t.owner.headers,
      payload: { projectId: winter.id, name: design.name, document: design.document },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const hash = imported.json().response.template.id as string;
    await page.reload();
    await projectSelect.selectOption({ label: 'Winter' });
    await page.getByRole('button', { name: `Export ${design.name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Export ${design.name}` });
    await dialog.getByLabel('File type').selectOption('gif');
    const presets = await dialog
      .getByLabel('GIF preset')
      .locator('option')
      .evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
    assert.deepEqual(presets, ['highQuality', 'optimized', 'static']);
    // The values the dialog sent before were refused by the API.
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v1/export',
      headers: t.owner.headers,
      payload: { creativeHash: hash, type: 'gif', exportSettings: { gifPreset: 'standard' } },
    });
    assert.equal(refused.statusCode, 400, refused.body);

    await dialog.getByLabel('File type').selectOption('png');
    await dialog.getByRole('button', { name: 'Start export' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Status: complete' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: `Export ${design.name}` }).click();
    await page
      .getByRole('list', { name: 'Recent exports' })
      .getByRole('listitem')
      .filter({ hasText: /^PNG · .* · complete$/ })
      .waitFor();
  });
});
