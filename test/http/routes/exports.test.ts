// Exports over real HTTP (SPEC §6, §8): the service listens on a port, a local HTTP server serves media and another
// receives webhooks; files are downloaded through their signed links and decoded (pixels, zip entries, PDF pages).
import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  type RenderCallOptions,
  type RenderJob,
  type RenderPool,
  RenderTimeoutError,
} from '../../../src/formats/pool.js';
import { linkExpiry, startTestApp, type TestApp } from '../../helpers/app.js';
import { pdfInfo } from '../../helpers/pdf.js';
import { readZip } from '../../helpers/zip.js';
import { type MediaServer, png, startMediaServer } from '../../render/media-fixtures.js';
import { assertPixel, decodeAny, decodePng } from '../../render/pixels.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and asserted on; a type per answer adds nothing.
type Json = Record<string, any>;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: Json;
}

/** A webhook receiver: answers with the next status of `plan` (then 200) and keeps every request. */
async function startReceiver() {
  const requests = new Map<string, Received[]>();
  const plans = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const route = req.url ?? '/';
      const list = requests.get(route) ?? [];
      list.push({ headers: req.headers, body, json: JSON.parse(body) });
      requests.set(route, list);
      const status = plans.get(route)?.shift() ?? 200;
      res.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (route: string, plan: number[] = []) => {
      plans.set(route, plan);
      return `${origin}${route}`;
    },
    received: (route: string) => requests.get(route) ?? [],
    async waitFor(route: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while ((requests.get(route)?.length ?? 0) < count) {
        if (Date.now() > deadline) throw new Error(`${route}: ${requests.get(route)?.length ?? 0} of ${count} calls`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return requests.get(route) ?? [];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const TERMINAL = new Set(['complete', 'completeWithError', 'failed']);

const rect = (name: string, fill: string, box: { x: number; y: number; width: number; height: number }) => ({
  name,
  type: 'shape',
  shape: 'rect',
  fill,
  ...box,
});
const headline = (width: number) => ({
  name: 'headline',
  type: 'text',
  x: 4,
  y: 4,
  width: width - 8,
  height: 30,
  text: 'Spring sale',
  fontFamily: 'Inter',
  fontVariant: '700',
  fontSize: 18,
  color: '#FFFFFF',
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
              headline(300),
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
            ],
          },
        ],
      },
    ],
  };
}

const SET_SIZES = [
  [300, 250],
  [728, 90],
  [160, 600],
  [300, 600],
] as const;

/** Four IAB sizes; `photo` only in the 728x90, so a bad SOURCE fails that size alone. */
function campaign(photoUrl: string) {
  return {
    name: 'Campaign',
    sizes: SET_SIZES.map(([width, height]) => ({
      name: `${width}x${height}`,
      width,
      height,
      backgroundColor: '#FFFFFF',
      slides: [
        {
          duration: 5,
          elements: [
            rect('panel', '#00FF00', { x: 0, y: 0, width, height }),
            headline(width),
            ...(width === 728
              ? [{ name: 'photo', type: 'image', x: 600, y: 10, width: 60, height: 60, src: photoUrl, fit: 'fill' }]
              : []),
          ],
        },
      ],
    })),
  };
}

function twoSlides() {
  return {
    name: 'Slides',
    sizes: [
      {
        name: 'Square',
        width: 200,
        height: 200,
        backgroundColor: '#000000',
        slides: [
          { duration: 2, elements: [rect('first', '#0000FF', { x: 0, y: 0, width: 200, height: 200 })] },
          { duration: 2, elements: [rect('second', '#FFFF00', { x: 0, y: 0, width: 200, height: 200 })] },
        ],
      },
    ],
  };
}

describe('exports over HTTP', () => {
  let t: TestApp;
  let origin: string;
  let media: MediaServer;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let projectId: number;
  let otherProjectFolder: number;
  let bannerHash: string;
  let campaignHash: string;
  let slidesHash: string;

  async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = t.owner.headers) {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text, json: (text ? JSON.parse(text) : null) as Json };
  }

  async function ok(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
    const res = await api(method, url, body, headers);
    assert.equal(res.status, 200, `${method} ${url}: ${res.body}`);
    return res.json.response;
  }

  async function importDesign(name: string, document: unknown, project = projectId): Promise<string> {
    return (await ok('POST', '/v1/templates/import', { projectId: project, name, document })).template.id;
  }

  async function waitForExport(id: string, headers?: Record<string, string>): Promise<Json> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = await ok('GET', `/v1/export/${id}`, undefined, headers);
      // The seed's values only (issue 15): a client polling "while pending" must never see another value mid-way.
      assert.ok(found.status === 'pending' || TERMINAL.has(found.status), `status ${found.status} is not the seed's`);
      for (const c of found.creatives.flatMap((e: Json) => e.creatives ?? [e])) {
        assert.ok(c.status === 'pending' || TERMINAL.has(c.status), `creative status ${c.status}`);
      }
      assert.equal(found.stage === 'done', TERMINAL.has(found.status), `stage ${found.stage} with ${found.status}`);
      if (TERMINAL.has(found.status)) return found;
      if (Date.now() > deadline) throw new Error(`export ${id} still ${found.status}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** A signed link of the service fetched from where the service really listens, or a presigned S3 link as it is. */
  async function download(link: string) {
    const url = new URL(link);
    const ours = link.startsWith(`${t.config.publicUrl}/`);
    const res = await fetch(ours ? `${origin}${url.pathname}${url.search}` : link);
    assert.equal(res.status, 200, `download ${url.pathname}: ${res.status}`);
    return { bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
  }

  async function counts() {
    const db = t.runtime.db.kysely;
    const exports = await db
      .selectFrom('exports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    const designs = await db
      .selectFrom('designs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return { exports: Number(exports?.n), designs: Number(designs?.n) };
  }

  before(async () => {
    media = await startMediaServer();
    media.route('/red.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(40, 40, [255, 0, 0]));
    });
    media.route('/blue.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(40, 40, [0, 0, 255]));
    });
    hooks = await startReceiver();
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const kit = (await ok('POST', '/v1/brandkits/create', { name: 'Kit' })).brandKit.id;
    projectId = (await ok('POST', '/v1/projects', { name: 'Campaigns', brandKitId: kit })).project.id;
    const other = (await ok('POST', '/v1/projects', { name: 'Other', brandKitId: kit })).project.id;
    otherProjectFolder = (await ok('POST', '/v1/folders', { projectId: other, name: 'Elsewhere' })).folder.id;
    bannerHash = await importDesign('Banner', banner(`${media.origin}/red.png`));
    campaignHash = await importDesign('Campaign', campaign(`${media.origin}/red.png`));
    slidesHash = await importDesign('Slides', twoSlides());
  });

  after(async () => {
    await t.close();
    await media.close();
    await hooks.close();
  });

  test('an export with changes answers pending at once, then renders the changed design as a PNG', async () => {
    const before = await counts();
    const res = await api('POST', '/v1/export-with-changes', {
      templateHash: bannerHash,
      type: 'PNG',
      elementsChanges: [
        { elementName: 'cta', changes: [{ attribute: 'BGCOLOR', value: '#00FF00' }] },
        { elementName: 'photo', changes: [{ attribute: 'SOURCE', value: `${media.origin}/blue.png` }] },
      ],
      generalSettings: { newDesignName: 'Spring: "Blue"/Green' },
    });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.headers.get('x-cache'), 'MISS');
    const created = res.json.response.export;
    assert.equal(created.status, 'pending');
    assert.equal(created.type, 'PNG');
    assert.equal(created.errorLog, null);
    assert.equal(created.creatives.length, 1, 'one entry per expected file, even while pending');
    // `stage` is the extension that replaced the non-seed status inProgress (issue 15, decisions.md).
    assert.deepEqual(Object.keys(created.creatives[0]).sort(), ['id', 'progress', 'stage', 'status', 'url']);
    assert.ok(['queued', 'rendering'].includes(created.stage), created.stage);
    assert.equal(created.progress, 0);
    assert.equal(created.creatives[0].url, null);
    assert.match(created.id, /^[0-9a-f-]{36}$/);
    assert.equal((await counts()).designs, before.designs + 1, 'the new design exists when the request is accepted');

    const done = await waitForExport(created.id);
    assert.equal(done.status, 'complete');
    assert.equal(done.creatives[0].status, 'complete');
    assert.equal(done.creatives[0].progress, 1);
    assert.equal(done.progress, 1);
    assert.ok(done.completedAt);
    const file = await download(done.creatives[0].url);
    assert.match(
      file.headers.get('content-disposition') ?? '',
      /Spring_ _Blue__Green-300x250\.png/,
      'named after newDesignName, made safe',
    );
    const pixels = decodePng(file.bytes);
    assert.equal(pixels.width, 300);
    assert.equal(pixels.height, 250);
    assertPixel(pixels, 50, 150, [255, 0, 0, 255]); // panel, unchanged
    assertPixel(pixels, 160, 236, [0, 255, 0, 255], 2); // cta, BGCOLOR changed
    assertPixel(pixels, 225, 125, [0, 0, 255, 255], 2); // photo, SOURCE changed

    // The thumbnail is made from the file and stored beside it; PostgreSQL sets it in the statement that finishes the
    // export (issue 21, stop 31), so the design has it once the export is complete; SQLite sets it just after.
    if (t.runtime.db.dialect === 'postgres') {
      const row = await t.runtime.db.kysely
        .selectFrom('designs')
        .select('thumb_key')
        .where('hash', '=', done.newDesignHash)
        .executeTakeFirstOrThrow();
      assert.ok(row.thumb_key, 'the export was finished with its design thumbnail set');
    }
    // The new design lists with a thumbUrl all the same (issue 15: the seed types it as a string), a link that answers
    // 404 with Retry-After until the thumbnail exists and the picture from then on: ask again until it is there.
    const design = await ok('GET', `/v1/templates?apiGenerated=true&keyword=${encodeURIComponent('Spring:')}`);
    assert.equal(design.nodes.length, 1);
    assert.equal(design.nodes[0].apiGenerated, true);
    assert.equal(design.nodes[0].projectId, projectId);
    assert.equal(design.nodes[0].id, done.newDesignHash);
    assert.equal(typeof design.nodes[0].thumbUrl, 'string');
    const thumbLink = new URL(design.nodes[0].thumbUrl);
    const ourThumb = design.nodes[0].thumbUrl.startsWith(`${t.config.publicUrl}/`);
    const fetchThumb = () =>
      fetch(ourThumb ? `${origin}${thumbLink.pathname}${thumbLink.search}` : design.nodes[0].thumbUrl);
    let thumbRes = await fetchThumb();
    for (let i = 0; i < 200 && thumbRes.status === 404; i++) {
      assert.ok(thumbRes.headers.get('retry-after'), 'a thumbnail not drawn yet says when to ask again');
      await new Promise((resolve) => setTimeout(resolve, 25));
      thumbRes = await fetchThumb();
    }
    assert.equal(thumbRes.status, 200);
    // Its thumbnail is the export's picture, resized: nothing drawn twice.
    const thumb = decodePng(Buffer.from(await thumbRes.arrayBuffer()));
    assert.deepEqual([thumb.width, thumb.height], [400, 333]);
    assertPixel(thumb, Math.round(160 * (400 / 300)), Math.round(236 * (400 / 300)), [0, 255, 0, 255], 8);
    // No design.thumbnail job waits for it: the export's file was the thumbnail (issue 21, stop 30: none is queued;
    // the templates imported before this test may still have theirs drawn).
    let thumbnailJobs = await t.runtime.jobs.depth(['design.thumbnail']);
    for (let i = 0; i < 200 && thumbnailJobs > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      thumbnailJobs = await t.runtime.jobs.depth(['design.thumbnail']);
    }
    assert.equal(thumbnailJobs, 0, 'no design.thumbnail job waits for a design whose thumbnail the export made');

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const second = await ok('GET', `/v1/export/${created.id}`);
    const expiry = linkExpiry;
    assert.ok(expiry(second.creatives[0].url) > expiry(done.creatives[0].url), 'every GET signs fresh links');
    assert.ok(expiry(second.creatives[0].url) - Date.now() / 1000 > 3_500, 'valid for an hour');
  });

  test('a design set exports one set entry whose zip holds one correctly named file per size', async () => {
    const res = await api('POST', '/v1/export', { creativeHash: campaignHash, type: 'jpeg' });
    assert.equal(res.status, 200, res.body);
    const created = res.json.response.export;
    assert.equal(created.creatives.length, 1);
    assert.equal(created.creatives[0].zipUrl, null);
    assert.equal(created.creatives[0].creatives.length, 4);
    const done = await waitForExport(created.id);
    assert.equal(done.status, 'complete');
    const [entry] = done.creatives;
    assert.deepEqual(
      entry.creatives.map((c: Json) => [c.size.width, c.size.height, c.size.measureUnit, c.slideNumber, c.status]),
      SET_SIZES.map(([w, h]) => [w, h, 'px', null, 'complete']),
    );
    const zip = await download(entry.zipUrl);
    assert.match(zip.headers.get('content-disposition') ?? '', /Campaign\.zip/);
    const files = await readZip(zip.bytes);
    assert.deepEqual(
      [...files.keys()],
      SET_SIZES.map(([w, h]) => `Campaign-${w}x${h}.jpg`),
    );
    for (const [i, [w, h]] of SET_SIZES.entries()) {
      const pixels = await decodeAny(files.get(`Campaign-${w}x${h}.jpg`)!);
      assert.equal(pixels.width, w);
      assert.equal(pixels.height, h);
      assertPixel(pixels, Math.floor(w / 2), h - 5, [0, 255, 0, 255], 12);
      const single = await download(entry.creatives[i].url);
      assert.deepEqual(single.bytes, files.get(`Campaign-${w}x${h}.jpg`), 'the zip holds the same files');
    }
  });

  test('allowedSizeHashesOnly limits the sizes; an unknown hash is 422 and creates nothing', async () => {
    const sizes = await ok('GET', `/v1/templates/${campaignHash}/design-sizes`);
    const res = await api('POST', '/v1/export', {
      creativeHash: campaignHash,
      type: 'webp',
      exportSettings: { allowedSizeHashesOnly: [sizes[1].hash, sizes[3].hash], scale: 0.5 },
    });
    assert.equal(res.status, 200, res.body);
    const done = await waitForExport(res.json.response.export.id);
    assert.deepEqual(
      done.creatives[0].creatives.map((c: Json) => `${c.size.width}x${c.size.height}`),
      ['728x90', '300x600'],
    );
    const pixels = await decodeAny((await download(done.creatives[0].creatives[0].url)).bytes);
    assert.deepEqual([pixels.width, pixels.height], [364, 45], 'scale 0.5');

    const before = await counts();
    const bad = await api('POST', '/v1/export', {
      creativeHash: campaignHash,
      type: 'png',
      exportSettings: { allowedSizeHashesOnly: [sizes[0].hash, 'zzzzzzz'] },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.code, 'UNKNOWN_SIZE_HASH');
    assert.match(bad.json.error, /zzzzzzz/);
    assert.deepEqual(await counts(), before);
  });

  test('raster formats make one file per slide; a PDF makes one file with the selected slides as pages', async () => {
    const raster = await waitForExport(
      (await ok('POST', '/v1/export', { creativeHash: slidesHash, type: 'png' })).export.id,
    );
    assert.equal(raster.creatives.length, 2);
    const first = await download(raster.creatives[0].url);
    const second = await download(raster.creatives[1].url);
    assert.match(first.headers.get('content-disposition') ?? '', /Slides-200x200-1\.png/);
    assert.match(second.headers.get('content-disposition') ?? '', /Slides-200x200-2\.png/);
    assertPixel(decodePng(first.bytes), 100, 100, [0, 0, 255, 255]);
    assertPixel(decodePng(second.bytes), 100, 100, [255, 255, 0, 255]);

    const pdf = await waitForExport(
      (
        await ok('POST', '/v1/export', {
          creativeHash: slidesHash,
          type: 'pdf',
          exportSettings: { slide: [1], pdfPreset: 'PDF_STANDARD', scale: 3 },
        })
      ).export.id,
    );
    assert.equal(pdf.status, 'complete');
    assert.equal(pdf.creatives.length, 1);
    const file = await download(pdf.creatives[0].url);
    assert.equal(file.bytes.subarray(0, 5).toString(), '%PDF-');
    assert.match(file.headers.get('content-disposition') ?? '', /Slides-200x200\.pdf/);
    assert.equal((await pdfInfo(file.bytes)).pages, 1);
  });

  test('everything checkable is checked before the answer: an invalid request creates no export and no design', async () => {
    const before = await counts();
    const base = { templateHash: bannerHash, type: 'png', elementsChanges: [] as Json[] };
    const cases: Array<[Json, number, string, RegExp]> = [
      [{ ...base, type: 'tiff' }, 400, 'VALIDATION_FAILED', /type/],
      [{ ...base, exportSettings: { quality: 0 } }, 400, 'VALIDATION_FAILED', /exportSettings\.quality/],
      [{ ...base, exportSettings: { bogus: 1 } }, 400, 'VALIDATION_FAILED', /bogus/],
      [{ ...base, exportSettings: { scale: 60 } }, 400, 'VALIDATION_FAILED', /scale/],
      [{ ...base, type: 'pdf', exportSettings: { slide: [3] } }, 400, 'VALIDATION_FAILED', /slide\[0\]/],
      [
        { ...base, elementsChanges: [{ elementName: 'nope', changes: [{ attribute: 'LABEL', value: 'x' }] }] },
        422,
        'UNKNOWN_ELEMENT',
        /headline/,
      ],
      [
        { ...base, elementsChanges: [{ elementName: 'panel', changes: [{ attribute: 'LABEL', value: 'x' }] }] },
        422,
        'ATTRIBUTE_NOT_APPLICABLE',
        /LABEL/,
      ],
      [
        { ...base, elementsChanges: [{ elementName: 'cta', changes: [{ attribute: 'TEXTCOLOR', value: 'red' }] }] },
        422,
        'INVALID_ELEMENT_CHANGE',
        /TEXTCOLOR/,
      ],
      [
        { ...base, generalSettings: { newDesignFolderId: otherProjectFolder } },
        422,
        'UNPROCESSABLE',
        /newDesignFolderId/,
      ],
      [{ ...base, generalSettings: { newDesignProjectId: 999_999 } }, 404, 'NOT_FOUND', /newDesignProjectId/],
      [{ ...base, templateHash: 'zzzzzzz' }, 404, 'NOT_FOUND', /templateHash/],
      [{ ...base, webhookUrl: 'ftp://example.com/hook' }, 422, 'UNPROCESSABLE', /webhookUrl/],
      [{ ...base, type: 'html', exportSettings: { networkId: 12 } }, 400, 'VALIDATION_FAILED', /not accept HTML5/],
      [{ ...base, type: 'html5', exportSettings: { networkId: 999 } }, 400, 'VALIDATION_FAILED', /networkId 999/],
      [
        { ...base, type: 'html', exportSettings: { useAsClickTag: true, clickTagUrl: 'javascript:alert(1)' } },
        400,
        'VALIDATION_FAILED',
        /clickTagUrl/,
      ],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await api('POST', '/v1/export-with-changes', body);
      assert.equal(res.status, status, `${JSON.stringify(body).slice(0, 160)} → ${res.body}`);
      assert.equal(res.json.code, code, res.body);
      assert.match(res.json.error, message, res.body);
    }
    assert.deepEqual(await counts(), before, 'nothing was created');
  });

  test('HTML5: a set exports one zip per size, each with index.html at its root, backups beside them', async () => {
    const res = await api('POST', '/v1/export-with-changes', {
      templateHash: campaignHash,
      type: 'HTML5',
      exportSettings: { includeFallbackImage: true, useAsClickTag: true, clickTagUrl: 'https://example.com/x' },
      elementsChanges: [],
      generalSettings: { newDesignName: 'Campaign HTML' },
    });
    assert.equal(res.status, 200, res.body);
    const done = await waitForExport(res.json.response.export.id);
    assert.equal(done.status, 'complete', JSON.stringify(done.errorLog));
    const set = await readZip((await download(done.creatives[0].zipUrl)).bytes);
    for (const [width, height] of SET_SIZES) {
      const inner = set.get(`Campaign HTML-${width}x${height}.zip`);
      assert.ok(inner, `the set zip holds the ${width}x${height} package: ${[...set.keys()]}`);
      const files = await readZip(inner);
      const html = files.get('index.html')?.toString('utf8') ?? '';
      assert.match(html, new RegExp(`<meta name="ad\\.size" content="width=${width},height=${height}">`));
      assert.match(html, /var clickTag = "https:\/\/example\.com\/x";/);
      const backup = set.get(`Campaign HTML-${width}x${height}.jpg`);
      assert.ok(
        backup && backup[0] === 0xff && backup[1] === 0xd8,
        'the IAB profile delivers the backup beside the zip',
      );
      const inside = files.get('backup.jpg');
      assert.ok(inside && inside[0] === 0xff && inside[1] === 0xd8, 'includeFallbackImage puts the JPG in the zip');
    }
    for (const creative of done.creatives[0].creatives) assert.ok(creative.fallbackUrl);
  });

  test('HTML5: a blocking network rule fails the file with AD_NETWORK_RULE; advice is a warning', async () => {
    const withCode = await importDesign('Embed', {
      name: 'Embed',
      loop: 'infinite',
      sizes: [
        {
          name: 'Medium Rectangle',
          width: 300,
          height: 250,
          slides: [
            { elements: [{ name: 'embed', type: 'code', x: 0, y: 0, width: 300, height: 250, html: '<p>hi</p>' }] },
          ],
        },
      ],
    });
    const googleAds = await api('POST', '/v1/export', {
      creativeHash: withCode,
      type: 'html',
      exportSettings: { networkId: 2 },
    });
    assert.equal(googleAds.status, 200, googleAds.body);
    const failed = await waitForExport(googleAds.json.response.export.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.errorLog.code, 'AD_NETWORK_RULE');
    assert.match(failed.errorLog.failures[0].message, /forbidden-api: Google Ads refuses ads that use iframe/);

    const dv360 = await api('POST', '/v1/export', {
      creativeHash: withCode,
      type: 'html',
      exportSettings: { networkId: 4, urlTarget: '_top' },
    });
    const done = await waitForExport(dv360.json.response.export.id);
    assert.equal(done.status, 'complete', JSON.stringify(done.errorLog));
    const { warnings } = done.creatives[0];
    assert.ok(
      warnings.some((w: string) => /urlTarget _top replaced by _blank/.test(w)),
      warnings,
    );
    assert.ok(
      warnings.some((w: string) => /animation-length: the animation runs forever/.test(w)),
      warnings,
    );
    const files = await readZip((await download(done.creatives[0].url)).bytes);
    assert.match(files.get('index.html')!.toString(), /<iframe sandbox="allow-scripts"/);
  });

  test('a setting that does not apply to the type is ignored; types are case-insensitive with aliases', async () => {
    const res = await api('POST', '/v1/export', {
      creativeHash: bannerHash,
      type: 'JPEG',
      exportSettings: { gifPreset: 'static', targetFPS: 12, minifyHtml: true },
    });
    assert.equal(res.status, 200, res.body);
    const done = await waitForExport(res.json.response.export.id);
    assert.equal(done.type, 'JPEG');
    const file = await download(done.creatives[0].url);
    assert.deepEqual([...file.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
    assert.match(file.headers.get('content-disposition') ?? '', /Banner-300x250\.jpg/);
  });

  test('an identical request answers the earlier complete export from the cache and creates nothing', async () => {
    const body = {
      templateHash: bannerHash,
      type: 'webp',
      elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Cached' }] }],
      webhookUrl: hooks.url('/cache'),
    };
    const first = await api('POST', '/v1/export-with-changes', body);
    assert.equal(first.headers.get('x-cache'), 'MISS');
    const done = await waitForExport(first.json.response.export.id);
    assert.equal(done.status, 'complete');
    await hooks.waitFor('/cache', 1);
    const before = await counts();

    // Same request, keys in another order and the type in capitals: still the same canonical request.
    const again = await api('POST', '/v1/export-with-changes', {
      webhookUrl: body.webhookUrl,
      elementsChanges: body.elementsChanges,
      type: 'WEBP',
      templateHash: bannerHash,
    });
    assert.equal(again.status, 200, again.body);
    assert.equal(again.headers.get('x-cache'), 'HIT');
    assert.equal(again.json.response.export.id, done.id);
    assert.equal(again.json.response.export.status, 'complete');
    assert.ok(again.json.response.export.creatives[0].url);
    assert.deepEqual(await counts(), before, 'a cache hit creates no design and no export');
    const calls = await hooks.waitFor('/cache', 2);
    assert.equal(calls[1].json.data.export.id, done.id, 'the webhook is called again');
    assert.notEqual(calls[1].json.id, calls[0].json.id, 'a new delivery');

    // Editing the template changes its revision: the same request misses.
    const document = await ok('GET', `/v1/templates/${bannerHash}/document`);
    await ok('PUT', `/v1/templates/${bannerHash}/document`, { document: { ...document, name: 'Banner' } });
    const afterEdit = await api('POST', '/v1/export-with-changes', body);
    assert.equal(afterEdit.headers.get('x-cache'), 'MISS');
    assert.notEqual(afterEdit.json.response.export.id, done.id);
    await waitForExport(afterEdit.json.response.export.id);
  });

  test("POST /v1/export reads the cache with the last known revision only while it is still the design's", async () => {
    // The service probes the cache with the key of the revision it last saw while it reads the design (one round
    // trip): after an edit, that guess is wrong and must not answer the export of the old revision.
    const body = { creativeHash: bannerHash, type: 'jpg', exportSettings: { scale: 0.5, quality: 61 } };
    const first = await api('POST', '/v1/export', body);
    assert.equal(first.headers.get('x-cache'), 'MISS');
    const done = await waitForExport(first.json.response.export.id);
    assert.equal(done.status, 'complete');
    const hit = await api('POST', '/v1/export', body);
    assert.equal(hit.headers.get('x-cache'), 'HIT');
    assert.equal(hit.json.response.export.id, done.id);

    const document = await ok('GET', `/v1/templates/${bannerHash}/document`);
    await ok('PUT', `/v1/templates/${bannerHash}/document`, { document: { ...document, name: 'Banner, edited' } });
    const afterEdit = await api('POST', '/v1/export', body);
    assert.equal(afterEdit.status, 200, afterEdit.body);
    assert.equal(afterEdit.headers.get('x-cache'), 'MISS', 'the export of the old revision is not answered');
    assert.notEqual(afterEdit.json.response.export.id, done.id);
    const redone = await waitForExport(afterEdit.json.response.export.id);
    const again = await api('POST', '/v1/export', body);
    assert.equal(again.headers.get('x-cache'), 'HIT');
    assert.equal(again.json.response.export.id, redone.id);
    await ok('PUT', `/v1/templates/${bannerHash}/document`, { document });
  });

  test('Idempotency-Key replays the first answer; another body with the key is 409', async () => {
    const body = { creativeHash: slidesHash, type: 'png', exportSettings: { scale: 0.25 } };
    const headers = { ...t.owner.headers, 'idempotency-key': 'export-once-1' };
    const first = await api('POST', '/v1/export', body, headers);
    assert.equal(first.status, 200, first.body);
    const replay = await api('POST', '/v1/export', body, headers);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.json.response.export.id, first.json.response.export.id);
    const other = await api('POST', '/v1/export', { ...body, type: 'jpg' }, headers);
    assert.equal(other.status, 409);
    assert.equal(other.json.code, 'IDEMPOTENCY_KEY_REUSED');
    await waitForExport(first.json.response.export.id);
  });

  test('the webhookUrl gets one signed POST that verifies with the team secret; retried after two 500s', async () => {
    const { secret } = await ok('GET', '/v1/webhooks/secret');
    const res = await ok('POST', '/v1/export', {
      creativeHash: slidesHash,
      type: 'jpg',
      webhookUrl: hooks.url('/flaky', [500, 500]),
    });
    const calls = await hooks.waitFor('/flaky', 3);
    const done = await waitForExport(res.export.id);
    for (const call of calls) {
      const verified = new Webhook(secret).verify(call.body, {
        'webhook-id': call.headers['webhook-id'] as string,
        'webhook-timestamp': call.headers['webhook-timestamp'] as string,
        'webhook-signature': call.headers['webhook-signature'] as string,
      }) as Json;
      assert.equal(verified.action, 'export/complete');
    }
    assert.equal(new Set(calls.map((c) => c.headers['webhook-id'])).size, 1, 'retries keep the webhook-id');
    const payload = calls[2].json;
    assert.equal(payload.id, calls[2].headers['webhook-id']);
    assert.equal(payload.teamId, t.owner.teamId);
    assert.equal(payload.data.export.id, done.id);
    assert.equal(payload.data.export.status, 'complete');
    assert.deepEqual(Object.keys(payload).sort(), ['action', 'data', 'id', 'occurredAt', 'teamId']);
    assert.throws(() =>
      new Webhook(secret).verify(`${calls[2].body} `, {
        'webhook-id': calls[2].headers['webhook-id'] as string,
        'webhook-timestamp': calls[2].headers['webhook-timestamp'] as string,
        'webhook-signature': calls[2].headers['webhook-signature'] as string,
      }),
    );

    // The deliveries list shows the three attempts.
    let delivery: Json | undefined;
    for (let i = 0; i < 100 && delivery?.status !== 'succeeded'; i++) {
      const list = await ok('GET', '/v1/webhooks/deliveries?limit=100');
      delivery = list.nodes.find((d: Json) => d.id === payload.id);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(delivery);
    assert.equal(delivery.status, 'succeeded');
    assert.equal(delivery.webhookId, null);
    assert.deepEqual(
      delivery.attempts.map((a: Json) => a.statusCode),
      [500, 500, 200],
    );
  });

  test('team webhooks subscribed to export/complete receive the export through the outbox', async () => {
    await ok('POST', '/v1/webhooks', { name: 'exports', url: hooks.url('/team'), actions: [1, 2] });
    const res = await ok('POST', '/v1/export', { creativeHash: slidesHash, type: 'webp' });
    const done = await waitForExport(res.export.id);
    const calls = await hooks.waitFor('/team', 1);
    const call = calls.find((c) => c.json.data.export?.id === done.id);
    assert.ok(call, 'the team webhook got this export');
    assert.equal(call.json.action, 'export/complete');
    assert.equal(call.json.data.export.creatives.length, 2);
  });

  test('a SOURCE that cannot be fetched fails its creative with SOURCE_REJECTED; the others complete', async () => {
    media.route('/gone.png', (_req, res) => {
      res.writeHead(404).end('gone');
    });
    const res = await ok('POST', '/v1/export-with-changes', {
      templateHash: campaignHash,
      type: 'png',
      elementsChanges: [
        { elementName: 'photo', changes: [{ attribute: 'SOURCE', value: `${media.origin}/gone.png` }] },
      ],
      webhookUrl: hooks.url('/partial'),
    });
    const done = await waitForExport(res.export.id);
    assert.equal(done.status, 'completeWithError');
    const inner = done.creatives[0].creatives;
    assert.deepEqual(
      inner.map((c: Json) => c.status),
      ['complete', 'failed', 'complete', 'complete'],
    );
    assert.equal(inner[1].url, null);
    assert.equal(done.errorLog.code, 'SOURCE_REJECTED');
    assert.equal(done.errorLog.failures.length, 1);
    const [failure] = done.errorLog.failures;
    assert.equal(failure.creativeId, inner[1].id);
    assert.equal(failure.code, 'SOURCE_REJECTED');
    assert.match(failure.message, /gone\.png/);
    assert.match(failure.message, /404/);
    const sizes = await ok('GET', `/v1/templates/${campaignHash}/design-sizes`);
    assert.equal(failure.sizeHash, sizes[1].hash, "the template's size hash, as the request knows it");
    const kept = await ok('GET', `/v1/templates/${done.newDesignHash}/design-sizes`);
    assert.equal(kept.length, 4, 'a partly failed export keeps the design it created (issue 15)');
    const files = await readZip((await download(done.creatives[0].zipUrl)).bytes);
    assert.deepEqual(
      [...files.keys()],
      ['Campaign (API)-300x250.png', 'Campaign (API)-160x600.png', 'Campaign (API)-300x600.png'],
    );
    const [call] = await hooks.waitFor('/partial', 1);
    assert.equal(call.json.action, 'export/failed');
    assert.equal(call.json.data.export.status, 'completeWithError');
  });

  test('an export with changes whose first file fails keeps its design, whose thumbnail a job then draws', async () => {
    media.route('/lost.png', (_req, res) => {
      res.writeHead(404).end('lost');
    });
    // The photo also in the first size (300x250), at the top right: that file fails with the 728x90's.
    const doc = campaign(`${media.origin}/red.png`);
    doc.sizes[0].slides[0].elements.push({
      name: 'photo',
      type: 'image',
      x: 200,
      y: 10,
      width: 60,
      height: 60,
      src: `${media.origin}/red.png`,
      fit: 'fill',
    } as (typeof doc.sizes)[0]['slides'][0]['elements'][0]);
    const template = await importDesign('Photo first', doc);
    const res = await ok('POST', '/v1/export-with-changes', {
      templateHash: template,
      type: 'webp',
      elementsChanges: [
        { elementName: 'photo', changes: [{ attribute: 'SOURCE', value: `${media.origin}/lost.png` }] },
      ],
    });
    const done = await waitForExport(res.export.id);
    assert.equal(done.status, 'completeWithError');
    assert.deepEqual(
      done.creatives[0].creatives.map((c: Json) => c.status),
      ['failed', 'failed', 'complete', 'complete'],
    );
    // The design stays; its thumbnail is drawn from the design (the photo that cannot be fetched left out).
    let thumbKey: string | null = null;
    for (let i = 0; i < 400 && thumbKey === null; i++) {
      const row = await t.runtime.db.kysely
        .selectFrom('designs')
        .select('thumb_key')
        .where('hash', '=', done.newDesignHash)
        .executeTakeFirstOrThrow();
      thumbKey = row.thumb_key;
      if (thumbKey === null) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.ok(thumbKey, 'the design got a thumbnail although its first file failed');
    const listed = await ok('GET', `/v1/templates?apiGenerated=true&keyword=${encodeURIComponent('Photo first')}`);
    const thumb = decodePng((await download(listed.nodes[0].thumbUrl)).bytes);
    assert.deepEqual([thumb.width, thumb.height], [400, 333]);
    // Where the photo would be: the green panel (a red photo here would mean the template's source was drawn).
    assertPixel(thumb, Math.round(230 * (400 / 300)), Math.round(40 * (400 / 300)), [0, 255, 0, 255], 8);
  });

  test('a failed export with changes removes the design it created (issue 15); a partial one keeps it', async () => {
    media.route('/missing.png', (_req, res) => {
      res.writeHead(404).end('missing');
    });
    const before = await counts();
    const res = await ok('POST', '/v1/export-with-changes', {
      templateHash: bannerHash,
      type: 'png',
      elementsChanges: [
        { elementName: 'photo', changes: [{ attribute: 'SOURCE', value: `${media.origin}/missing.png` }] },
      ],
      generalSettings: { newDesignName: 'Doomed banner' },
    });
    const hash = res.export.newDesignHash;
    assert.match(hash, /^[a-z0-9]{7}$/);
    assert.equal((await counts()).designs, before.designs + 1, 'the design exists while the export runs');
    const done = await waitForExport(res.export.id);
    assert.equal(done.status, 'failed');
    assert.equal(done.errorLog.code, 'SOURCE_REJECTED');
    assert.equal((await counts()).designs, before.designs, 'the failed export left no design behind');
    const gone = await api('GET', `/v1/templates/${hash}/document`);
    assert.equal(gone.status, 404, gone.body);
    assert.equal(gone.json.code, 'NOT_FOUND');
    const listed = await ok('GET', `/v1/templates?apiGenerated=true&keyword=Doomed&exactSearch=false`);
    assert.deepEqual(listed.nodes, []);
    // Subscribers hear of it: the design/delete event is recorded with the export's export/failed.
    const events = await t.runtime.db.kysely
      .selectFrom('events_outbox')
      .select(['action', 'payload'])
      .where('team_id', '=', t.owner.teamId)
      .where('action', '=', 'design/delete')
      .execute();
    const deleted = events.map((e) => JSON.parse(e.payload).data.template).find((tpl) => tpl.id === hash);
    assert.deepEqual(deleted, {
      id: hash,
      name: 'Doomed banner',
      isTemplate: false,
      projectId,
      apiGenerated: true,
      thumbUrl: null,
    });
    // The thumbnail job that was waiting for this design finds nothing to draw.
    await t.runtime.jobs.idle();
    assert.equal((await counts()).designs, before.designs);
  });

  test('who may export what: Viewers export what they see, never with changes; other teams see nothing', async () => {
    const viewer = await t.userWith('Viewer');
    await ok('POST', '/v1/project/users', { projectId, userId: viewer.userId });
    const seen = await ok('POST', '/v1/export', { creativeHash: slidesHash, type: 'jpg' }, viewer.headers);
    assert.equal((await waitForExport(seen.export.id, viewer.headers)).status, 'complete');
    const other = await t.newTeam('Rivals');
    const mine = await ok('POST', '/v1/export', { creativeHash: slidesHash, type: 'png' });
    const notFound = await api('GET', `/v1/export/${mine.export.id}`, undefined, other.headers);
    assert.equal(notFound.status, 404);
    assert.equal(notFound.json.code, 'NOT_FOUND');
    const theirs = await api('POST', '/v1/export', { creativeHash: slidesHash, type: 'png' }, other.headers);
    assert.equal(theirs.status, 404);
    const withChanges = await api(
      'POST',
      '/v1/export-with-changes',
      { templateHash: slidesHash, type: 'png', elementsChanges: [] },
      viewer.headers,
    );
    assert.equal(withChanges.status, 403);
    await waitForExport(mine.export.id);
  });

  test('metrics count exports by type and status, render seconds, queue depth and webhook deliveries', async () => {
    const res = await fetch(`${origin}/metrics`);
    const text = await res.text();
    assert.match(text, /placard_exports_total\{type="png",status="complete"\} \d+/);
    assert.match(text, /placard_exports_total\{type="png",status="completeWithError"\} 1/);
    assert.match(text, /placard_render_seconds_count\{format="jpg"\} \d+/);
    assert.match(text, /placard_queue_depth\{kind="export.creative"\} \d+/);
    assert.match(text, /placard_webhook_deliveries_total\{outcome="retried"\} [2-9]/);
    assert.match(text, /placard_export_requests_total\{type="webp",cache="hit"\} 1/);
  });
});

/** Render threads that a test controls; like the real ones, an aborted render rejects with an AbortError. */
function controlledPool(behaviour: (job: RenderJob, signal?: AbortSignal) => Promise<Uint8Array>): RenderPool {
  // As the real pool does: the budget aborts the render and rejects with RenderTimeoutError (no line to wait in here).
  const budgeted = async (job: RenderJob, options: RenderCallOptions = {}) => {
    options.onStart?.();
    if (options.budgetMs === undefined) return behaviour(job, options.signal);
    const budget = AbortSignal.timeout(options.budgetMs);
    try {
      return await behaviour(job, options.signal ? AbortSignal.any([options.signal, budget]) : budget);
    } catch (error) {
      if (budget.aborted) throw new RenderTimeoutError(options.budgetMs);
      throw error;
    }
  };
  return {
    threads: 1,
    render: (job, options) => budgeted(job, options),
    renderFiles: async (job, options) => ({ bytes: await budgeted(job, options), warnings: [], backup: null }),
    readFont: () => Promise.reject(new Error('this test reads no fonts')),
    preflight: () => Promise.reject(new Error('this test runs no preflight')),
    queued: () => 0,
    close: async () => {},
  };
}

describe('exports when renders crash, hang or pile up', () => {
  let t: TestApp;
  // 'wait' renders block until the test opens the gate; opening it before the render started lets it through too
  // (a render that starts late must not wait forever).
  let opened = false;
  let waiting: (() => void)[] = [];
  const gate = () => {
    opened = true;
    for (const release of waiting) release();
    waiting = [];
  };
  let mode: 'crash' | 'hang' | 'wait' = 'crash';
  let renders = 0;
  let onRenderStarted: (() => void) | null = null;

  before(async () => {
    t = await startTestApp({
      queueLimit: 1,
      renderTimeouts: { stillSeconds: 1, videoSeconds: 600 },
      renderPool: controlledPool(async (job, signal) => {
        if (job.skipRejectedSources) return png(4, 4); // a thumbnail
        renders += 1;
        if (mode === 'crash') throw new Error('worker thread exited with code 134');
        if (mode === 'wait') {
          onRenderStarted?.();
          if (!opened) await new Promise<void>((resolve) => waiting.push(resolve));
          return png(4, 4);
        }
        return new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
        });
      }),
    });
  });
  after(() => t.close());

  async function importSlides(): Promise<string> {
    const kit = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/brandkits/create',
        headers: t.owner.headers,
        payload: { name: 'K' },
      })
    ).json().response.brandKit.id;
    const project = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/projects',
        headers: t.owner.headers,
        payload: { name: 'P', brandKitId: kit },
      })
    ).json().response.project.id;
    const doc = twoSlides();
    doc.sizes[0].slides.pop();
    return (
      await t.app.inject({
        method: 'POST',
        url: '/v1/templates/import',
        headers: t.owner.headers,
        payload: { projectId: project, name: 'One', document: doc },
      })
    ).json().response.template.id;
  }

  async function wait(id: string): Promise<Json> {
    for (let i = 0; i < 600; i++) {
      const res = (await t.app.inject({ method: 'GET', url: `/v1/export/${id}`, headers: t.owner.headers })).json()
        .response;
      if (TERMINAL.has(res.status)) return res;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`export ${id} never finished`);
  }

  test('a render that crashes its thread is tried three times, then fails with RENDER_CRASHED', async () => {
    mode = 'crash';
    renders = 0;
    const hash = await importSlides();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/export',
      headers: t.owner.headers,
      payload: { creativeHash: hash, type: 'png' },
    });
    const done = await wait(res.json().response.export.id);
    assert.equal(done.status, 'failed');
    assert.equal(done.errorLog.code, 'RENDER_CRASHED');
    assert.match(done.errorLog.failures[0].message, /3 times/);
    assert.equal(renders, 3);
  });

  test('a render past its budget fails with RENDER_TIMEOUT', async () => {
    mode = 'hang';
    const hash = await importSlides();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/export',
      headers: t.owner.headers,
      payload: { creativeHash: hash, type: 'jpg' },
    });
    const done = await wait(res.json().response.export.id);
    assert.equal(done.status, 'failed');
    assert.equal(done.errorLog.failures[0].code, 'RENDER_TIMEOUT');
    assert.match(done.errorLog.failures[0].message, /1 s/);
  });

  test('a full queue answers 503 with Retry-After and creates nothing', async () => {
    mode = 'wait';
    const hash = await importSlides();
    const first = await t.app.inject({
      method: 'POST',
      url: '/v1/export',
      headers: t.owner.headers,
      payload: { creativeHash: hash, type: 'png' },
    });
    assert.equal(first.statusCode, 200);
    const full = await t.app.inject({
      method: 'POST',
      url: '/v1/export',
      headers: t.owner.headers,
      payload: { creativeHash: hash, type: 'webp' },
    });
    assert.equal(full.statusCode, 503, full.body);
    assert.equal(full.json().code, 'UNAVAILABLE');
    assert.ok(Number(full.headers['retry-after']) > 0);
    gate();
    const done = await wait(first.json().response.export.id);
    assert.equal(done.status, 'complete');
  });

  test('while a file renders the export says pending (the seed) with stage rendering, then complete with done', async () => {
    mode = 'wait';
    opened = false;
    const started = new Promise<void>((resolve) => {
      onRenderStarted = resolve;
    });
    const hash = await importSlides();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/export',
      headers: t.owner.headers,
      payload: { creativeHash: hash, type: 'png' },
    });
    const id = res.json().response.export.id;
    await started;
    // A render whose job brought its rows (BullMQ) marks its file started once a thread has rendered it 200 ms
    // (export.processor.ts): the answer says rendering from then on, while the render is held here.
    let during: Json = {};
    for (let i = 0; i < 100; i++) {
      during = (await t.app.inject({ method: 'GET', url: `/v1/export/${id}`, headers: t.owner.headers })).json()
        .response;
      if (during.stage !== 'queued') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(during.status, 'pending');
    assert.equal(during.stage, 'rendering');
    assert.equal(during.creatives[0].status, 'pending');
    assert.equal(during.creatives[0].stage, 'rendering');
    assert.equal(during.creatives[0].url, null);
    gate();
    const done = await wait(id);
    assert.equal(done.status, 'complete');
    assert.equal(done.stage, 'done');
    assert.equal(done.creatives[0].stage, 'done');
    onRenderStarted = null;
  });
});

describe('exports on a service that refuses private addresses', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ allowPrivateUrls: false });
  });
  after(() => t.close());

  test('a webhookUrl pointing at a private or loopback address is a 422 naming it, before anything is created', async () => {
    const inject = async (url: string, payload: object) =>
      (await t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload })).json().response;
    const kit = (await inject('/v1/brandkits/create', { name: 'K' })).brandKit.id;
    const project = (await inject('/v1/projects', { name: 'P', brandKitId: kit })).project.id;
    const hash = (await inject('/v1/templates/import', { projectId: project, name: 'D', document: twoSlides() }))
      .template.id;
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/hook', 'http://localhost/hook', 'http://[::1]/h']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/export',
        headers: t.owner.headers,
        payload: { creativeHash: hash, type: 'png', webhookUrl: url },
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, 'UNPROCESSABLE');
      assert.match(res.json().error, /^webhookUrl: /);
    }
    const exports = await t.runtime.db.kysely.selectFrom('exports').selectAll().execute();
    assert.equal(exports.length, 0);
  });
});
