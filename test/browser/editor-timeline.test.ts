// The editor's animation timeline (issue 19) in headless Chromium over real HTTP, found by role and label: the demo
// banner's headline slides in; scrubbing to 0.3 s draws it mid-slide where the motion model says it is; a fade added
// in the properties panel shows on the timeline and, scrubbed to its middle, at half opacity; Play moves the slider
// on, Pause holds it, a play stops at the end, and "Back to editing" brings the final state and the handles back.
// Every wait polls with a generous deadline: nothing here depends on how fast a loaded machine is.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { DEMO_DESIGNS } from '../../src/cli/demo-designs.js';
import { motionAt } from '../../src/domain/timeline.js';
import type { BaseElement } from '../../src/elements/common.js';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { type Studio, startStudio } from './studio-harness.js';

const DEADLINE_MS = 60_000;

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

// The demo banner, its one slide lengthened from 5 s to 60 s: a play must not reach the end before the test presses
// Pause, however loaded the machine is. Its headline keeps the demo's slide-in (0–0.6 s, easeOut, from the left).
const demo = structuredClone(DEMO_DESIGNS[0].document);
demo.name = 'Timeline demo';
demo.sizes[0].slides[0].duration = 60;
const size = demo.sizes[0];
const headline = size.slides[0].elements.find((e) => e.name === 'headline') as unknown as BaseElement;
/** The button as the test's fade makes it: the demo's cta with a 1–3 s linear fade in. */
const fadingCta = {
  ...(size.slides[0].elements.find((e) => e.name === 'cta') as unknown as BaseElement),
  animations: [{ effect: 'fade' as const, direction: 'in' as const, start: 1, duration: 2, easing: 'linear' }],
};

/** The 4-size demo set: every size's headline slides in from its own place, by its own keyframes. */
const set = DEMO_DESIGNS.find((d) => d.document.sizes.length === 4)!;

/** Polls `read` until `ok` holds, failing after the deadline with the last value read. */
async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  let value = await read();
  while (!ok(value)) {
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(value)} after ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

/** The element's computed translation (CSS px; the canvas is at 100%) and opacity. */
function drawn(box: Locator): Promise<{ x: number; y: number; opacity: number }> {
  return box.evaluate((el) => {
    // The page's globals, typed here: this file is type-checked without the DOM's types.
    const page = globalThis as unknown as {
      getComputedStyle(e: unknown): { transform: string; opacity: string };
      DOMMatrixReadOnly: new (transform?: string) => { e: number; f: number };
    };
    const style = page.getComputedStyle(el);
    const matrix = new page.DOMMatrixReadOnly(style.transform === 'none' ? undefined : style.transform);
    return { x: matrix.e, y: matrix.f, opacity: Number(style.opacity) };
  });
}

describe('the editor timeline in Chromium', () => {
  let studio: Studio;

  before(async () => {
    studio = await startStudio('Motion');
    await studio.importDesign(demo.name, demo);
    await studio.importDesign('Timeline set', set.document);
  });
  after(async () => {
    await studio?.close();
  });
  const signedIn = () => studio.signIn();

  test('scrubs the canvas to the motion model’s state, plays, pauses, stops at the end, and edits animations', async () => {
    const page = await signedIn();
    await page.getByRole('button', { name: new RegExp(`^(Edit|Open) ${demo.name}$`) }).click();
    await page
      .getByRole('heading', { name: `Editing ${demo.name}` })
      .waitFor()
      .catch((error) => {
        throw new Error(`the editor did not open: ${studio.logs.join('; ')}`, { cause: error });
      });
    const canvas = page.locator('[data-testid=canvas]');
    const headlineBox = canvas.locator('[data-element-name=headline]');
    const ctaBox = canvas.locator('[data-element-name=cta]');
    await headlineBox.waitFor();

    const timeline = page.getByRole('region', { name: 'Timeline', exact: true });
    const slider = timeline.getByLabel('Time', { exact: true });
    const value = async () => Number(await slider.inputValue());
    assert.equal(await slider.getAttribute('max'), '60');
    assert.equal(await value(), 60, 'editing shows the end of the play, as stills export');
    // The headline's row; picking it selects the element.
    await timeline.getByRole('button', { name: 'headline' }).click();
    await page.getByRole('form', { name: 'Properties of headline' }).waitFor();
    await page.locator('.moveable-control-box').first().waitFor();
    assert.match((await timeline.textContent()) ?? '', /slide in from left, 0–0\.6 s/);

    // Scrub to 0.3 s: the headline is half-way along an eased slide from beyond the left edge.
    const expected = motionAt(headline, 0.3, size);
    assert.ok(expected.translateX < -50, `mid-slide is far from the end state: ${expected.translateX}`);
    await slider.fill('0.3');
    const mid = await until(
      'the headline at 0.3 s',
      () => drawn(headlineBox),
      (d) => Math.abs(d.x - expected.translateX) <= 1,
    );
    assert.ok(Math.abs(mid.y) <= 0.01, `a slide from the left moves along x only: ${mid.y}`);
    assert.equal(await timeline.getByRole('button', { name: 'Play' }).count(), 1);
    assert.equal(await page.locator('.moveable-control-box').count(), 0, 'no handles while the timeline shows a time');

    // A fade added in the properties panel: on the timeline, and at half opacity half-way through it.
    await page.getByRole('complementary', { name: 'Layers' }).getByRole('button', { name: 'cta' }).click();
    await page.getByRole('button', { name: 'Add animation' }).click();
    const fade = page.getByRole('group', { name: 'Animation 1' });
    await fade.getByLabel('Effect').selectOption('fade');
    await fade.getByLabel('Start (s)').fill('1');
    await fade.getByLabel('Duration (s)').fill('2');
    await fade.getByLabel('Easing').selectOption('linear');
    await timeline.getByRole('button', { name: 'cta' }).waitFor();
    await timeline.getByText('fade in, 1–3 s').waitFor({ state: 'attached' });
    await slider.fill('2');
    const half = await until(
      'the button at 2 s of a 1–3 s linear fade',
      () => drawn(ctaBox),
      (d) => Math.abs(d.opacity - 0.5) <= 0.02,
    );
    assert.ok(Math.abs(half.opacity - 1) > 0.4, 'differs from the end state');
    assert.equal((await drawn(headlineBox)).x, 0, 'the headline has arrived by 2 s');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: 'docs/img/editor-timeline.png' });

    // Play moves the slider on; Pause holds it.
    await timeline.getByRole('button', { name: 'Play' }).click();
    await until('the slider during a play', value, (v) => v > 2.05);
    await timeline.getByRole('button', { name: 'Pause' }).click();
    await timeline.getByRole('button', { name: 'Play' }).waitFor();
    const held = await value();
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await value(), held, 'paused: the slider stays');
    const expectedOpacity = motionAt(fadingCta, held, size).opacity;
    await until(
      `the button at the paused time ${held} s`,
      () => drawn(ctaBox),
      (d) => Math.abs(d.opacity - expectedOpacity) <= 0.03,
    );

    // A play from near the end stops at the end.
    await slider.fill('59.9');
    await timeline.getByRole('button', { name: 'Play' }).click();
    await until('the slider at the end of a play', value, (v) => v === 60);
    await timeline.getByRole('button', { name: 'Play' }).waitFor();

    // Back to editing: the final state, and the handles again.
    await timeline.getByRole('button', { name: 'Back to editing' }).click();
    await until(
      'the final state',
      () => drawn(ctaBox),
      (d) => d.opacity === 1,
    );
    assert.equal((await drawn(headlineBox)).x, 0);
    await page.locator('.moveable-control-box').first().waitFor();
    assert.deepEqual(
      studio.logs.filter((line) => line.startsWith('pageerror')),
      [],
    );
  });

  test('all sizes side by side: one scrub sets every size, each by its own keyframes', async () => {
    const page = await signedIn();
    await page.getByRole('button', { name: /^(Edit|Open) Timeline set$/ }).click();
    await page.getByRole('heading', { name: 'Editing Timeline set' }).waitFor();
    await page.getByLabel('All sizes').check();
    const canvases = page.getByRole('img', { name: /^Canvas of / });
    for (let i = 0; i < 4; i++) await canvases.nth(i).locator('[data-element-name=headline]').waitFor();
    await page.getByRole('region', { name: 'Timeline', exact: true }).getByLabel('Time', { exact: true }).fill('0.3');
    // Each size's headline is where the motion model puts it in that size: the export's keyframe names (m1, …) repeat
    // in every size, so unscoped they would all move as one size does.
    for (let i = 0; i < 4; i++) {
      const size = set.document.sizes[i];
      const element = size.slides[0].elements.find((e) => e.name === 'headline') as unknown as BaseElement;
      const expected = motionAt(element, 0.3, size).translateX;
      await until(
        `${size.name}'s headline at 0.3 s (expected x ${expected.toFixed(1)})`,
        () => drawn(canvases.nth(i).locator('[data-element-name=headline]')),
        (d) => Math.abs(d.x - expected) <= 1,
      );
    }
  });
});
