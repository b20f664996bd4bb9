// Preflight in the studio (issue 20), in headless Chromium over real HTTP, found by role and label: a design whose
// headline overflows its box shows the finding in the editor (the canvas box outlined, with an aria-description
// naming it, and a list naming the element) and in the export dialog before exporting; editing the text so that it
// fits removes the mark as the user types, before any save.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { launchBrowser } from './browser.js';

const PASSWORD = 'a long enough password';

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
  let t: TestApp;
  let browser: Browser;
  let projectId: number;
  const contexts: BrowserContext[] = [];
  const logs: string[] = [];

  before(async () => {
    const port = await freePort();
    t = await startTestApp({ publicUrl: `http://127.0.0.1:${port}` });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    const call = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const kitId = (await call('/v1/brandkits/create', { name: 'Kit' })).response.brandKit.id;
    projectId = (await call('/v1/projects', { name: 'Checks', brandKitId: kitId })).response.project.id;
    await call('/v1/templates/import', { projectId, name: 'Overflow', document: overflowing() });
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
  });

  async function signedIn(): Promise<Page> {
    const user = await t.userWith('Editor');
    const inject = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    await inject('/v1/project/users', { userId: user.userId, projectId });
    const invite = await inject('/v1/users/invite', { userId: user.userId });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (error) => logs.push(`pageerror: ${error.message}`));
    await page.goto(invite.inviteUrl);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Designs' }).waitFor();
    return page;
  }

  test('an overflowing headline is marked in the editor and listed in the export dialog; fixing it clears the mark', async () => {
    const page = await signedIn();
    await page.getByRole('button', { name: /^(Edit|Open) Overflow$/ }).click();
    const heading = page.getByRole('heading', { name: 'Editing Overflow' });
    await heading.waitFor().catch(async (error) => {
      throw new Error(`the editor did not open: ${logs.join('; ')}`, { cause: error });
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
    assert.deepEqual(logs, []);
  });
});
