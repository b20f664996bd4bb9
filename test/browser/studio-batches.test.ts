// The studio's batch page (issue 22) in headless Chromium over real HTTP: an Editor picks a design, uploads a small
// CSV, maps a column to the headline and a template to a VISIBILITY, sees the preview rows' images load (decoded by
// the browser) with their preflight findings, runs the batch, watches it complete, and the zip link answers a zip
// with every row's file; the results CSV link answers every row. The file goes to the service once, with the run: the
// preview sends the rows it shows (read from the file in the browser), never the file again on a change of mapping.
// The README screenshot is taken here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { merchantRss } from '../fixtures/merchant-feed.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { readZip } from '../helpers/zip.js';
import { launchBrowser } from './browser.js';
import { signInInvited } from './studio-harness.js';

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

/** A 300×250 banner: a coloured panel, a headline and a badge that rows may hide. */
function bannerDocument() {
  return {
    name: 'Spring banner',
    sizes: [
      {
        name: 'Medium rectangle',
        width: 300,
        height: 250,
        backgroundColor: '#0F172A',
        slides: [
          {
            duration: 5,
            elements: [
              { name: 'panel', type: 'shape', shape: 'rect', fill: '#1D4ED8', x: 0, y: 150, width: 300, height: 100 },
              {
                name: 'headline',
                type: 'text',
                x: 16,
                y: 24,
                width: 268,
                height: 80,
                text: 'Headline',
                fontFamily: 'Inter',
                fontVariant: '700',
                fontSize: 28,
                color: '#FFFFFF',
              },
              {
                name: 'badge',
                type: 'text',
                x: 16,
                y: 170,
                width: 200,
                height: 40,
                text: 'On sale',
                fontFamily: 'Inter',
                fontVariant: '400',
                fontSize: 20,
                color: '#FDE047',
              },
            ],
          },
        ],
      },
    ],
  };
}

// A4's title cannot fit the headline box: preflight finds it, and the page lists the finding under that row. A5's
// on_sale cannot be a visibility: that row shows its error, fails alone, and the other rows are in the zip.
const LONG_TITLE = 'An extraordinarily long product name that no banner headline of this size could ever hold in full';
const CSV = `sku,title,price,on_sale\r\nA1,Mug,19.99,yes\r\nA2,"Cup, large",4.5,no\r\nA3,Plate,12,1\r\nA4,${LONG_TITLE},9,no\r\nA5,Bowl,3,maybe\r\n`;

describe('the batch page in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let projectId: number;
  const projectName = 'Batch project';
  let feeds: http.Server;
  let feedOrigin: string;

  before(async () => {
    browser = await launchBrowser();
    // A shop's Merchant feed on a server of its own (the test app allows private addresses).
    feeds = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.end(merchantRss(12));
    });
    await new Promise<void>((resolve) => feeds.listen(0, '127.0.0.1', resolve));
    feedOrigin = `http://127.0.0.1:${(feeds.address() as AddressInfo).port}`;
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await startTestApp({ publicUrl: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    const call = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response;
    };
    const kit = (await call('/v1/brandkits/create', { name: 'Batch kit' })).brandKit.id;
    projectId = (await call('/v1/projects', { name: projectName, brandKitId: kit })).project.id;
    await call('/v1/templates/import', { projectId, name: 'Spring banner', document: bannerDocument() });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    feeds?.closeAllConnections();
    await new Promise((resolve) => feeds?.close(resolve));
  });

  /** Every POST the page sends: where, its content type and its size (-1 when the browser does not show a body). */
  function recordRequests(page: Page) {
    const sent: { url: string; contentType: string; bytes: number }[] = [];
    page.on('request', async (request) => {
      if (request.method() !== 'POST') return;
      // The headers the browser really sent (a FormData body's content type is set by the browser).
      const contentType = (await request.headerValue('content-type')) ?? '';
      sent.push({ url: new URL(request.url()).pathname, contentType, bytes: request.postDataBuffer()?.length ?? -1 });
    });
    return sent;
  }

  /** An Editor of the team, signed in through the invite page (as the other studio tests do). */
  async function signedIn(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
    const page = await context.newPage();
    await signInInvited(t, page, { projectId });
    return page;
  }

  test('upload a CSV, map, preview images load, run, complete, the zip and results CSV download', async () => {
    const page = await signedIn();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Batches' }).click();
    await page.getByRole('heading', { name: 'Batches', level: 1 }).waitFor();

    const projects = page.getByRole('combobox', { name: 'Project' });
    await projects.getByRole('option', { name: projectName }).waitFor({ state: 'attached' });
    await projects.selectOption({ label: projectName });
    const design = page.getByRole('combobox', { name: 'Design' });
    await design.getByRole('option', { name: 'Spring banner' }).waitFor({ state: 'attached' });
    await design.selectOption({ label: 'Spring banner' });

    const sent = recordRequests(page);
    await page.getByLabel('CSV or TSV file', { exact: true }).setInputFiles({
      name: 'products.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(CSV),
    });
    // The preview answers the columns before anything is mapped: the column selects offer them.
    await page.getByRole('status').filter({ hasText: '5 rows; columns: sku, title, price, on_sale' }).waitFor();
    const headlineColumn = page.getByRole('combobox', { name: 'Column for headline LABEL' });
    await headlineColumn.selectOption('title');
    assert.equal(await page.getByRole('textbox', { name: 'Template for headline LABEL' }).inputValue(), '{title}');
    await page.getByRole('textbox', { name: 'Template for badge LABEL' }).fill('Now {price|currency:EUR:de-DE}');
    await page.getByRole('textbox', { name: 'Template for badge VISIBILITY' }).fill('{on_sale}');
    await page.getByRole('combobox', { name: 'Row key' }).selectOption('sku');

    // Every preview row renders its own values: its image is a signed render URL naming the mapped headline.
    const rows = page.getByRole('list', { name: 'Preview rows' });
    for (const [key, title] of [
      ['A1', 'Mug'],
      ['A2', 'Cup, large'],
      ['A3', 'Plate'],
      ['A4', LONG_TITLE],
    ]) {
      const image = rows.getByRole('img', { name: `Preview of row ${key}` });
      await image.waitFor();
      await page.waitForFunction(
        ([el, wanted]) => ((el as unknown as { src: string }).src ?? '').includes(wanted as string),
        [await image.elementHandle(), `headline=${encodeURIComponent(title)}`] as const,
      );
      await page.waitForFunction(
        (el) =>
          (el as unknown as { complete: boolean }).complete &&
          (el as unknown as { naturalWidth: number }).naturalWidth > 0,
        await image.elementHandle(),
      );
      assert.equal(await image.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth), 300);
    }
    // Each row lists its preflight findings: none for the first three, the overflowing headline for A4.
    assert.equal(await rows.getByText('No preflight findings.').count(), 3);
    const findings = rows.getByRole('list', { name: 'Preflight findings of row A4' });
    await findings.waitFor();
    assert.match((await findings.textContent()) ?? '', /headline/);
    const bad = rows.getByRole('listitem', { name: 'Row A5' });
    await bad.getByText(/VISIBILITY needs true\/false/).waitFor();
    assert.equal(await bad.getByRole('img').count(), 0);
    await page.screenshot({ path: 'docs/img/studio-batches.png', fullPage: true });
    // The mapping changed four times and the preview followed: never with the file (a multipart upload).
    const previews = sent.filter((r) => r.url === '/v1/batches/preview');
    assert.ok(previews.length >= 2, `previews: ${JSON.stringify(previews)}`);
    for (const r of previews) assert.match(r.contentType, /^application\/json/, JSON.stringify(r));
    assert.deepEqual(
      sent.filter((r) => r.contentType.startsWith('multipart/')),
      [],
      'no upload before the run',
    );

    await page.getByRole('button', { name: 'Run batch' }).click();
    const progress = page.getByRole('progressbar', { name: 'Batch progress' });
    await progress.waitFor();
    await page
      .getByRole('status')
      .filter({ hasText: 'Complete with errors: 5 of 5 rows done, 1 failed' })
      .waitFor({ timeout: 120_000 });
    // The run sent the file, once.
    assert.deepEqual(
      sent.filter((r) => r.contentType.startsWith('multipart/')).map((r) => r.url),
      ['/v1/batches'],
    );

    const failedRows = page.getByRole('list', { name: /^Failed rows of batch \d+$/ });
    await failedRows.waitFor();
    assert.match((await failedRows.textContent()) ?? '', /^Row A5 \(line 6\): .*VISIBILITY needs true\/false/);

    const zipLink = page.getByRole('link', { name: /^Download zip of batch \d+$/ }).first();
    const zipUrl = await zipLink.getAttribute('href');
    assert.ok(zipUrl, 'the zip link has an address');
    const zip = await fetch(new URL(zipUrl, origin));
    assert.equal(zip.status, 200);
    assert.equal((zip.headers.get('content-type') ?? '').split(';')[0], 'application/zip');
    const entries = await readZip(Buffer.from(await zip.arrayBuffer()));
    const names = [...entries.keys()].sort();
    assert.equal(names.length, 4, names.join(', '));
    assert.deepEqual(
      names.map((name) => name.split('/')[0]),
      ['A1', 'A2', 'A3', 'A4'],
    );
    for (const name of names) {
      assert.match(name, /-300x250\.png$/);
      assert.deepEqual([...entries.get(name)!.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    }

    const resultsUrl = await page
      .getByRole('link', { name: /^Download results CSV of batch \d+$/ })
      .first()
      .getAttribute('href');
    assert.ok(resultsUrl);
    const results = await fetch(new URL(resultsUrl, origin));
    assert.equal(results.status, 200);
    const text = await results.text();
    for (const key of ['A1', 'A2', 'A3', 'A4']) assert.match(text, new RegExp(`\\b${key}\\b.*succeeded`));
    assert.match(text, /\bA5\b.*failed/);

    // The batch is in the list of past batches.
    const past = page.getByRole('table', { name: 'Past batches' });
    await past.getByRole('cell', { name: 'Complete with errors', exact: true }).waitFor();
  });

  test('a feed URL: its items become rows, its g: fields columns to map', async () => {
    const page = await signedIn();
    await page.goto(new URL('/app/batches', origin).toString());
    const projects = page.getByRole('combobox', { name: 'Project' });
    await projects.getByRole('option', { name: projectName }).waitFor({ state: 'attached' });
    await projects.selectOption({ label: projectName });
    const design = page.getByRole('combobox', { name: 'Design' });
    await design.getByRole('option', { name: 'Spring banner' }).waitFor({ state: 'attached' });
    await design.selectOption({ label: 'Spring banner' });
    await page.getByRole('radio', { name: 'Product feed URL (CSV or RSS/Atom)' }).check();
    await page.getByRole('textbox', { name: 'Feed URL' }).fill(`${feedOrigin}/feed.xml`);
    await page.getByRole('button', { name: 'Load feed' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^12 rows; columns: title, link, description, id, price, image_link/ })
      .waitFor();
    await page.getByRole('combobox', { name: 'Column for headline LABEL' }).selectOption('title');
    await page.getByRole('combobox', { name: 'Row key' }).selectOption('id');
    const image = page
      .getByRole('list', { name: 'Preview rows' })
      .getByRole('img', { name: 'Preview of row SKU-0003' });
    await image.waitFor();
    await page.waitForFunction(
      ([el, wanted]) => ((el as unknown as { src: string }).src ?? '').includes(wanted as string),
      [await image.elementHandle(), `headline=${encodeURIComponent('Mug & Saucer no. 3')}`] as const,
    );
    await page.waitForFunction(
      (el) =>
        (el as unknown as { complete: boolean }).complete &&
        (el as unknown as { naturalWidth: number }).naturalWidth > 0,
      await image.elementHandle(),
    );
  });

  test('a large file: the preview counts its rows and sends only its first rows, whatever the mapping changes', async () => {
    const page = await signedIn();
    await page.goto(new URL('/app/batches', origin).toString());
    const projects = page.getByRole('combobox', { name: 'Project' });
    await projects.getByRole('option', { name: projectName }).waitFor({ state: 'attached' });
    await projects.selectOption({ label: projectName });
    const design = page.getByRole('combobox', { name: 'Design' });
    await design.getByRole('option', { name: 'Spring banner' }).waitFor({ state: 'attached' });
    await design.selectOption({ label: 'Spring banner' });
    const sent = recordRequests(page);
    // 2,000 rows, a quoted field with a newline in the first ones (the excerpt cuts after a whole record), ~100 kB.
    const lines = ['sku;title;note'];
    for (let i = 0; i < 2000; i++) lines.push(`S${i};"Item ${i}";"${i === 3 ? 'two\nlines' : 'x'.repeat(30)}"`);
    const file = Buffer.from(`${lines.join('\n')}\n`);
    await page.getByLabel('CSV or TSV file', { exact: true }).setInputFiles({
      name: 'big.csv',
      mimeType: 'text/csv',
      buffer: file,
    });
    await page.getByRole('status').filter({ hasText: '2000 rows; columns: sku, title, note' }).waitFor();
    await page.getByRole('combobox', { name: 'Column for headline LABEL' }).selectOption('title');
    await page.getByRole('combobox', { name: 'Row key' }).selectOption('sku');
    // The first ten rows, the one with a quoted newline among them, each with its image.
    const rows = page.getByRole('list', { name: 'Preview rows' });
    for (const key of ['S0', 'S3', 'S9']) await rows.getByRole('img', { name: `Preview of row ${key}` }).waitFor();
    await page.getByRole('textbox', { name: 'Template for badge LABEL' }).fill('{note}');
    await page.getByRole('status').filter({ hasText: '2000 rows' }).waitFor();
    await rows.getByRole('img', { name: 'Preview of row S9' }).waitFor();
    assert.equal(await rows.getByRole('listitem').count(), 10);
    const previews = sent.filter((r) => r.url === '/v1/batches/preview');
    assert.ok(previews.length >= 2, `previews: ${JSON.stringify(previews)}`);
    for (const r of previews) {
      assert.match(r.contentType, /^application\/json/, JSON.stringify(r));
      assert.ok(
        r.bytes > 0 && r.bytes < file.length / 20,
        `a preview sent ${r.bytes} bytes of a ${file.length}-byte file`,
      );
    }
    assert.deepEqual(
      sent.filter((r) => r.contentType.startsWith('multipart/')),
      [],
    );
  });
});
