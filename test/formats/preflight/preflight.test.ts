// Preflight findings on the fixtures (fixtures.ts): each code fires on its trigger design and not on the near-identical
// pass design; and the findings agree with the PNG the renderer makes of the same design.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DesignDocument } from '../../../src/domain/design.schema.js';
import { AppError } from '../../../src/errors.js';
import { renderImage } from '../../../src/formats/pipeline.js';
import { contrastRatio, relativeLuminance } from '../../../src/formats/preflight/colour.js';
import type { Finding, FindingCode } from '../../../src/formats/preflight/finding.js';
import { preflightDocument, sourceFindingCode } from '../../../src/formats/preflight/preflight.js';
import { preflightVariant } from '../../../src/formats/preflight/variant.js';
import { catalogueFonts } from '../../../src/render/text/fonts.js';
import { decodePng, type Pixels } from '../../render/pixels.js';
import { FIXTURES, type FixtureMedia, HTML5_WEIGHT_FIXTURE, startFixtureMedia } from './fixtures.js';

let media: FixtureMedia;
before(async () => {
  media = await startFixtureMedia();
});
after(() => media.close());

const findingsOf = async (doc: DesignDocument, scale = 1) =>
  (await preflightDocument(doc, { fetcher: media.fetcher, scale })).findings;

const only = (findings: Finding[], code: FindingCode) => findings.filter((f) => f.code === code);

describe('every finding has a fixture that triggers it and a near-identical one that does not', () => {
  for (const [code, pair] of Object.entries(FIXTURES) as [FindingCode, (typeof FIXTURES)[keyof typeof FIXTURES]][]) {
    test(`${code} (${pair.change})`, async () => {
      const triggered = only(await findingsOf(media.document(pair.trigger)), code);
      assert.equal(triggered.length, 1, `${code} should fire once on its trigger fixture`);
      const finding = triggered[0]!;
      assert.equal(finding.elementName, pair.element);
      assert.equal(finding.sizeHash, 'fixture');
      assert.equal(finding.sizeName, 'Medium Rectangle');
      assert.equal(finding.slideNumber, 0);
      assert.match(finding.message, /^Medium Rectangle \(300x250\)/);
      const passed = only(await findingsOf(media.document(pair.pass)), code);
      assert.deepEqual(passed, [], `${code} should not fire once ${pair.change}`);
    });
  }
});

describe('HTML5_WEIGHT (type html)', () => {
  const run = (raw: unknown, networkId: number, type = 'html') =>
    preflightVariant(
      media.document(raw),
      // Retina images at quality 90: the noise photo's package is about 250 KB, the flat one's a few KB.
      { type, exportSettings: { networkId, retina: true, quality: 90 } },
      { fonts: catalogueFonts, fetcher: media.fetcher },
    );

  test("over Google Ads' 150 KB zip limit is an error; over the IAB initial load, a warning; the flat picture passes", async () => {
    const google = only((await run(HTML5_WEIGHT_FIXTURE.trigger, 2)).findings, 'HTML5_WEIGHT');
    assert.equal(google.length, 1);
    assert.equal(google[0]!.severity, 'error');
    assert.equal(google[0]!.elementName, null);
    const d = google[0]!.details as Record<string, number | string>;
    assert.equal(d.limit, 150 * 1024);
    assert.equal(d.rule, 'maxZipBytes');
    assert.ok((d.zipBytes as number) > 150 * 1024, `zip ${d.zipBytes}`);
    const iab = only((await run(HTML5_WEIGHT_FIXTURE.trigger, 1)).findings, 'HTML5_WEIGHT');
    assert.equal(iab[0]!.severity, 'warning');
    assert.equal((iab[0]!.details as Record<string, string>).rule, 'maxInitialLoadBytes');
    assert.deepEqual(only((await run(HTML5_WEIGHT_FIXTURE.pass, 2)).findings, 'HTML5_WEIGHT'), []);
    // Other types do not package HTML: no weight.
    assert.deepEqual(only((await run(HTML5_WEIGHT_FIXTURE.trigger, 2, 'png')).findings, 'HTML5_WEIGHT'), []);
  });
});

describe('details carry the measured numbers', () => {
  test('TEXT_OVERFLOW counts the lines and pixels that do not fit', async () => {
    const [f] = only(await findingsOf(media.document(FIXTURES.TEXT_OVERFLOW.trigger)), 'TEXT_OVERFLOW');
    const d = f!.details as Record<string, number>;
    assert.equal(d.fittingLines, 1);
    assert.ok(d.lines >= 2, `lines ${d.lines}`);
    assert.equal(d.overflowLines, d.lines - 1);
    assert.ok(Math.abs(d.overflowPx - (d.lines * 28 * 1.2 - 40)) < 0.01, `overflowPx ${d.overflowPx}`);
    assert.equal(f!.severity, 'error');
  });

  test('TEXT_SHRUNK says the size chosen and the floor, and the floor follows the scale', async () => {
    const doc = media.document(FIXTURES.TEXT_SHRUNK.trigger);
    const [f] = only(await findingsOf(doc), 'TEXT_SHRUNK');
    const d = f!.details as Record<string, number | string>;
    assert.ok((d.fontSize as number) < 9);
    assert.equal(d.reason, 'readableFloor');
    assert.equal(d.readableFloorPx, 9);
    // At scale 2 the same design px are twice the output px: above the floor.
    assert.deepEqual(only(await findingsOf(doc, 2), 'TEXT_SHRUNK'), []);
  });

  test('TEXT_SHRUNK also fires when the text does not fit even at minFontSize', async () => {
    const doc = media.document({
      name: 'x',
      sizes: [
        {
          hash: 'fixture',
          name: 'S',
          width: 300,
          height: 250,
          slides: [
            {
              elements: [
                {
                  name: 'headline',
                  type: 'text',
                  x: 0,
                  y: 0,
                  width: 100,
                  height: 20,
                  fontSize: 30,
                  autoFit: 'shrink',
                  minFontSize: 14,
                  text: 'A headline far too long for its little box',
                },
              ],
            },
          ],
        },
      ],
    });
    const findings = await findingsOf(doc);
    const [shrunk] = only(findings, 'TEXT_SHRUNK');
    assert.equal((shrunk!.details as Record<string, unknown>).reason, 'minFontSize');
    assert.equal((shrunk!.details as Record<string, unknown>).fontSize, 14);
    assert.equal(only(findings, 'TEXT_OVERFLOW').length, 1, 'it overflows at its minFontSize');
  });

  test('MISSING_GLYPHS and FONT_FALLBACK name the code points and the fallback family', async () => {
    const [missing] = only(await findingsOf(media.document(FIXTURES.MISSING_GLYPHS.trigger)), 'MISSING_GLYPHS');
    assert.deepEqual((missing!.details as Record<string, unknown>).codePoints, ['U+13000']);
    const [fallback] = only(await findingsOf(media.document(FIXTURES.FONT_FALLBACK.trigger)), 'FONT_FALLBACK');
    const d = fallback!.details as { fontFamily: string; fallbacks: { fontFamily: string; codePoints: string[] }[] };
    assert.equal(d.fontFamily, 'Inter');
    assert.equal(d.fallbacks.length, 1);
    assert.equal(d.fallbacks[0]!.fontFamily, 'Noto Sans Thai');
    assert.ok(d.fallbacks[0]!.codePoints.includes('U+0E25'));
  });

  test('LOW_RESOLUTION_IMAGE gives the upscale and the effective pixels per output pixel, and follows the scale', async () => {
    const [f] = only(await findingsOf(media.document(FIXTURES.LOW_RESOLUTION_IMAGE.trigger)), 'LOW_RESOLUTION_IMAGE');
    const d = f!.details as Record<string, number>;
    // cover: 100x80 into 300x240 is 3× both ways.
    assert.equal(d.upscale, 3);
    assert.equal(d.effectivePixelsPerOutputPixel, 0.333);
    assert.equal(d.imageWidth, 100);
    // The 600x500 source is 0.5× at scale 1 but 2× at scale 4: low resolution there.
    const large = media.document(FIXTURES.LOW_RESOLUTION_IMAGE.pass);
    const [atScale4] = only(await findingsOf(large, 4), 'LOW_RESOLUTION_IMAGE');
    assert.equal((atScale4!.details as Record<string, number>).upscale, 2);
  });

  test('OUTSIDE_CANVAS gives the fraction outside, and rotation counts', async () => {
    const [f] = only(await findingsOf(media.document(FIXTURES.OUTSIDE_CANVAS.trigger)), 'OUTSIDE_CANVAS');
    assert.equal((f!.details as Record<string, number>).fractionOutside, 0.6);
    const turned = media.document({
      name: 'x',
      sizes: [
        {
          hash: 'fixture',
          name: 'S',
          width: 300,
          height: 250,
          slides: [
            {
              elements: [
                // Entirely inside unturned; turned 90° about its centre, a 600x20 bar is 20x600 and mostly outside.
                { name: 'bar', type: 'shape', x: -150, y: 115, width: 600, height: 20, rotation: 90 },
              ],
            },
          ],
        },
      ],
    });
    const [bar] = only(await findingsOf(turned), 'OUTSIDE_CANVAS');
    assert.ok(Math.abs((bar!.details as Record<string, number>).fractionOutside - (1 - 250 / 600)) < 0.001);
  });

  test('hidden elements are not checked', async () => {
    const raw = JSON.parse(JSON.stringify(FIXTURES.OUTSIDE_CANVAS.trigger));
    raw.sizes[0].slides[0].elements[0].visible = false;
    assert.deepEqual(await findingsOf(media.document(raw)), []);
  });

  test('SOURCE_UNREACHABLE and SOURCE_REJECTED are told apart by what the fetcher says', () => {
    const unreachable = [
      'http://a/x.png: cannot be fetched: the connection was refused',
      'http://a/x.png: took longer than 5 s to download (the time limit)',
      'http://a/x.png: answered HTTP 404; the file must be publicly downloadable',
      'http://a/x.png: redirects more than 5 times, the most that is followed',
    ];
    const refused = [
      'http://a/x.txt: is not an image, audio or video file this service accepts: plain text',
      'http://10.0.0.1/x.png: points at 10.0.0.1, a private address',
      'http://a/x.mp4: is an MP4 video, but an image is needed here',
    ];
    for (const message of unreachable) {
      assert.equal(sourceFindingCode(new AppError('SOURCE_REJECTED', message)), 'SOURCE_UNREACHABLE', message);
    }
    for (const message of refused) {
      assert.equal(sourceFindingCode(new AppError('SOURCE_REJECTED', message)), 'SOURCE_REJECTED', message);
    }
  });
});

/** Whether any pixel of the rectangle differs from `rgb` by more than `tolerance` on some channel. */
function inked(
  pixels: Pixels,
  rect: { x0: number; y0: number; x1: number; y1: number },
  rgb: number[],
  tolerance = 24,
) {
  for (let y = rect.y0; y < rect.y1; y++) {
    for (let x = rect.x0; x < rect.x1; x++) {
      const p = pixels.at(x, y);
      if (rgb.some((c, k) => Math.abs(c - p[k]!) > tolerance)) return true;
    }
  }
  return false;
}

const pngOf = async (doc: DesignDocument) =>
  decodePng(await renderImage(doc, 0, 0, { format: 'png', fetcher: media.fetcher }));

describe('the findings match what the rendered PNG shows', () => {
  const navy = [15, 23, 42];

  test('overflowing text really crosses the box edge; the fitting one does not', async () => {
    // The box is y 20..60; below it, the trigger has ink and the pass (same text, taller box) has it inside its box.
    const below = { x0: 20, y0: 62, x1: 280, y1: 200 };
    assert.ok(inked(await pngOf(media.document(FIXTURES.TEXT_OVERFLOW.trigger)), below, navy));
    const fitting = await pngOf(media.document(FIXTURES.TEXT_OVERFLOW.pass));
    assert.ok(!inked(fitting, { x0: 20, y0: 182, x1: 280, y1: 250 }, navy), 'nothing below the 160 px box');
  });

  test('missing glyphs really draw as the notdef box: two different missing characters draw the same pixels', async () => {
    const doc = (char: string) =>
      media.document({
        name: 'x',
        sizes: [
          {
            name: 'S',
            width: 120,
            height: 60,
            backgroundColor: '#FFFFFF',
            slides: [
              {
                elements: [{ name: 't', type: 'text', x: 10, y: 10, width: 100, height: 40, fontSize: 28, text: char }],
              },
            ],
          },
        ],
      });
    const a = await renderImage(doc('𓀀'), 0, 0, { format: 'png', fetcher: media.fetcher });
    const b = await renderImage(doc('𓀁'), 0, 0, { format: 'png', fetcher: media.fetcher });
    assert.ok(inked(decodePng(a), { x0: 10, y0: 10, x1: 110, y1: 50 }, [255, 255, 255]), 'the box has ink');
    assert.ok(a.equals(b), 'both draw the one .notdef glyph');
    const c = await renderImage(doc('é'), 0, 0, { format: 'png', fetcher: media.fetcher });
    assert.ok(!a.equals(c), 'a covered character draws its own glyph');
    const findings = await findingsOf(doc('𓀁'));
    assert.deepEqual((only(findings, 'MISSING_GLYPHS')[0]!.details as Record<string, unknown>).codePoints, ['U+13001']);
  });

  test('the contrast preflight reports agrees within 0.2 with the contrast measured on the PNG', async () => {
    for (const raw of [FIXTURES.LOW_CONTRAST.trigger, FIXTURES.LOW_CONTRAST.pass]) {
      const doc = media.document(raw);
      const pixels = await pngOf(doc);
      // The text box is x 20..280, y 100..140. Text pixels: the ones closest to the text colour; background: farthest.
      const lums: number[] = [];
      for (let y = 100; y < 140; y++) {
        for (let x = 20; x < 280; x++) {
          const [r, g, b] = pixels.at(x, y);
          lums.push(relativeLuminance([r!, g!, b!]));
        }
      }
      lums.sort((p, q) => p - q);
      const darkest = lums[0]!;
      const lightest = lums.at(-1)!;
      const fromPng = contrastRatio(darkest, lightest);
      const report = await preflightDocument(doc, { fetcher: media.fetcher });
      const [low] = only(report.findings, 'LOW_CONTRAST');
      if (low) {
        const ratio = (low.details as Record<string, number>).ratio;
        assert.ok(Math.abs(ratio - fromPng) <= 0.2, `preflight ${ratio}, PNG ${fromPng}`);
      } else {
        assert.ok(fromPng >= 4.5, `no LOW_CONTRAST, and the PNG shows ${fromPng}:1`);
      }
    }
  });
});
