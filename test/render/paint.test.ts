// Paint values: CSS linear-gradient syntax and geometry, so raster output agrees with the browser's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { fillStyleOf, gradientLine, parseLinearGradient, resolveStopOffsets } from '../../src/render/paint.js';

describe('parseLinearGradient', () => {
  test('plain colours are not gradients', () => {
    assert.equal(parseLinearGradient('#FFF'), null);
    assert.equal(parseLinearGradient('rgba(0, 0, 0, 0.5)'), null);
  });

  test('reads the angle (default 180deg) and stops whose colours may hold commas', () => {
    assert.deepEqual(parseLinearGradient('linear-gradient(90deg, #F59E0B 0%, #EF4444 100%)'), {
      angle: 90,
      stops: [
        { colour: '#F59E0B', offset: 0 },
        { colour: '#EF4444', offset: 1 },
      ],
    });
    assert.deepEqual(parseLinearGradient('linear-gradient(rgba(0, 0, 0, 0.5) 25%, transparent)'), {
      angle: 180,
      stops: [{ colour: 'rgba(0, 0, 0, 0.5)', offset: 0.25 }, { colour: 'transparent' }],
    });
    assert.equal(parseLinearGradient('linear-gradient(-45.5deg, #000, #fff)')?.angle, -45.5);
  });
});

describe('resolveStopOffsets', () => {
  test('fills in positions as CSS does: ends at 0 and 1, gaps spread evenly, never decreasing', () => {
    assert.deepEqual(resolveStopOffsets([{ colour: 'a' }, { colour: 'b' }]), [0, 1]);
    assert.deepEqual(resolveStopOffsets([{ colour: 'a' }, { colour: 'b' }, { colour: 'c' }]), [0, 0.5, 1]);
    assert.deepEqual(
      resolveStopOffsets([
        { colour: 'a', offset: 0.2 },
        { colour: 'b' },
        { colour: 'c' },
        { colour: 'd', offset: 0.8 },
      ]),
      [0.2, 0.4, 0.6000000000000001, 0.8],
    );
    assert.deepEqual(
      resolveStopOffsets([
        { colour: 'a', offset: 0.6 },
        { colour: 'b', offset: 0.3 },
      ]),
      [0.6, 0.6],
    );
    assert.deepEqual(
      resolveStopOffsets([
        { colour: 'a', offset: -0.5 },
        { colour: 'b', offset: 1.5 },
      ]),
      [0, 1],
    );
  });
});

describe('gradientLine', () => {
  const round = (line: number[]) => line.map((v) => Math.round(v * 1000) / 1000 + 0); // + 0 turns -0 into 0
  test('90deg runs left to right across the box, 180deg top to bottom, 0deg bottom to top', () => {
    assert.deepEqual(round(gradientLine(90, 200, 100)), [0, 50, 200, 50]);
    assert.deepEqual(round(gradientLine(180, 200, 100)), [100, 0, 100, 100]);
    assert.deepEqual(round(gradientLine(0, 200, 100)), [100, 100, 100, 0]);
  });

  test('a diagonal is long enough that the corners reach the first and last stops', () => {
    // 45deg in a square: |w sin| + |h cos| = 100·√2, from the bottom-left corner to the top-right corner.
    assert.deepEqual(round(gradientLine(45, 100, 100)), [0, 100, 100, 0]);
  });
});

describe('fillStyleOf', () => {
  test('a horizontal gradient paints its first colour at the left edge and its last at the right', () => {
    const canvas = createCanvas(100, 10);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = fillStyleOf(ctx, 'linear-gradient(90deg, #000000, #FFFFFF)', 100, 10);
    ctx.fillRect(0, 0, 100, 10);
    const at = (x: number) => ctx.getImageData(x, 5, 1, 1).data[0];
    assert.ok(at(0) < 5, `left ${at(0)}`);
    assert.ok(Math.abs(at(50) - 128) < 6, `middle ${at(50)}`);
    assert.ok(at(99) > 250, `right ${at(99)}`);
  });

  test('a colour is passed through', () => {
    const ctx = createCanvas(1, 1).getContext('2d');
    assert.equal(fillStyleOf(ctx, '#123456', 1, 1), '#123456');
  });
});
