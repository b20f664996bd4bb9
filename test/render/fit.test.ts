// Where a fitted image lands: object-fit cover/contain/fill and object-position via the focal point.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { placeImage } from '../../src/render/fit.js';

describe('placeImage', () => {
  test('fill stretches the whole image over the box', () => {
    assert.deepEqual(placeImage(200, 100, 50, 50, { fit: 'fill' }), {
      sx: 0,
      sy: 0,
      sw: 200,
      sh: 100,
      dx: 0,
      dy: 0,
      dw: 50,
      dh: 50,
    });
  });

  test('contain scales the whole image into the box, centred', () => {
    assert.deepEqual(placeImage(200, 100, 50, 50, { fit: 'contain' }), {
      sx: 0,
      sy: 0,
      sw: 200,
      sh: 100,
      dx: 0,
      dy: 12.5,
      dw: 50,
      dh: 25,
    });
  });

  test('cover crops around the focal point: centre by default, the edges at 0 and 1', () => {
    const crop = (focalX?: number, focalY?: number) => {
      const p = placeImage(200, 100, 50, 50, { fit: 'cover', focalX, focalY });
      return [p.sx, p.sy, p.sw, p.sh, p.dw, p.dh];
    };
    assert.deepEqual(crop(), [50, 0, 100, 100, 50, 50]);
    assert.deepEqual(crop(0), [0, 0, 100, 100, 50, 50]);
    assert.deepEqual(crop(1), [100, 0, 100, 100, 50, 50]);
    assert.deepEqual(crop(0.25, 1), [25, 0, 100, 100, 50, 50]);
    // A wide box crops vertically.
    const p = placeImage(200, 100, 60, 10, { focalY: 1 });
    assert.deepEqual(
      [p.sx, p.sy, p.sw, p.sh].map((v) => Math.round(v * 1000) / 1000),
      [0, 66.667, 200, 33.333],
    );
  });
});
