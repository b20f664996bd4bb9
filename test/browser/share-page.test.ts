// Share links over real HTTP and in headless Chromium (SPEC §7): the stable link of a design, a generated preview
// with changes (validated as exports validate them, stored without creating a design, recorded as shareLink/create),
// and the public page, which plays the design, switches between the sizes of a set and replays.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Frame, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser } from './browser.js';

function campaign() {
  const size = (width: number, height: number) => ({
    name: `${width}x${height}`,
    width,
    height,
    backgroundColor: '#0F172A',
    slides: [
      {
        duration: 4,
        elements: [
          {
            name: 'headline',
            type: 'text',
            x: 10,
            y: 10,
            width: width - 20,
            height: 40,
            text: 'Spring sale',
            fontFamily: 'Inter',
            fontVariant: '700',
            fontSize: 20,
            color: '#FFFFFF',
            animations: [{ effect: 'fade', start: 0, duration: 3 }],
          },
          {
            name: 'cta',
            type: 'button',
            x: 10,
            y: height - 40,
            width: 100,
            height: 30,
            label: 'Shop',
            fill: '#F59E0B',
          },
        ],
      },
    ],
  });
  return { name: 'Campaign', loop: 1, sizes: [size(300, 250), size(728, 90)] };
}

let t: TestApp;
let origin: string;
let browser: Browser;
let templateHash: string;

async function api(method: string, url: string, body?: unknown) {
  const res = await fetch(`${origin}${url}`, {
    method,
    headers: body === undefined ? t.owner.headers : { ...t.owner.headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text, json: text ? JSON.parse(text) : null };
}

/** The page of a link on the address the service really listens on. */
const local = (link: string) => `${origin}${new URL(link).pathname}`;

async function count(table: 'designs' | 'share_links') {
  const row = await t.runtime.db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n);
}

async function adFrame(page: Page): Promise<Frame> {
  const handle = await page.waitForSelector('iframe#ad');
  const frame = await handle.contentFrame();
  assert.ok(frame);
  await frame.waitForLoadState();
  await frame.waitForSelector('.r');
  return frame;
}

const animationTimes = (frame: Frame) =>
  frame.evaluate('document.getAnimations().map((a) => [a.playState, Number(a.currentTime)])') as Promise<
    [string, number][]
  >;

before(async () => {
  // One after the other, browser first: with Promise.all a failed launch left the app started but unassigned.
  browser = await launchBrowser();
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const kit = (await api('POST', '/v1/brandkits/create', { name: 'Kit' })).json.response.brandKit.id;
  const projectId = (await api('POST', '/v1/projects', { name: 'P', brandKitId: kit })).json.response.project.id;
  const imported = await api('POST', '/v1/templates/import', { projectId, name: 'Campaign', document: campaign() });
  assert.equal(imported.status, 200, imported.body);
  templateHash = imported.json.response.template.id;
});
after(async () => {
  await browser?.close();
  await t?.close();
});

describe('share links', () => {
  test('a design has one stable link, made on the first call', async () => {
    const first = await api('GET', `/v1/shareLink/${templateHash}`);
    assert.equal(first.status, 200, first.body);
    const { shareLinkUrl, comments } = first.json.response;
    assert.match(shareLinkUrl, /^http:\/\/placard\.test\/share\/[A-Za-z0-9_-]{22}$/, '128-bit token, base64url');
    assert.deepEqual(comments, { threads: [] });
    const again = await api('GET', `/v1/shareLink/${templateHash}`);
    assert.equal(again.json.response.shareLinkUrl, shareLinkUrl);
    assert.equal((await api('GET', '/v1/shareLink/zzzzzzz')).status, 404);
  });

  test('generate answers both shapes, validates changes as exports do and creates no design', async () => {
    const designs = await count('designs');
    const bad = await api('POST', '/v1/shareLink/generate', {
      templateHash,
      elementsChanges: [{ elementName: 'nope', changes: [{ attribute: 'LABEL', value: 'x' }] }],
    });
    assert.equal(bad.status, 422, bad.body);
    assert.equal(bad.json.code, 'UNKNOWN_ELEMENT');
    const badColour = await api('POST', '/v1/shareLink/generate', {
      templateHash,
      elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'TEXTCOLOR', value: 'red' }] }],
    });
    assert.equal(badColour.json.code, 'INVALID_ELEMENT_CHANGE');

    const res = await api('POST', '/v1/shareLink/generate', {
      templateHash,
      elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Summer deals' }] }],
      generalChanges: { backgroundColor: '#7C3AED' },
    });
    assert.equal(res.status, 200, res.body);
    const { response, previewUrl, previewId } = res.json;
    assert.deepEqual(response, { shareLinkUrl: previewUrl, previewUrl, previewId });
    assert.match(previewId, /^[0-9a-f-]{36}$/);
    assert.equal(await count('designs'), designs, 'a preview is not a design');
    const events = await t.runtime.db.kysely
      .selectFrom('events_outbox')
      .select(['action', 'payload'])
      .where('action', '=', 'shareLink/create')
      .execute();
    assert.ok(
      events.some((e) => String(e.payload).includes(previewId)),
      'shareLink/create recorded in the outbox',
    );

    const page = await browser.newPage();
    try {
      await page.goto(local(previewUrl));
      const frame = await adFrame(page);
      assert.equal((await frame.locator('.r').first().textContent())?.trim(), 'Summer deals');
      assert.match(
        String(await frame.evaluate("getComputedStyle(document.getElementById('ad')).backgroundColor")),
        /124, 58, 237/,
      );
    } finally {
      await page.close();
    }
  });

  test('the page plays the design, switches sizes and replays, without authentication', async () => {
    const link = (await api('GET', `/v1/shareLink/${templateHash}`)).json.response.shareLinkUrl;
    const page = await browser.newPage({ viewport: { width: 1000, height: 600 } });
    try {
      const res = await page.goto(local(link));
      assert.equal(res?.status(), 200);
      let frame = await adFrame(page);
      assert.equal(await page.locator('iframe#ad').getAttribute('width'), '300');
      const playing = await animationTimes(frame);
      assert.ok(playing.length > 0 && playing.every(([state]) => state === 'running'), JSON.stringify(playing));

      // Sizes of the set, as plain links.
      const links = page.locator('nav a');
      assert.equal(await links.count(), 2);
      await Promise.all([page.waitForURL(/size=1$/), links.nth(1).click()]);
      frame = await adFrame(page);
      assert.equal(await page.locator('iframe#ad').getAttribute('width'), '728');
      assert.equal(await page.locator('iframe#ad').getAttribute('height'), '90');
      assert.match(frame.url(), /\/1\/index\.html$/);

      // Replay: the ad starts over.
      await page.waitForTimeout(700);
      const before = Math.max(...(await animationTimes(frame)).map(([, time]) => time));
      assert.ok(before >= 600, `played ${before} ms`);
      await Promise.all([
        page.waitForEvent('framenavigated', (f) => f.parentFrame() === page.mainFrame()),
        page.click('#replay'),
      ]);
      const replayed = await adFrame(page);
      const after = Math.max(...(await animationTimes(replayed)).map(([, time]) => time));
      assert.ok(after < before, `replayed from the start: ${after} ms < ${before} ms`);

      // Nothing but the service itself is loaded.
      const unknown = await page.goto(`${origin}/share/${'A'.repeat(22)}`);
      assert.equal(unknown?.status(), 404);
    } finally {
      await page.close();
    }
  });
});
