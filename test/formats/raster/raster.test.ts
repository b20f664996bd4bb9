// The raster encoders on decoded pixels: PNG is lossless with alpha (straight, though Skia's buffer is premultiplied),
// JPG and WEBP honour quality, and every format holds the frame the pipeline drew.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { readDocument } from '../../../src/domain/design.schema.js';
import { renderImage } from '../../../src/formats/pipeline.js';
import { encodeJpg } from '../../../src/formats/raster/jpg.js';
import { encodePng } from '../../../src/formats/raster/png.js';
import { encodeWebp } from '../../../src/formats/raster/webp.js';
import { assertPixel, decodeAny, decodePng } from '../../render/pixels.js';

function sample() {
  const canvas = createCanvas(64, 32);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#1E40AF';
  ctx.fillRect(0, 0, 32, 32);
  ctx.fillStyle = 'rgba(220, 38, 38, 0.5)';
  ctx.fillRect(32, 0, 32, 32);
  return canvas;
}

describe('png', () => {
  test('is lossless and keeps translucent pixels with straight alpha', async () => {
    const bytes = await encodePng(sample());
    assert.deepEqual([...bytes.subarray(1, 4)], [...Buffer.from('PNG')]);
    const pixels = decodePng(bytes);
    assert.deepEqual([pixels.width, pixels.height], [64, 32]);
    assertPixel(pixels, 10, 10, [0x1e, 0x40, 0xaf, 255]);
    assertPixel(pixels, 50, 10, [220, 38, 38, 128], 1);
  });
});

describe('jpg and webp', () => {
  for (const [name, encode, magic] of [
    ['jpg', encodeJpg, [0xff, 0xd8, 0xff]],
    ['webp', encodeWebp, [...Buffer.from('RIFF')]],
  ] as const) {
    test(`${name} holds the picture, and a lower quality makes a smaller file`, async () => {
      const canvas = createCanvas(200, 100);
      const ctx = canvas.getContext('2d');
      for (let i = 0; i < 40; i++) {
        ctx.fillStyle = `hsl(${i * 9}, 70%, 50%)`;
        ctx.fillRect((i * 37) % 200, (i * 53) % 100, 30, 20);
      }
      ctx.fillStyle = '#1E40AF';
      ctx.fillRect(0, 0, 20, 20);
      const high = await encode(canvas, 95);
      const low = await encode(canvas, 30);
      assert.deepEqual([...high.subarray(0, magic.length)], magic);
      assert.ok(low.length < high.length, `q30 ${low.length} bytes, q95 ${high.length} bytes`);
      assertPixel(await decodeAny(high), 8, 8, [0x1e, 0x40, 0xaf, 255], 8);
    });
  }
});

describe('renderImage in every raster format', () => {
  const doc = readDocument({
    name: 'Formats',
    sizes: [
      {
        name: 'S',
        width: 40,
        height: 20,
        backgroundColor: '#FFFFFF',
        slides: [{ elements: [{ name: 'r', type: 'shape', x: 0, y: 0, width: 20, height: 20, fill: '#000000' }] }],
      },
    ],
  });
  for (const format of ['png', 'jpg', 'webp'] as const) {
    test(`${format}: the black half and the white half`, async () => {
      const pixels = await decodeAny(await renderImage(doc, 0, 0, { format, scale: 2, quality: 90 }));
      assert.deepEqual([pixels.width, pixels.height], [80, 40]);
      assertPixel(pixels, 10, 20, [0, 0, 0, 255], 6);
      assertPixel(pixels, 70, 20, [255, 255, 255, 255], 6);
    });
  }
});
