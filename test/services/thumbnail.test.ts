// Placeholder thumbnails: a PNG whose longest side is 400 px, in the proportions of the first size, filled with its
// background colour; stored in the BlobStore under a key of its own and linked for 12 hours.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import type { DesignDocument } from '../../src/domain/design.schema.js';
import {
  createThumbnails,
  drawThumbnail,
  parseColour,
  THUMBNAIL_URL_TTL_SECONDS,
  thumbnailDimensions,
} from '../../src/services/thumbnail.js';
import { createLocalDiskBlobStore } from '../../src/storage/blobs/local-disk.js';
import { loadServerKeys } from '../../src/storage/secrets.js';

function documentOf(width: number, height: number, backgroundColor?: string): DesignDocument {
  return {
    name: 'Thumb',
    sizes: [
      { name: 'First', width, height, ...(backgroundColor && { backgroundColor }), slides: [{ elements: [] }] },
      { name: 'Second', width: 50, height: 50, backgroundColor: '#00FF00', slides: [{ elements: [] }] },
    ],
  } as DesignDocument;
}

function pixel(png: PNG, x: number, y: number): number[] {
  const i = (png.width * y + x) * 4;
  return [...png.data.subarray(i, i + 4)];
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

describe('parseColour', () => {
  test('reads every colour form a document may store', () => {
    assert.deepEqual(parseColour('#0F172A'), [15, 23, 42, 255]);
    assert.deepEqual(parseColour('#fff'), [255, 255, 255, 255]);
    assert.deepEqual(parseColour('#F008'), [255, 0, 0, 136]);
    assert.deepEqual(parseColour('#11223380'), [17, 34, 51, 128]);
    assert.deepEqual(parseColour('rgb(10, 20, 30)'), [10, 20, 30, 255]);
    assert.deepEqual(parseColour('rgba(10, 20, 30, 0.5)'), [10, 20, 30, 128]);
    assert.deepEqual(parseColour('rgba(100%, 0%, 50%, 25%)'), [255, 0, 128, 64]);
    assert.deepEqual(parseColour('transparent'), [0, 0, 0, 0]);
  });
});

describe('drawThumbnail', () => {
  test('a 300x250 design gives a 400x333 PNG filled with the first size’s background colour', () => {
    const png = PNG.sync.read(drawThumbnail(documentOf(300, 250, '#0F172A')));
    assert.equal(png.width, 400);
    assert.equal(png.height, 333);
    assert.deepEqual(pixel(png, 0, 0), [15, 23, 42, 255]);
    assert.deepEqual(pixel(png, 399, 332), [15, 23, 42, 255]);
    assert.deepEqual(pixel(png, 200, 166), [15, 23, 42, 255]);
  });

  test('a portrait story is 225x400; without a background colour it is white', () => {
    const png = PNG.sync.read(drawThumbnail(documentOf(1080, 1920)));
    assert.equal(png.width, 225);
    assert.equal(png.height, 400);
    assert.deepEqual(pixel(png, 100, 300), [255, 255, 255, 255]);
  });

  test('a translucent background keeps its alpha', () => {
    const png = PNG.sync.read(drawThumbnail(documentOf(100, 50, 'rgba(255, 0, 0, 0.5)')));
    assert.deepEqual([png.width, png.height], [400, 200]);
    assert.deepEqual(pixel(png, 10, 10), [255, 0, 0, 128]);
  });
});

describe('createThumbnails over the local disk store', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-thumbs-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const keys = loadServerKeys('test-secret', dir);
  const nowMs = 1_800_000_000_000;
  const blobs = createLocalDiskBlobStore({ dir, publicUrl: 'http://placard.test', keys, now: () => nowMs });
  const thumbnails = createThumbnails(blobs);

  test('make stores a PNG under a key of its own; url signs it for 12 hours; discard removes it', async () => {
    const doc = documentOf(728, 90, '#F59E0B');
    const first = await thumbnails.make('abc1234', doc);
    const second = await thumbnails.make('abc1234', doc);
    assert.match(first, /^thumbnails\/abc1234\/[0-9a-f-]{36}\.png$/);
    assert.notEqual(first, second);

    const stored = await blobs.get(first);
    assert.ok(stored);
    assert.equal(stored.contentType, 'image/png');
    const chunks: Buffer[] = [];
    for await (const chunk of stored.body) chunks.push(chunk as Buffer);
    const png = PNG.sync.read(Buffer.concat(chunks));
    assert.deepEqual([png.width, png.height], [400, 49]);
    assert.deepEqual(pixel(png, 0, 0), [245, 158, 11, 255]);

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
