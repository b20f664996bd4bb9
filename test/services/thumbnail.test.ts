// Thumbnails are real renders: the first slide of the first size, longest side 400 px, PNG; through the render pool
// when one is given, else on the calling thread; a source that cannot be fetched is left out instead of failing.
// Stored in the BlobStore under a key of its own and linked for 12 hours.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type DesignDocument, readDocument } from '../../src/domain/design.schema.js';
import { createRenderPool, RenderTimeoutError } from '../../src/formats/pool.js';
import {
  createThumbnails,
  drawThumbnail,
  THUMBNAIL_URL_TTL_SECONDS,
  thumbnailDimensions,
} from '../../src/services/thumbnail.js';
import { createLocalDiskBlobStore } from '../../src/storage/blobs/local-disk.js';
import { loadServerKeys } from '../../src/storage/secrets.js';
import { comparePngs } from '../render/golden.js';
import { assertPixel, decodePng } from '../render/pixels.js';
import { QUADRANTS, type RenderMedia, startRenderMedia } from '../render/render-media.js';

let media: RenderMedia;
before(async () => {
  media = await startRenderMedia();
});
after(() => media.close());

/** 300x250, navy; an amber square at (30, 30) 60x60 and the test photo filling the right half. */
function banner(extra: unknown[] = []): DesignDocument {
  return readDocument({
    name: 'Thumb',
    sizes: [
      {
        name: 'First',
        width: 300,
        height: 250,
        backgroundColor: '#0F172A',
        slides: [
          {
            elements: [
              { name: 'square', type: 'shape', x: 30, y: 30, width: 60, height: 60, fill: '#F59E0B' },
              {
                name: 'photo',
                type: 'image',
                x: 150,
                y: 0,
                width: 150,
                height: 250,
                src: `${media.origin}/photo.png`,
                fit: 'fill',
              },
              ...extra,
            ],
          },
          { elements: [{ name: 'slide-2', type: 'shape', x: 0, y: 0, width: 300, height: 250, fill: '#FF0000' }] },
        ],
      },
      { name: 'Second', width: 50, height: 50, backgroundColor: '#00FF00', slides: [{ elements: [] }] },
    ],
  });
}

describe('thumbnail dimensions', () => {
  test('the longest side is 400 px and the other keeps the proportions, rounded, at least 1 px', () => {
    assert.deepEqual(thumbnailDimensions(300, 250), { width: 400, height: 333 });
    assert.deepEqual(thumbnailDimensions(728, 90), { width: 400, height: 49 });
    assert.deepEqual(thumbnailDimensions(1080, 1920), { width: 225, height: 400 });
    assert.deepEqual(thumbnailDimensions(100, 100), { width: 400, height: 400 });
    assert.deepEqual(thumbnailDimensions(8000, 1), { width: 400, height: 1 });
  });
});

describe('drawThumbnail', () => {
  test('renders the first slide of the first size scaled to 400 px on its longest side', async () => {
    const png = decodePng(await drawThumbnail(banner(), { fetcher: media.fetcher }));
    assert.deepEqual([png.width, png.height], [400, 333]);
    const k = 400 / 300;
    assertPixel(png, 5, 5, [0x0f, 0x17, 0x2a, 255]);
    assertPixel(png, Math.round(60 * k), Math.round(60 * k), [0xf5, 0x9e, 0x0b, 255]);
    // Just inside the square's scaled right edge (90 px × 4/3 = 120), and just outside it.
    assertPixel(png, 119, 60, [0xf5, 0x9e, 0x0b, 255]);
    assertPixel(png, 121, 60, [0x0f, 0x17, 0x2a, 255]);
    assertPixel(png, 210, 10, [...QUADRANTS.topLeft, 255]);
    assertPixel(png, 395, 325, [...QUADRANTS.bottomRight, 255]);
  });

  test('a portrait story is 225x400', async () => {
    const doc = readDocument({
      name: 'Story',
      sizes: [{ name: 'Story', width: 1080, height: 1920, slides: [{ elements: [] }] }],
    });
    const png = decodePng(await drawThumbnail(doc));
    assert.deepEqual([png.width, png.height], [225, 400]);
    assertPixel(png, 100, 300, [255, 255, 255, 255]);
  });

  test('a source that cannot be fetched is left out; the rest is drawn', async () => {
    const broken = banner([
      { name: 'gone', type: 'image', x: 0, y: 0, width: 300, height: 250, src: `${media.origin}/gone.png` },
    ]);
    const png = decodePng(await drawThumbnail(broken, { fetcher: media.fetcher }));
    assertPixel(png, 60, 60, [0xf5, 0x9e, 0x0b, 255]);
    assert.equal(media.server.hits.get('/gone.png'), 1);
  });

  test('through the render pool the thumbnail is the same picture, drawn on a worker thread', async () => {
    const pool = createRenderPool({ threads: 1, allowPrivateUrls: true });
    try {
      const pooled = await drawThumbnail(banner(), { pool });
      const direct = await drawThumbnail(banner(), { fetcher: media.fetcher });
      assert.equal(comparePngs(pooled, direct).differing, 0);
    } finally {
      await pool.close();
    }
  });
});

describe('createThumbnails over the local disk store', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-thumbs-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const keys = loadServerKeys('test-secret', dir);
  const nowMs = 1_800_000_000_000;
  const blobs = createLocalDiskBlobStore({ dir, publicUrl: 'http://placard.test', keys, now: () => nowMs });

  test('make stores a PNG under a key of its own; url signs it for 12 hours; discard removes it', async () => {
    const thumbnails = createThumbnails(blobs, { fetcher: media.fetcher });
    const doc = banner();
    const first = await thumbnails.make('abc1234', doc);
    const second = await thumbnails.make('abc1234', doc);
    assert.match(
      first,
      /^thumbnails\/ab\/abc1234-[0-9a-f-]{36}\.png$/,
      'a folder per two first characters, not per design',
    );
    assert.notEqual(first, second);

    const stored = await blobs.get(first);
    assert.ok(stored);
    assert.equal(stored.contentType, 'image/png');
    const chunks: Buffer[] = [];
    for await (const chunk of stored.body) chunks.push(chunk as Buffer);
    const png = decodePng(Buffer.concat(chunks));
    assert.deepEqual([png.width, png.height], [400, 333]);
    assertPixel(png, 0, 0, [0x0f, 0x17, 0x2a, 255]);

    const url = await thumbnails.url(first);
    const exp = Math.floor(nowMs / 1000) + THUMBNAIL_URL_TTL_SECONDS;
    assert.equal(THUMBNAIL_URL_TTL_SECONDS, 43_200);
    assert.match(url ?? '', new RegExp(`^http://placard\\.test/files/${first}\\?exp=${exp}&sig=[\\w-]+$`));
    assert.equal(await thumbnails.url(null), null);

    await thumbnails.discard([first, null]);
    assert.equal(await blobs.exists(first), false);
    assert.equal(await blobs.exists(second), true);
  });
});

describe('thumbnail budgets (issue 14)', () => {
  test('a thumbnail on the pool has a time budget: one whose image never arrives ends at its budget', async () => {
    // A server that accepts the request and never answers.
    const held: http.ServerResponse[] = [];
    const server = http.createServer((_req, res) => held.push(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow.png`;
    const pool = createRenderPool({ threads: 1, allowPrivateUrls: true });
    try {
      const doc = readDocument({
        name: 'Slow',
        sizes: [
          {
            name: 'S',
            width: 300,
            height: 250,
            slides: [{ elements: [{ name: 'p', type: 'image', x: 0, y: 0, width: 300, height: 250, src: url }] }],
          },
        ],
      });
      await assert.rejects(
        drawThumbnail(doc, { pool, budgetMs: 500 }),
        (error: unknown) => error instanceof RenderTimeoutError && error.budgetMs === 500,
      );
    } finally {
      for (const res of held) res.destroy();
      await pool.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
