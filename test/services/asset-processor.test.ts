// The asset processor as `asset.fetch` jobs of the JobQueue, on a real database (SQLite or PostgreSQL), a real job
// table and a real HTTP server: work accepted before a crash is finished after a restart (the recovery sweep enqueues
// every PROCESSING row); one job id per row keeps two processors off one row; failures that are not the source's fault
// are retried by the queue a bounded number of times and then end in ERROR; stopping the queue finishes what is being
// fetched and leaves the rest for the next start. Every wait goes through idle() or stop(), never a sleep.
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
    // The harness's own asset jobs would compete for the rows these tests make: each test runs its own queue.
    await t.runtime.jobs.stop();
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

  /**
   * An asset processor on a job queue of its own over the same database (a queue takes one handler per kind). `run()`
   * starts the queue and the recovery sweep, waits until no job is due or running, and stops the queue.
   */
  function processor(options: Partial<AssetProcessorOptions> = {}) {
    const queue = createLocalJobQueue({ db: t.runtime.db.kysely, dialect: t.runtime.db.dialect });
    const p = createAssetProcessor({
      db: t.runtime.db.kysely,
      queue,
      blobs: t.runtime.blobs,
      fetcher: createAssetFetcher({ allowPrivateUrls: true, cacheBytes: 0, probe: null }),
      urlTtlSeconds: 3600,
      ...options,
    });
    p.register();
    return {
      p,
      queue,
      async start() {
        await queue.start();
        await p.start();
      },
      async run() {
        await queue.start();
        await p.start();
        await queue.idle();
        await queue.stop();
      },
    };
  }

  test('a new app on the same database finishes the rows accepted before a crash', async () => {
    const rows = await accepted(3);
    // Its own job queue: a queue takes one handler per kind, and the harness's app registered them on its own.
    const jobs = createLocalJobQueue({ db: t.runtime.db.kysely, dialect: t.runtime.db.dialect });
    const app = await buildApp({ ...t.runtime, jobs, logger: false });
    try {
      await app.ready(); // starts the queue and the recovery sweep, which enqueues every PROCESSING row
      await jobs.idle();
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

  test('a job whose process died too often ends its row ERROR; a sweep or an enqueue again runs nothing twice', async () => {
    const [row] = await accepted(1);
    const queue = createLocalJobQueue({ db: t.runtime.db.kysely, dialect: t.runtime.db.dialect });
    let fetches = 0;
    const p = createAssetProcessor({
      db: t.runtime.db.kysely,
      queue,
      blobs: t.runtime.blobs,
      fetcher: {
        fetch: async () => {
          fetches += 1;
          throw new Error('unreachable');
        },
      },
      urlTtlSeconds: 3600,
      maxAttempts: 1,
    });
    // The queue hands the exhausted job over as it does when the last claim's process died (local-queue, BullMQ).
    let exhausted: ((job: never, error: Error) => Promise<void>) | undefined;
    const process = queue.process.bind(queue);
    queue.process = (kind, handler, options) => {
      exhausted = options.onExhausted as typeof exhausted;
      process(kind, handler, options);
    };
    p.register();
    await exhausted?.(
      { id: `asset:${row.id}`, kind: 'asset.fetch', payload: { mediaId: row.id }, attempt: 3, maxAttempts: 3 } as never,
      new Error('the job was interrupted'),
    );
    const [settled] = await rowsOf([row]);
    assert.deepEqual([settled.status, settled.blob_key], ['ERROR', null]);
    assert.equal(settled.error, `${row.src}: processing was interrupted; upload it again`);
    assert.equal(fetches, 0);

    const again = await accepted(2);
    const { run, p: second } = processor();
    await second.enqueue(again.map((r) => r.id));
    await second.enqueue(again.map((r) => r.id));
    await run();
    const rows = await rowsOf(again);
    assert.deepEqual(
      rows.map((r) => [r.status, r.attempts]),
      again.map(() => ['VALID', 1]),
    );
    assert.equal((await eventsFor(again)).length, 1);
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
    await processor({ blobs: failing, retryDelaysMs: [0], log: { error: (details) => logged.push(details) } }).run();
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
    await processor({ blobs: flaky, retryDelaysMs: [0] }).run();
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
    await processor({ fetcher: counting, concurrency: 4 }).run();
    assert.equal(most, 4);
    assert.deepEqual(
      (await rowsOf(rows)).map((r) => r.status),
      rows.map(() => 'VALID'),
    );
  });

  test('two processors on one job table fetch each row once and record the upload once', async () => {
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
    // Both queues start before either sweeps, as two processes would (each sweep enqueues every row, by one job id).
    await one.queue.start();
    await two.queue.start();
    await Promise.all([one.p.start(), two.p.start()]);
    await Promise.all([one.queue.idle(), two.queue.idle()]);
    await Promise.all([one.queue.stop(), two.queue.stop()]);
    assert.equal(fetched.length, 8);
    const settled = await rowsOf(rows);
    assert.deepEqual(
      settled.map((r) => [r.status, r.attempts]),
      rows.map(() => ['VALID', 1]),
    );
    assert.equal((await eventsFor(rows)).length, 1);
  });

  test('stopping the queue lets the fetches under way finish and leaves the rest PROCESSING for the next start', async () => {
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
    await first.start();
    await twoStarted;
    const stopped = first.queue.stop();
    release();
    await stopped;
    const afterStop = await rowsOf(rows);
    assert.deepEqual(
      afterStop.map((r) => [r.status, r.attempts, r.lease_until]),
      [['VALID', 1, null], ['VALID', 1, null], ...rows.slice(2).map(() => ['PROCESSING', 0, null])],
    );
    assert.equal(calls, 2);
    assert.equal((await eventsFor(rows)).length, 0);

    await processor().run();
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
