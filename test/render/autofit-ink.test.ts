// autoFit shrink keeps the ink inside the box, not only the line boxes: with a tight line height, accents, Devanagari
// and Thai marks and colour emoji reach past the line box. Drawn with the real fonts on a canvas with a margin around
// the box; every pixel of ink must be inside the box (one pixel of antialiasing allowed).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { textKind } from '../../src/elements/text/index.js';
import type { TextElement } from '../../src/elements/text/schema.js';

const PAD = 40;

const COPY: Record<string, string> = {
  Latin: 'ÉTÉ Ågile Ñandú',
  Arabic: 'تسوق الآن',
  Hebrew: 'שלום עולם',
  Devanagari: 'स्वागत है क्षत्रिय',
  Thai: 'ยินดีต้อนรับสู่',
  Japanese: '春のセール',
  Chinese: '春季大促销',
  Korean: '봄 세일 시작',
  emoji: '🎉🔥👍🏽 Sale',
};

/** The bounding box of the non-white pixels of `element` drawn at (PAD, PAD) on white, in box coordinates. */
function inkBox(element: TextElement): { minX: number; minY: number; maxX: number; maxY: number } {
  const width = element.width + 2 * PAD;
  const height = element.height + 2 * PAD;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#FFFFFF';
  ctx.fillRect(0, 0, width, height);
  ctx.translate(PAD, PAD);
  textKind.draw!(element, {
    ctx,
    assets: { image: () => undefined },
    time: Number.POSITIVE_INFINITY,
    output: 'raster',
  });
  const data = ctx.getImageData(0, 0, width, height).data;
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (data[i]! > 240 && data[i + 1]! > 240 && data[i + 2]! > 240) continue;
      minX = Math.min(minX, x - PAD);
      maxX = Math.max(maxX, x - PAD + 1);
      minY = Math.min(minY, y - PAD);
      maxY = Math.max(maxY, y - PAD + 1);
    }
  }
  return { minX, minY, maxX, maxY };
}

describe('autoFit shrink fits the ink', () => {
  for (const [script, text] of Object.entries(COPY)) {
    for (const lineHeight of [0.7, 1]) {
      for (const verticalAlign of ['top', 'bottom'] as const) {
        test(`${script}, lineHeight ${lineHeight}, ${verticalAlign}: the ink stays inside the box`, () => {
          const element: TextElement = {
            name: 'fit',
            type: 'text',
            x: 0,
            y: 0,
            width: 220,
            height: 90,
            text: `${text}\n${text}`,
            fontFamily: 'Inter',
            fontVariant: '700',
            fontSize: 120,
            lineHeight,
            verticalAlign,
            autoFit: 'shrink',
            minFontSize: 6,
            overflow: 'hidden',
            color: '#000000',
          };
          // Drawn without the clip, so that ink outside the box would show.
          const ink = inkBox({ ...element, overflow: 'visible' });
          assert.ok(Number.isFinite(ink.minX), 'the text draws');
          assert.ok(ink.minY >= -1 && ink.maxY <= element.height + 1, `vertical ink ${ink.minY}..${ink.maxY}`);
          assert.ok(ink.minX >= -1 && ink.maxX <= element.width + 1, `horizontal ink ${ink.minX}..${ink.maxX}`);
        });
      }
    }
  }
});
