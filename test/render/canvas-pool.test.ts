// Canvas reuse per size, with reset state and bounded idle memory.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvasPool } from '../../src/render/canvas-pool.js';

describe('createCanvasPool', () => {
  test('a released canvas is handed out again for the same size, reset', () => {
    const pool = createCanvasPool();
    const first = pool.acquire(30, 20);
    const ctx = first.getContext('2d');
    ctx.fillStyle = '#FF0000';
    ctx.translate(5, 5);
    ctx.globalAlpha = 0.3;
    ctx.fillRect(0, 0, 10, 10);
    pool.release(first);
    const again = pool.acquire(30, 20);
    assert.equal(again, first);
    assert.equal(pool.created(), 1);
    const reset = again.getContext('2d');
    assert.deepEqual([...reset.getImageData(10, 10, 1, 1).data], [0, 0, 0, 0]);
    assert.equal(reset.globalAlpha, 1);
    assert.ok(reset.getTransform().isIdentity);
  });

  test('another size gets another canvas; canvases in use are never shared', () => {
    const pool = createCanvasPool();
    const a = pool.acquire(10, 10);
    const b = pool.acquire(10, 10);
    const c = pool.acquire(11, 10);
    assert.notEqual(a, b);
    assert.equal(pool.created(), 3);
    pool.release(a);
    pool.release(b);
    pool.release(c);
    assert.equal(pool.idle(), 3);
  });

  test('idle canvases are bounded per size and in all, the least recently used size going first', () => {
    const pool = createCanvasPool({ perSize: 1, total: 2 });
    const take = (w: number) => pool.acquire(w, 1);
    const [a1, a2] = [take(1), take(1)];
    pool.release(a1);
    pool.release(a2); // over perSize: dropped
    assert.equal(pool.idle(), 1);
    pool.release(take(2));
    pool.release(take(3)); // over total: size 1, used longest ago, gives up its canvas
    assert.equal(pool.idle(), 2);
    const before = pool.created();
    take(3);
    take(2);
    assert.equal(pool.created(), before);
    take(1);
    assert.equal(pool.created(), before + 1);
  });
});

describe('canvas pool memory (issue 14)', () => {
  test('a canvas larger than the pooled limit is never kept, and its surface is given back at once', () => {
    const pool = createCanvasPool({ maxPooledCanvasBytes: 100 * 100 * 4 });
    const big = pool.acquire(101, 100);
    pool.release(big);
    assert.equal(pool.idle(), 0);
    assert.equal(pool.idleBytes(), 0);
    assert.deepEqual([big.width, big.height], [1, 1], 'its pixel memory was released, not left to the collector');
    assert.notEqual(pool.acquire(101, 100), big);
    const fits = pool.acquire(100, 100);
    pool.release(fits);
    assert.equal(pool.idleBytes(), 100 * 100 * 4);
  });

  test('idle canvases are bounded by bytes, the least recently used size going first', () => {
    const pool = createCanvasPool({ maxIdleBytes: 3 * 100 * 100 * 4, total: 100 });
    const small = pool.acquire(10, 10);
    const a = pool.acquire(100, 100);
    const b = pool.acquire(100, 100);
    const c = pool.acquire(100, 200);
    pool.release(small);
    pool.release(a);
    pool.release(b);
    assert.equal(pool.idleBytes(), 2 * 100 * 100 * 4 + 10 * 10 * 4);
    pool.release(c); // 2 × 40 000 + 80 000 + 400 bytes: over; 10x10 goes, then 100x100
    assert.ok(pool.idleBytes() <= 3 * 100 * 100 * 4, String(pool.idleBytes()));
    assert.equal(pool.idle(), 1);
    assert.equal(pool.acquire(100, 200), c);
    assert.deepEqual([a.width, b.width, small.width], [1, 1, 1]);
  });
});
