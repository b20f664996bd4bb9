// The studio editor's align and distribute maths, and its multi-element document edits (web/src/editor/arrange.ts,
// document.ts): pure functions, so checked here on plain boxes; the browser test checks them on a real canvas.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { align, type Box, boundsOf, distribute } from '../../web/src/editor/arrange.js';
import { type EditorDocument, reorder, setGeometries } from '../../web/src/editor/document.js';

const box = (name: string, x: number, y: number, width: number, height: number): Box => ({ name, x, y, width, height });

/** The gaps between neighbours along x once `moved` is applied, in left-to-right order. */
function gapsX(boxes: Box[], moved: Map<string, { x?: number }>): number[] {
  const placed = boxes
    .map((b) => ({ ...b, x: moved.get(b.name)?.x ?? b.x }))
    .sort((p, q) => p.x + p.width / 2 - (q.x + q.width / 2));
  return placed.slice(1).map((b, i) => b.x - (placed[i].x + placed[i].width));
}

describe('distribute', () => {
  test('makes equal gaps between boxes of different widths, the outermost staying put', () => {
    // The demo leaderboard: logo, headline, button with gaps of 16 and 30 px.
    const boxes = [box('logo', 16, 21, 48, 48), box('headline', 80, 15, 470, 60), box('cta', 580, 27, 128, 36)];
    const moved = distribute(boxes, 'horizontal');
    assert.deepEqual([...moved], [['headline', { x: 87 }]]);
    assert.deepEqual(gapsX(boxes, moved), [23, 23]);
  });

  test('orders by centre, not by the order they were chosen, and spaces many boxes', () => {
    const boxes = [box('d', 300, 0, 10, 10), box('a', 0, 0, 20, 10), box('c', 50, 0, 30, 10), box('b', 5, 0, 40, 10)];
    const moved = distribute(boxes, 'horizontal');
    // Span 0..310, widths 100: three gaps of 70.
    assert.deepEqual(gapsX(boxes, moved), [70, 70, 70]);
    assert.equal(moved.has('a'), false);
    assert.equal(moved.has('d'), false);
  });

  test('vertically moves only y; rounding to whole pixels leaves gaps within 1 px of each other', () => {
    const boxes = [box('a', 3, 0, 10, 10), box('b', 9, 12, 10, 10), box('c', 1, 20, 10, 10), box('d', 0, 100, 10, 11)];
    const moved = distribute(boxes, 'vertical');
    for (const patch of moved.values()) assert.deepEqual(Object.keys(patch), ['y']);
    const ys = boxes.map((b) => ({ ...b, y: moved.get(b.name)?.y ?? b.y })).sort((p, q) => p.y - q.y);
    const gaps = ys.slice(1).map((b, i) => b.y - (ys[i].y + ys[i].height));
    assert.ok(Math.max(...gaps) - Math.min(...gaps) <= 1, `gaps ${gaps}`);
    assert.equal(ys[0].y, 0);
    assert.equal(ys[3].y, 100);
  });

  test('boxes wider than their span get equal negative gaps (overlap evenly) rather than an error', () => {
    const boxes = [box('a', 0, 0, 100, 10), box('b', 10, 0, 100, 10), box('c', 100, 0, 100, 10)];
    assert.deepEqual(gapsX(boxes, distribute(boxes, 'horizontal')), [-50, -50]);
  });

  test('fewer than three boxes: nothing to distribute', () => {
    assert.equal(distribute([box('a', 0, 0, 1, 1), box('b', 9, 0, 1, 1)], 'horizontal').size, 0);
    assert.equal(distribute([], 'vertical').size, 0);
  });
});

describe('align', () => {
  const boxes = [box('a', 10, 5, 20, 10), box('b', 50, 40, 40, 30)];
  const bounds = boundsOf(boxes);

  test('the bounds of a selection are its outermost edges', () => {
    assert.deepEqual(bounds, { left: 10, top: 5, right: 90, bottom: 70 });
  });

  test('each edge moves one axis only, to the given bounds', () => {
    assert.deepEqual(
      [...align(boxes, 'left', bounds)],
      [
        ['a', { x: 10 }],
        ['b', { x: 10 }],
      ],
    );
    assert.deepEqual(
      [...align(boxes, 'right', bounds)],
      [
        ['a', { x: 70 }],
        ['b', { x: 50 }],
      ],
    );
    assert.deepEqual(
      [...align(boxes, 'center', bounds)],
      [
        ['a', { x: 40 }],
        ['b', { x: 30 }],
      ],
    );
    assert.deepEqual(
      [...align(boxes, 'top', bounds)],
      [
        ['a', { y: 5 }],
        ['b', { y: 5 }],
      ],
    );
    assert.deepEqual(
      [...align(boxes, 'middle', bounds)],
      [
        ['a', { y: 33 }],
        ['b', { y: 23 }],
      ],
    );
    assert.deepEqual(
      [...align(boxes, 'bottom', bounds)],
      [
        ['a', { y: 60 }],
        ['b', { y: 40 }],
      ],
    );
  });

  test('one box aligns to the size it is in', () => {
    const size = { left: 0, top: 0, right: 300, bottom: 250 };
    assert.deepEqual([...align([boxes[0]], 'right', size)], [['a', { x: 280 }]]);
    assert.deepEqual([...align([boxes[0]], 'middle', size)], [['a', { y: 120 }]]);
  });
});

describe('document edits of several elements', () => {
  const el = (name: string, x = 0) => ({ name, type: 'shape', x, y: 0, width: 10, height: 10 });
  const doc = (names: string[]): EditorDocument => ({
    name: 'd',
    sizes: [0, 1].map((i) => ({
      name: `s${i}`,
      width: 100,
      height: 100,
      slides: [{ elements: names.map((n) => el(n)) }],
    })),
  });
  const order = (d: EditorDocument, i = 0) => d.sizes[i].slides[0].elements.map((e) => e.name);

  test('bring forward moves chosen neighbours as a block, in every size', () => {
    const d = reorder(doc(['a', 'b', 'c', 'd']), ['a', 'b'], 1);
    assert.deepEqual(order(d), ['c', 'a', 'b', 'd']);
    assert.deepEqual(order(d, 1), ['c', 'a', 'b', 'd']);
  });

  test('a block at the top stays; one chosen below it never jumps over it', () => {
    assert.deepEqual(order(reorder(doc(['a', 'b', 'c', 'd']), ['a', 'c', 'd'], 1)), ['b', 'a', 'c', 'd']);
    const same = doc(['a', 'b']);
    assert.equal(reorder(same, ['b'], 1), same, 'nothing moved: the same document, so no step of history');
  });

  test('send backward mirrors it', () => {
    assert.deepEqual(order(reorder(doc(['a', 'b', 'c', 'd']), ['c', 'd'], -1)), ['a', 'c', 'd', 'b']);
    assert.deepEqual(order(reorder(doc(['a', 'b', 'c', 'd']), ['a', 'c'], -1)), ['a', 'c', 'b', 'd']);
  });

  test('setGeometries changes several elements of one size in one document, the other size untouched', () => {
    const before = doc(['a', 'b', 'c']);
    const after = setGeometries(
      before,
      1,
      new Map([
        ['a', { x: 5 }],
        ['c', { x: 7, y: 3 }],
      ]),
    );
    assert.deepEqual(
      after.sizes[1].slides[0].elements.map((e) => [e.name, e.x, e.y]),
      [
        ['a', 5, 0],
        ['b', 0, 0],
        ['c', 7, 3],
      ],
    );
    assert.equal(after.sizes[0], before.sizes[0]);
    assert.equal(setGeometries(before, 0, new Map()), before);
  });
});
