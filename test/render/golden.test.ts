// Golden images of every fixture document (one per drawing feature), rendered to PNG through the whole pipeline with
// its media served over HTTP, plus the proof that the comparison is tight: a 1 px move of an element fails it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DesignDocument } from '../../src/domain/design.schema.js';
import { renderImage } from '../../src/formats/pipeline.js';
import { comparePngs, DEFAULT_MAX_DIFF_PIXELS, expectGolden } from './golden.js';
import { type RenderMedia, startRenderMedia } from './render-media.js';

/** Fixture name → the scale it renders at. Each size of a fixture has its own golden (`name`, `name.1`, …). */
const FIXTURES: Record<string, number> = {
  shapes: 1,
  gradient: 1,
  stroke: 1,
  'image-fit': 1,
  svg: 1,
  rotation: 1,
  opacity: 1,
  visibility: 1,
  'scale-2': 2,
  background: 1,
  'code-poster': 1,
  'text-align': 1,
  'text-markdown': 1,
  'text-fit': 1,
  'text-scripts': 1,
  button: 1,
};

let media: RenderMedia;
before(async () => {
  media = await startRenderMedia();
});
after(() => media.close());

const render = (doc: DesignDocument, size = 0, scale = 1) =>
  renderImage(doc, size, 0, { format: 'png', scale, fetcher: media.fetcher });

describe('golden images', () => {
  for (const [name, scale] of Object.entries(FIXTURES)) {
    test(`${name} matches its golden`, async () => {
      const doc = media.fixture(name);
      for (let s = 0; s < doc.sizes.length; s++) {
        expectGolden(s === 0 ? name : `${name}.${s}`, await render(doc, s, scale));
      }
    });
  }
});

describe('the comparison is tight enough', () => {
  /** The document with one element moved by (dx, dy). */
  function moved(doc: DesignDocument, elementName: string, dx: number, dy: number): DesignDocument {
    const copy = structuredClone(doc);
    const element = copy.sizes[0].slides[0].elements.find((e) => e.name === elementName);
    assert.ok(element, elementName);
    element.x += dx;
    element.y += dy;
    return copy;
  }

  for (const [fixture, element, dx, dy] of [
    ['stroke', 'hairline', 1, 0],
    ['stroke', 'hairline', 0, 1],
    ['shapes', 'circle', 1, 0],
    ['image-fit', 'cover-left', 0, 1],
  ] as const) {
    test(`moving ${fixture}/${element} by (${dx}, ${dy}) px differs in more pixels than the default allows`, async () => {
      const doc = media.fixture(fixture);
      const original = await render(doc);
      const { differing } = comparePngs(await render(moved(doc, element, dx, dy)), original);
      assert.ok(differing > DEFAULT_MAX_DIFF_PIXELS, `only ${differing} pixels changed`);
      // The same document rendered twice: the difference is the move, not noise.
      assert.equal(comparePngs(await render(doc), original).differing, 0);
    });
  }
});
