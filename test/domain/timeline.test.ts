// The motion model, pure: CSS easings, the in/out/hold semantics of every effect, how animations combine, the slide
// timeline, frame times, frame keys and loop counts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DesignSize } from '../../src/domain/design.schema.js';
import {
  cssTimingFunction,
  type ElementMotion,
  ease,
  FINAL_FRAME,
  frameKey,
  frameTimes,
  loopCount,
  motionAt,
  NO_MOTION,
  sizeDuration,
  slideAt,
  slideSpans,
} from '../../src/domain/timeline.js';
import type { Animation, BaseElement } from '../../src/elements/common.js';

const FRAME = { width: 300, height: 250 };

function element(animations: Animation[], fields: Partial<BaseElement> = {}): BaseElement {
  return { name: 'e', type: 'shape', x: 40, y: 30, width: 100, height: 50, animations, ...fields };
}

function assertMotion(actual: ElementMotion, expected: Partial<ElementMotion>, tolerance = 1e-9): void {
  const want = { ...NO_MOTION, ...expected };
  for (const key of Object.keys(want) as (keyof ElementMotion)[]) {
    assert.ok(
      Math.abs(actual[key] - want[key]) <= tolerance,
      `${key} is ${actual[key]}, expected ${want[key]} ± ${tolerance} (motion ${JSON.stringify(actual)})`,
    );
  }
}

function size(slides: { duration?: number; elements: unknown[] }[]): DesignSize {
  return { name: 'S', width: FRAME.width, height: FRAME.height, slides } as DesignSize;
}

describe('ease', () => {
  // Reference values: the Bézier curves solved to 1e-12 by plain bisection, independently of the code under test.
  const REFERENCE: [string, number[]][] = [
    ['easeIn', [0.0170266097, 0.0934646507, 0.3153568126, 0.6218618692, 0.8394278458]],
    ['easeOut', [0.1605721542, 0.3781381308, 0.6846431874, 0.9065353493, 0.9829733903]],
    ['easeInOut', [0.0197224535, 0.129161931, 0.5, 0.870838069, 0.9802775465]],
    // CSS `ease`: its value at 0.5, 0.8024033877, is the one browsers' test suites quote.
    ['cubic-bezier(0.25, 0.1, 0.25, 1)', [0.0947963057, 0.4085105914, 0.8024033876, 0.9604589783, 0.9943164775]],
    // y outside 0..1 overshoots, as in CSS.
    ['cubic-bezier(0.68,-0.6,0.32,1.6)', [-0.0728231808, -0.0977077421, 0.5, 1.0977077421, 1.0728231808]],
  ];
  for (const [easing, values] of REFERENCE) {
    test(`${easing} matches the CSS curve`, () => {
      [0.1, 0.25, 0.5, 0.75, 0.9].forEach((x, i) => {
        assert.ok(Math.abs(ease(easing, x) - values[i]) < 1e-6, `${easing} at ${x}: ${ease(easing, x)} ≠ ${values[i]}`);
      });
    });
  }

  test('linear is the identity; every easing is exactly 0 at 0 and 1 at 1 and clamps progress', () => {
    for (const x of [0, 0.1, 0.33, 0.5, 0.99, 1]) assert.equal(ease('linear', x), x);
    for (const easing of ['linear', 'easeIn', 'easeOut', 'easeInOut', 'cubic-bezier(0.1, 2, 0.9, -1)', undefined]) {
      assert.equal(ease(easing, 0), 0);
      assert.equal(ease(easing, 1), 1);
      assert.equal(ease(easing, -3), 0);
      assert.equal(ease(easing, 7), 1);
      assert.equal(ease(easing, Number.POSITIVE_INFINITY), 1);
    }
  });

  test('the default is easeOut', () => {
    assert.equal(ease(undefined, 0.3), ease('easeOut', 0.3));
  });

  test('a flat-sloped curve still solves (bisection after Newton)', () => {
    // x'(t) is 0 at t = 0.5 for x1 = 1, x2 = 0: Newton stalls there, bisection finishes.
    const y = ease('cubic-bezier(1, 0, 0, 1)', 0.5);
    assert.ok(Math.abs(y - 0.5) < 1e-6, String(y));
    let previous = 0;
    for (let x = 0; x <= 1; x += 0.01) {
      const value = ease('cubic-bezier(1, 0, 0, 1)', x);
      assert.ok(value >= previous - 1e-9, `not monotonic at ${x}`);
      previous = value;
    }
  });

  test('an unknown easing is a RangeError naming it', () => {
    assert.throws(() => ease('bounce', 0.5), /received 'bounce'/);
    assert.throws(() => ease('constructor', 0.5), RangeError);
    assert.throws(() => ease('cubic-bezier(1.5, 0, 0, 1)', 0.5), RangeError);
    assert.throws(() => ease('cubic-bezier(0, 0, 1)', 0.5), RangeError);
    assert.throws(() => ease('linear', Number.NaN), RangeError);
  });

  test('cssTimingFunction gives the CSS value that moves the same', () => {
    assert.equal(cssTimingFunction('linear'), 'linear');
    assert.equal(cssTimingFunction('easeIn'), 'cubic-bezier(0.42, 0, 1, 1)');
    assert.equal(cssTimingFunction('easeOut'), 'cubic-bezier(0, 0, 0.58, 1)');
    assert.equal(cssTimingFunction(undefined), 'cubic-bezier(0, 0, 0.58, 1)');
    assert.equal(cssTimingFunction('easeInOut'), 'cubic-bezier(0.42, 0, 0.58, 1)');
    assert.equal(cssTimingFunction('cubic-bezier( .2 ,1.5, 0.8,-0.5 )'), 'cubic-bezier(0.2, 1.5, 0.8, -0.5)');
  });
});

describe('motionAt: one animation', () => {
  const linear = { start: 1, duration: 2, easing: 'linear' } as const;

  test('no animation is no motion, at any time', () => {
    for (const t of [0, 1, FINAL_FRAME]) assertMotion(motionAt(element([]), t, FRAME), {});
    assertMotion(motionAt({ ...element([]), animations: undefined }, 3, FRAME), {});
  });

  test('fade in holds opacity 0 before start, eases to 1 and stays', () => {
    const e = element([{ effect: 'fade', ...linear }]);
    assertMotion(motionAt(e, 0, FRAME), { opacity: 0 });
    assertMotion(motionAt(e, 1, FRAME), { opacity: 0 });
    assertMotion(motionAt(e, 1.5, FRAME), { opacity: 0.25 });
    assertMotion(motionAt(e, 2, FRAME), { opacity: 0.5 });
    assertMotion(motionAt(e, 3, FRAME), {});
    assertMotion(motionAt(e, 60, FRAME), {});
    assertMotion(motionAt(e, FINAL_FRAME, FRAME), {});
  });

  test('fade out holds the own state before start, eases to opacity 0 and stays there', () => {
    const e = element([{ effect: 'fade', direction: 'out', ...linear }]);
    assertMotion(motionAt(e, 0.5, FRAME), {});
    assertMotion(motionAt(e, 2.5, FRAME), { opacity: 0.25 });
    assertMotion(motionAt(e, 3, FRAME), { opacity: 0 });
    assertMotion(motionAt(e, FINAL_FRAME, FRAME), { opacity: 0 });
  });

  test('slide in from each side starts just outside the frame', () => {
    // The box is x 40..140, y 30..80 in a 300x250 frame.
    const away = {
      left: { translateX: -140 },
      right: { translateX: 260 },
      top: { translateY: -80 },
      bottom: { translateY: 220 },
    };
    for (const [from, motion] of Object.entries(away)) {
      const e = element([{ effect: 'slide', from: from as Animation['from'], ...linear }]);
      assertMotion(motionAt(e, 0, FRAME), motion);
      const half = Object.fromEntries(Object.entries(motion).map(([k, v]) => [k, v / 2]));
      assertMotion(motionAt(e, 2, FRAME), half);
      assertMotion(motionAt(e, FINAL_FRAME, FRAME), {});
    }
  });

  test('slide defaults to from left; slide out goes to that side and stays out', () => {
    assertMotion(motionAt(element([{ effect: 'slide', ...linear }]), 0, FRAME), { translateX: -140 });
    const out = element([{ effect: 'slide', direction: 'out', from: 'right', ...linear }]);
    assertMotion(motionAt(out, 0, FRAME), {});
    assertMotion(motionAt(out, 2, FRAME), { translateX: 130 });
    assertMotion(motionAt(out, FINAL_FRAME, FRAME), { translateX: 260 });
  });

  test('slide clears the frame by the bounding box of a rotated element', () => {
    // 100x50 turned 90° around its centre (90, 55) covers x 65..115.
    const e = element([{ effect: 'slide', from: 'left', ...linear }], { rotation: 90 });
    assertMotion(motionAt(e, 0, FRAME), { translateX: -115 }, 1e-9);
    const right = element([{ effect: 'slide', from: 'right', ...linear }], { rotation: 90 });
    assertMotion(motionAt(right, 0, FRAME), { translateX: 300 - 65 }, 1e-9);
  });

  test('zoom in grows from scale 0; zoom out shrinks to 0', () => {
    const zoomIn = element([{ effect: 'zoom', ...linear }]);
    assertMotion(motionAt(zoomIn, 0, FRAME), { scale: 0 });
    assertMotion(motionAt(zoomIn, 2.5, FRAME), { scale: 0.75 });
    assertMotion(motionAt(zoomIn, FINAL_FRAME, FRAME), {});
    const zoomOut = element([{ effect: 'zoom', direction: 'out', ...linear }]);
    assertMotion(motionAt(zoomOut, 2.5, FRAME), { scale: 0.25 });
    assertMotion(motionAt(zoomOut, FINAL_FRAME, FRAME), { scale: 0 });
  });

  test('rotate in turns from −360°; rotate out turns on to +360°', () => {
    const rotateIn = element([{ effect: 'rotate', ...linear }]);
    assertMotion(motionAt(rotateIn, 0, FRAME), { rotate: -360 });
    assertMotion(motionAt(rotateIn, 2, FRAME), { rotate: -180 });
    assertMotion(motionAt(rotateIn, FINAL_FRAME, FRAME), {});
    const rotateOut = element([{ effect: 'rotate', direction: 'out', ...linear }]);
    assertMotion(motionAt(rotateOut, 2, FRAME), { rotate: 180 });
    assertMotion(motionAt(rotateOut, FINAL_FRAME, FRAME), { rotate: 360 });
  });

  test('blur in sharpens from 20 px; blur out blurs to 20 px and stays opaque', () => {
    const blurIn = element([{ effect: 'blur', ...linear }]);
    assertMotion(motionAt(blurIn, 0, FRAME), { blur: 20 });
    assertMotion(motionAt(blurIn, 2, FRAME), { blur: 10 });
    assertMotion(motionAt(blurIn, FINAL_FRAME, FRAME), {});
    const blurOut = element([{ effect: 'blur', direction: 'out', ...linear }]);
    assertMotion(motionAt(blurOut, FINAL_FRAME, FRAME), { blur: 20 });
  });

  test('defaults: in, start 0, duration 0.5, easeOut', () => {
    const e = element([{ effect: 'fade' }]);
    assertMotion(motionAt(e, 0, FRAME), { opacity: 0 });
    assertMotion(motionAt(e, 0.2, FRAME), { opacity: ease('easeOut', 0.4) });
    assertMotion(motionAt(e, 0.5, FRAME), {});
  });

  test('an overshooting easing overshoots the motion but never the opacity range', () => {
    const back = 'cubic-bezier(0.68,-0.6,0.32,1.6)';
    const zoom = motionAt(element([{ effect: 'zoom', start: 0, duration: 1, easing: back }]), 0.75, FRAME);
    assert.ok(zoom.scale > 1.05, `scale ${zoom.scale}`);
    const fade = motionAt(element([{ effect: 'fade', start: 0, duration: 1, easing: back }]), 0.75, FRAME);
    assert.equal(fade.opacity, 1);
    const early = motionAt(
      element([{ effect: 'blur', direction: 'out', start: 0, duration: 1, easing: back }]),
      0.2,
      FRAME,
    );
    assert.equal(early.blur, 0);
  });

  test('NaN time is a RangeError', () => {
    assert.throws(() => motionAt(element([{ effect: 'fade' }]), Number.NaN, FRAME), RangeError);
  });
});

describe('motionAt: several animations', () => {
  test('opacities multiply, translations and turns add, scales multiply', () => {
    const e = element([
      { effect: 'fade', start: 0, duration: 2, easing: 'linear' },
      { effect: 'fade', direction: 'out', start: 0, duration: 2, easing: 'linear' },
      { effect: 'slide', from: 'left', start: 0, duration: 2, easing: 'linear' },
      { effect: 'slide', from: 'top', start: 0, duration: 2, easing: 'linear' },
      { effect: 'zoom', start: 0, duration: 2, easing: 'linear' },
      { effect: 'zoom', start: 0, duration: 4, easing: 'linear' },
      { effect: 'rotate', start: 0, duration: 2, easing: 'linear' },
      { effect: 'rotate', direction: 'out', start: 0, duration: 4, easing: 'linear' },
    ]);
    assertMotion(motionAt(e, 1, FRAME), {
      opacity: 0.25,
      translateX: -70,
      translateY: -40,
      scale: 0.5 * 0.25,
      rotate: -180 + 90,
    });
  });

  test('an in then an out of the same effect on one slide: away, own, away', () => {
    const e = element([
      { effect: 'fade', start: 0, duration: 1, easing: 'linear' },
      { effect: 'fade', direction: 'out', start: 3, duration: 1, easing: 'linear' },
    ]);
    assert.deepEqual(
      [0, 0.5, 1, 2, 3.5, 4, FINAL_FRAME].map((t) => motionAt(e, t, FRAME).opacity),
      [0, 0.5, 1, 1, 0.5, 0, 0],
    );
  });

  test('blurs combine like Gaussian blurs: their sum apart, √(a² + b²) when they overlap', () => {
    const apart = element([
      { effect: 'blur', start: 0, duration: 1, easing: 'linear' },
      { effect: 'blur', direction: 'out', start: 2, duration: 1, easing: 'linear' },
    ]);
    assertMotion(motionAt(apart, 0.5, FRAME), { blur: 10 });
    assertMotion(motionAt(apart, 2.5, FRAME), { blur: 10 });
    const overlapping = element([
      { effect: 'blur', start: 0, duration: 2, easing: 'linear' },
      { effect: 'blur', direction: 'out', start: 0, duration: 2, easing: 'linear' },
    ]);
    assertMotion(motionAt(overlapping, 1, FRAME), { blur: Math.hypot(10, 10) });
  });

  test('at +Infinity every in is done and every out is done', () => {
    const e = element([
      { effect: 'fade', start: 100, duration: 100 },
      { effect: 'slide', from: 'bottom', start: 5 },
      { effect: 'rotate', direction: 'out', start: 200, duration: 50 },
    ]);
    assertMotion(motionAt(e, FINAL_FRAME, FRAME), { rotate: 360 });
  });
});

describe('slides', () => {
  const three = size([{ duration: 2, elements: [] }, { elements: [] }, { duration: 0.5, elements: [] }]);

  test('slideSpans plays the slides in order, each for its duration (default 5 s)', () => {
    assert.deepEqual(slideSpans(three), [
      { slideIndex: 0, start: 0, end: 2 },
      { slideIndex: 1, start: 2, end: 7 },
      { slideIndex: 2, start: 7, end: 7.5 },
    ]);
    assert.equal(sizeDuration(three), 7.5);
  });

  test('slideAt gives the slide playing and the time within it', () => {
    assert.deepEqual(slideAt(three, 0), { slideIndex: 0, localTime: 0 });
    assert.deepEqual(slideAt(three, 1.5), { slideIndex: 0, localTime: 1.5 });
    assert.deepEqual(slideAt(three, 2), { slideIndex: 1, localTime: 0 });
    assert.deepEqual(slideAt(three, 7.25), { slideIndex: 2, localTime: 0.25 });
    assert.deepEqual(slideAt(three, -1), { slideIndex: 0, localTime: 0 });
  });

  test('the end of the size and anything after it is the final state of the last slide', () => {
    for (const t of [7.5, 8, FINAL_FRAME])
      assert.deepEqual(slideAt(three, t), { slideIndex: 2, localTime: FINAL_FRAME });
    assert.throws(() => slideAt(three, Number.NaN), RangeError);
  });
});

describe('frameTimes', () => {
  test('round(duration × fps) frames at i / fps, the last one the final state', () => {
    assert.deepEqual(frameTimes(1, 4), [0, 0.25, 0.5, FINAL_FRAME]);
    assert.equal(frameTimes(15, 30).length, 450);
    assert.equal(frameTimes(15, 30)[448], 448 / 30);
    assert.equal(frameTimes(0.33, 10).length, 3);
    assert.equal(frameTimes(0.36, 10).length, 4);
  });

  test('at least one frame: a static GIF is the final state', () => {
    assert.deepEqual(frameTimes(0, 10), [FINAL_FRAME]);
    assert.deepEqual(frameTimes(0.01, 10), [FINAL_FRAME]);
  });

  test('a non-positive fps or a negative duration is a RangeError', () => {
    assert.throws(() => frameTimes(1, 0), /fps/);
    assert.throws(() => frameTimes(-1, 10), /duration/);
    assert.throws(() => frameTimes(FINAL_FRAME, 10), /duration/);
  });
});

describe('frameKey', () => {
  const headline = {
    name: 'headline',
    type: 'text',
    x: 16,
    y: 150,
    width: 268,
    height: 48,
    animations: [{ effect: 'slide', from: 'left', start: 0, duration: 0.6 }],
  };
  const cta = {
    name: 'cta',
    type: 'button',
    x: 16,
    y: 206,
    width: 120,
    height: 32,
    animations: [{ effect: 'fade', start: 0.6, duration: 0.6 }],
  };
  const photo = { name: 'photo', type: 'image', x: 0, y: 0, width: 300, height: 140 };
  const banner = size([{ duration: 15, elements: [photo, headline, cta] }]);

  test('frames after the animations settle share a key with the final frame', () => {
    const settled = frameKey(banner, FINAL_FRAME);
    for (const t of [1.2, 1.5, 3, 14.9, 15]) assert.equal(frameKey(banner, t), settled, `t = ${t}`);
  });

  test('frames during the animations have keys of their own', () => {
    const keys = [0, 0.1, 0.3, 0.59, 0.7, 1.1].map((t) => frameKey(banner, t));
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(!keys.includes(frameKey(banner, FINAL_FRAME)));
  });

  test('a 15 s clip at 30 fps whose animations end at 1.2 s has 37 distinct frames', () => {
    const keys = new Set(frameTimes(15, 30).map((t) => frameKey(banner, t)));
    assert.equal(keys.size, 37);
  });

  test('keys differ between slides, and hidden or transparent elements do not count', () => {
    const two = size([
      { duration: 1, elements: [photo] },
      { duration: 1, elements: [photo] },
    ]);
    assert.notEqual(frameKey(two, 0.5), frameKey(two, 1.5));
    const hidden = size([{ duration: 2, elements: [photo, { ...cta, visible: false }] }]);
    assert.equal(frameKey(hidden, 0), frameKey(hidden, 0.9));
    const beforeFade = size([{ duration: 2, elements: [photo, cta] }]);
    assert.equal(frameKey(beforeFade, 0), frameKey(beforeFade, 0.6));
  });

  test('a visible video keys the frame by its time', () => {
    const video = { name: 'clip', type: 'video', x: 0, y: 0, width: 300, height: 250, src: 'https://x.test/a.mp4' };
    const withVideo = size([{ duration: 5, elements: [video] }]);
    assert.notEqual(frameKey(withVideo, 1), frameKey(withVideo, 2));
    assert.equal(frameKey(withVideo, 1), frameKey(withVideo, 1));
    const hiddenVideo = size([{ duration: 5, elements: [{ ...video, visible: false }] }]);
    assert.equal(frameKey(hiddenVideo, 1), frameKey(hiddenVideo, 2));
  });
});

describe('loopCount', () => {
  test('the document loop as a number of plays, 0 for infinite, default 1', () => {
    assert.equal(loopCount({ loop: 3 }), 3);
    assert.equal(loopCount({ loop: 'infinite' }), 0);
    assert.equal(loopCount({}), 1);
  });
});
