// Batches (issue 22): the rules around the rows — every bad input of the issue refused whole at submit (naming the
// column, the line, the limit) with nothing stored; a row's own problem staying on that row (an image that 404s, a
// value a formatter cannot take); retry of failed rows only; cancel; the cache of rows and re-runs of an edited feed;
// onFindings; multipart uploads; the preview with its signed render URLs; roles and team isolation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { batchApi, cssOf, pairDocument, startReceiver } from '../../helpers/batches.js';
import { type MediaServer, png, startMediaServer } from '../../render/media-fixtures.js';
import { decodePng } from '../../render/pixels.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and asserted on.
type Json = Record<string, any>;

describe('batches: rules, bad input, retry, cancel, cache', () => {
  let t: TestApp;
  let media: MediaServer;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let pairHash: string;
  let photo: string;
  let comeBack = false;

  const { api, ok, waitForBatch, allRows: rowsOf } = batchApi(() => t);

  /** A multipart/form-data body as a browser sends it. */
  async function form(fields: Record<string, string>, file?: { bytes: Buffer; type: string; name: string }) {
    const data = new FormData();
    for (const [k, v] of Object.entries(fields)) data.append(k, v);
    if (file) data.append('file', new Blob([file.bytes], { type: file.type }), file.name);
    const request = new Request('http://x/', { method: 'POST', body: data });
    return {
      payload: Buffer.from(await request.arrayBuffer()),
      type: request.headers.get('content-type') as string,
    };
  }

  async function postForm(
    url: string,
    fields: Record<string, string>,
    file?: { bytes: Buffer; type: string; name: string },
  ) {
    const body = await form(fields, file);
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { ...t.owner.headers, 'content-type': body.type },
      payload: body.payload,
    });
    return { status: res.statusCode, json: JSON.parse(res.body) as Json, body: res.body };
  }

  async function stored() {
    const db = t.runtime.db.kysely;
    const [b, r] = await Promise.all([
      db
        .selectFrom('batches')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst(),
      db
        .selectFrom('batch_rows')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst(),
    ]);
    return { batches: Number(b?.n), rows: Number(r?.n) };
  }

  const mapping = [
    { elementName: 'panel', attribute: 'BGCOLOR', value: '{color}' },
    { elementName: 'headline', attribute: 'LABEL', value: '{title}' },
  ];
  const csvOf = (n: number, title = (i: number) => `Item ${i}`) =>
    ['sku,title,color', ...Array.from({ length: n }, (_, i) => `s${i},${title(i)},${cssOf(i)}`)].join('\n');

  before(async () => {
    media = await startMediaServer();
    media.route('/photo.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(10, 10, [0, 0, 255]));
    });
    // 404 until the test says the image is back.
    media.route('/flaky.png', (_req, res) => {
      if (comeBack) res.writeHead(200, { 'content-type': 'image/png' }).end(png(10, 10, [0, 255, 0]));
      else res.writeHead(404).end('gone');
    });
    hooks = await startReceiver();
    t = await startTestApp({ batchRowsInFlight: 4 });
    photo = `${media.origin}/photo.png`;
    const kit = (await ok('POST', '/v1/brandkits/create', { name: 'Kit' })).brandKit.id;
    const projectId = (await ok('POST', '/v1/projects', { name: 'Batches', brandKitId: kit })).project.id;
    pairHash = (await ok('POST', '/v1/templates/import', { projectId, name: 'Pair', document: pairDocument(photo) }))
      .template.id;
  });

  after(async () => {
    await t?.close();
    await hooks?.close();
    await media?.close();
  });

  test('every bad input of the whole request is refused at submit, naming the rule, and stores nothing', async () => {
    const before = await stored();
    const base = { templateHash: pairHash, type: 'png', mapping };
    const cases: Array<[Json, number, string, RegExp]> = [
      // A mapped column missing: named, with the columns found.
      [{ ...base, csv: 'sku,title\na,b' }, 422, 'UNPROCESSABLE', /unknown column "color".*sku, title/],
      // Ragged rows: the line (after an embedded newline, the line of the file).
      [{ ...base, csv: 'sku,title,color\n"a\nb",t,#FFFFFF\nc,d' }, 422, 'UNPROCESSABLE', /line 4/],
      // A template naming an unknown formatter.
      [
        { ...base, csv: csvOf(2), mapping: [{ elementName: 'headline', attribute: 'LABEL', value: '{title|shout}' }] },
        422,
        'UNPROCESSABLE',
        /shout/,
      ],
      // Elements and attributes of the template.
      [
        { ...base, csv: csvOf(2), mapping: [{ elementName: 'nope', attribute: 'LABEL', value: '{title}' }] },
        422,
        'UNKNOWN_ELEMENT',
        /^mapping\[0\]/,
      ],
      [
        { ...base, csv: csvOf(2), mapping: [{ elementName: 'panel', attribute: 'LABEL', value: '{title}' }] },
        422,
        'ATTRIBUTE_NOT_APPLICABLE',
        /LABEL/,
      ],
      [{ ...base, csv: csvOf(2), rowKey: 'nope' }, 422, 'UNPROCESSABLE', /rowKey.*nope/],
      [
        { ...base, csv: 'sku,title,color\na,x,#FFFFFF\na,y,#FFFFFF', rowKey: 'sku' },
        422,
        'UNPROCESSABLE',
        /rowKey|duplicate/i,
      ],
      [
        { ...base, csv: csvOf(2), naming: '{key}/{bogus}' },
        422,
        'UNPROCESSABLE',
        /naming: unknown placeholder \{bogus\}/,
      ],
      [base, 400, 'VALIDATION_FAILED', /exactly one of rows/],
      [{ ...base, csv: csvOf(1), rows: [{ a: 1 }] }, 400, 'VALIDATION_FAILED', /rows, csv/],
      [{ ...base, rows: [{ title: { nested: true } }] }, 400, 'VALIDATION_FAILED', /rows/],
      [{ ...base, csv: csvOf(1), type: 'tiff' }, 400, 'VALIDATION_FAILED', /type/],
      [{ ...base, csv: csvOf(1), onFindings: 'maybe' }, 400, 'VALIDATION_FAILED', /onFindings/],
      [{ ...base, csv: csvOf(1), templateHash: 'zzzzzzz' }, 404, 'NOT_FOUND', /templateHash/],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await api('POST', '/v1/batches', body);
      assert.equal(res.status, status, `${JSON.stringify(body).slice(0, 200)}: ${res.body}`);
      assert.equal(res.json.code, code, res.body);
      assert.match(res.json.error, message);
    }
    // Invalid UTF-8 in an uploaded file: the line is named.
    const bad = Buffer.concat([
      Buffer.from('sku,title,color\ns1,ok,#FFFFFF\ns2,'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(',#FFFFFF\n'),
    ]);
    const utf = await postForm(
      '/v1/batches',
      { templateHash: pairHash, type: 'png', mapping: JSON.stringify(mapping) },
      { bytes: bad, type: 'text/csv', name: 'rows.csv' },
    );
    assert.equal(utf.status, 422, utf.body);
    assert.match(utf.json.error, /UTF-8/);
    assert.match(utf.json.error, /line 3/);
    // A 60 MB file: over the documented 50 MiB.
    const big = Buffer.alloc(60 * 1024 * 1024, 'a');
    const large = await postForm(
      '/v1/batches',
      { templateHash: pairHash, type: 'png', mapping: JSON.stringify(mapping) },
      { bytes: big, type: 'text/csv', name: 'big.csv' },
    );
    assert.equal(large.status, 413, large.body);
    assert.match(large.json.error, /50 MiB/);
    assert.deepEqual(await stored(), before);
  });

  test('a row whose image 404s fails alone (with batch/row.failed when asked); retry re-runs only that row', async () => {
    const rows = [
      { sku: 'a', title: 'A', color: '#FF0000', image: photo },
      { sku: 'b', title: 'B', color: '#00FF00', image: `${media.origin}/flaky.png` },
      { sku: 'c', title: 'C', color: '#0000FF', image: photo },
      // A value VISIBILITY cannot take: failed at submit, on its row only.
      { sku: 'd', title: 'D', color: '#0000FF', image: photo, show: 'perhaps' },
    ];
    const { batch } = await ok('POST', '/v1/batches', {
      templateHash: pairHash,
      type: 'png',
      mapping: [
        ...mapping,
        { elementName: 'photo', attribute: 'SOURCE', value: '{image}' },
        { elementName: 'photo', attribute: 'VISIBILITY', value: '{show}' },
      ],
      rows: rows.map((r) => ({ show: 'yes', ...r })),
      rowKey: 'sku',
      webhookUrl: hooks.url('/retry'),
      notifyRowFailures: true,
    });
    const done = await waitForBatch(batch.id);
    assert.equal(done.status, 'completeWithError');
    assert.deepEqual([done.counts.succeeded, done.counts.failed], [2, 2]);
    const byKey = Object.fromEntries((await rowsOf(batch.id)).map((r) => [r.key, r])) as Record<string, Json>;
    assert.equal(byKey.a.status, 'succeeded');
    assert.equal(byKey.b.status, 'failed');
    assert.match(byKey.b.error.message, /flaky\.png/);
    assert.equal(byKey.d.status, 'failed');
    assert.equal(byKey.d.error.code, 'INVALID_ROW_VALUE');
    assert.match(byKey.d.error.message, /perhaps/);
    // One batch/row.failed for the row that rendered and failed, then batch/completed.
    const calls = await hooks.waitFor('/retry', 2);
    assert.deepEqual(calls.map((c) => c.json.action).sort(), ['batch/completed', 'batch/row.failed']);
    assert.equal(calls.find((c) => c.json.action === 'batch/row.failed')?.json.data.row.key, 'b');

    comeBack = true;
    const retried = await ok('POST', `/v1/batches/${batch.id}/retry`);
    // The row whose values cannot be mapped fails the same way every time: not retried.
    assert.equal(retried.retried, 1);
    const again = await waitForBatch(batch.id);
    assert.equal(again.status, 'completeWithError');
    assert.deepEqual([again.counts.succeeded, again.counts.failed], [3, 1]);
    const attempts = await t.runtime.db.kysely
      .selectFrom('batch_rows')
      .select(['key', 'attempts'])
      .where('batch_id', '=', batch.id)
      .orderBy('idx')
      .execute();
    // a and c rendered once; b twice; d never (it failed at submit).
    assert.deepEqual(
      attempts.map((r) => [r.key, r.attempts]),
      [
        ['a', 1],
        ['b', 2],
        ['c', 1],
        ['d', 0],
      ],
    );
    await hooks.waitFor('/retry', 3);
    const none = await api('POST', `/v1/batches/${again.id}/retry`);
    assert.equal(none.json.response.retried, 0);
  });

  test('identical rows are served from earlier files; a re-run of an edited feed renders only the changed rows', async () => {
    const first = (
      await ok('POST', '/v1/batches', { templateHash: pairHash, type: 'png', mapping, csv: csvOf(6), rowKey: 'sku' })
    ).batch;
    await waitForBatch(first.id);
    const edited = csvOf(6, (i) => (i === 2 ? 'Changed' : `Item ${i}`));
    const second = (
      await ok('POST', '/v1/batches', { templateHash: pairHash, type: 'png', mapping, csv: edited, rowKey: 'sku' })
    ).batch;
    const done = await waitForBatch(second.id);
    assert.equal(done.status, 'complete');
    const rows = await rowsOf(second.id);
    assert.deepEqual(
      rows.map((r) => r.cached),
      [true, true, false, true, true, true],
    );
    // The reused files are the same bytes as the first batch's.
    const firstRows = await rowsOf(first.id);
    const a = await t.download(firstRows[0].files[0].url);
    const b = await t.download(rows[0].files[0].url);
    assert.ok(a.body.equals(b.body));
  });

  test('onFindings: render lists the finding, skip skips the row, fail fails it with PREFLIGHT_FAILED', async () => {
    // A title far too long for its 12 px box: TEXT_OVERFLOW, an error finding.
    const long = 'An unreasonably long headline that cannot possibly fit into this tiny banner box at all';
    const csv = `sku,title,color\nok,Fine,#FFFFFF\nlong,${long},#FFFFFF`;
    const results: Record<string, Json[]> = {};
    for (const onFindings of ['render', 'skip', 'fail']) {
      const { batch } = await ok('POST', '/v1/batches', {
        templateHash: pairHash,
        type: 'png',
        mapping,
        csv,
        rowKey: 'sku',
        onFindings,
      });
      await waitForBatch(batch.id);
      results[onFindings] = await rowsOf(batch.id);
    }
    const codes = (row: Json) => row.findings.map((f: Json) => f.code);
    assert.equal(results.render[1].status, 'succeeded');
    assert.ok(codes(results.render[1]).includes('TEXT_OVERFLOW'), JSON.stringify(results.render[1].findings));
    assert.equal(results.skip[0].status, 'succeeded');
    assert.equal(results.skip[1].status, 'skipped');
    assert.ok(codes(results.skip[1]).includes('TEXT_OVERFLOW'));
    assert.equal(results.fail[1].status, 'failed');
    assert.equal(results.fail[1].error.code, 'PREFLIGHT_FAILED');
  });

  test('createDesigns: each row becomes a design with its changes, made once', async () => {
    const { batch } = await ok('POST', '/v1/batches', {
      templateHash: pairHash,
      type: 'png',
      mapping,
      rowKey: 'sku',
      csv: csvOf(3, (i) => `Design ${i}`),
      createDesigns: true,
      generalSettings: { newDesignName: 'Variant' },
    });
    const done = await waitForBatch(batch.id);
    assert.equal(done.status, 'complete');
    const rows = await rowsOf(batch.id);
    assert.equal(new Set(rows.map((r) => r.designHash)).size, 3);
    for (const [i, row] of rows.entries()) {
      const doc = await ok('GET', `/v1/templates/${row.designHash}/document`);
      assert.equal(doc.name, `Variant – s${i}`);
      const headline = doc.sizes[0].slides[0].elements.find((e: Json) => e.name === 'headline');
      assert.equal(headline.text, `Design ${i}`);
    }
    const refused = await api('POST', '/v1/batches', {
      templateHash: pairHash,
      type: 'png',
      mapping,
      csv: csvOf(1),
      createDesigns: true,
      generalSettings: { newDesignProjectId: 999_999 },
    });
    assert.equal(refused.status, 404, refused.body);
    assert.match(refused.json.error, /generalSettings\.newDesignProjectId/);
  });

  test('cancel stops new rows: rows not started are cancelled, running ones finish, the batch ends cancelled', async () => {
    // Every row's image waits until the cancel is in: no row can finish (and make room for more) before it, so the
    // rows that render are exactly the ones in flight at the cancel, however fast this machine renders.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    media.route('/held.png', (_req, res) => {
      void held.then(() => res.writeHead(200, { 'content-type': 'image/png' }).end(png(10, 10, [0, 0, 255])));
    });
    try {
      const { batch } = await ok('POST', '/v1/batches', {
        templateHash: pairHash,
        type: 'png',
        mapping: [...mapping, { elementName: 'photo', attribute: 'SOURCE', value: '{image}' }],
        rows: Array.from({ length: 200 }, (_, i) => ({
          sku: `s${i}`,
          title: `Cancel ${i}`,
          color: cssOf(i),
          image: `${media.origin}/held.png`,
        })),
      });
      const cancelled = (await ok('POST', `/v1/batches/${batch.id}/cancel`)).batch;
      assert.equal(cancelled.status, 'cancelled');
      release();
      const done = await waitForBatch(batch.id);
      assert.equal(done.status, 'cancelled');
      const { counts } = done;
      assert.equal(counts.pending + counts.running, 0);
      assert.equal(counts.succeeded + counts.failed + counts.cancelled, 200);
      // At most the rows in flight (4 in this app) had started, and those finished.
      assert.ok(counts.cancelled >= 196, JSON.stringify(counts));
      assert.equal(counts.failed, 0, JSON.stringify(counts));
      const again = await api('POST', `/v1/batches/${batch.id}/cancel`);
      assert.equal(again.status, 422);
    } finally {
      release();
    }
  });

  test('multipart upload of a TSV file with a naming pattern; the zip follows the pattern', async () => {
    const tsv = `sku\ttitle\tcolor\nx1\tOne\t#112233\nx2\tTwo\t#445566\n`;
    const res = await postForm(
      '/v1/batches',
      {
        templateHash: pairHash,
        type: 'jpg',
        mapping: JSON.stringify(mapping),
        rowKey: 'sku',
        naming: '{title}/{width}x{height}',
      },
      { bytes: Buffer.from(tsv), type: 'text/tab-separated-values', name: 'rows.tsv' },
    );
    assert.equal(res.status, 200, res.body);
    const done = await waitForBatch(res.json.response.batch.id);
    assert.equal(done.status, 'complete');
    const { readZip } = await import('../../helpers/zip.js');
    const zip = await readZip((await t.download(done.zipUrl)).body);
    assert.deepEqual([...zip.keys()].sort(), ['One/40x40.jpg', 'One/60x50.jpg', 'Two/40x40.jpg', 'Two/60x50.jpg']);
  });

  test('the preview checks like a submit, stores nothing, and answers the first 10 rows with signed render URLs', async () => {
    const before = await stored();
    const res = await ok('POST', '/v1/batches/preview', {
      templateHash: pairHash,
      type: 'png',
      mapping,
      csv: csvOf(12),
      rowKey: 'sku',
    });
    assert.deepEqual(res.columns, ['sku', 'title', 'color']);
    assert.equal(res.rowCount, 12);
    assert.equal(res.rows.length, 10);
    assert.deepEqual(res.rows[3].changes, [
      { elementName: 'panel', attribute: 'BGCOLOR', value: cssOf(3) },
      { elementName: 'headline', attribute: 'LABEL', value: 'Item 3' },
    ]);
    const url = new URL(res.rows[3].imageUrl);
    const image = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    assert.equal(image.statusCode, 200, image.body);
    const pixels = decodePng(image.rawPayload);
    assert.deepEqual([pixels.width, pixels.height], [60, 50]);
    assert.deepEqual(await stored(), before);
    const bad = await api('POST', '/v1/batches/preview', {
      templateHash: pairHash,
      type: 'png',
      mapping,
      csv: 'sku\na',
    });
    assert.equal(bad.status, 422);
  });

  test('roles and teams: a Viewer cannot start a batch; another team sees no batch of this one', async () => {
    const { batch } = await ok('POST', '/v1/batches', { templateHash: pairHash, type: 'png', mapping, csv: csvOf(1) });
    await waitForBatch(batch.id);
    const viewer = await t.userWith('Viewer');
    const refused = await api(
      'POST',
      '/v1/batches',
      { templateHash: pairHash, type: 'png', mapping, csv: csvOf(1) },
      viewer.headers,
    );
    assert.equal(refused.status, 403, refused.body);
    const other = await t.newTeam('Other');
    for (const [method, url] of [
      ['GET', `/v1/batches/${batch.id}`],
      ['GET', `/v1/batches/${batch.id}/rows`],
      ['GET', `/v1/batches/${batch.id}/zip`],
      ['GET', `/v1/batches/${batch.id}/results.csv`],
      ['POST', `/v1/batches/${batch.id}/cancel`],
      ['POST', `/v1/batches/${batch.id}/retry`],
    ]) {
      const res = await api(method, url, undefined, other.headers);
      assert.equal(res.status, 404, `${method} ${url}: ${res.body}`);
    }
    assert.equal((await ok('GET', '/v1/batches', undefined, other.headers)).totalCount, 0);
    const mine = await ok('GET', '/v1/batches?limit=100');
    assert.ok(mine.nodes.some((b: Json) => b.id === batch.id));
  });
});
