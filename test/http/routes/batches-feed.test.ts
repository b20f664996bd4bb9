// A batch from a Google Merchant feed (issue 22): 50 items served by a local HTTP server, fetched through the guarded
// fetcher with only 127.0.0.1 allowed (PLACARD_ALLOWED_PRIVATE_HOSTS, private URLs otherwise refused), each item's
// title, price and image mapped onto the template; every file decoded. Feeds that are private or not a feed are
// refused at submit with nothing stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { merchantRss } from '../../fixtures/merchant-feed.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pairDocument } from '../../helpers/batches.js';
import { readZip } from '../../helpers/zip.js';
import { type MediaServer, png, startMediaServer } from '../../render/media-fixtures.js';
import { assertPixel, decodePng } from '../../render/pixels.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field.
type Json = Record<string, any>;

/** Item n's image: a colour of its own. */
const imageColor = (n: number): [number, number, number] => [(n * 5) % 256, 255 - ((n * 5) % 256), 60];

describe('batches from a Merchant feed', () => {
  let t: TestApp;
  let media: MediaServer;
  let pairHash: string;

  async function api(method: string, url: string, body?: unknown) {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: body === undefined ? t.owner.headers : { ...t.owner.headers, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.body, json: JSON.parse(res.body || '{}') as Json };
  }

  before(async () => {
    media = await startMediaServer();
    media.route('/feed.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(merchantRss(50, `${media.origin}/img`));
    });
    media.route('/page.html', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>shop</body></html>');
    });
    for (let n = 1; n <= 50; n++) {
      media.route(`/img/${n}.png`, (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' }).end(png(10, 10, imageColor(n)));
      });
    }
    media.route('/photo.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(10, 10, [0, 0, 255]));
    });
    t = await startTestApp({ allowPrivateUrls: false, allowedPrivateHosts: ['127.0.0.1'] });
    const kit = (await api('POST', '/v1/brandkits/create', { name: 'Kit' })).json.response.brandKit.id;
    const projectId = (await api('POST', '/v1/projects', { name: 'Feed', brandKitId: kit })).json.response.project.id;
    const imported = await api('POST', '/v1/templates/import', {
      projectId,
      name: 'Pair',
      document: pairDocument(`${media.origin}/photo.png`),
    });
    pairHash = imported.json.response.template.id;
  });

  after(async () => {
    await t?.close();
    await media?.close();
  });

  const mapping = [
    { elementName: 'headline', attribute: 'LABEL', value: '{title} – {price}' },
    { elementName: 'photo', attribute: 'SOURCE', value: '{image_link}' },
  ];

  test('50 items map title, price and image; every row renders its own image', { timeout: 300_000 }, async () => {
    const submitted = await api('POST', '/v1/batches', {
      templateHash: pairHash,
      type: 'png',
      feedUrl: `${media.origin}/feed.xml`,
      rowKey: 'id',
      mapping,
    });
    assert.equal(submitted.status, 200, submitted.body);
    const id = submitted.json.response.batch.id;
    assert.equal(submitted.json.response.batch.rowCount, 50);
    let batch: Json;
    for (;;) {
      batch = (await api('GET', `/v1/batches/${id}`)).json.response;
      if (batch.finishedAt) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(batch.status, 'complete', JSON.stringify(batch.counts));
    const rows = (await api('GET', `/v1/batches/${id}/rows?limit=100`)).json.response.nodes as Json[];
    assert.equal(rows.length, 50);
    assert.equal(rows[6].key, 'SKU-0007');
    const preview = await api('POST', '/v1/batches/preview', {
      templateHash: pairHash,
      type: 'png',
      feedUrl: `${media.origin}/feed.xml`,
      rowKey: 'id',
      mapping,
    });
    assert.deepEqual(preview.json.response.rows[6].changes, [
      { elementName: 'headline', attribute: 'LABEL', value: 'Mug & Saucer no. 7 – 7.99 EUR' },
      { elementName: 'photo', attribute: 'SOURCE', value: `${media.origin}/img/7.png` },
    ]);
    const zip = await readZip((await t.download(batch.zipUrl)).body);
    assert.equal(zip.size, 100);
    for (const n of [1, 7, 50]) {
      const key = `SKU-${String(n).padStart(4, '0')}`;
      const wide = [...zip.entries()].find(([name]) => name.startsWith(`${key}/`) && name.endsWith('60x50.png'));
      assert.ok(wide, key);
      // The photo box (x 48..58, y 38..48 of the 60x50 size) shows the item's own image.
      assertPixel(decodePng(wide[1]), 53, 43, [...imageColor(n), 255], 2);
    }
  });

  test('a private feed URL, a page that is not a feed and a 404 are refused at submit, storing nothing', async () => {
    const base = { templateHash: pairHash, type: 'png', rowKey: 'id', mapping };
    const count = async () =>
      Number(
        (
          await t.runtime.db.kysely
            .selectFrom('batches')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirst()
        )?.n,
      );
    const before = await count();
    for (const [feedUrl, message] of [
      ['http://10.1.2.3/feed.xml', /feedUrl/],
      [`${media.origin}/page.html`, /feedUrl/],
      [`${media.origin}/missing.xml`, /feedUrl/],
    ] as const) {
      const res = await api('POST', '/v1/batches', { ...base, feedUrl });
      assert.equal(res.status, 422, `${feedUrl}: ${res.body}`);
      assert.match(res.json.error, message);
    }
    assert.equal(await count(), before);
  });
});
