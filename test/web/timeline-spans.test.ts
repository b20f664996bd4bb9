// The editor timeline's pure logic (web/src/editor/timeline-spans.ts): the spans it draws per animated element, the slides
// and the slider's length, how a slider time becomes a CSS animation's currentTime, and how a play advances.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEMO_DESIGNS } from '../../src/cli/demo-designs.js';
import * as domain from '../../src/domain/timeline.js';
import {
  ANIMATION_DEFAULTS,
  animationTime,
  DEFAULT_SLIDE_DURATION,
  loopLabel,
  playStart,
  playTime,
  slideBars,
  timelineDuration,
  timelineRows,
} from '../../web/src/editor/timeline-spans.js';

const box = { type: 'shape', x: 0, y: 0, width: 10, height: 10 };

describe('editor timeline spans', () => {
  test('uses the defaults of the motion model', () => {
    assert.deepEqual(ANIMATION_DEFAULTS, domain.ANIMATION_DEFAULTS);
    assert.equal(DEFAULT_SLIDE_DURATION, domain.DEFAULT_SLIDE_DURATION);
  });

  test('one row per animated element, spans at start..start+duration, defaults filled in', () => {
    const size = {
      slides: [
        {
          duration: 4,
          elements: [
            { name: 'still', ...box },
            { name: 'empty', ...box, animations: [] },
            {
              name: 'title',
              ...box,
              animations: [
                { effect: 'fade', start: 0.5, duration: 1 },
                { effect: 'slide', direction: 'out', from: 'top', start: 3, duration: 0.5 },
                { effect: 'zoom' },
              ],
            },
          ],
        },
      ],
    };
    const rows = timelineRows(size);
    assert.deepEqual(
      rows.map((r) => r.name),
      ['title'],
    );
    const [fade, slide, zoom] = rows[0].spans;
    assert.deepEqual(
      { start: fade.start, end: fade.end, direction: fade.direction, cut: fade.cut },
      { start: 0.5, end: 1.5, direction: 'in', cut: false },
    );
    assert.equal(fade.label, 'fade in, 0.5–1.5 s');
    assert.deepEqual([slide.start, slide.end, slide.direction], [3, 3.5, 'out']);
    assert.equal(slide.label, 'slide out to top, 3–3.5 s');
    assert.deepEqual([zoom.index, zoom.start, zoom.end, zoom.direction], [2, 0, 0.5, 'in']);
  });

  test('later slides are offset by the slides before them; a slide end cuts what still runs', () => {
    const size = {
      slides: [
        { duration: 2, elements: [{ name: 'a', ...box, animations: [{ effect: 'fade', start: 1.5, duration: 1 }] }] },
        { elements: [{ name: 'b', ...box, animations: [{ effect: 'slide', start: 0.25, duration: 0.5 }] }] },
        {
          duration: 1,
          elements: [{ name: 'c', ...box, animations: [{ effect: 'blur', direction: 'out', start: 3, duration: 1 }] }],
        },
      ],
    };
    assert.equal(timelineDuration(size), 2 + DEFAULT_SLIDE_DURATION + 1);
    assert.deepEqual(slideBars(size), [
      { slideIndex: 0, start: 0, end: 2 },
      { slideIndex: 1, start: 2, end: 7 },
      { slideIndex: 2, start: 7, end: 8 },
    ]);
    const [a, b, c] = timelineRows(size);
    assert.deepEqual([a.slideIndex, a.spans[0].start, a.spans[0].end, a.spans[0].cut], [0, 1.5, 2, true]);
    assert.match(a.spans[0].label, /1\.5–2\.5 s \(cut by the slide’s end\)/);
    assert.deepEqual([b.slideIndex, b.spans[0].start, b.spans[0].end, b.spans[0].cut], [1, 2.25, 2.75, false]);
    assert.equal(b.spans[0].label, 'slide in from left, 2.25–2.75 s');
    // Starts after its slide has ended: nothing is drawn.
    assert.deepEqual([c.spans[0].start, c.spans[0].end, c.spans[0].cut], [8, 8, true]);
  });

  test('the demo designs: every animated element of every slide has a row', () => {
    const story = DEMO_DESIGNS.find((d) => d.document.sizes[0].slides.length > 1);
    assert.ok(story, 'a demo design with several slides');
    const size = story.document.sizes[0];
    const rows = timelineRows(size as never);
    const animated = size.slides.flatMap((s) =>
      (s.elements as { name: string; animations?: unknown[] }[]).filter((e) => (e.animations ?? []).length > 0),
    );
    assert.deepEqual(
      rows.map((r) => r.name),
      animated.map((e) => e.name),
    );
    assert.equal(timelineDuration(size as never), domain.sizeDuration(size as never));
  });

  test('garbage in the document does not throw: a non-array animations field is no animations', () => {
    assert.deepEqual(timelineRows({ slides: [{ elements: [{ name: 'x', animations: 'fade' }] }] }), []);
  });
});

describe('editor timeline time', () => {
  test('a slider time becomes the animations’ currentTime, clamped to the play and held 1 ms before a repeat', () => {
    assert.equal(animationTime(0.3, 5000), 300);
    assert.equal(animationTime(0, 5000), 0);
    assert.equal(animationTime(-1, 5000), 0);
    assert.equal(animationTime(Number.NaN, 5000), 0);
    assert.equal(animationTime(5, 5000), 4999);
    assert.equal(animationTime(9, 5000), 4999);
    assert.equal(animationTime(1, 0), 0);
  });

  test('a play moves from its start by the time elapsed and stops at the end', () => {
    assert.deepEqual(playTime(1, 500, 5), { time: 1.5, done: false });
    assert.deepEqual(playTime(4.8, 500, 5), { time: 5, done: true });
    assert.deepEqual(playTime(0, -20, 5), { time: 0, done: false });
    assert.equal(playStart(2, 5), 2);
    assert.equal(playStart(5, 5), 0, 'at the end, play starts over');
  });

  test('says how often exports play', () => {
    assert.equal(loopLabel(undefined), 'Exports play once');
    assert.equal(loopLabel(1), 'Exports play once');
    assert.equal(loopLabel(3), 'Exports play 3 times');
    assert.equal(loopLabel('infinite'), 'Exports loop forever');
  });
});
