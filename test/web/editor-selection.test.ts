// The studio editor's selection rules and its pointer states for a group gesture (web/src/editor/selection.ts,
// pointer.ts): pure, so checked here; the browser test drives them with a real mouse and keyboard.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type PointerState, pointerStep } from '../../web/src/editor/pointer.js';
import { clickSelection, EMPTY, isAdditive, keepExisting } from '../../web/src/editor/selection.js';

describe('clickSelection', () => {
  test('a plain click selects one element alone', () => {
    assert.deepEqual(clickSelection(['a', 'b'], 'c', false), ['c']);
    assert.deepEqual(clickSelection(['a', 'b'], 'a', false), ['a']);
    const one = ['a'];
    assert.equal(clickSelection(one, 'a', false), one, 'clicking the only chosen one changes nothing');
  });

  test('an additive click adds, or removes one already chosen, keeping the order of choosing', () => {
    let s = clickSelection(EMPTY, 'b', true);
    s = clickSelection(s, 'a', true);
    s = clickSelection(s, 'c', true);
    assert.deepEqual(s, ['b', 'a', 'c']);
    assert.deepEqual(clickSelection(s, 'a', true), ['b', 'c']);
    assert.deepEqual(clickSelection(['a'], 'a', true), []);
  });

  test('a plain click on empty canvas clears; an additive one keeps the selection', () => {
    assert.deepEqual(clickSelection(['a', 'b'], null, false), []);
    const s = ['a', 'b'];
    assert.equal(clickSelection(s, null, true), s);
  });

  test('Shift, Ctrl and Cmd each make a click additive', () => {
    const none = { shiftKey: false, ctrlKey: false, metaKey: false };
    assert.equal(isAdditive(none), false);
    assert.equal(isAdditive({ ...none, shiftKey: true }), true);
    assert.equal(isAdditive({ ...none, ctrlKey: true }), true);
    assert.equal(isAdditive({ ...none, metaKey: true }), true);
  });
});

describe('keepExisting', () => {
  test('drops names no longer in the size, keeps the order, and returns the same list when none went', () => {
    assert.deepEqual(keepExisting(['c', 'a', 'x'], ['a', 'b', 'c']), ['c', 'a']);
    const s = ['a', 'b'];
    assert.equal(keepExisting(s, ['b', 'a', 'z']), s);
  });
});

describe('pointerStep for a group', () => {
  test('a group drag commits every moved element once, at the end', () => {
    let state: PointerState = { kind: 'idle' };
    const step = (event: Parameters<typeof pointerStep>[1]) => {
      const next = pointerStep(state, event);
      state = next.state;
      return next.commit;
    };
    assert.equal(step({ type: 'start', kind: 'translating', names: ['a', 'b'] }), undefined);
    assert.equal(step({ type: 'move', patches: { a: { x: 1, y: 2 }, b: { x: 11, y: 2 } } }), undefined);
    assert.equal(
      step({ type: 'move', patches: { a: { x: 5, y: 6 }, b: { x: 15, y: 6 }, other: { x: 99 } } }),
      undefined,
    );
    assert.deepEqual(step({ type: 'end' }), { a: { x: 5, y: 6 }, b: { x: 15, y: 6 } });
    assert.deepEqual(state, { kind: 'idle' });
  });

  test('a gesture that moved nothing commits nothing; moves while idle are ignored', () => {
    let next = pointerStep({ kind: 'idle' }, { type: 'move', patches: { a: { x: 1 } } });
    assert.deepEqual(next.state, { kind: 'idle' });
    next = pointerStep({ kind: 'rotating', names: ['a'], patches: {} }, { type: 'end' });
    assert.equal(next.commit, undefined);
  });
});
