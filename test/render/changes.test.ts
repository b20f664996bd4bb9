// Element changes seen in pixels: apply BGCOLOR, VISIBILITY, SVGCOLORS (and the general background colour) with
// applyChanges, render, and read the pixels where the change must show — and where it must not.
import { after, before, describe, test } from 'node:test';
import type { FontLookup } from '../../src/domain/changes.js';
import { applyChanges, type ElementChangesInput, type GeneralChangesInput } from '../../src/domain/changes.js';
import type { DesignDocument } from '../../src/domain/design.schema.js';
import { renderImage } from '../../src/formats/pipeline.js';
import { assertPixel, decodePng, type Pixels } from './pixels.js';
import { type RenderMedia, startRenderMedia } from './render-media.js';

const NO_FONTS: FontLookup = { family: () => undefined };

let media: RenderMedia;
before(async () => {
  media = await startRenderMedia();
});
after(() => media.close());

async function renderChanged(
  fixture: string,
  changes: ElementChangesInput[],
  general?: GeneralChangesInput,
): Promise<Pixels> {
  const doc: DesignDocument = applyChanges(media.fixture(fixture), changes, general, NO_FONTS);
  return decodePng(await renderImage(doc, 0, 0, { format: 'png', fetcher: media.fetcher }));
}

const change = (elementName: string, attribute: string, value: string): ElementChangesInput => ({
  elementName,
  changes: [{ attribute, value }],
});

describe('BGCOLOR', () => {
  test('repaints a shape and nothing else', async () => {
    const before = await renderChanged('shapes', []);
    assertPixel(before, 75, 55, [0x25, 0x63, 0xeb, 255]);
    const after = await renderChanged('shapes', [change('rect', 'BGCOLOR', '#0F0')]);
    assertPixel(after, 75, 55, [0, 255, 0, 255]);
    assertPixel(after, 12, 12, [0, 255, 0, 255]);
    assertPixel(after, 225, 55, [0xdc, 0x26, 0x26, 255]);
  });

  test('replaces a gradient fill with the plain colour', async () => {
    const after = await renderChanged('gradient', [change('to-right', 'BGCOLOR', '#123456')]);
    assertPixel(after, 12, 45, [0x12, 0x34, 0x56, 255]);
    assertPixel(after, 137, 45, [0x12, 0x34, 0x56, 255]);
  });
});

describe('VISIBILITY', () => {
  test('false hides an element, showing what is under it', async () => {
    const after = await renderChanged('shapes', [change('circle', 'VISIBILITY', 'false')]);
    assertPixel(after, 225, 160, [0xf8, 0xfa, 0xfc, 255]);
  });

  test('true shows a hidden element', async () => {
    const before = await renderChanged('visibility', []);
    assertPixel(before, 5, 245, [0xf1, 0xf5, 0xf9, 255]);
    const after = await renderChanged('visibility', [change('hidden-cover', 'VISIBILITY', 'true')]);
    assertPixel(after, 5, 245, [0xdc, 0x26, 0x26, 255]);
  });
});

describe('SVGCOLORS', () => {
  test('replaces the distinct colours of a fetched SVG in order of first appearance', async () => {
    // The "url" logo at (10, 10) 130x65: field #1D4ED8, disc #F59E0B around (42, 42), triangle #FFFFFF around (107, 42).
    const before = await renderChanged('svg', []);
    assertPixel(before, 14, 14, [0x1d, 0x4e, 0xd8, 255]);
    assertPixel(before, 42, 42, [0xf5, 0x9e, 0x0b, 255]);
    assertPixel(before, 100, 42, [255, 255, 255, 255]);
    const after = await renderChanged('svg', [change('url', 'SVGCOLORS', '["#000000", "#00FF00"]')]);
    assertPixel(after, 14, 14, [0, 0, 0, 255]);
    assertPixel(after, 42, 42, [0, 255, 0, 255]);
    // The third colour was not given: it stays.
    assertPixel(after, 100, 42, [255, 255, 255, 255]);
  });

  test('recolours inline markup too, as a comma-separated list', async () => {
    // The "inline" circle at (10, 90) 130x130: fill #0EA5E9 at its centre, a red stroke at its edge.
    const after = await renderChanged('svg', [change('inline', 'SVGCOLORS', '#FFFF00,#0000FF')]);
    assertPixel(after, 75, 155, [255, 255, 0, 255]);
    assertPixel(after, 75, 103, [0, 0, 255, 255]);
  });
});

describe('generalChanges.backgroundColor', () => {
  test('repaints the background of the size', async () => {
    const after = await renderChanged('shapes', [], { backgroundColor: '#000000' });
    assertPixel(after, 150, 108, [0, 0, 0, 255]);
    assertPixel(after, 75, 55, [0x25, 0x63, 0xeb, 255]);
  });
});
