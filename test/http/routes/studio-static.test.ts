// The studio's static files are sent compressed (issue 18): the build writes .br and .gz beside each text file and
// @fastify/static picks the one the browser accepts; the bytes decompress to the built file, and a client that
// accepts no encoding gets the file as it is. Needs the studio build (npm run build:web).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { STUDIO_DIR } from '../../../src/http/routes/studio.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

describe('studio static files, precompressed', () => {
  let t: TestApp;
  let script: string;
  before(async () => {
    t = await startTestApp();
    const html = fs.readFileSync(path.join(STUDIO_DIR, 'index.html'), 'utf8');
    script = (html.match(/src="\/(assets\/index-[^"]+\.js)"/) as RegExpMatchArray)[1];
  });
  after(() => t.close());

  test('the first view script is sent as brotli, gzip or plain by Accept-Encoding, the same bytes each time', async () => {
    const plain = fs.readFileSync(path.join(STUDIO_DIR, script));
    const get = (encoding: string) =>
      t.app.inject({ method: 'GET', url: `/${script}`, headers: { 'accept-encoding': encoding } });

    const br = await get('gzip, deflate, br');
    assert.equal(br.statusCode, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.match(String(br.headers['content-type']), /javascript/);
    assert.match(String(br.headers.vary), /accept-encoding/i);
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.ok(br.rawPayload.length < plain.length / 2, `${br.rawPayload.length} of ${plain.length} bytes`);
    assert.deepEqual(brotliDecompressSync(br.rawPayload), plain);

    const gz = await get('gzip');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.rawPayload), plain);

    const identity = await get('identity');
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.deepEqual(identity.rawPayload, plain);
  });

  test('the compressed files are not a way around the app routes: index.html stays no-cache', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/app/designs', headers: { 'accept-encoding': 'br' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(res.body, /<div id="root">/);
  });
});
