// The still-frame pipeline end to end on decoded pixels: background, element order, transform (translate, rotate
// around the centre, opacity), visibility, scale, the asset stage (parallel, deduplicated, cached per thread,
// SOURCE_REJECTED naming the URL) and the canvas pool.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { PNG } from 'pngjs';
import { type DesignDocument, readDocument } from '../../src/domain/design.schema.js';
import { AppError } from '../../src/errors.js';
import {
  imageSourcesOf,
  MAX_OUTPUT_SIDE,
  outputDimensions,
  renderFrame,
  renderImage,
  resolveAssets,
} from '../../src/formats/pipeline.js';
import { canvasPool } from '../../src/render/canvas-pool.js';
import { createAssetFetcher } from '../../src/render/media/assets.js';
import { ffmpegBinary } from '../../src/render/media/video-frame.js';
import { assertPixel, decodePng } from '../render/pixels.js';
import { QUADRANTS, type RenderMedia, startRenderMedia } from '../render/render-media.js';

let media: RenderMedia;
before(async () => {
  media = await startRenderMedia();
});
after(() => media.close());

function banner(elements: unknown[], size: Record<string, unknown> = {}): DesignDocument {
  return readDocument({
    name: 'Test',
    sizes: [{ name: 'S', width: 100, height: 80, backgroundColor: '#FFFFFF', ...size, slides: [{ elements }] }],
  });
}

const png = async (doc: DesignDocument, scale = 1) =>
  decodePng(await renderImage(doc, 0, 0, { format: 'png', scale, fetcher: media.fetcher }));

const rect = (name: string, fields: Record<string, unknown>) => ({
  name,
  type: 'shape',
  x: 0,
  y: 0,
  width: 10,
  height: 10,
  ...fields,
});

describe('drawing', () => {
  test('the background fills the frame; elements draw in order, the first at the back', async () => {
    const pixels = await png(
      banner(
        [
          rect('back', { x: 10, y: 10, width: 40, height: 40, fill: '#FF0000' }),
          rect('front', { x: 30, y: 30, width: 40, height: 40, fill: '#0000FF' }),
        ],
        { backgroundColor: '#00FF00' },
      ),
    );
    assert.deepEqual([pixels.width, pixels.height], [100, 80]);
    assertPixel(pixels, 0, 0, [0, 255, 0, 255]);
    assertPixel(pixels, 99, 79, [0, 255, 0, 255]);
    assertPixel(pixels, 15, 15, [255, 0, 0, 255]);
    assertPixel(pixels, 40, 40, [0, 0, 255, 255]);
    assertPixel(pixels, 65, 65, [0, 0, 255, 255]);
    // Edges sit on whole pixels: the last red column is 49, the first background one 50 (above the blue square).
    assertPixel(pixels, 49, 20, [255, 0, 0, 255]);
    assertPixel(pixels, 50, 20, [0, 255, 0, 255]);
  });

  test('rotation turns an element clockwise around its centre', async () => {
    // A 60x10 bar centred on (50, 40); turned 90° it covers x 45..55, y 10..70.
    const pixels = await png(
      banner([rect('bar', { x: 20, y: 35, width: 60, height: 10, fill: '#000000', rotation: 90 })]),
    );
    assertPixel(pixels, 50, 15, [0, 0, 0, 255]);
    assertPixel(pixels, 50, 65, [0, 0, 0, 255]);
    assertPixel(pixels, 25, 40, [255, 255, 255, 255]);
    assertPixel(pixels, 75, 40, [255, 255, 255, 255]);
    // Clockwise: a 45° turn lifts the right end of a bar, so (70, 22) is covered and (70, 58) is not.
    const turned = await png(
      banner([rect('bar', { x: 10, y: 35, width: 80, height: 10, fill: '#000000', rotation: -45 })]),
    );
    assertPixel(turned, 70, 20, [0, 0, 0, 255], 40);
    assertPixel(turned, 70, 60, [255, 255, 255, 255]);
  });

  test('opacity blends an element with what is under it', async () => {
    const pixels = await png(banner([rect('half', { width: 100, height: 80, fill: '#FF0000', opacity: 0.5 })]));
    assertPixel(pixels, 50, 40, [255, 127, 127, 255], 1);
  });

  test('a translucent background stays translucent in PNG', async () => {
    const pixels = await png(banner([], { backgroundColor: 'rgba(0, 0, 255, 0.5)' }));
    assertPixel(pixels, 5, 5, [0, 0, 255, 128], 1);
  });

  test('hidden elements draw nothing and fetch nothing, so a broken source of a hidden element is harmless', async () => {
    const doc = banner([
      rect('hidden', { width: 100, height: 80, fill: '#FF0000', visible: false }),
      {
        name: 'gone',
        type: 'image',
        x: 0,
        y: 0,
        width: 100,
        height: 80,
        src: `${media.origin}/hidden.png`,
        visible: false,
      },
    ]);
    assert.deepEqual(imageSourcesOf(doc.sizes[0].slides[0]), []);
    assertPixel(await png(doc), 50, 40, [255, 255, 255, 255]);
    assert.equal(media.server.hits.get('/hidden.png'), undefined);
  });

  test('scale multiplies the output size and every coordinate', async () => {
    const pixels = await png(banner([rect('r', { x: 10, y: 10, width: 20, height: 20, fill: '#000000' })]), 2);
    assert.deepEqual([pixels.width, pixels.height], [200, 160]);
    assertPixel(pixels, 20, 20, [0, 0, 0, 255]);
    assertPixel(pixels, 59, 59, [0, 0, 0, 255]);
    assertPixel(pixels, 60, 60, [255, 255, 255, 255]);
    assertPixel(pixels, 19, 19, [255, 255, 255, 255]);
  });

  test('renderFrame draws into a given context (how the PDF encoder uses it)', async () => {
    const canvas = createCanvas(100, 80);
    const doc = banner([rect('r', { x: 10, y: 10, width: 20, height: 20, fill: '#FF0000' })], {
      backgroundColor: '#000000',
    });
    const result = await renderFrame(doc, 0, 0, { ctx: canvas.getContext('2d'), fetcher: media.fetcher });
    assert.equal(result, undefined);
    const data = canvas.getContext('2d').getImageData(15, 15, 1, 1).data;
    assert.deepEqual([...data], [255, 0, 0, 255]);
  });
});

describe('output limits', () => {
  test('scale × longest side may reach 16,000 px but not pass it', () => {
    assert.equal(MAX_OUTPUT_SIDE, 16_000);
    assert.deepEqual(outputDimensions({ width: 8000, height: 4000 }, 2), { width: 16000, height: 8000 });
    assert.deepEqual(outputDimensions({ width: 300, height: 250 }, 1.5), { width: 450, height: 375 });
    assert.throws(
      () => outputDimensions({ width: 300, height: 8000 }, 2.5),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === 'VALIDATION_FAILED' &&
        /scale 2.5 makes a 300x8000 size 20000 px on its longest side; scale × side may be at most 16000 px/.test(
          error.message,
        ),
    );
    assert.throws(() => outputDimensions({ width: 10, height: 10 }, 0), /scale must be a number greater than 0/);
  });
});

describe('the asset stage', () => {
  test('each source is fetched once per render and once per thread, however many elements use it', async () => {
    const path = '/dedupe.png';
    const { png: pngBytes } = await import('../render/media-fixtures.js');
    media.server.route(path, (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(pngBytes(4, 4, [0, 0, 255]));
    });
    const image = (name: string, x: number) => ({
      name,
      type: 'image',
      x,
      y: 0,
      width: 20,
      height: 20,
      src: `${media.origin}${path}`,
    });
    const doc = banner([image('a', 0), image('b', 30), image('c', 60)]);
    // A fetcher of its own with its cache off: only the decoded-image cache can save the second fetch.
    const fetcher = createAssetFetcher({ allowPrivateUrls: true, probe: null, cacheBytes: 0 });
    const first = decodePng(await renderImage(doc, 0, 0, { format: 'png', fetcher }));
    assertPixel(first, 70, 10, [0, 0, 255, 255]);
    assert.equal(media.server.hits.get(path), 1);
    await renderImage(doc, 0, 0, { format: 'png', fetcher });
    assert.equal(media.server.hits.get(path), 1);
  });

  test('a source that cannot be fetched fails the render with SOURCE_REJECTED naming its URL', async () => {
    const url = `${media.origin}/nowhere.png`;
    const doc = banner([{ name: 'photo', type: 'image', x: 0, y: 0, width: 10, height: 10, src: url }]);
    await assert.rejects(
      renderImage(doc, 0, 0, { format: 'png', fetcher: media.fetcher }),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === 'SOURCE_REJECTED' &&
        error.message.includes(url) &&
        /HTTP 404/.test(error.message),
    );
  });

  test('skipRejectedSources draws the frame without the sources that were rejected (thumbnails)', async () => {
    const doc = banner([
      rect('under', { width: 100, height: 80, fill: '#00FF00' }),
      { name: 'photo', type: 'image', x: 0, y: 0, width: 100, height: 80, src: `${media.origin}/also-missing.png` },
    ]);
    const bytes = await renderImage(doc, 0, 0, { format: 'png', fetcher: media.fetcher, skipRejectedSources: true });
    assertPixel(decodePng(bytes), 50, 40, [0, 255, 0, 255]);
  });

  test('a private address is refused unless the fetcher allows it', async () => {
    const doc = banner([
      { name: 'photo', type: 'image', x: 0, y: 0, width: 10, height: 10, src: `${media.origin}/photo.png` },
    ]);
    const strict = createAssetFetcher({ allowPrivateUrls: false, probe: null });
    await assert.rejects(resolveAssets(doc, 0, 0, { fetcher: strict }), (error: unknown) => {
      return error instanceof AppError && error.code === 'SOURCE_REJECTED' && error.message.includes('/photo.png');
    });
  });

  test('inline SVG with active content is refused like a fetched one', async () => {
    const doc = banner([
      {
        name: 'logo',
        type: 'svg',
        x: 0,
        y: 0,
        width: 10,
        height: 10,
        src: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      },
    ]);
    await assert.rejects(
      renderImage(doc, 0, 0, { format: 'png', fetcher: media.fetcher }),
      /SOURCE_REJECTED|inline SVG markup: the SVG contains a <script> element/,
    );
  });

  test('an image element shows the decoded photo; a code element its poster', async () => {
    const doc = banner([
      {
        name: 'photo',
        type: 'image',
        x: 0,
        y: 0,
        width: 50,
        height: 40,
        src: `${media.origin}/photo.png`,
        fit: 'fill',
      },
      {
        name: 'embed',
        type: 'code',
        x: 50,
        y: 40,
        width: 50,
        height: 40,
        html: '<b>x</b>',
        poster: `${media.origin}/photo.png`,
      },
    ]);
    const pixels = await png(doc);
    assertPixel(pixels, 2, 2, [...QUADRANTS.topLeft, 255]);
    assertPixel(pixels, 47, 37, [...QUADRANTS.bottomRight, 255]);
    assertPixel(pixels, 52, 42, [...QUADRANTS.topLeft, 255]);
  });

  test('a video element shows its frame at trimStart, decoded by ffmpeg', async () => {
    const ffmpeg = await ffmpegBinary();
    assert.ok(ffmpeg, 'ffmpeg ships with the service (@ffmpeg-installer/ffmpeg)');
    // One second of red then one second of blue: trimStart 1.5 must show blue, the default (0) red.
    const file = path.join(os.tmpdir(), `placard-clip-${process.pid}.mp4`);
    execFileSync(ffmpeg, [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'color=c=red:s=64x48:d=1:r=10',
      '-f',
      'lavfi',
      '-i',
      'color=c=blue:s=64x48:d=1:r=10',
      '-filter_complex',
      '[0:v][1:v]concat=n=2:v=1[v]',
      '-map',
      '[v]',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      file,
    ]);
    const clip = fs.readFileSync(file);
    fs.rmSync(file);
    media.server.route('/clip.mp4', (_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': clip.length }).end(clip);
    });
    const at = async (trimStart?: number) => {
      const doc = banner([
        { name: 'clip', type: 'video', x: 0, y: 0, width: 100, height: 80, src: `${media.origin}/clip.mp4`, trimStart },
      ]);
      const decoded = PNG.sync.read(await renderImage(doc, 0, 0, { format: 'png', fetcher: media.fetcher }));
      const i = (40 * decoded.width + 50) * 4;
      return [...decoded.data.subarray(i, i + 3)];
    };
    const [r0, g0, b0] = await at();
    assert.ok(r0 > 200 && g0 < 60 && b0 < 60, `red at 0 s, got ${[r0, g0, b0]}`);
    const [r1, g1, b1] = await at(1.5);
    assert.ok(b1 > 200 && r1 < 60 && g1 < 60, `blue at 1.5 s, got ${[r1, g1, b1]}`);
  });
});

describe('the canvas pool', () => {
  test('renders of one size reuse one canvas, cleared between renders', async () => {
    const doc = banner([rect('r', { x: 10, y: 10, width: 20, height: 20, fill: '#FF0000' })], {
      width: 123,
      height: 45,
      backgroundColor: 'transparent',
    });
    await png(doc);
    const created = canvasPool.created();
    const empty = banner([], { width: 123, height: 45, backgroundColor: 'transparent' });
    const pixels = await png(empty);
    assert.equal(canvasPool.created(), created);
    // Nothing of the previous frame survives in the reused canvas.
    assertPixel(pixels, 15, 15, [0, 0, 0, 0]);
  });
});
