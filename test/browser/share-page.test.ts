// Share links over real HTTP and in headless Chromium (SPEC §7): the stable link of a design, a generated preview
// with changes (validated as exports validate them, stored without creating a design, recorded as shareLink/create),
// and the public page, which plays the design, switches between the sizes of a set and replays.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Frame, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import type { DesignDocument } from '../../src/domain/design.schema.js';
import { renderImage } from '../../src/formats/pipeline.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { comparePngs } from '../render/golden.js';
import { launchBrowser } from './browser.js';

/** As html5-package.test.ts: browsers and Skia anti-alias glyph and curve edges differently. */
const TOLERANCE = 48;
const MAX_DIFFERING = 0.02;

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

  test('the page draws the design in its own fonts, as the PNG export draws it (issue 15)', async () => {
    const link = (await api('GET', `/v1/shareLink/${templateHash}`)).json.response.shareLinkUrl;
    const document = (await api('GET', `/v1/templates/${templateHash}/document`)).json.response as DesignDocument;
    const page = await browser.newPage({ viewport: { width: 1000, height: 600 } });
    try {
      await page.goto(local(link));
      const frame = await adFrame(page);
      // The ad's sandbox has no same-origin, so its font requests are cross-origin: without CORS on the package's
      // files Chromium refuses them and draws a fallback serif.
      const faces = (await frame.evaluate(`(async () => {
        await document.fonts.ready;
        for (const animation of document.getAnimations()) animation.finish();
        return [...document.fonts].map((f) => [f.family.replace(/["']/g, ''), f.weight, f.status]);
      })()`)) as [string, string, string][];
      // The package names its faces f0, f1…: every one must load (the headline is Inter 700, the label Inter 400).
      assert.ok(
        faces.length >= 2 && faces.every(([, , status]) => status === 'loaded'),
        `every font face of the ad loaded: ${JSON.stringify(faces)}`,
      );
      // The iframe sits at a fractional offset in the page's layout (an element screenshot is then 300x251); Chromium
      // draws a frame's content on whole device pixels, so the clip starts at the rounded offset.
      const box = await page.locator('iframe#ad').boundingBox();
      assert.ok(box);
      const shot = await page.screenshot({
        clip: { x: Math.round(box.x), y: Math.round(box.y), width: 300, height: 250 },
      });
      const png = await renderImage(document, 0, 0, { format: 'png' });
      const { differing, width, height } = comparePngs(shot, Buffer.from(png), TOLERANCE);
      assert.deepEqual([width, height], [300, 250]);
      assert.ok(differing / (width * height) < MAX_DIFFERING, `${differing} of ${width * height} pixels differ`);
      // The headline's box alone: the fallback serif made 10 % of its pixels differ (1,144 of 11,200; the whole ad
      // 1.8 %, under the allowance), the right font at most the whole ad's 1.3 % (uptime load ~9).
      const crop = (buffer: Buffer) => {
        const image = PNG.sync.read(buffer);
        const out = new PNG({ width: 280, height: 40 });
        PNG.bitblt(image, out, 10, 10, 280, 40, 0, 0);
        return PNG.sync.write(out);
      };
      const headline = comparePngs(crop(shot), crop(Buffer.from(png)), TOLERANCE);
      assert.ok(headline.differing / (280 * 40) < 0.05, `headline: ${headline.differing} pixels differ`);
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
