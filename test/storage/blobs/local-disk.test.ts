import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { createLocalDiskBlobStore, verifyFileLink, writeBlobFileSync } from '../../../src/storage/blobs/local-disk.js';
import { loadServerKeys } from '../../../src/storage/secrets.js';
import { blobStoreContract } from '../../contracts/blob-store.js';

const keys = loadServerKeys('test-secret', os.tmpdir());

const made: string[] = [];
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-blobs-'));
  made.push(dir);
  return dir;
}

blobStoreContract('local disk', async () => {
  const dir = tempDir();
  return {
    store: createLocalDiskBlobStore({ dir: path.join(dir, 'blobs'), publicUrl: 'http://placard.test', keys }),
    close: async () => {},
  };
});

describe('local disk blob store', () => {
  test('files live under <dir>/<key>; nothing is left in the temp folder', async () => {
    const dir = tempDir();
    const store = createLocalDiskBlobStore({ dir, publicUrl: 'http://placard.test', keys });
    await store.put('exports/e1/a.png', Buffer.from('bytes'), 'image/png');
    assert.equal(fs.readFileSync(path.join(dir, 'exports/e1/a.png'), 'utf8'), 'bytes');
    assert.deepEqual(fs.readdirSync(path.join(dir, '.tmp')), []);
  });

  test('a file a render thread writes itself (writeBlobFileSync) is the one put would store: bytes, type, no leftovers', async () => {
    const dir = tempDir();
    const store = createLocalDiskBlobStore({ dir, publicUrl: 'http://placard.test', keys });
    assert.equal(store.localRoot, dir);
    const bytes = Buffer.from('a rendered jpeg');
    assert.deepEqual(writeBlobFileSync(store.localRoot as string, 'exports/e2/c.jpg', bytes, 'image/jpeg'), {
      size: bytes.length,
    });
    // Written again (a job run again after a crash): replaced whole.
    writeBlobFileSync(dir, 'exports/e2/c.jpg', Buffer.from('again'), 'image/jpeg');
    const blob = await store.get('exports/e2/c.jpg');
    assert.ok(blob);
    assert.equal(blob.contentType, 'image/jpeg');
    assert.equal(blob.size, 5);
    const chunks: Buffer[] = [];
    for await (const chunk of blob.body) chunks.push(chunk as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), 'again');
    assert.deepEqual(fs.readdirSync(path.join(dir, '.tmp')), []);
    assert.throws(() => writeBlobFileSync(dir, '../escaped.txt', Buffer.from('x'), 'text/plain'), RangeError);
    assert.equal(fs.existsSync(path.join(dir, '..', 'escaped.txt')), false);
  });

  test('a type the key names is kept by no .meta file; another type is, and a later put of the named type drops it', async () => {
    const dir = tempDir();
    const store = createLocalDiskBlobStore({ dir, publicUrl: 'http://placard.test', keys });
    const meta = (key: string) => path.join(dir, '.meta', `${key}.json`);
    const typeOf = async (key: string) => (await store.get(key))?.contentType;

    writeBlobFileSync(dir, 'exports/e3/c.jpg', Buffer.from('jpeg'), 'image/jpeg');
    await store.put('exports/e3/d.png', Buffer.from('png'), 'image/png');
    assert.equal(fs.existsSync(path.join(dir, '.meta')), false, 'no .meta folder for files of named types');
    assert.equal(await typeOf('exports/e3/c.jpg'), 'image/jpeg');
    assert.equal(await typeOf('exports/e3/d.png'), 'image/png');

    // A type the extension does not name (or a key without one) is written down, by both writers.
    await store.put('batches/b1/results.csv', Buffer.from('a,b'), 'text/csv; charset=utf-8');
    writeBlobFileSync(dir, 'exports/e3/odd.jpg', Buffer.from('png bytes'), 'image/png');
    await store.put('fonts/t1/abc', Buffer.from('font'), 'font/ttf');
    assert.equal(await typeOf('batches/b1/results.csv'), 'text/csv; charset=utf-8');
    assert.equal(await typeOf('exports/e3/odd.jpg'), 'image/png');
    assert.equal(await typeOf('fonts/t1/abc'), 'font/ttf');
    assert.ok(fs.existsSync(meta('exports/e3/odd.jpg')));

    // Put again with the type its name says: the old .meta goes, so the old type is never served with the new bytes.
    writeBlobFileSync(dir, 'exports/e3/odd.jpg', Buffer.from('jpeg now'), 'image/jpeg');
    assert.equal(fs.existsSync(meta('exports/e3/odd.jpg')), false);
    assert.equal(await typeOf('exports/e3/odd.jpg'), 'image/jpeg');
    await store.put('fonts/t1/x.png', Buffer.from('x'), 'application/octet-stream');
    await store.put('fonts/t1/x.png', Buffer.from('x'), 'image/png');
    assert.equal(fs.existsSync(meta('fonts/t1/x.png')), false);
    assert.equal(await typeOf('fonts/t1/x.png'), 'image/png');
    assert.deepEqual(fs.readdirSync(path.join(dir, '.tmp')), []);
  });

  test('a traversal key writes nothing outside the directory', async () => {
    const parent = tempDir();
    const store = createLocalDiskBlobStore({ dir: path.join(parent, 'blobs'), publicUrl: 'http://placard.test', keys });
    await assert.rejects(store.put('../escaped.txt', Buffer.from('x'), 'text/plain'), RangeError);
    assert.equal(fs.existsSync(path.join(parent, 'escaped.txt')), false);
  });

  test('signed links: /files/<key>?exp=&sig=&name=, verified against key, expiry and name', async () => {
    const now = Date.UTC(2026, 10, 21, 10, 0, 0);
    const store = createLocalDiskBlobStore({
      dir: tempDir(),
      publicUrl: 'https://placard.example',
      keys,
      now: () => now,
    });
    const url = new URL(
      await store.signedUrl('exports/e1/Spring-300x250.png', {
        ttlSeconds: 3600,
        fileName: 'Spring sale – 300x250.png',
      }),
    );
    assert.equal(url.origin, 'https://placard.example');
    assert.equal(url.pathname, '/files/exports/e1/Spring-300x250.png');
    const exp = Number(url.searchParams.get('exp'));
    assert.equal(exp, now / 1000 + 3600);
    const link = {
      key: 'exports/e1/Spring-300x250.png',
      exp,
      sig: url.searchParams.get('sig')!,
      name: url.searchParams.get('name')!,
    };
    assert.equal(link.name, 'Spring sale – 300x250.png');
    const nowSeconds = now / 1000;
    assert.equal(verifyFileLink(keys, link, nowSeconds), 'valid');
    assert.equal(verifyFileLink(keys, link, exp), 'expired');
    assert.equal(verifyFileLink(keys, { ...link, name: 'x.html' }, nowSeconds), 'invalid');
    assert.equal(verifyFileLink(keys, { ...link, name: undefined }, nowSeconds), 'invalid');
    assert.equal(verifyFileLink(keys, { ...link, exp: exp + 1 }, nowSeconds), 'invalid');
    assert.equal(verifyFileLink(keys, { ...link, key: 'exports/e1/other.png' }, nowSeconds), 'invalid');
    assert.equal(verifyFileLink(keys, { ...link, sig: `${link.sig}x` }, nowSeconds), 'invalid');
    const otherKeys = loadServerKeys('another-secret', os.tmpdir());
    assert.equal(verifyFileLink(otherKeys, link, nowSeconds), 'invalid');
  });

  test('a link without a file name has no name parameter', async () => {
    const store = createLocalDiskBlobStore({ dir: tempDir(), publicUrl: 'http://placard.test', keys });
    const url = new URL(await store.signedUrl('t/thumb.png', { ttlSeconds: 60 }));
    assert.equal(url.searchParams.has('name'), false);
    assert.equal(
      verifyFileLink(
        keys,
        { key: 't/thumb.png', exp: Number(url.searchParams.get('exp')), sig: url.searchParams.get('sig')! },
        Date.now() / 1000,
      ),
      'valid',
    );
  });
});
