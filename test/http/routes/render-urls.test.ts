// Render URLs over real HTTP (issue 23, docs/render-urls.md): the service listens on a port and links are signed here
// the way docs/render-urls.md tells a client to (not with the service's own helper), then fetched and decoded.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { loadConfig } from '../../../src/config.js';
import {
  createRenderPool,
  type RenderCallOptions,
  type RenderJob,
  type RenderPool,
} from '../../../src/formats/pool.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createTestBucket, type TestBucket } from '../../helpers/s3-server.js';
import { type MediaServer, png, startMediaServer } from '../../render/media-fixtures.js';
import { assertPixel, decodeAny, decodePng } from '../../render/pixels.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and asserted on.
type Json = Record<string, any>;

/** RFC 3986 percent-encoding, as the documentation's Node example spells it. */
const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Signs as docs/render-urls.md says: HMAC-SHA256 (hex) of path + "?" + sorted encoded pairs, `s` appended. */
function sign(secret: string, path: string, params: Record<string, string>): string {
  const query = Object.entries(params)
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .sort()
    .join('&');
  const s = createHmac('sha256', secret).update(`${path}?${query}`).digest('hex');
  return `${path}?${query ? `${query}&` : ''}s=${s}`;
}

const rect = (name: string, fill: string, box: { x: number; y: number; width: number; height: number }) => ({
  name,
  type: 'shape',
  shape: 'rect',
  fill,
  ...box,
});

function banner(photoUrl: string) {
  return {
    name: 'Banner',
    sizes: [
      {
        name: 'Medium Rectangle',
        width: 300,
        height: 250,
        backgroundColor: '#0F172A',
        slides: [
          {
            duration: 5,
            elements: [
              rect('panel', '#FF0000', { x: 0, y: 100, width: 100, height: 100 }),
              {
                name: 'headline',
                type: 'text',
                x: 4,
                y: 4,
                width: 292,
                height: 30,
                text: 'Spring sale',
                fontFamily: 'Inter',
                fontVariant: '700',
                fontSize: 18,
                color: '#FFFFFF',
              },
              { name: 'photo', type: 'image', x: 200, y: 100, width: 50, height: 50, src: photoUrl, fit: 'fill' },
              {
                name: 'cta',
                type: 'button',
                x: 150,
                y: 200,
                width: 140,
                height: 40,
                label: 'Shop now',
                fill: '#F59E0B',
                color: '#111827',
                fontFamily: 'Inter',
                fontVariant: '600',
                fontSize: 14,
              },
              // An element whose name is a setting: changed only with the name.ATTRIBUTE form.
              rect('scale', '#000000', { x: 0, y: 210, width: 20, height: 20 }),
            ],
          },
        ],
      },
    ],
  };
}

function pair() {
  return {
    name: 'Pair',
    sizes: [
      {
        name: 'Square',
        width: 100,
        height: 100,
        backgroundColor: '#FFFFFF',
        slides: [{ duration: 5, elements: [rect('panel', '#0000FF', { x: 0, y: 0, width: 100, height: 100 })] }],
      },
      {
        name: 'Leaderboard',
        width: 728,
        height: 90,
        backgroundColor: '#FFFFFF',
        slides: [{ duration: 5, elements: [rect('panel', '#00FF00', { x: 0, y: 0, width: 728, height: 90 })] }],
      },
    ],
  };
}

interface Started {
  t: TestApp;
  origin: string;
  api(
    method: string,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: Json; body: string }>;
  ok(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Json>;
  get(
    pathAndQuery: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; bytes: Buffer }>;
  importDesign(name: string, document: unknown): Promise<string>;
  projectId: number;
  metric(outcome: string, source: string): Promise<number>;
  close(): Promise<void>;
}

async function start(options: Parameters<typeof startTestApp>[0] = {}): Promise<Started> {
  const t = await startTestApp(options);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = t.owner.headers) {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text, json: (text ? JSON.parse(text) : null) as Json };
  }
  async function ok(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
    const res = await api(method, url, body, headers);
    assert.equal(res.status, 200, `${method} ${url}: ${res.body}`);
    return res.json.response;
  }
  const kit = (await ok('POST', '/v1/brandkits/create', { name: 'Kit' })).brandKit.id;
  const projectId = (await ok('POST', '/v1/projects', { name: 'Links', brandKitId: kit })).project.id;
  return {
    t,
    origin,
    projectId,
    api,
    ok,
    async get(pathAndQuery, headers = {}) {
      const res = await fetch(`${origin}${pathAndQuery}`, { headers });
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    },
    async importDesign(name, document) {
      return (await ok('POST', '/v1/templates/import', { projectId, name, document })).template.id;
    },
    async metric(outcome, source) {
      const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`placard_render_url_requests_total{outcome="${outcome}",source="${source}"}`));
      return line ? Number(line.split(' ').at(-1)) : 0;
    },
    close: () => t.close(),
  };
}

describe('render URLs over HTTP', () => {
  let s: Started;
  let media: MediaServer;
  let secret: string;
  let bannerHash: string;
  let pairHash: string;

  before(async () => {
    media = await startMediaServer();
    media.route('/red.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(40, 40, [255, 0, 0]));
    });
    media.route('/blue.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(40, 40, [0, 0, 255]));
    });
    media.route('/slow.png', (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(png(40, 40)), 3000);
    });
    s = await start({ renderUrl: { ...loadConfig({}).renderUrl, secretOverlapSeconds: 8, sourceTimeoutMs: 500 } });
    bannerHash = await s.importDesign('Banner', banner(`${media.origin}/red.png`));
    pairHash = await s.importDesign('Pair', pair());
    secret = (await s.ok('GET', '/v1/renderUrls/secret')).secret;
  });
  after(async () => {
    await s?.close();
    await media?.close();
  });

  test('a signed link answers a PNG with the changes applied: main attribute by name, name.ATTRIBUTE, SOURCE', async () => {
    const link = sign(secret, `/r/${bannerHash}.png`, {
      'panel.BGCOLOR': '#00FF00',
      photo: `${media.origin}/blue.png`,
      'cta.BGCOLOR': '#10B981',
      headline: 'Hello Ada',
      'scale.BGCOLOR': '#FFFFFF',
    });
    const res = await s.get(link);
    assert.equal(res.status, 200, res.bytes.toString());
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(res.headers.get('x-render-cache'), 'render');
    assert.match(res.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{43}"$/);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
    const pixels = decodePng(res.bytes);
    assert.equal(pixels.width, 300);
    assertPixel(pixels, 50, 150, [0, 255, 0, 255]); // panel.BGCOLOR
    assertPixel(pixels, 225, 125, [0, 0, 255, 255]); // photo= (SOURCE)
    assertPixel(pixels, 155, 236, [0x10, 0xb9, 0x81, 255], 2); // cta.BGCOLOR
    assertPixel(pixels, 10, 220, [255, 255, 255, 255]); // the element named "scale"
    assertPixel(pixels, 0, 0, [0x0f, 0x17, 0x2a, 255]);
  });

  test('the same link again is a memory hit with the same bytes and ETag; If-None-Match answers 304 without a body', async () => {
    const link = sign(secret, `/r/${bannerHash}.jpg`, { 'panel.BGCOLOR': '#0000FF', quality: '80' });
    const first = await s.get(link);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('content-type'), 'image/jpeg');
    assert.equal(first.headers.get('x-render-cache'), 'render');
    assertPixel(await decodeAny(first.bytes), 50, 150, [0, 0, 255, 255], 8);
    const hitsBefore = await s.metric('hit', 'memory');
    const missesBefore = await s.metric('miss', 'render');
    const second = await s.get(link);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('x-render-cache'), 'memory');
    assert.equal(second.headers.get('etag'), first.headers.get('etag'));
    assert.deepEqual(second.bytes, first.bytes);
    assert.equal(await s.metric('hit', 'memory'), hitsBefore + 1);
    assert.equal(await s.metric('miss', 'render'), missesBefore);

    const etag = first.headers.get('etag') as string;
    const notModified = await s.get(link, { 'if-none-match': `W/"other", ${etag}` });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.bytes.length, 0);
    assert.equal(notModified.headers.get('etag'), etag);
    assert.equal(notModified.headers.get('cache-control'), 'public, max-age=300');
    // Another variant has another ETag, and the old one does not make it 304.
    const other = await s.get(sign(secret, `/r/${bannerHash}.jpg`, { 'panel.BGCOLOR': '#0000FE' }), {
      'if-none-match': etag,
    });
    assert.equal(other.status, 200);
    assert.notEqual(other.headers.get('etag'), etag);
  });

  test('concurrent requests for a new variant cause one render; the others share it', async () => {
    const link = sign(secret, `/r/${bannerHash}.png`, { headline: 'Everyone at once', 'panel.BGCOLOR': '#ABCDEF' });
    const missesBefore = await s.metric('miss', 'render');
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.get(link)));
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(8).fill(200),
    );
    assert.equal(await s.metric('miss', 'render'), missesBefore + 1);
    const sources = answers.map((a) => a.headers.get('x-render-cache'));
    assert.equal(sources.filter((source) => source === 'render').length, 1, sources.join(' '));
    for (const answer of answers) assert.deepEqual(answer.bytes, answers[0].bytes);
  });

  test('an edit of the template changes the ETag and the image', async () => {
    const hash = await s.importDesign('Editable', pair());
    const link = sign(secret, `/r/${hash}.png`, {});
    const before = await s.get(link);
    assertPixel(decodePng(before.bytes), 50, 50, [0, 0, 255, 255]);
    const doc = pair();
    doc.sizes[0].slides[0].elements[0].fill = '#FF00FF';
    await s.ok('PUT', `/v1/templates/${hash}/document`, { document: doc });
    const after = await s.get(link, { 'if-none-match': before.headers.get('etag') as string });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
    assertPixel(decodePng(after.bytes), 50, 50, [255, 0, 255, 255]);
  });

  test('one changed parameter with the old signature, no signature, or another secret: 403 with a small JSON body', async () => {
    const link = sign(secret, `/r/${bannerHash}.png`, { headline: 'Hello Ada' });
    const tampered = link.replace('Hello%20Ada', 'Hello%20Bob');
    assert.notEqual(tampered, link);
    const unsigned = `/r/${bannerHash}.png?headline=Hello`;
    const foreign = sign('prs_not-the-secret', `/r/${bannerHash}.png`, { headline: 'Hello Ada' });
    const otherPath = link.replace(`/r/${bannerHash}.png`, `/r/${bannerHash}.jpg`);
    const missesBefore = await s.metric('miss', 'render');
    for (const url of [tampered, unsigned, foreign, otherPath]) {
      const res = await s.get(url);
      assert.equal(res.status, 403, url);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.ok(res.bytes.length < 400, `${res.bytes.length} bytes`);
      const body = JSON.parse(res.bytes.toString());
      assert.equal(body.code, 'INVALID_SIGNATURE');
      assert.ok(body.requestId);
    }
    assert.equal(await s.metric('miss', 'render'), missesBefore, 'nothing was rendered');
    assert.ok((await s.metric('refused', '403')) >= 4);
  });

  test('an expired link is 403 LINK_EXPIRED; one that has not expired works', async () => {
    const past = String(Math.floor(Date.now() / 1000) - 10);
    const expired = await s.get(sign(secret, `/r/${bannerHash}.png`, { exp: past }));
    assert.equal(expired.status, 403);
    const body = JSON.parse(expired.bytes.toString());
    assert.equal(body.code, 'LINK_EXPIRED');
    assert.match(body.error, /expired at \d{4}-/);
    const future = String(Math.floor(Date.now() / 1000) + 3600);
    const fine = await s.get(sign(secret, `/r/${bannerHash}.png`, { exp: future }));
    assert.equal(fine.status, 200);
    const maxAge = Number(/max-age=(\d+)/.exec(fine.headers.get('cache-control') ?? '')?.[1]);
    assert.ok(maxAge <= 300 && maxAge > 0);
  });

  test('bad parameters are 400 naming them, before any render', async () => {
    const missesBefore = await s.metric('miss', 'render');
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [
        { nosuch: 'x' },
        'nosuch',
        /no size of the design has an element named "nosuch"; valid names: cta, headline, panel, photo, scale/,
      ],
      [{ 'cta.FOO': 'x' }, 'cta.FOO', /FOO is not a change attribute/],
      [{ 'panel.LABEL': 'x' }, 'panel.LABEL', /does not accept LABEL/],
      [{ panel: '#FFF' }, 'panel', /no main attribute.*panel\.BGCOLOR/],
      [{ 'cta.BGCOLOR': 'green' }, 'cta.BGCOLOR', /BGCOLOR needs a hex colour/],
      [{ headline: 'a', 'headline.TEXTMARKDOWN': '*b*' }, 'headline.TEXTMARKDOWN', /both set the text/],
      [{ scale: '20' }, 'scale', /at most 16/],
      [{ scale: '12' }, 'scale', /at most 10 megapixels/],
      [{ quality: '0' }, 'quality', /1 to 100/],
      [{ slide: '3' }, 'slide', /1 slide/],
      [{ photo: 'ftp://example.com/a.png' }, 'photo', /SOURCE needs a public http\(s\) URL/],
    ];
    for (const [params, name, message] of cases) {
      const res = await s.get(sign(secret, `/r/${bannerHash}.png`, params));
      const body = JSON.parse(res.bytes.toString());
      assert.equal(res.status, 400, `${name}: ${res.bytes}`);
      assert.equal(body.code, 'VALIDATION_FAILED');
      assert.ok(body.error.startsWith(`${name} (query): `), body.error);
      assert.match(body.error, message);
      assert.equal(body.details[0].in, 'querystring');
    }
    const gif = await s.get(sign(secret, `/r/${bannerHash}.gif`, {}));
    assert.equal(gif.status, 400);
    assert.match(
      JSON.parse(gif.bytes.toString()).error,
      /not an image format of render URLs; use png, jpg, jpeg, webp/,
    );
    assert.equal(await s.metric('miss', 'render'), missesBefore, 'nothing was rendered');
  });

  test('a SOURCE that cannot be used is 400 naming its parameter: missing at its server, or slower than the budget', async () => {
    const missing = await s.get(sign(secret, `/r/${bannerHash}.png`, { photo: `${media.origin}/nothing.png` }));
    assert.equal(missing.status, 400, missing.bytes.toString());
    assert.match(JSON.parse(missing.bytes.toString()).error, /^photo \(query\): .*answered HTTP 404/);
    const slow = await s.get(sign(secret, `/r/${bannerHash}.png`, { photo: `${media.origin}/slow.png` }));
    assert.equal(slow.status, 400, slow.bytes.toString());
    assert.match(JSON.parse(slow.bytes.toString()).error, /^photo \(query\): .*took longer than 0\.5 s/);
  });

  test('AVIF and WEBP links answer their format (the still formats of the registry)', async () => {
    for (const [ext, type, format] of [
      ['avif', 'image/avif', 'heif'],
      ['webp', 'image/webp', 'webp'],
      ['jpeg', 'image/jpeg', 'jpeg'],
    ] as const) {
      const res = await s.get(sign(secret, `/r/${pairHash}.${ext}`, { 'panel.BGCOLOR': '#FF0000', quality: '70' }));
      assert.equal(res.status, 200, res.bytes.toString());
      assert.equal(res.headers.get('content-type'), type);
      const meta = await sharp(res.bytes).metadata();
      assert.equal(meta.format, format);
      const { data } = await sharp(res.bytes).raw().toBuffer({ resolveWithObject: true });
      assert.ok(Math.abs(data[0] - 255) < 12 && data[1] < 12 && data[2] < 12, `${ext}: ${[...data.subarray(0, 3)]}`);
    }
  });

  test('unknown template, size or version: 404; a size by hash or WxH picks it', async () => {
    assert.equal((await s.get(sign(secret, '/r/zzzzzzz.png', {}))).status, 404);
    assert.equal((await s.get(sign(secret, `/r/${pairHash}/999x999.png`, {}))).status, 404);
    const version = await s.get(
      sign(secret, `/r/${pairHash}.png`, { version: '00000000-0000-4000-8000-000000000000' }),
    );
    assert.equal(version.status, 404);
    const sizes = await s.ok('GET', `/v1/templates/${pairHash}/design-sizes`);
    const byDimensions = await s.get(sign(secret, `/r/${pairHash}/728x90.png`, {}));
    assert.equal(byDimensions.status, 200);
    const pixels = decodePng(byDimensions.bytes);
    assert.deepEqual([pixels.width, pixels.height], [728, 90]);
    assertPixel(pixels, 10, 10, [0, 255, 0, 255]);
    const byHash = await s.get(sign(secret, `/r/${pairHash}/${sizes[1].hash}.png`, { scale: '0.5' }));
    const half = decodePng(byHash.bytes);
    assert.deepEqual([half.width, half.height], [364, 45]);
    const first = decodePng((await s.get(sign(secret, `/r/${pairHash}.png`, {}))).bytes);
    assert.deepEqual([first.width, first.height], [100, 100]);
  });

  test('a link naming a design version shows it for ever, cached as immutable', async () => {
    const hash = await s.importDesign('Versioned', pair());
    await s.ok('POST', '/v1/designVersion', { hash, versionName: 'blue' });
    const version = (await s.ok('GET', `/v1/designVersion?hash=${hash}`))[0];
    const doc = pair();
    doc.sizes[0].slides[0].elements[0].fill = '#FFFF00';
    await s.ok('PUT', `/v1/templates/${hash}/document`, { document: doc });
    const pinned = await s.get(sign(secret, `/r/${hash}.png`, { version: version.id }));
    assert.equal(pinned.status, 200, pinned.bytes.toString());
    assert.equal(pinned.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assertPixel(decodePng(pinned.bytes), 50, 50, [0, 0, 255, 255]);
    const live = await s.get(sign(secret, `/r/${hash}.png`, {}));
    assertPixel(decodePng(live.bytes), 50, 50, [255, 255, 0, 255]);
  });

  test('POST /v1/renderUrls signs a link that works; invalid changes are refused as export-with-changes refuses them', async () => {
    const viewer = await s.t.userWith('Viewer');
    await s.ok('POST', '/v1/project/users', { userId: viewer.userId, projectId: s.projectId });
    const signed = await s.ok(
      'POST',
      '/v1/renderUrls',
      {
        templateHash: bannerHash,
        format: 'PNG',
        elementsChanges: [
          { elementName: 'panel', changes: [{ attribute: 'BGCOLOR', value: '#00FFFF' }] },
          { elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Hi & bye' }] },
          { elementName: 'scale', changes: [{ attribute: 'BGCOLOR', value: '#FFFFFF' }] },
        ],
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
      viewer.headers,
    );
    assert.ok(signed.url.startsWith(`${s.t.config.publicUrl}/r/${bannerHash}.png?`), signed.url);
    const url = new URL(signed.url);
    assert.equal(url.searchParams.get('headline'), 'Hi & bye');
    assert.equal(url.searchParams.get('panel.BGCOLOR'), '#00FFFF');
    assert.equal(url.searchParams.get('scale.BGCOLOR'), '#FFFFFF');
    assert.ok(url.searchParams.get('exp'));
    const res = await s.get(`${url.pathname}${url.search}`);
    assert.equal(res.status, 200, res.bytes.toString());
    const pixels = decodePng(res.bytes);
    assertPixel(pixels, 50, 150, [0, 255, 255, 255]);
    assertPixel(pixels, 10, 220, [255, 255, 255, 255]);

    const unknown = await s.api('POST', '/v1/renderUrls', {
      templateHash: bannerHash,
      format: 'png',
      elementsChanges: [{ elementName: 'nosuch', changes: [{ attribute: 'LABEL', value: 'x' }] }],
    });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.json.code, 'UNKNOWN_ELEMENT');
    assert.match(unknown.json.error, /^elementsChanges\[0\]\.elementName: /);
    const big = await s.api('POST', '/v1/renderUrls', { templateHash: bannerHash, format: 'png', scale: 12 });
    assert.equal(big.status, 400);
    assert.match(big.json.error, /^scale: .*megapixels/);
    const other = await s.t.newTeam('Other');
    const foreign = await s.api('POST', '/v1/renderUrls', { templateHash: bannerHash, format: 'png' }, other.headers);
    assert.equal(foreign.status, 404);
  });

  test('the secret is for Owners and Admins; each team has its own', async () => {
    const editor = await s.t.userWith('Editor');
    assert.equal((await s.api('GET', '/v1/renderUrls/secret', undefined, editor.headers)).status, 403);
    assert.equal((await s.api('POST', '/v1/renderUrls/secret/rotate', undefined, editor.headers)).status, 403);
    const other = await s.t.newTeam('Another');
    const theirs = (await s.ok('GET', '/v1/renderUrls/secret', undefined, other.headers)).secret;
    assert.notEqual(theirs, secret);
    assert.match(theirs, /^prs_[A-Za-z0-9_-]{43}$/);
    // Their secret signs nothing of ours.
    assert.equal((await s.get(sign(theirs, `/r/${bannerHash}.png`, {}))).status, 403);
    // Stored sealed, never readable.
    const rows = await s.t.runtime.db.kysely.selectFrom('render_url_secrets').selectAll().execute();
    assert.ok(rows.length >= 2);
    for (const row of rows) assert.ok(!row.secret_sealed.includes(secret) && !row.secret_sealed.includes(theirs));
  });

  test('a rotated secret keeps old links working during the overlap and not after it', async () => {
    const oldLink = sign(secret, `/r/${pairHash}.webp`, { scale: '0.25' });
    assert.equal((await s.get(oldLink)).status, 200);
    const rotated = await s.ok('POST', '/v1/renderUrls/secret/rotate');
    assert.notEqual(rotated.secret, secret);
    assert.ok(rotated.previousValidUntil);
    const newLink = sign(rotated.secret, `/r/${pairHash}.webp`, { scale: '0.5' });
    assert.equal((await s.get(newLink)).status, 200);
    const during = await s.get(oldLink);
    assert.equal(during.status, 200, 'the previous secret works during the overlap');
    // A link not seen before, so no cache tier can answer it: the signature alone decides.
    const unseenOld = sign(secret, `/r/${pairHash}.webp`, { scale: '0.75' });
    assert.equal((await s.get(unseenOld)).status, 200);
    const until = Date.parse(rotated.previousValidUntil);
    while (Date.now() <= until) await new Promise((resolve) => setTimeout(resolve, until - Date.now() + 20));
    const afterOverlap = await s.get(oldLink);
    assert.equal(afterOverlap.status, 403);
    assert.equal(JSON.parse(afterOverlap.bytes.toString()).code, 'INVALID_SIGNATURE');
    assert.equal((await s.get(newLink)).status, 200);
    assert.equal((await s.ok('GET', '/v1/renderUrls/secret')).previousValidUntil, null);
    secret = rotated.secret;
  });
});

describe('render URLs: SOURCE to a private address', () => {
  let s: Started;
  let secret: string;
  let hash: string;
  before(async () => {
    s = await start({ allowPrivateUrls: false });
    hash = await s.importDesign('Banner', banner('https://cdn.example.com/p.png'));
    secret = (await s.ok('GET', '/v1/renderUrls/secret')).secret;
  });
  after(() => s?.close());

  test('is refused with 400 naming the parameter, before any render', async () => {
    for (const url of [
      'http://127.0.0.1:9/x.png',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/a.png',
      'http://10.1.2.3/a.png',
    ]) {
      const res = await s.get(sign(secret, `/r/${hash}.png`, { photo: url }));
      assert.equal(res.status, 400, url);
      const body = JSON.parse(res.bytes.toString());
      assert.ok(body.error.startsWith('photo (query): '), body.error);
      assert.match(body.error, /private|loopback|link-local|reserved|not allowed/i);
    }
    assert.equal(await s.metric('miss', 'render'), 0);
  });
});

describe('render URLs: the BlobStore tier, on local disk and on S3', () => {
  let bucket: TestBucket;
  before(async () => {
    bucket = await createTestBucket();
  });
  after(() => bucket?.remove());

  for (const shape of ['local disk', 'S3'] as const) {
    test(`${shape}: without the memory tier, the second request is answered from the store, not rendered`, async () => {
      const s = await start({
        s3: shape === 'S3' ? bucket.settings : null,
        renderUrl: { ...loadConfig({}).renderUrl, memoryCacheBytes: 0 },
      });
      try {
        const hash = await s.importDesign('Pair', pair());
        const secret = (await s.ok('GET', '/v1/renderUrls/secret')).secret;
        const link = sign(secret, `/r/${hash}.png`, { 'panel.BGCOLOR': '#123456' });
        const first = await s.get(link);
        assert.equal(first.headers.get('x-render-cache'), 'render');
        const key = (name: string) => name.startsWith(`render-urls/${hash}/`) && name.endsWith('.png');
        // The put runs after the answer: wait for the object to exist.
        for (let i = 0; i < 800; i++) {
          const stored =
            shape === 'S3'
              ? (await bucket.keys()).some(key)
              : await s.t.runtime.blobs.exists(`render-urls/${hash}/${first.headers.get('etag')?.slice(1, -1)}.png`);
          if (stored) break;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        const second = await s.get(link);
        assert.equal(second.status, 200);
        assert.equal(second.headers.get('x-render-cache'), 'store');
        assert.deepEqual(second.bytes, first.bytes);
        assertPixel(decodePng(second.bytes), 5, 5, [0x12, 0x34, 0x56, 255]);
        assert.equal(await s.metric('miss', 'render'), 1);
        assert.equal(await s.metric('hit', 'store'), 1);
      } finally {
        await s.close();
      }
    });
  }

  test('a service that stops lets the images it is still storing finish before its store closes', async () => {
    const s = await start({ renderUrl: { ...loadConfig({}).renderUrl, memoryCacheBytes: 0 } });
    let closed = false;
    const puts: Array<{ key: string; finishedOpen: boolean }> = [];
    try {
      const blobs = s.t.runtime.blobs;
      const put = blobs.put.bind(blobs);
      // A slow store: the answer goes out long before the put ends.
      blobs.put = async (key, body, contentType) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const stored = await put(key, body, contentType);
        if (key.startsWith('render-urls/')) puts.push({ key, finishedOpen: !closed });
        return stored;
      };
      const hash = await s.importDesign('Pair', pair());
      const secret = (await s.ok('GET', '/v1/renderUrls/secret')).secret;
      const first = await s.get(sign(secret, `/r/${hash}.png`, { 'panel.BGCOLOR': '#654321' }));
      assert.equal(first.headers.get('x-render-cache'), 'render');
      assert.equal(puts.length, 0, 'the answer came before the put ended');
    } finally {
      await s.close();
      closed = true;
    }
    assert.equal(puts.length, 1, 'the image was stored');
    assert.ok(puts[0].finishedOpen, 'the put ended before the service had closed');
  });
});

describe('render URLs: the per-team render budget', () => {
  let s: Started;
  before(async () => {
    s = await start({ rateLimit: { enabled: true, renderUrls: 2, windowSeconds: 60 } });
  });
  after(() => s?.close());

  test('renders beyond the budget are 429 with Retry-After; cached answers are not counted', async () => {
    const hash = await s.importDesign('Pair', pair());
    const secret = (await s.ok('GET', '/v1/renderUrls/secret')).secret;
    const link = (colour: string) => sign(secret, `/r/${hash}.png`, { 'panel.BGCOLOR': colour });
    assert.equal((await s.get(link('#111111'))).status, 200);
    assert.equal((await s.get(link('#222222'))).status, 200);
    const limited = await s.get(link('#333333'));
    assert.equal(limited.status, 429);
    assert.equal(JSON.parse(limited.bytes.toString()).code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    for (let i = 0; i < 5; i++) {
      const hit = await s.get(link('#111111'));
      assert.equal(hit.status, 200);
      assert.equal(hit.headers.get('x-render-cache'), 'memory');
    }
    // Another team has a budget of its own.
    const other = await s.t.newTeam('Other');
    const kit = (await s.ok('POST', '/v1/brandkits/create', { name: 'Kit' }, other.headers)).brandKit.id;
    const project = (await s.ok('POST', '/v1/projects', { name: 'P', brandKitId: kit }, other.headers)).project.id;
    const theirs = (
      await s.ok('POST', '/v1/templates/import', { projectId: project, name: 'Pair', document: pair() }, other.headers)
    ).template.id;
    const theirSecret = (await s.ok('GET', '/v1/renderUrls/secret', undefined, other.headers)).secret;
    assert.equal((await s.get(sign(theirSecret, `/r/${theirs}.png`, { 'panel.BGCOLOR': '#444444' }))).status, 200);
  });

  test('refused signatures spend the client address budget', async () => {
    const hash = await s.importDesign('Pair', pair());
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await s.get(`/r/${hash}.png?panel.BGCOLOR=%23000000&s=${'0'.repeat(64)}`)).status);
    assert.deepEqual(statuses, [403, 403, 429, 429]);
  });
});

describe('render URLs beside exports', () => {
  let s: Started;
  let pool: RenderPool;
  const log: string[] = [];
  let linksInFlight = 0;
  let mostLinksInFlight = 0;
  // Links that reached the pool wait here until the export has too (30 s at most), so the test does not depend on
  // how fast a loaded machine brings the export through its queue: in a busy CI run the 40 links could all render
  // before the export's job was claimed, and the test then failed although no link had taken the export's place.
  let exportArrived: () => void = () => {};
  const exportHere = new Promise<void>((resolve) => {
    exportArrived = resolve;
  });
  before(async () => {
    const real = createRenderPool({ threads: 1, allowPrivateUrls: true });
    // The real threads, watched: which renders reach the pool, in which order, how many links at once.
    const watched = async <T>(job: RenderJob, options: RenderCallOptions | undefined, run: () => Promise<T>) => {
      const link = options?.budgetMs === loadConfig({}).renderUrl.renderTimeoutSeconds * 1000;
      // Thumbnails skip rejected sources; exports and links do not.
      const kind = link ? 'link' : job.skipRejectedSources ? 'thumbnail' : 'export';
      log.push(kind);
      if (kind === 'export') exportArrived();
      if (link) mostLinksInFlight = Math.max(mostLinksInFlight, ++linksInFlight);
      try {
        if (link) await Promise.race([exportHere, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
        return await run();
      } finally {
        if (link) linksInFlight -= 1;
      }
    };
    pool = {
      threads: 1,
      render: (job, options) => watched(job, options, () => real.render(job, options)),
      renderFiles: (job, options) => watched(job, options, () => real.renderFiles(job, options)),
      readFont: (bytes, fileName, options) => real.readFont(bytes, fileName, options),
      preflight: (task, options) => real.preflight(task, options),
      queued: () => real.queued(),
      close: (options) => real.close(options),
    };
    s = await start({ renderPool: pool, renderThreads: 1 });
  });
  after(async () => {
    await s?.close();
    await pool?.close({ force: true });
  });

  test('a flood of links reaches the pool two at a time, and an export of the same team gets a thread meanwhile', async () => {
    const card = {
      name: 'Card',
      sizes: [
        {
          name: 'OG',
          width: 1200,
          height: 630,
          backgroundColor: '#FFFFFF',
          slides: [{ duration: 5, elements: [rect('panel', '#0000FF', { x: 0, y: 0, width: 1200, height: 630 })] }],
        },
      ],
    };
    const hash = await s.importDesign('Card', card);
    const secret = (await s.ok('GET', '/v1/renderUrls/secret')).secret;
    const flood = Array.from({ length: 40 }, (_, i) =>
      s.get(sign(secret, `/r/${hash}.png`, { 'panel.BGCOLOR': `#0000${(i + 16).toString(16).padStart(2, '0')}` })),
    );
    const accepted = await s.ok('POST', '/v1/export', { creativeHash: hash, type: 'png' });
    const answers = await Promise.all(flood);
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
    let status = 'pending';
    for (let i = 0; i < 800 && status === 'pending'; i++) {
      status = (await s.ok('GET', `/v1/export/${accepted.export.id}`)).status;
      if (status === 'pending') await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(status, 'complete');
    assert.ok(mostLinksInFlight <= 2, `${mostLinksInFlight} link renders at the pool at once`);
    const exportAt = log.indexOf('export');
    assert.ok(exportAt !== -1, 'the export rendered');
    // The links held at the pool are the team's two; the other 38 wait their turn without holding up the export.
    const linksAfter = log.slice(exportAt).filter((entry) => entry === 'link').length;
    assert.ok(linksAfter >= 38, `${40 - linksAfter} links reached the pool before the export: ${log.join(' ')}`);
    assert.equal(log.filter((entry) => entry === 'link').length, 40, 'each variant rendered once');
  });
});
