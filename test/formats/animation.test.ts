// Animations on decoded pixels: each effect at its start, midway and at its end; stills show the final state (an
// element faded out is gone, one blurred out is blurred, in the PNG and the PDF alike); renderFrameAt walks the slides;
// blur keeps its size in design px at any output scale.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type DesignDocument, readDocument } from '../../src/domain/design.schema.js';
import { FINAL_FRAME } from '../../src/domain/timeline.js';
import { renderPdf } from '../../src/formats/pdf/pdf.js';
import { encodeFrame, renderFrameAt, renderImage } from '../../src/formats/pipeline.js';
import { renderPdfPage } from '../helpers/pdf.js';
import { assertPixel, decodePng, type Pixels } from '../render/pixels.js';

const WHITE = [255, 255, 255, 255];
const BLACK = [0, 0, 0, 255];

function banner(elements: unknown[], slides?: { duration: number; elements: unknown[] }[]): DesignDocument {
  return readDocument({
    name: 'Motion',
    sizes: [
      { name: 'S', width: 100, height: 80, backgroundColor: '#FFFFFF', slides: slides ?? [{ duration: 5, elements }] },
    ],
  });
}

/** A black 40x20 box at (30, 30) with the given animations. */
const box = (...animations: unknown[]) => ({
  name: 'box',
  type: 'shape',
  x: 30,
  y: 30,
  width: 40,
  height: 20,
  fill: '#000000',
  animations,
});

const linear = { start: 1, duration: 2, easing: 'linear' };

const at = async (doc: DesignDocument, time?: number, scale = 1) =>
  decodePng(await renderImage(doc, 0, 0, { format: 'png', time, scale }));

function meanDifference(a: Pixels, b: Pixels): number {
  assert.deepEqual([a.width, a.height], [b.width, b.height]);
  let sum = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const p = a.at(x, y);
      const q = b.at(x, y);
      for (let c = 0; c < 3; c++) sum += Math.abs(p[c] - q[c]);
    }
  }
  return sum / (a.width * a.height * 3);
}

/** How many pixels of the frame are darker than mid-grey. */
function darkPixels(pixels: Pixels): number {
  let count = 0;
  for (let y = 0; y < pixels.height; y++) for (let x = 0; x < pixels.width; x++) if (pixels.at(x, y)[0] < 128) count++;
  return count;
}

describe('effects', () => {
  test('fade in: the background at its start, a blend halfway, the colour at its end', async () => {
    const doc = banner([box({ effect: 'fade', ...linear })]);
    assertPixel(await at(doc, 0), 50, 40, WHITE);
    assertPixel(await at(doc, 1), 50, 40, WHITE);
    assertPixel(await at(doc, 2), 50, 40, [128, 128, 128, 255], 1);
    assertPixel(await at(doc, 3), 50, 40, BLACK);
    assertPixel(await at(doc), 50, 40, BLACK);
  });

  test('slide in from the left: off the frame at its start, in place at its end', async () => {
    const doc = banner([box({ effect: 'slide', from: 'left', ...linear })]);
    const start = await at(doc, 0);
    assert.equal(darkPixels(start), 0);
    const midway = await at(doc, 2);
    // Halfway along the 70 px it travels: x −5..35, so only x 0..34 of the frame shows it.
    assertPixel(midway, 10, 40, BLACK);
    assertPixel(midway, 36, 40, WHITE);
    const end = await at(doc, 3);
    assertPixel(end, 30, 40, BLACK);
    assertPixel(end, 69, 40, BLACK);
    assertPixel(end, 29, 40, WHITE);
    assert.equal(darkPixels(end), 40 * 20);
  });

  test('a frame in the middle of an animation differs from the final one; after the end it is the same', async () => {
    const doc = banner([box({ effect: 'zoom', ...linear }, { effect: 'fade', start: 0, duration: 4 })]);
    const final = await at(doc);
    assert.ok(meanDifference(await at(doc, 2), final) > 5);
    assert.equal(meanDifference(await at(doc, 4), final), 0);
  });

  test('zoom in scales around the centre', async () => {
    const doc = banner([box({ effect: 'zoom', ...linear })]);
    assert.equal(darkPixels(await at(doc, 0)), 0);
    const half = await at(doc, 2);
    // Scale 0.5 around (50, 40): x 40..60, y 35..45.
    assertPixel(half, 50, 40, BLACK);
    assertPixel(half, 41, 36, BLACK);
    assertPixel(half, 35, 40, WHITE);
    assertPixel(half, 50, 32, WHITE);
    assert.equal(darkPixels(half), 20 * 10);
  });

  test('rotate in turns the element around its centre and ends unturned', async () => {
    const doc = banner([box({ effect: 'rotate', ...linear })]);
    // A quarter of the way: −270°, i.e. a quarter turn clockwise: the 40x20 box stands up, x 40..60, y 20..60.
    const quarter = await at(doc, 1.5);
    assertPixel(quarter, 50, 22, BLACK, 2);
    assertPixel(quarter, 50, 57, BLACK, 2);
    assertPixel(quarter, 33, 40, WHITE, 2);
    assertPixel(quarter, 66, 40, WHITE, 2);
    const end = await at(doc, 3);
    assertPixel(end, 33, 40, BLACK);
    assertPixel(end, 50, 25, WHITE);
    assert.equal(meanDifference(end, await at(banner([box()]))), 0);
  });

  test('blur in softens the edges and then sharpens them', async () => {
    const doc = banner([box({ effect: 'blur', ...linear })]);
    const blurred = await at(doc, 2);
    // 10 px blur: the edge at x = 30 is a gradient; 10 px outside it is no longer white.
    const outside = blurred.at(22, 40)[0];
    const inside = blurred.at(38, 40)[0];
    assert.ok(outside > 128 && outside < 250, `outside the edge: ${outside}`);
    assert.ok(inside < 128 && inside > 5, `inside the edge: ${inside}`);
    assertPixel(await at(doc, 3), 22, 40, WHITE);
    assertPixel(await at(doc, 3), 31, 40, BLACK);
  });

  test('blur is in design px: at scale 2 the same blur spreads over twice the output pixels', async () => {
    const doc = banner([box({ effect: 'blur', ...linear })]);
    const one = await at(doc, 2, 1);
    const two = await at(doc, 2, 2);
    for (const dx of [-8, -4, 4, 8]) {
      const a = one.at(30 + dx, 40)[0];
      const b = two.at(60 + 2 * dx, 80)[0];
      assert.ok(Math.abs(a - b) <= 6, `${dx} px from the edge: ${a} at scale 1, ${b} at scale 2`);
    }
  });
});

describe('stills show the final state', () => {
  const outs = banner([
    { ...box({ effect: 'fade', direction: 'out', start: 1 }), name: 'gone', fill: '#FF0000' },
    { ...box({ effect: 'blur', direction: 'out', start: 1 }), name: 'blurred', x: 10, y: 5 },
    { ...box({ effect: 'slide', from: 'right', start: 2, duration: 1 }), name: 'arrived', x: 55, y: 55 },
  ]);

  test('an element faded out is not drawn; one blurred out is blurred; one slid in is in place', async () => {
    const still = await at(outs);
    for (let y = 0; y < 80; y++) {
      for (let x = 0; x < 100; x++) {
        const [r, g, b] = still.at(x, y);
        assert.ok(!(r > g + 20 && r > b + 20), `red at (${x}, ${y}): [${r}, ${g}, ${b}]`);
      }
    }
    const corner = still.at(10, 5)[0];
    assert.ok(corner > 40 && corner < 215, `the blurred box's corner is a blend, ${corner}`);
    assertPixel(still, 60, 60, BLACK);
    assertPixel(still, 94, 69, BLACK);
  });

  test('the PDF page shows the same final state as the PNG', async () => {
    // 100 x 80 px is 75 x 60 pt: at 96 dpi a page pixel is a design pixel.
    const page = decodePng(await renderPdfPage(await renderPdf(outs, 0), 1, 96));
    const difference = meanDifference(page, await at(outs));
    assert.ok(difference < 3, `mean difference ${difference}`);
  });
});

describe('renderFrameAt', () => {
  const square = (name: string, fill: string, animations: unknown[] = []) => ({
    name,
    type: 'shape',
    x: 0,
    y: 0,
    width: 100,
    height: 80,
    fill,
    animations,
  });
  const doc = banner(
    [],
    [
      { duration: 1, elements: [square('first', '#FF0000')] },
      { duration: 2, elements: [square('second', '#0000FF', [{ effect: 'fade', duration: 1, easing: 'linear' }])] },
    ],
  );

  async function pixelAt(t: number) {
    const frame = await renderFrameAt(doc, 0, t);
    try {
      return decodePng(await encodeFrame(frame.canvas, { format: 'png' })).at(50, 40);
    } finally {
      frame.release();
    }
  }

  test('the global time picks the slide and the time within it', async () => {
    assert.deepEqual(await pixelAt(0), [255, 0, 0, 255]);
    assert.deepEqual(await pixelAt(0.99), [255, 0, 0, 255]);
    assert.deepEqual(await pixelAt(1), [255, 255, 255, 255]);
    const midFade = await pixelAt(1.5);
    assert.ok(Math.abs(midFade[0] - 128) <= 1 && midFade[2] === 255, `[${midFade}]`);
    assert.deepEqual(await pixelAt(2.5), [0, 0, 255, 255]);
  });

  test('the end of the size and FINAL_FRAME are the final state of the last slide, as its still is', async () => {
    const still = decodePng(await renderImage(doc, 0, 1, { format: 'png' }));
    assert.deepEqual(still.at(50, 40), [0, 0, 255, 255]);
    assert.deepEqual(await pixelAt(3), [0, 0, 255, 255]);
    assert.deepEqual(await pixelAt(FINAL_FRAME), [0, 0, 255, 255]);
  });
});
