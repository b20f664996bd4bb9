// The design editor's multi-select in headless Chromium (issue 19, "multi-select, align and distribute"): on the demo
// leaderboard, Shift-click three elements in the layers, distribute them horizontally and find equal gaps both between
// the boxes on the canvas and in the document saved through the API; drag the group and find every element moved by
// the same offset; one undo takes the whole drag back; nudge, duplicate and delete act on every selected element;
// Escape, Ctrl+A and Shift-click on the canvas. Waits poll with a generous deadline (the machine is shared).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { DEMO_DESIGNS } from '../../src/cli/demo-designs.js';
import { STUDIO_DIR } from '../../src/http/routes/studio.js';
import { type Studio, startStudio } from './studio-harness.js';

const DEADLINE_MS = 90_000;
const NAMES = ['logo', 'headline', 'cta'] as const;

if (!fs.existsSync(`${STUDIO_DIR}/index.html`)) {
  throw new Error(`the studio is not built in ${STUDIO_DIR}: run npm run build:web (npm install does it)`);
}

type Rect = { x: number; y: number; width: number; height: number };
type Stored = { name: string; x: number; y: number; width: number; height: number };

/** Polls `read` until `ok` holds for what it returns, or fails with the last value after the deadline. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + DEADLINE_MS;
  let value = await read();
  while (!ok(value)) {
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

/** The gaps between neighbouring boxes along x, left to right. */
function gapsX(boxes: Rect[]): number[] {
  const sorted = [...boxes].sort((a, b) => a.x - b.x);
  return sorted.slice(1).map((b, i) => b.x - (sorted[i].x + sorted[i].width));
}

describe('multi-select in the design editor (Chromium)', () => {
  let studio: Studio;
  let hash: string;

  before(async () => {
    studio = await startStudio('Multi');
    const design = DEMO_DESIGNS[1]; // the IAB set: its leaderboard has three elements in a row
    hash = await studio.importDesign('Row', design.document);
  });
  after(async () => {
    await studio?.close();
  });

  // Wide enough for the 728 px leaderboard beside both panels, so every drag stays inside the viewport.
  const signedIn = () => studio.signIn({ width: 1800, height: 900 });

  async function storedLeaderboard(): Promise<Map<string, Stored>> {
    const { t } = studio;
    const res = await t.app.inject({ method: 'GET', url: `/v1/templates/${hash}/document`, headers: t.owner.headers });
    assert.equal(res.statusCode, 200, res.body);
    const size = res.json().response.sizes[1];
    assert.equal(size.width, 728);
    return new Map(size.slides[0].elements.map((e: Stored) => [e.name, e]));
  }

  test('shift-select three, distribute, save; drag the group, one undo; nudge, duplicate, delete all; Ctrl+A', async () => {
    const page = await signedIn();
    await page.getByRole('button', { name: /^(Edit|Open) Row$/ }).click();
    await page
      .getByRole('heading', { name: 'Editing Row' })
      .waitFor()
      .catch(async (error) => {
        throw new Error(`the editor did not open: ${studio.logs.join('; ')}`, { cause: error });
      });
    const layers = page.getByRole('complementary', { name: 'Layers' });
    await layers.getByRole('combobox', { name: /^Size\b/ }).selectOption({ label: 'Leaderboard (728x90)' });
    const canvas = page.getByRole('img', { name: 'Canvas of Leaderboard (728x90)' });
    await canvas.locator('[data-element-name=cta]').waitFor();

    const layer = (name: string) => layers.getByRole('button', { name, exact: true });
    await layer('logo').click();
    await layer('headline').click({ modifiers: ['Shift'] });
    await layer('cta').click({ modifiers: ['Shift'] });
    for (const name of NAMES) assert.equal(await layer(name).getAttribute('aria-pressed'), 'true', name);
    assert.equal(await layer('backdrop').getAttribute('aria-pressed'), 'false');
    await page.getByRole('complementary', { name: 'Properties' }).getByText('3 elements selected').waitFor();

    const boxes = async () => {
      const out: Rect[] = [];
      for (const name of NAMES) {
        const box = await canvas.locator(`[data-element-name=${name}]`).boundingBox();
        assert.ok(box, `${name} is drawn`);
        out.push(box);
      }
      return out;
    };
    const before = await boxes();
    assert.deepEqual(gapsX(before).map(Math.round), [16, 30], 'the demo row starts with unequal gaps');

    const toolbar = page.getByRole('toolbar', { name: 'Edit' });
    await toolbar.getByRole('button', { name: 'Distribute horizontally' }).click();
    // Logo at 16 and button ending at 708 stay; 646 px of boxes leave two gaps of 23 px.
    const spaced = await until(
      boxes,
      (b) => gapsX(b).every((gap) => Math.abs(gap - 23) < 0.5),
      'equal gaps on the canvas',
    );
    assert.ok(Math.abs(spaced[0].x - before[0].x) < 0.5 && Math.abs(spaced[2].x - before[2].x) < 0.5, 'ends stay');
    await page.screenshot({ path: 'docs/img/editor-multi.png' });

    await toolbar.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved/ })
      .waitFor();
    const saved = await storedLeaderboard();
    assert.deepEqual(
      NAMES.map((n) => saved.get(n)?.x),
      [16, 87, 580],
    );
    assert.deepEqual(gapsX(NAMES.map((n) => saved.get(n) as Stored)), [23, 23], 'equal gaps in the saved document');

    // Drag the group by (+12, −8) from inside the headline: away from the size's edges and centre lines, so snapping
    // has nothing to pull towards; whatever it does, every element must move by the same offset.
    // Measured again: the "Saved" message above the canvas moved it down the page.
    const placed = await boxes();
    const start = placed[1];
    const from = { x: start.x + start.width / 2, y: start.y + start.height / 2 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 1; i <= 8; i++) await page.mouse.move(from.x + 1.5 * i, from.y - i);
    await page.mouse.up();
    const dragged = await until(
      boxes,
      (b) => b.every((box, i) => Math.abs(box.x - placed[i].x) > 1),
      'the whole group moved on the canvas',
    );
    const offsets = dragged.map((box, i) => [Math.round(box.x - placed[i].x), Math.round(box.y - placed[i].y)]);
    assert.deepEqual(offsets[1], offsets[0], `logo and headline moved alike: ${JSON.stringify(offsets)}`);
    assert.deepEqual(offsets[2], offsets[0], `logo and button moved alike: ${JSON.stringify(offsets)}`);
    assert.ok(Math.abs(offsets[0][0] - 12) <= 5 && Math.abs(offsets[0][1] + 8) <= 5, `offset ${offsets[0]}`);
    for (const name of NAMES)
      assert.equal(await layer(name).getAttribute('aria-pressed'), 'true', `${name} stays chosen`);

    // One gesture, one step: a single undo puts all three back where the distribute left them.
    await toolbar.getByRole('button', { name: 'Undo' }).click();
    await until(
      boxes,
      (b) => b.every((box, i) => Math.abs(box.x - placed[i].x) < 0.5 && Math.abs(box.y - placed[i].y) < 0.5),
      'undo restores every element of the group',
    );
    // And one more takes the distribute back.
    await toolbar.getByRole('button', { name: 'Undo' }).click();
    await until(
      boxes,
      (b) => b.every((box, i) => Math.abs(box.x - before[i].x) < 0.5),
      'undo restores the row as it was',
    );

    // The keyboard acts on the whole selection: Shift+→ nudges all three 10 px; Ctrl+D duplicates all three and
    // chooses the copies; Delete removes just those.
    await page.keyboard.press('Shift+ArrowRight');
    await until(
      boxes,
      (b) => b.every((box, i) => Math.abs(box.x - (before[i].x + 10)) < 0.5),
      'Shift+ArrowRight nudges every selected element',
    );
    await toolbar.getByRole('button', { name: 'Undo' }).click();
    await page.keyboard.press('Control+d');
    const copies = NAMES.map((name) => `${name} copy`);
    for (const name of copies) await layer(name).waitFor();
    for (const name of copies) assert.equal(await layer(name).getAttribute('aria-pressed'), 'true', name);
    for (const name of NAMES) assert.equal(await layer(name).getAttribute('aria-pressed'), 'false', name);
    await page.keyboard.press('Delete');
    await until(
      () => layers.getByRole('button', { name: / copy$/ }).count(),
      (count) => count === 0,
      'Delete removes every selected copy',
    );
    for (const name of NAMES) await layer(name).waitFor();

    // Escape clears; Ctrl+A chooses every element of the size; Shift-click on the canvas takes one out again.
    await page.keyboard.press('Escape');
    for (const name of NAMES) assert.equal(await layer(name).getAttribute('aria-pressed'), 'false', name);
    await page.keyboard.press('Control+a');
    for (const name of [...NAMES, 'backdrop']) assert.equal(await layer(name).getAttribute('aria-pressed'), 'true');
    const logo = await canvas.locator('[data-element-name=logo]').boundingBox();
    assert.ok(logo);
    await page.keyboard.down('Shift');
    await page.mouse.click(logo.x + logo.width / 2, logo.y + logo.height / 2);
    await page.keyboard.up('Shift');
    await until(
      () => layer('logo').getAttribute('aria-pressed'),
      (pressed) => pressed === 'false',
      'Shift-click on the canvas takes the logo out of the selection',
    );
    assert.equal(await layer('cta').getAttribute('aria-pressed'), 'true');
    // Failed resource loads (the session probe before sign-in) are the studio's usual noise; page errors are not.
    assert.deepEqual(
      studio.logs.filter((line) => line.startsWith('pageerror')),
      [],
    );
  });
});
