// The studio in headless Chromium over real HTTP (issue 18), found by label and role as a screen reader would:
// invite → set password → sign in; the demo designs appear by name; create a folder and move a design into it;
// export a PNG from the dialog and download it (decoded pixels checked); a Viewer sees no write controls and the API
// refuses its writes; a share-page comment reaches GET /v1/shareLink and the app; sign out; a cross-site POST is refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { DEMO_DESIGNS } from '../../src/cli/demo-designs.js';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { launchBrowser } from './browser.js';

const PASSWORD = 'a long enough password';

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

describe('the studio in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let projectId: number;
  const hashes: string[] = [];
  const contexts: BrowserContext[] = [];

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await startTestApp({ publicUrl: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    const call = async (method: 'POST', url: string, payload: object) => {
      const res = await t.app.inject({ method, url, headers: t.owner.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const kit = await call('POST', '/v1/brandkits/create', { name: 'Kit' });
    projectId = (await call('POST', '/v1/projects', { name: 'Spring campaign', brandKitId: kit.response.brandKit.id }))
      .response.project.id;
    for (const design of DEMO_DESIGNS) {
      const imported = await call('POST', '/v1/templates/import', {
        projectId,
        name: design.name,
        document: design.document,
      });
      hashes.push(imported.response.template.id);
    }
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ acceptDownloads: true });
    contexts.push(context);
    return context.newPage();
  }

  /** A user of the project with this role, signed in through the invite page. */
  async function invited(role: 'Editor' | 'Viewer') {
    const user = await t.userWith(role);
    const added = await t.app.inject({
      method: 'POST',
      url: '/v1/project/users',
      headers: t.owner.headers,
      payload: { userId: user.userId, projectId },
    });
    assert.equal(added.statusCode, 200, added.body);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/users/invite',
      headers: t.owner.headers,
      payload: { userId: user.userId },
    });
    const page = await newPage();
    await page.goto(res.json().inviteUrl);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Designs' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/designs'); // the invite token left the address bar
    return { user, page };
  }

  test('invite → set password → the demo designs by name → sign out → sign in with the password', async () => {
    const { user, page } = await invited('Editor');
    for (const design of DEMO_DESIGNS) {
      await page.getByRole('listitem', { name: design.name }).waitFor();
    }
    // Thumbnails are drawn by background jobs after the demo import: for the README's screenshot, reload until the
    // grid has them (bounded; the screenshot is taken either way) and every one has decoded.
    for (let i = 0; i < 20 && (await page.locator('.card img').count()) < DEMO_DESIGNS.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await page.reload();
      await page.getByRole('listitem', { name: DEMO_DESIGNS[0].name }).waitFor();
    }
    await page.waitForFunction(
      '[...document.querySelectorAll(".card img")].every((img) => img.complete && img.naturalWidth > 0)',
    );
    await page.screenshot({ path: 'docs/img/studio-designs.png' });
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to Placard' }).waitFor();
    const session = await page.evaluate(`fetch('/v1/auth/session').then((r) => r.status)`);
    assert.equal(session, 401);

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'do not match' }).waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), user.email); // nothing typed is lost
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('listitem', { name: DEMO_DESIGNS[0].name }).waitFor();
  });

  test('create a folder and move a design into it', async () => {
    const { page } = await invited('Editor');
    await page.getByLabel('New folder name').fill('Finals');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await page.getByRole('button', { name: 'Finals' }).waitFor();
    const name = DEMO_DESIGNS[1].name;
    await page.getByLabel(`Move ${name} to folder`).selectOption({ label: 'Finals' });
    await page.getByRole('button', { name: 'Finals' }).click();
    await page.getByRole('listitem', { name }).waitFor();
    assert.equal(
      await page
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading') })
        .count(),
      1,
    );
    const folder = await t.runtime.db.kysely
      .selectFrom('folders')
      .select('id')
      .where('name', '=', 'Finals')
      .executeTakeFirstOrThrow();
    const listed = await t.app.inject({
      method: 'GET',
      url: `/v1/templates?projectId=${projectId}&folderId=${folder.id}`,
      headers: t.owner.headers,
    });
    assert.deepEqual(
      listed.json().response.nodes.map((n: { name: string }) => n.name),
      [name],
    );
  });

  test('export a PNG from the dialog and download it', async () => {
    const { page } = await invited('Editor');
    const name = DEMO_DESIGNS[0].name;
    await page.getByRole('button', { name: `Export ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Export ${name}` });
    await dialog.getByLabel('File type').selectOption('png');
    await dialog.getByRole('button', { name: 'Start export' }).click();
    const link = dialog.getByRole('link', { name: /^Download / });
    await link.waitFor({ timeout: 90_000 }).catch(async (error) => {
      throw new Error(`no download link; the dialog reads: ${await dialog.textContent()}`, { cause: error });
    });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const file = await download.path();
    const png = PNG.sync.read(fs.readFileSync(file));
    assert.equal(png.width, 300);
    assert.equal(png.height, 250);
    // The demo banner's backdrop is opaque and not blank: some pixel differs from the first one.
    assert.equal(png.data[3], 255);
    let differs = false;
    for (let i = 0; i < png.data.length && !differs; i += 4) differs = png.data[i] !== png.data[0];
    assert.ok(differs, 'the PNG is a flat colour');
    await dialog.getByRole('status').filter({ hasText: 'complete' }).waitFor();
  });

  test('a Viewer sees no write controls and the API refuses its writes', async () => {
    const { page } = await invited('Viewer');
    await page.getByRole('listitem', { name: DEMO_DESIGNS[0].name }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create folder' }).count(), 0);
    assert.equal(await page.getByLabel(/^Move .* to folder$/).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Team' }).count(), 0);
    // Export stays allowed (SPEC §2): the button is there.
    await page.getByRole('button', { name: `Export ${DEMO_DESIGNS[0].name}` }).waitFor();
    const status = await page.evaluate(`(async () => {
      const s = await (await fetch('/v1/auth/session')).json();
      const r = await fetch('/v1/folders', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': s.response.csrfToken }, body: JSON.stringify({ projectId: ${projectId}, name: 'nope' }) });
      return r.status;
    })()`);
    assert.equal(status, 403);
  });

  test('a cross-site form POST carrying the cookie changes nothing', async () => {
    const { page } = await invited('Editor');
    const before = await t.runtime.db.kysely.selectFrom('folders').select('id').execute();
    // Another site's page, served on its own origin: a form that posts to the studio's API.
    await page.route('http://evil.test/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<form id="f" method="POST" action="${origin}/v1/folders" enctype="text/plain">
          <input name='{"projectId":${projectId},"name":"evil","x":"' value='"}'></form>
          <script>document.getElementById('f').submit()</script>`,
      }),
    );
    const answered = page.waitForResponse((r) => r.url() === `${origin}/v1/folders`);
    await page.goto('http://evil.test/');
    assert.ok((await answered).status() >= 400);
    // And with the cookie forced onto the request and a foreign Origin, the CSRF check refuses it.
    const cookies = await page.context().cookies(origin);
    const session = cookies.find((c) => c.name === 'placard_session');
    assert.ok(session?.httpOnly);
    assert.equal(session?.sameSite, 'Lax');
    const forced = await fetch(`${origin}/v1/folders`, {
      method: 'POST',
      headers: {
        cookie: `placard_session=${session?.value}`,
        origin: 'http://evil.test',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ projectId, name: 'evil' }),
    });
    assert.equal(forced.status, 403);
    assert.equal(((await forced.json()) as { code: string }).code, 'CSRF_REJECTED');
    const afterRows = await t.runtime.db.kysely.selectFrom('folders').select('id').execute();
    assert.equal(afterRows.length, before.length);
  });

  test('a comment written on the share page appears in GET /v1/shareLink/{hash} and in the app', async () => {
    const { page } = await invited('Editor');
    const name = DEMO_DESIGNS[0].name;
    await page.getByRole('button', { name: `Copy share link of ${name}` }).click();
    const url = await page.getByRole('textbox', { name: `Share link of ${name}` }).inputValue();
    const reviewer = await newPage();
    await reviewer.goto(url);
    await reviewer.getByLabel('Your name').fill('Rita <b>Reviewer</b>');
    await reviewer
      .getByLabel('Comment', { exact: true })
      .and(reviewer.getByRole('textbox'))
      .fill('Make the <img src=x onerror=alert(1)> logo bigger');
    await reviewer.getByRole('button', { name: 'Post comment' }).click();
    const thread = reviewer.getByRole('listitem', { name: 'Comment by Rita <b>Reviewer</b>' });
    await thread.waitFor();
    assert.equal(await reviewer.locator('#threads img').count(), 0); // shown as text, never as HTML
    await thread.getByLabel('Reply to Rita <b>Reviewer</b>').fill('On it');
    await thread.getByRole('button', { name: 'Reply' }).click();
    await thread.getByText('On it').waitFor();
    await thread.getByRole('button', { name: 'Resolve' }).click();
    await thread.getByRole('button', { name: 'Reopen' }).waitFor();
    await reviewer.getByRole('button', { name: 'Approve' }).click();
    await reviewer.getByText('Rita <b>Reviewer</b> approved').waitFor();

    const res = await t.app.inject({ method: 'GET', url: `/v1/shareLink/${hashes[0]}`, headers: t.owner.headers });
    const [only] = res.json().response.comments.threads;
    assert.equal(only.author, 'Rita <b>Reviewer</b>');
    assert.equal(only.text, 'Make the <img src=x onerror=alert(1)> logo bigger');
    assert.equal(only.resolved, true);
    assert.equal(only.position.sizeHash.length, 7);
    assert.deepEqual(
      only.replies.map((r: { text: string }) => r.text),
      ['On it'],
    );
    const events = await t.runtime.db.kysely.selectFrom('events_outbox').select('action').execute();
    const actions = events.map((e) => e.action);
    assert.equal(actions.filter((a) => a === 'shareLink/comment').length, 2);
    assert.equal(actions.filter((a) => a === 'shareLink/review').length, 1);

    await page.getByRole('button', { name: `Copy share link of ${name}` }).click();
    await page
      .getByRole('list', { name: `Review comments on ${name}` })
      .getByText('logo bigger')
      .waitFor();
  });
});
