import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLocalDiskBlobStore } from '../../../src/storage/blobs/local-disk.js';
import { signLink } from '../../../src/storage/secrets.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { png } from '../../render/media-fixtures.js';

describe('GET /files/* (signed downloads of the local disk store)', () => {
  let t: TestApp;
  const image = png(30, 25);
  before(async () => {
    // The route serves the local-disk store: pinned to local disk in the scaled-out run as well.
    t = await startTestApp({ s3: null });
    await t.runtime.blobs.put('exports/e1/banner-300x250.png', image, 'image/png');
    await t.runtime.blobs.put('exports/e1/other.png', png(1, 1), 'image/png');
  });
  after(() => t.close());

  /** The path and query of a signed link (app.inject speaks to the app, not to publicUrl). */
  const local = (url: string) => url.replace(t.config.publicUrl, '');
  const get = (url: string) => t.app.inject({ method: 'GET', url: local(url) });

  test('a signed link downloads the file with its type, length and file name', async () => {
    const url = await t.runtime.blobs.signedUrl('exports/e1/banner-300x250.png', {
      ttlSeconds: t.config.urlTtlSeconds,
      fileName: 'Spring sale – 300x250.png',
    });
    assert.ok(url.startsWith('http://placard.test/files/exports/e1/banner-300x250.png?exp='));
    const res = await get(url);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.rawPayload, image);
    assert.equal(res.headers['content-type'], 'image/png');
    assert.equal(res.headers['content-length'], String(image.length));
    assert.equal(
      res.headers['content-disposition'],
      `attachment; filename="Spring sale _ 300x250.png"; filename*=UTF-8''Spring%20sale%20%E2%80%93%20300x250.png`,
    );
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(String(res.headers['cache-control']), /^private, max-age=(3600|359\d)$/);
  });

  test("without a file name the key's last segment is offered", async () => {
    const res = await get(await t.runtime.blobs.signedUrl('exports/e1/other.png', { ttlSeconds: 60 }));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-disposition'], `attachment; filename="other.png"; filename*=UTF-8''other.png`);
  });

  test('file names are made safe for headers and every OS', async () => {
    const res = await get(
      await t.runtime.blobs.signedUrl('exports/e1/other.png', {
        ttlSeconds: 60,
        fileName: '../..\\evil"\r\nX: 1;.png',
      }),
    );
    assert.equal(res.statusCode, 200);
    const disposition = String(res.headers['content-disposition']);
    assert.doesNotMatch(disposition, /[\r\n]|\.\.\/|\\/);
    assert.equal(disposition, `attachment; filename="_.._evil_X_ 1_.png"; filename*=UTF-8''_.._evil_X_%201%3B.png`);
  });

  test('a tampered signature, key, expiry or name is a 404, like a missing file', async () => {
    const url = new URL(
      await t.runtime.blobs.signedUrl('exports/e1/banner-300x250.png', { ttlSeconds: 600, fileName: 'a.png' }),
    );
    const variants: string[] = [];
    const sig = url.searchParams.get('sig')!;
    const withParam = (name: string, value: string) => {
      const copy = new URL(url);
      copy.searchParams.set(name, value);
      return copy.toString();
    };
    variants.push(withParam('sig', `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`));
    variants.push(withParam('exp', String(Number(url.searchParams.get('exp')) + 1000)));
    variants.push(withParam('name', 'a.html'));
    variants.push(url.toString().replace('banner-300x250.png', 'other.png'));
    for (const variant of variants) {
      const res = await get(variant);
      assert.equal(res.statusCode, 404, variant);
      assert.equal(res.json().code, 'NOT_FOUND');
    }
    const missing = await get(await t.runtime.blobs.signedUrl('exports/e1/gone.png', { ttlSeconds: 60 }));
    assert.equal(missing.statusCode, 404);
  });

  test('an expired link is refused with 403 and says how to get a fresh one', async () => {
    const past = createLocalDiskBlobStore({
      dir: path.join(t.config.dataDir, 'blobs'),
      publicUrl: t.config.publicUrl,
      keys: t.runtime.keys,
      now: () => Date.now() - 2 * 3600 * 1000,
    });
    const res = await get(await past.signedUrl('exports/e1/banner-300x250.png', { ttlSeconds: 3600 }));
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'FORBIDDEN');
    assert.match(
      res.json().error,
      /^this download link expired at \d{4}-\d\d-\d\dT.*Z; ask the API again for a fresh link/,
    );
  });

  test('path traversal keys are refused even with a valid signature', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const secret = fs.readFileSync(path.join(t.config.dataDir, 'server-secret'), 'utf8').trim();
    assert.ok(secret.length > 20);
    for (const key of [
      '../server-secret',
      'exports/../../server-secret',
      '.meta/exports/e1/other.png.json',
      '.tmp/x',
    ]) {
      const sig = signLink(t.runtime.keys, `files\n${key}\n${exp}\n`);
      for (const spelling of [key, encodeURIComponent(key)]) {
        const res = await t.app.inject({ method: 'GET', url: `/files/${spelling}?exp=${exp}&sig=${sig}` });
        assert.equal(res.statusCode, 404, `${spelling}: ${res.body}`);
        assert.ok(!res.body.includes(secret), 'the server secret leaked');
      }
    }
  });

  test('a link missing its expiry or signature is a 400 naming the parameter', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/files/exports/e1/other.png?sig=x' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_FAILED');
    assert.match(res.json().error, /exp/);
  });

  test('HEAD answers the headers without the body', async () => {
    const url = await t.runtime.blobs.signedUrl('exports/e1/banner-300x250.png', { ttlSeconds: 60 });
    const res = await t.app.inject({ method: 'HEAD', url: local(url) });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-length'], String(image.length));
    assert.equal(res.rawPayload.length, 0);
  });
});
