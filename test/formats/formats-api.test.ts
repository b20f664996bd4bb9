// Output formats through the real HTTP API (issue 13): AVIF exports of a single design and a set, decoded and compared
// pixel by pixel with the PNG export of the same request; `exportSettings.quality` changes JPG, WEBP and AVIF files;
// and `placard render` writes the same bytes as the API for the same request.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { runRender } from '../../src/cli/render.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { readZip } from '../helpers/zip.js';

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = Record<string, any>;
const TERMINAL = new Set(['complete', 'completeWithError', 'failed']);

const rect = (name: string, fill: string, box: { x: number; y: number; width: number; height: number }) => ({
  name,
  type: 'shape',
  shape: 'rect',
  fill,
  ...box,
});

/** Flat colours with hard edges, and a mosaic, so that lossy encoders have something to lose. */
function size(name: string, width: number, height: number) {
  // A mosaic of 10 px cells in pseudo-random colours over the top half: detail a lossy encoder must spend bytes on.
  const cells: ReturnType<typeof rect>[] = [];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % 256;
  };
  for (let y = 0; y < Math.round(height / 2); y += 10) {
    for (let x = 0; x < width; x += 10) {
      const hex = [next(), next(), next()].map((v) => v.toString(16).padStart(2, '0')).join('');
      cells.push(rect(`cell${x}-${y}`, `#${hex.toUpperCase()}`, { x, y, width: 10, height: 10 }));
    }
  }
  return {
    name,
    width,
    height,
    backgroundColor: '#FFFFFF',
    slides: [
      {
        elements: [
          ...cells,
          rect('red', '#FF0000', { x: 0, y: Math.round(height / 2), width: Math.round(width / 2), height: height / 2 }),
          rect('blue', '#0000FF', {
            x: Math.round(width / 2),
            y: Math.round(height / 2),
            width: width - Math.round(width / 2),
            height: height / 2,
          }),
        ],
      },
    ],
  };
}

const single = { name: 'Single', sizes: [size('Banner', 300, 250)] };
const set = { name: 'Set', sizes: [size('Banner', 300, 250), size('Leaderboard', 728, 90)] };

/** Raw RGBA of an encoded image (sharp decodes PNG and AVIF alike). */
async function rgba(bytes: Buffer) {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean absolute difference per channel (0..255) of two same-sized RGBA images. */
function meanDifference(a: Buffer, b: Buffer): number {
  assert.equal(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

describe('output formats over HTTP', () => {
  let t: TestApp;
  let origin: string;
  let singleHash: string;
  let setHash: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-formats-'));

  async function api(method: string, url: string, body?: unknown) {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: body === undefined ? t.owner.headers : { ...t.owner.headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text, json: (text ? JSON.parse(text) : null) as Json };
  }

  async function ok(method: string, url: string, body?: unknown) {
    const res = await api(method, url, body);
    assert.equal(res.status, 200, `${method} ${url}: ${res.body}`);
    return res.json.response;
  }

  async function download(link: string) {
    const url = new URL(link);
    // Local-disk links name the public URL (served here at `origin`); S3 links are presigned and fetched as they are.
    const res = await fetch(url.pathname.startsWith('/files/') ? `${origin}${url.pathname}${url.search}` : link);
    assert.equal(res.status, 200, `download ${url.pathname}: ${res.status}`);
    return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
  }

  /** Exports and waits for the terminal status; the export must complete. */
  async function exported(hash: string, type: string, exportSettings?: Json): Promise<Json> {
    const created = await ok('POST', '/v1/export', { creativeHash: hash, type, exportSettings });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const found = await ok('GET', `/v1/export/${created.export.id}`);
      if (TERMINAL.has(found.status)) {
        assert.equal(found.status, 'complete', JSON.stringify(found.errorLog));
        return found;
      }
      if (Date.now() > deadline) throw new Error(`export ${created.export.id} still ${found.status}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function fileOf(hash: string, type: string, exportSettings?: Json) {
    return download((await exported(hash, type, exportSettings)).creatives[0].url);
  }

  before(async () => {
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const kit = (await ok('POST', '/v1/brandkits/create', { name: 'Kit' })).brandKit.id;
    const projectId = (await ok('POST', '/v1/projects', { name: 'Formats', brandKitId: kit })).project.id;
    singleHash = (await ok('POST', '/v1/templates/import', { projectId, name: 'Single', document: single })).template
      .id;
    setHash = (await ok('POST', '/v1/templates/import', { projectId, name: 'Set', document: set })).template.id;
  });

  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  test('an AVIF export of a single design decodes to the pixels of its PNG export', async () => {
    const avif = await fileOf(singleHash, 'avif', { quality: 90 });
    assert.equal(avif.type, 'image/avif');
    const meta = await sharp(avif.bytes).metadata();
    assert.equal(meta.format, 'heif');
    assert.equal(meta.compression, 'av1');
    const png = await fileOf(singleHash, 'png');
    const [a, p] = await Promise.all([rgba(avif.bytes), rgba(png.bytes)]);
    assert.deepEqual([a.width, a.height], [300, 250]);
    assert.ok(meanDifference(a.data, p.data) < 3, `mean difference ${meanDifference(a.data, p.data)}`);
    // Flat areas keep their colour: the middle of the red and the blue block.
    const at = (x: number, y: number) => [...a.data.subarray((y * 300 + x) * 4, (y * 300 + x) * 4 + 3)];
    for (const [[x, y], colour] of [
      [
        [75, 190],
        [255, 0, 0],
      ],
      [
        [225, 190],
        [0, 0, 255],
      ],
    ] as const) {
      for (const [i, value] of at(x, y).entries()) {
        assert.ok(Math.abs(value - colour[i]) <= 6, `(${x},${y}) ${at(x, y)}`);
      }
    }
  });

  test('an AVIF export of a set zips one AVIF per size, each matching the PNG of that size; scale applies', async () => {
    const done = await exported(setHash, 'AVIF', { scale: 0.5, quality: 90 });
    const [entry] = done.creatives;
    const files = await readZip((await download(entry.zipUrl)).bytes);
    assert.deepEqual([...files.keys()], ['Set-300x250.avif', 'Set-728x90.avif']);
    const pngs = await readZip(
      (await download((await exported(setHash, 'png', { scale: 0.5 })).creatives[0].zipUrl)).bytes,
    );
    for (const [name, w, h] of [
      ['Set-300x250', 150, 125],
      ['Set-728x90', 364, 45],
    ] as const) {
      const a = await rgba(files.get(`${name}.avif`)!);
      const p = await rgba(pngs.get(`${name}.png`)!);
      assert.deepEqual([a.width, a.height], [w, h]);
      assert.ok(meanDifference(a.data, p.data) < 4, `${name}: mean difference ${meanDifference(a.data, p.data)}`);
    }
  });

  test('exportSettings.quality changes the size of JPG, WEBP and AVIF files', async () => {
    for (const type of ['jpg', 'webp', 'avif']) {
      const low = await fileOf(singleHash, type, { quality: 10 });
      const high = await fileOf(singleHash, type, { quality: 90 });
      assert.ok(
        low.bytes.length < high.bytes.length * 0.8,
        `${type}: quality 10 gave ${low.bytes.length} bytes, quality 90 ${high.bytes.length}`,
      );
    }
  });

  test('quality out of 1..100 is a 400 naming exportSettings.quality and creates no export', async () => {
    for (const quality of [0, 101, 2.5]) {
      const res = await api('POST', '/v1/export', {
        creativeHash: singleHash,
        type: 'avif',
        exportSettings: { quality },
      });
      assert.equal(res.status, 400, res.body);
      assert.equal(res.json.code, 'VALIDATION_FAILED');
      assert.match(res.json.error, /^exportSettings\.quality: /);
    }
  });

  test('placard render writes the bytes the API exports for the same request', async () => {
    const document = path.join(dir, 'single.json');
    fs.writeFileSync(document, JSON.stringify(single));
    const cases: [string, Json, string[]][] = [
      ['png', { scale: 2 }, ['--scale', '2']],
      ['jpg', { quality: 55 }, ['--quality', '55']],
      ['webp', { quality: 40, scale: 0.5 }, ['--quality', '40', '--scale', '0.5']],
      ['avif', { quality: 70 }, ['--quality', '70']],
      ['gif', { gifPreset: 'static' }, ['--gif-preset', 'static']],
    ];
    for (const [type, settings, flags] of cases) {
      const api = await fileOf(singleHash, type, settings);
      const out = path.join(dir, `cli.${type}`);
      const errors: string[] = [];
      const status = await runRender([document, '--format', type, '--out', out, ...flags], {
        stdout: () => {},
        stderr: (text) => errors.push(text),
      });
      assert.equal(status, 0, errors.join(''));
      assert.ok(fs.readFileSync(out).equals(api.bytes), `${type}: the CLI and the API made different files`);
    }
  });
});
