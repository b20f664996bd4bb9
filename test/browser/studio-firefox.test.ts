// The studio in Firefox (issue 18: "works in Chromium and Firefox"). Playwright drives only its own patched Firefox
// builds, which this machine's registries do not carry, so Debian's `firefox-esr` is driven through WebDriver BiDi by
// puppeteer-core. Elements are found by accessible name and role (puppeteer's ARIA selectors), as in the Chromium tests:
// sign in through an invite, the demo designs listed by name, a PNG exported from the dialog and its file decoded, and
// the editor's canvas drawing the design's elements. Firefox has no npm build: without it the test is skipped with the
// install command (`.ci/run` installs it), so `npm test` on a machine with only Node still passes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'puppeteer-core';
import { DEMO_DESIGNS } from '../../src/cli/demo-designs.js';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';

const FIREFOX = process.env.PLACARD_FIREFOX ?? '/usr/bin/firefox-esr';
const PASSWORD = 'a long enough password';
const missing = fs.existsSync(FIREFOX)
  ? false
  : `Firefox is not installed at ${FIREFOX} (sudo apt-get install -y firefox-esr; PLACARD_FIREFOX names another)`;

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

/** Puppeteer's ARIA selector: the element with this role and accessible name. */
const aria = (role: string, name: string) => `::-p-aria([role="${role}"][name="${name}"])`;

describe('the studio in Firefox', { skip: missing }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  before(async () => {
    const { default: puppeteer } = await import('puppeteer-core');
    // First, before any server: if Firefox cannot start, nothing is left running.
    browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX,
      headless: true,
      protocolTimeout: 60_000,
    });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await startTestApp({ publicUrl: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    const kit = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/brandkits/create',
        headers: t.owner.headers,
        payload: { name: 'Kit' },
      })
    ).json().response.brandKit.id;
    const project = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/projects',
        headers: t.owner.headers,
        payload: { name: 'Spring campaign', brandKitId: kit },
      })
    ).json().response.project.id;
    for (const design of DEMO_DESIGNS) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/templates/import',
        headers: t.owner.headers,
        payload: { projectId: project, name: design.name, document: design.document },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await t?.close();
  });

  async function signedIn(): Promise<Page> {
    // An Admin sees every project of the team (an Editor sees the projects it was added to).
    const user = await t.userWith('Admin');
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/users/invite',
      headers: t.owner.headers,
      payload: { userId: user.userId },
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(res.json().inviteUrl);
    await (await page.waitForSelector('::-p-aria(New password)'))?.type(PASSWORD);
    await (await page.waitForSelector('::-p-aria(Repeat the password)'))?.type(PASSWORD);
    await (await page.waitForSelector(aria('button', 'Set password and sign in')))?.click();
    await page.waitForSelector(aria('heading', 'Designs'));
    return page;
  }

  test('sign in, the designs by name, a PNG exported from the dialog, the editor draws the design', async () => {
    const page = await signedIn();
    for (const design of DEMO_DESIGNS) await page.waitForSelector(aria('listitem', design.name));

    const name = DEMO_DESIGNS[0].name;
    await (await page.waitForSelector(aria('button', `Export ${name}`)))?.click();
    const dialog = await page.waitForSelector(aria('dialog', `Export ${name}`));
    assert.ok(dialog, 'the export dialog');
    const type = await dialog.waitForSelector('::-p-aria(File type)');
    await type?.select('png');
    await (await dialog.waitForSelector(aria('button', 'Start export')))?.click();
    const link = await dialog.waitForSelector('a[href]::-p-text(Download)', { timeout: 120_000 });
    const href = await link?.evaluate((a: unknown) => (a as { href: string }).href);
    assert.ok(href, 'a download link');
    const file = await fetch(href);
    assert.equal(file.status, 200);
    const png = PNG.sync.read(Buffer.from(await file.arrayBuffer()));
    const size = DEMO_DESIGNS[0].document.sizes[0];
    assert.deepEqual([png.width, png.height], [size.width, size.height]);
    await page.keyboard.press('Escape');

    await (await page.waitForSelector(aria('button', `Edit ${name}`)))?.click();
    // The canvas is the HTML5 export's markup: every element of the first size is there under its name.
    for (const element of size.slides[0].elements) {
      await page.waitForSelector(`[data-element-name="${element.name}"]`);
    }
    const box = await page.$eval(`[data-element-name="${size.slides[0].elements[0].name}"]`, (el) => {
      const r = el.getBoundingClientRect();
      return [r.width, r.height];
    });
    assert.ok(box[0] > 0 && box[1] > 0, `the element is drawn with a size: ${box}`);
    await page.close();
  });
});
