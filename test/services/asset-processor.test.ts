// The asset processor on a real database (SQLite or PostgreSQL) and a real HTTP server: the media rows are its queue,
// so work accepted before a crash is finished after a restart; a claim keeps two processors off one row; failures
// that are not the source's fault are retried a bounded number of times and then end in ERROR; stop() finishes what
// is being fetched and leaves the rest for the next start. Every wait goes through idle() or stop(), never a sleep.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createLocalJobQueue } from '../../src/jobs/local-queue.js';
import { createAssetFetcher, type FetchedMedia } from '../../src/render/media/assets.js';
import { type AssetProcessorOptions, createAssetProcessor, fileNameFor } from '../../src/services/asset-processor.js';
import type { BlobStore } from '../../src/storage/blobs/blob-store.js';
import { createMediaRepository, type MediaRow } from '../../src/storage/db/repositories/media.repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type MediaServer, png, startMediaServer } from '../render/media-fixtures.js';

describe('asset processor', () => {
  let t: TestApp;
  let server: MediaServer;
  let kitId: number;
  const logo = png(16, 9);
  before(async () => {
    t = await startTestApp();
    // The harness's own processor would compete for the rows these tests make: each test runs its own.
    await t.app.assetProcessor.stop();
    server = await startMediaServer();
    server.route('/logo.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(logo);
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: t.owner.headers,
      payload: { name: 'Queue' },
    });
    kitId = res.json().response.brandKit.id;
  });
  after(async () => {
    await t.close();
    await server.close();
  });

  /** Rows as an upload accepted them (PROCESSING, never claimed), as if the process died right after answering. */
  async function accepted(count: number, src = `${server.origin}/logo.png`): Promise<MediaRow[]> {
    return createMediaRepository(t.runtime.db.kysely).insertUpload(
      { id: randomUUID(), teamId: t.owner.teamId, brandKitId: kitId, createdBy: t.owner.userId },
      Array.from({ length: count }, () => ({
        teamId: t.owner.teamId,
        brandKitId: kitId,
        mediaFolderId: null,
        name: 'logo',
        fileName: 'logo.png',
        src,
        createdBy: t.owner.userId,
      })),
    );
  }

  const rowsOf = (rows: MediaRow[]) =>
    t.runtime.db.kysely
      .selectFrom('media')
      .selectAll()
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('id')
      .execute();

  /** The brandkit/assetsUploaded events whose assets are exactly these rows. */
  async function eventsFor(rows: MediaRow[]) {
    const events = await t.runtime.db.kysely
      .selectFrom('events_outbox')
      .select('payload')
      .where('action', '=', 'brandkit/assetsUploaded')
      .execute();
    const ids = rows.map((r) => r.id).join(',');
    return events
      .map((e) => JSON.parse(e.payload) as { data: { assets: { id: number; status: string }[] } })
      .filter((e) => e.data.assets.map((a) => a.id).join(',') === ids);
  }

  function processor(options: Partial<AssetProcessorOptions> = {}) {
    return createAssetProcessor({
      db: t.runtime.db.kysely,
      blobs: t.runtime.blobs,
      fetcher: createAssetFetcher({ allowPrivateUrls: true, cacheBytes: 0, probe: null }),
      urlTtlSeconds: 3600,
      sweepIntervalMs: 0,
      ...options,
    });
  }

  test('a new app on the same database finishes the rows accepted before a crash', async () => {
    const rows = await accepted(3);
    // Its own job queue: a queue takes one handler per kind, and the harness's app registered them on its own.
    const app = await buildApp({
      ...t.runtime,
      jobs: createLocalJobQueue({ db: t.runtime.db.kysely, dialect: t.runtime.db.dialect }),
      logger: false,
    });
    try {
      await app.ready(); // starts the app's processor, which picks up every PROCESSING row
      await app.assetProcessor.idle();
    } finally {
      await app.close();
    }
    const settled = await rowsOf(rows);
    assert.deepEqual(
      settled.map((r) => [r.status, r.width, r.height, r.size, r.attempts, r.lease_until]),
      rows.map(() => ['VALID', 16, 9, logo.length, 1, null]),
    );
    for (const row of settled) {
      const blob = await t.runtime.blobs.get(row.blob_key!);
      assert.ok(blob);
      blob.body.destroy();
      assert.equal(blob.size, logo.length);
    }
    const events = await eventsFor(rows);
    assert.equal(events.length, 1);
    assert.deepEqual(
      events[0].data.assets.map((a) => a.status),
      ['VALID', 'VALID', 'VALID'],
    );
  });

  test('a row held by a dead process is taken once its lease has run out; one interrupted too often ends ERROR', async () => {
    const [stale, crashing] = await accepted(2);
    const past = new Date(Date.now() - 1000).toISOString();
    await t.runtime.db.kysely
      .updateTable('media')
      .set({ lease_until: past, attempts: 1 })
      .where('id', '=', stale.id)
      .execute();
    await t.runtime.db.kysely
      .updateTable('media')
      .set({ lease_until: past, attempts: 3 })
      .where('id', '=', crashing.id)
      .execute();
    const p = processor();
    p.start();
    await p.idle();
    await p.stop();
    const [a, b] = await rowsOf([stale, crashing]);
    assert.deepEqual([a.status, a.attempts], ['VALID', 2]);
    assert.deepEqual([b.status, b.attempts, b.blob_key], ['ERROR', 4, null]);
    assert.equal(b.error, `${crashing.src}: processing was interrupted 3 times; upload it again`);
  });

  test('a row whose lease is still running is left to its holder', async () => {
    const [held] = await accepted(1);
    const future = new Date(Date.now() + 60 * 60_000).toISOString();
    await t.runtime.db.kysely
      .updateTable('media')
      .set({ lease_until: future, attempts: 1 })
      .where('id', '=', held.id)
      .execute();
    const p = processor();
    p.start();
    await p.idle();
    await p.stop();
    const [row] = await rowsOf([held]);
    assert.deepEqual([row.status, row.attempts, row.lease_until], ['PROCESSING', 1, future]);
    await t.runtime.db.kysely.deleteFrom('media').where('id', '=', held.id).execute();
  });

  test('a failure that is not the source’s fault is retried, then ends ERROR after 3 attempts', async () => {
    const rows = await accepted(1);
    let puts = 0;
    const failing: BlobStore = {
      ...t.runtime.blobs,
      put: async () => {
        puts += 1;
        throw new Error('disk full at /var/lib/placard');
      },
    };
    const logged: object[] = [];
    const p = processor({ blobs: failing, retryDelaysMs: [0], log: { error: (details) => logged.push(details) } });
    p.start();
    await p.idle();
    await p.stop();
    assert.equal(puts, 3);
    assert.equal(logged.length, 3);
    const [row] = await rowsOf(rows);
    assert.deepEqual([row.status, row.attempts, row.blob_key, row.lease_until], ['ERROR', 3, null, null]);
    // The reason a client sees names the source and the stage; the internal detail stays in the log.
    assert.equal(
      row.error,
      `${rows[0].src}: the file could not be stored because of an internal error (3 attempts); upload it again`,
    );
    const [event] = await eventsFor(rows);
    assert.deepEqual(
      event.data.assets.map((a) => a.status),
      ['ERROR'],
    );
  });

  test('a failure that passes on the next attempt ends VALID', async () => {
    const rows = await accepted(1);
    let puts = 0;
    const flaky: BlobStore = {
      ...t.runtime.blobs,
      put: async (key, body, type) => {
        puts += 1;
        if (puts === 1) throw new Error('EAGAIN');
        return t.runtime.blobs.put(key, body, type);
      },
    };
    const p = processor({ blobs: flaky, retryDelaysMs: [0] });
    p.start();
    await p.idle();
    await p.stop();
    const [row] = await rowsOf(rows);
    assert.deepEqual([row.status, row.attempts, row.error], ['VALID', 2, null]);
  });

  // The first fetches wait until four are under way, so the limit is reached whatever the speed of the database;
  // were it not enforced, a fifth would start meanwhile. The timeout turns a regression (never four) into a failure.
  test('at most `concurrency` sources are fetched at once', { timeout: 20_000 }, async () => {
    const rows = await accepted(10);
    let inFlight = 0;
    let most = 0;
    let full: () => void = () => {};
    const fourUnderWay = new Promise<void>((resolve) => {
      full = resolve;
    });
    const real = createAssetFetcher({ allowPrivateUrls: true, cacheBytes: 0, probe: null });
    const counting = {
      async fetch(url: string, options?: Parameters<typeof real.fetch>[1]): Promise<FetchedMedia> {
        inFlight += 1;
        most = Math.max(most, inFlight);
        if (inFlight === 4) full();
        try {
          await fourUnderWay;
          return await real.fetch(url, options);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const p = processor({ fetcher: counting, concurrency: 4 });
    p.start();
    await p.idle();
    await p.stop();
    assert.equal(most, 4);
    assert.deepEqual(
      (await rowsOf(rows)).map((r) => r.status),
      rows.map(() => 'VALID'),
    );
  });

  test('two processors on one table fetch each row once and record the upload once', async () => {
    const rows = await accepted(8);
    const fetched: string[] = [];
    const real = createAssetFetcher({ allowPrivateUrls: true, cacheBytes: 0, probe: null });
    const recording = (name: string) => ({
      fetch(url: string, options?: Parameters<typeof real.fetch>[1]) {
        fetched.push(name);
        return real.fetch(url, options);
      },
    });
    const one = processor({ fetcher: recording('one'), concurrency: 2 });
    const two = processor({ fetcher: recording('two'), concurrency: 2 });
    one.start();
    two.start();
    await Promise.all([one.idle(), two.idle()]);
    await Promise.all([one.stop(), two.stop()]);
    assert.equal(fetched.length, 8);
    const settled = await rowsOf(rows);
    assert.deepEqual(
      settled.map((r) => [r.status, r.attempts]),
      rows.map(() => ['VALID', 1]),
    );
    assert.equal((await eventsFor(rows)).length, 1);
  });

  test('stop() lets the fetches under way finish and leaves the rest PROCESSING for the next start', async () => {
    const rows = await accepted(5);
    const real = createAssetFetcher({ allowPrivateUrls: true, cacheBytes: 0, probe: null });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const twoStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    let calls = 0;
    const gated = {
      async fetch(url: string, options?: Parameters<typeof real.fetch>[1]) {
        calls += 1;
        if (calls === 2) started();
        await gate;
        return real.fetch(url, options);
      },
    };
    const first = processor({ fetcher: gated, concurrency: 2 });
    first.start();
    await twoStarted;
    const stopped = first.stop();
    release();
    await stopped;
    const afterStop = await rowsOf(rows);
    assert.deepEqual(
      afterStop.map((r) => [r.status, r.attempts, r.lease_until]),
      [['VALID', 1, null], ['VALID', 1, null], ...rows.slice(2).map(() => ['PROCESSING', 0, null])],
    );
    assert.equal(calls, 2);
    assert.equal((await eventsFor(rows)).length, 0);

    const second = processor();
    second.start();
    await second.idle();
    await second.stop();
    assert.deepEqual(
      (await rowsOf(rows)).map((r) => r.status),
      rows.map(() => 'VALID'),
    );
    assert.equal((await eventsFor(rows)).length, 1);
  });

  test('the stored file name carries the extension of what the content turned out to be', () => {
    assert.equal(fileNameFor('logo.png', 'logo', 'png'), 'logo.png');
    assert.equal(fileNameFor('photo.JPEG', 'photo', 'jpg'), 'photo.JPEG');
    assert.equal(fileNameFor('photo', 'photo', 'png'), 'photo.png');
    assert.equal(fileNameFor('banner.png', 'banner', 'jpg'), 'banner.jpg');
  });
});
