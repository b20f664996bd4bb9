// Text and button kinds drawn on a real canvas with the real fonts, checked on decoded pixels: where the ink is, what
// colour it has, and that alignment, faces, clipping and the button's shape show.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { labelBox } from '../../../src/elements/button/draw.js';
import { buttonKind } from '../../../src/elements/button/index.js';
import type { ButtonElement } from '../../../src/elements/button/schema.js';
import { textKind } from '../../../src/elements/text/index.js';
import type { TextElement } from '../../../src/elements/text/schema.js';
import type { DrawContext } from '../../../src/render/types.js';

const PAD = 40;

interface Rendered {
  width: number;
  height: number;
  data: Uint8ClampedArray;
  at(x: number, y: number): [number, number, number, number];
}

/** Draws an element as the pipeline would (translated to its corner) on white, PAD px of margin around its box. */
function render<E extends { width: number; height: number }>(draw: (e: E, dc: DrawContext) => void, element: E) {
  const width = Math.ceil(element.width) + 2 * PAD;
  const height = Math.ceil(element.height) + 2 * PAD;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#FFFFFF';
  ctx.fillRect(0, 0, width, height);
  ctx.translate(PAD, PAD);
  draw(element, { ctx, assets: { image: () => undefined }, time: Number.POSITIVE_INFINITY, output: 'raster' });
  const data = ctx.getImageData(0, 0, width, height).data;
  return {
    width,
    height,
    data,
    at: (x: number, y: number) => {
      const i = (y * width + x) * 4;
      return [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!] as [number, number, number, number];
    },
  } satisfies Rendered;
}

const text = (fields: Partial<TextElement>): TextElement => ({
  name: 't',
  type: 'text',
  x: 0,
  y: 0,
  width: 300,
  height: 100,
  fontFamily: 'Inter',
  fontVariant: '400',
  fontSize: 24,
  color: '#FF0000',
  ...fields,
});
const drawText = (element: TextElement) => render(textKind.draw!, element);

const notWhite = ([r, g, b]: number[]) => r! < 235 || g! < 235 || b! < 235;
const reddish = ([r, g, b]: number[]) => r! > 150 && g! < 110 && b! < 110;

/** Bounding box (in box coordinates) and count of the pixels that match. */
function ink(image: Rendered, match: (rgba: number[]) => boolean = notWhite) {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  let count = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (!match(image.at(x, y))) continue;
      count++;
      minX = Math.min(minX, x - PAD);
      maxX = Math.max(maxX, x - PAD);
      minY = Math.min(minY, y - PAD);
      maxY = Math.max(maxY, y - PAD);
    }
  }
  return { minX, minY, maxX, maxY, count };
}

describe('text draw', () => {
  test('draws in the text colour inside its box and nowhere outside it', () => {
    const image = drawText(text({ text: 'Spring sale' }));
    const red = ink(image, reddish);
    assert.ok(red.count > 200, `${red.count} red pixels`);
    const any = ink(image);
    assert.ok(any.minX >= 0 && any.minY >= 0 && any.maxX < 300 && any.maxY < 100, JSON.stringify(any));
    // Left and top aligned by default: the ink starts near the box's top-left corner.
    assert.ok(any.minX <= 4 && any.minY <= 12, JSON.stringify(any));
  });

  test('center alignment is symmetric, right alignment ends at the right edge', () => {
    const centred = ink(drawText(text({ text: 'HIH', align: 'center' })));
    const left = centred.minX;
    const right = 299 - centred.maxX;
    assert.ok(Math.abs(left - right) <= 2, `margins ${left} and ${right}`);
    const righted = ink(drawText(text({ text: 'HIH', align: 'right' })));
    assert.ok(299 - righted.maxX <= 4, `right margin ${299 - righted.maxX}`);
  });

  test('vertical align bottom puts the ink at the bottom of the box', () => {
    const bottom = ink(drawText(text({ text: 'Hxg', verticalAlign: 'bottom' })));
    const top = ink(drawText(text({ text: 'Hxg', verticalAlign: 'top' })));
    assert.ok(bottom.maxY > 90 && bottom.maxY < 100, JSON.stringify(bottom));
    assert.ok(top.minY < 10, JSON.stringify(top));
  });

  test('bold markdown draws wider and darker than regular; italic leans', () => {
    const regular = ink(drawText(text({ text: 'Hello world', markdown: true })));
    const bold = ink(drawText(text({ text: '**Hello world**', markdown: true })));
    assert.ok(bold.maxX - bold.minX > (regular.maxX - regular.minX) * 1.04, `${bold.maxX} vs ${regular.maxX}`);
    assert.ok(bold.count > regular.count * 1.2, `${bold.count} vs ${regular.count} pixels`);
    const upright = drawText(text({ text: 'llll', markdown: true }));
    const italic = drawText(text({ text: '*llll*', markdown: true }));
    assert.notDeepEqual(Buffer.from(italic.data), Buffer.from(upright.data));
  });

  test('a link is underlined in the text colour', () => {
    const image = drawText(text({ text: '[Shop now](https://example.com)', markdown: true, color: '#0000FF' }));
    // A horizontal line: some row below the baseline with a long unbroken run of blue.
    let longest = 0;
    for (let y = 0; y < image.height; y++) {
      let run = 0;
      for (let x = 0; x < image.width; x++) {
        const [r, g, b] = image.at(x, y);
        run = b > 200 && r < 80 && g < 80 ? run + 1 : 0;
        longest = Math.max(longest, run);
      }
    }
    const plain = ink(drawText(text({ text: 'Shop now', color: '#0000FF' })));
    assert.ok(longest > (plain.maxX - plain.minX) * 0.9, `longest blue row ${longest}`);
  });

  test('overflow hidden clips to the box; visible draws past it', () => {
    const long = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen';
    const visible = ink(drawText(text({ text: long, width: 150, height: 40 })));
    const hidden = ink(drawText(text({ text: long, width: 150, height: 40, overflow: 'hidden' })));
    assert.ok(visible.maxY > 45, JSON.stringify(visible));
    assert.ok(hidden.maxY < 40, JSON.stringify(hidden));
  });

  test('ellipsis keeps the ink inside the box', () => {
    const long = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen';
    const result = ink(drawText(text({ text: long, width: 150, height: 60, overflow: 'ellipsis' })));
    assert.ok(result.maxY < 60 && result.maxX < 150, JSON.stringify(result));
  });

  test('autoFit shrink keeps a long headline inside its box', () => {
    const headline = text({ text: 'An extraordinarily long headline', width: 200, height: 40, fontSize: 60 });
    const shrunk = ink(drawText({ ...headline, autoFit: 'shrink', minFontSize: 6 }));
    assert.ok(shrunk.maxX < 200 && shrunk.maxY < 40 && shrunk.count > 100, JSON.stringify(shrunk));
    const unshrunk = ink(drawText(headline));
    assert.ok(unshrunk.maxY > 45, JSON.stringify(unshrunk));
  });

  test('justify reaches both edges on every line but the last', () => {
    const body =
      'Justified text stretches the spaces between words on every line except the last one of each paragraph.';
    const image = drawText(text({ text: body, width: 260, height: 200, fontSize: 16, align: 'justify' }));
    // The first line is the band of rows from the top to its baseline region: take rows 0..16.
    let minX = 999;
    let maxX = -1;
    for (let y = PAD; y < PAD + 16; y++) {
      for (let x = 0; x < image.width; x++) {
        if (!notWhite(image.at(x, y))) continue;
        minX = Math.min(minX, x - PAD);
        maxX = Math.max(maxX, x - PAD);
      }
    }
    assert.ok(minX <= 2 && maxX >= 256, `${minX}..${maxX}`);
  });

  test('letter spacing widens the ink', () => {
    const tight = ink(drawText(text({ text: 'SPACED' })));
    const loose = ink(drawText(text({ text: 'SPACED', letterSpacing: 10 })));
    // Five gaps of 10 px between six letters.
    const grown = loose.maxX - loose.minX - (tight.maxX - tight.minX);
    assert.ok(Math.abs(grown - 50) <= 2, `grew ${grown} px`);
  });

  test('an Arabic text aligned start (the default) or right ends at the right edge; left is physical', () => {
    for (const align of [undefined, 'start', 'right'] as const) {
      const arabic = ink(drawText(text({ text: 'مرحبا', ...(align ? { align } : {}) })));
      assert.ok(arabic.maxX >= 294 && arabic.minX > 150, `${align}: ${JSON.stringify(arabic)}`);
    }
    const left = ink(drawText(text({ text: 'مرحبا', align: 'left' })));
    assert.ok(left.minX <= 6 && left.maxX < 150, JSON.stringify(left));
  });

  test('restores the context state it changes', () => {
    const canvas = createCanvas(100, 100);
    const ctx = canvas.getContext('2d');
    ctx.font = '10px sans-serif';
    ctx.fillStyle = '#123456';
    const before = { font: ctx.font, fill: ctx.fillStyle, spacing: ctx.letterSpacing, direction: ctx.direction };
    const dc: DrawContext = { ctx, assets: { image: () => undefined }, time: 0, output: 'raster' };
    textKind.draw!(text({ text: '**ab** مرحبا', markdown: true, letterSpacing: 3, overflow: 'hidden' }), dc);
    buttonKind.draw!(button({ label: 'Go', stroke: { color: '#000', width: 2 } }), dc);
    assert.deepEqual(
      { font: ctx.font, fill: ctx.fillStyle, spacing: ctx.letterSpacing, direction: ctx.direction },
      before,
    );
    // The clip is gone too: a fill over the whole canvas paints its far corner.
    ctx.fillRect(0, 0, 100, 100);
    assert.deepEqual([...ctx.getImageData(99, 99, 1, 1).data], [0x12, 0x34, 0x56, 255]);
  });

  test('an empty or blank text draws nothing', () => {
    assert.equal(ink(drawText(text({ text: '' }))).count, 0);
    assert.equal(ink(drawText(text({ text: ' \n \n' }))).count, 0);
  });
});

function button(fields: Partial<ButtonElement>): ButtonElement {
  return {
    name: 'cta',
    type: 'button',
    x: 0,
    y: 0,
    width: 160,
    height: 48,
    label: 'Shop now',
    fill: '#F59E0B',
    color: '#111827',
    fontFamily: 'Inter',
    fontVariant: '600',
    fontSize: 16,
    ...fields,
  };
}
const drawButton = (element: ButtonElement) => render(buttonKind.draw!, element);

describe('button draw', () => {
  test('fills its box with the fill colour, square corners by default', () => {
    const image = drawButton(button({}));
    assert.deepEqual(image.at(PAD + 1, PAD + 1), [0xf5, 0x9e, 0x0b, 255]);
    assert.deepEqual(image.at(PAD + 158, PAD + 46), [0xf5, 0x9e, 0x0b, 255]);
    assert.deepEqual(image.at(PAD - 1, PAD - 1), [255, 255, 255, 255]);
  });

  test('rounds its corners', () => {
    const image = drawButton(button({ cornerRadius: 20 }));
    assert.deepEqual(image.at(PAD + 1, PAD + 1), [255, 255, 255, 255]);
    assert.deepEqual(image.at(PAD + 1, PAD + 24), [0xf5, 0x9e, 0x0b, 255]);
    assert.deepEqual(image.at(PAD + 80, PAD + 1), [0xf5, 0x9e, 0x0b, 255]);
  });

  test('centres its label in the label colour', () => {
    const image = drawButton(button({}));
    const label = ink(image, ([r, g, b]) => r! < 60 && g! < 60 && b! < 80);
    assert.ok(label.count > 100, `${label.count}`);
    const left = label.minX;
    const right = 159 - label.maxX;
    assert.ok(Math.abs(left - right) <= 3, `margins ${left} and ${right}`);
    const top = label.minY;
    const bottom = 47 - label.maxY;
    assert.ok(Math.abs(top - bottom) <= 4, `top ${top}, bottom ${bottom}`);
  });

  test('strokes its outline and fills with a gradient', () => {
    const image = drawButton(
      button({
        fill: 'linear-gradient(90deg, #0000FF 0%, #FF0000 100%)',
        stroke: { color: '#00FF00', width: 4 },
        label: '',
      }),
    );
    const [r, g, b] = image.at(PAD, PAD + 24);
    assert.ok(g > 200 && r < 50 && b < 50, `stroke ${[r, g, b]}`);
    const leftFill = image.at(PAD + 8, PAD + 24);
    const rightFill = image.at(PAD + 151, PAD + 24);
    assert.ok(leftFill[2] > 200 && leftFill[0] < 40, `left ${leftFill}`);
    assert.ok(rightFill[0] > 200 && rightFill[2] < 40, `right ${rightFill}`);
  });

  test('the label box keeps clear of the stroke and the round ends', () => {
    assert.deepEqual(labelBox({ width: 160, height: 48, cornerRadius: 24, stroke: { color: '#000', width: 2 } }), {
      x: 14,
      y: 2,
      width: 132,
      height: 44,
    });
    assert.deepEqual(labelBox({ width: 100, height: 30 }), { x: 0, y: 0, width: 100, height: 30 });
  });

  test('a label that is too long shrinks to fit when autoFit is on', () => {
    const image = drawButton(
      button({ label: 'A label far too long for this button', autoFit: 'shrink', minFontSize: 6, overflow: 'hidden' }),
    );
    const label = ink(image, ([r, g, b]) => r! < 60 && g! < 60 && b! < 80);
    assert.ok(label.minX >= 0 && label.maxX < 160 && label.count > 50, JSON.stringify(label));
  });
});
