// The BlobStore contract (STYLE 7): every adapter (local disk now, S3 later) runs this same suite.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import type { BlobStore } from '../../src/storage/blobs/blob-store.js';

export const INVALID_KEYS = [
  '',
  '../x',
  'a/../../x',
  '/abs',
  '.hidden',
  'a/.meta/x',
  'a//b',
  'a\\b',
  'a/./b',
  'x\0y',
  'a b',
  `${'a'.repeat(513)}`,
];

export function blobStoreContract(name: string, open: () => Promise<{ store: BlobStore; close(): Promise<void> }>) {
  describe(`BlobStore contract: ${name}`, () => {
    const withStore = async (fn: (store: BlobStore) => Promise<void>) => {
      const { store, close } = await open();
      try {
        await fn(store);
      } finally {
        await close();
      }
    };

    test('put then get returns the bytes, their size and content type', () =>
      withStore(async (store) => {
        const { size } = await store.put('exports/e1/banner-300x250.png', Buffer.from('png bytes'), 'image/png');
        assert.equal(size, 9);
        const blob = await store.get('exports/e1/banner-300x250.png');
        assert.ok(blob);
        assert.equal(blob.size, 9);
        assert.equal(blob.contentType, 'image/png');
        assert.equal(await text(blob.body), 'png bytes');
      }));

    test('put takes a stream', () =>
      withStore(async (store) => {
        const { size } = await store.put(
          'a/streamed.txt',
          Readable.from([Buffer.from('one '), Buffer.from('two')]),
          'text/plain',
        );
        assert.equal(size, 7);
        const blob = await store.get('a/streamed.txt');
        assert.equal(await text(blob!.body), 'one two');
      }));

    test('put replaces an object whole', () =>
      withStore(async (store) => {
        await store.put('k.bin', Buffer.from('old content'), 'application/octet-stream');
        await store.put('k.bin', Buffer.from('new'), 'text/plain');
        const blob = await store.get('k.bin');
        assert.deepEqual([blob!.size, blob!.contentType, await text(blob!.body)], [3, 'text/plain', 'new']);
      }));

    test('a failed stream leaves the previous object in place', () =>
      withStore(async (store) => {
        await store.put('keep.txt', Buffer.from('kept'), 'text/plain');
        const failing = new Readable({
          read() {
            this.push(Buffer.from('partial'));
            this.destroy(new Error('upstream broke'));
          },
        });
        await assert.rejects(store.put('keep.txt', failing, 'text/plain'), /upstream broke/);
        assert.equal(await text((await store.get('keep.txt'))!.body), 'kept');
      }));

    test('exists and delete; a missing object is null and deleting it is fine', () =>
      withStore(async (store) => {
        assert.equal(await store.exists('x/y.txt'), false);
        assert.equal(await store.get('x/y.txt'), null);
        await store.put('x/y.txt', Buffer.from('y'), 'text/plain');
        assert.equal(await store.exists('x/y.txt'), true);
        await store.delete('x/y.txt');
        assert.equal(await store.exists('x/y.txt'), false);
        assert.equal(await store.get('x/y.txt'), null);
        await store.delete('x/y.txt');
        assert.equal(await store.exists('x'), false, 'a folder is not an object');
      }));

    test('keys that could escape or hide are refused by every method', () =>
      withStore(async (store) => {
        for (const key of INVALID_KEYS) {
          await assert.rejects(store.put(key, Buffer.from('x'), 'text/plain'), RangeError, `put ${key}`);
          await assert.rejects(store.get(key), RangeError, `get ${key}`);
          await assert.rejects(store.exists(key), RangeError, `exists ${key}`);
          await assert.rejects(store.delete(key), RangeError, `delete ${key}`);
          await assert.rejects(store.signedUrl(key, { ttlSeconds: 60 }), RangeError, `signedUrl ${key}`);
        }
      }));

    test('signedUrl gives a link naming the key', () =>
      withStore(async (store) => {
        await store.put('exports/e2/a.png', Buffer.from('a'), 'image/png');
        const url = await store.signedUrl('exports/e2/a.png', { ttlSeconds: 3600, fileName: 'a.png' });
        assert.match(url, /exports\/e2\/a\.png/);
      }));
  });
}
