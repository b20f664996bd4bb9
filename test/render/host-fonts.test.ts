// Output never depends on the fonts of the machine Placard runs on: a character that no bundled font has is drawn as
// the missing-glyph box of the element's font, in PNG and PDF alike, even when a host font (DejaVu, from Debian's
// fonts-dejavu-core) has it. The test first proves that the host font is there and that Skia alone would use it, so it
// cannot pass on a machine where there was nothing to leak.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { readDocument } from '../../src/domain/design.schema.js';
import { textKind } from '../../src/elements/text/index.js';
import type { TextElement } from '../../src/elements/text/schema.js';
import { renderPdf } from '../../src/formats/pdf/pdf.js';
import {
  cssFont,
  fontStack,
  MISSING_GLYPH,
  missingCharacters,
  withBundledGlyphs,
} from '../../src/render/text/font-registry.js';

const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
// U+2230 VOLUME INTEGRAL and U+2A00 N-ARY CIRCLED DOT OPERATOR: in DejaVu Sans, in no font Placard bundles.
const HOST_ONLY = '∰⨀';

function hostFontPresent(): void {
  assert.ok(
    fs.existsSync(DEJAVU),
    `this test needs a host font Placard does not bundle: apt-get install fonts-dejavu-core`,
  );
}

/** The pixels of `element` drawn by the text kind on a white canvas of its size. */
function pixels(element: TextElement): Buffer {
  const canvas = createCanvas(element.width, element.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#FFFFFF';
  ctx.fillRect(0, 0, element.width, element.height);
  textKind.draw!(element, {
    ctx,
    assets: { image: () => undefined },
    time: Number.POSITIVE_INFINITY,
    output: 'raster',
  });
  return Buffer.from(ctx.getImageData(0, 0, element.width, element.height).data);
}

const element = (text: string): TextElement => ({
  name: 'copy',
  type: 'text',
  x: 0,
  y: 0,
  width: 320,
  height: 80,
  text,
  fontFamily: 'Inter',
  fontVariant: '400',
  fontSize: 32,
  color: '#000000',
});

describe('no host fonts', () => {
  test('the characters are in the host font and in no bundled font; Skia alone would draw them from the host', () => {
    hostFontPresent();
    assert.deepEqual(missingCharacters('Inter', '400', `東京 ${HOST_ONLY} sale`), [...HOST_ONLY]);
    // Drawn straight with Skia and the bundled stack, the characters come from DejaVu: not the missing-glyph box.
    const draw = (text: string) => {
      const canvas = createCanvas(200, 60);
      const ctx = canvas.getContext('2d');
      ctx.font = cssFont(fontStack('Inter', '400', text), 40);
      ctx.fillText(text, 10, 45);
      return Buffer.from(ctx.getImageData(0, 0, 200, 60).data);
    };
    assert.notDeepEqual(draw('∰'), draw(MISSING_GLYPH), 'Skia falls back to the host font for ∰');
  });

  test('only characters no bundled font has are replaced; joiners, variation selectors and bidi marks stay', () => {
    // A family of four (ZWJ sequence), a red heart (VS16), a skin tone, an RLM, CJK and Thai: all bundled.
    const covered = '👨\u200D👩\u200D👧\u200D👦 ❤\uFE0F 👍🏽 \u200Fשלום 東京 สวัสดี';
    assert.deepEqual(missingCharacters('Inter', '400', covered), []);
    assert.equal(withBundledGlyphs('Inter', '400', covered), covered);
    assert.equal(withBundledGlyphs('Lora', '700italic', `a${HOST_ONLY}b`), `a${MISSING_GLYPH}${MISSING_GLYPH}b`);
  });

  test('PNG: a character only the host has draws exactly as the missing-glyph box', () => {
    hostFontPresent();
    const copy = pixels(element(`東京 ${HOST_ONLY} sale`));
    const boxes = pixels(element(`東京 ${MISSING_GLYPH}${MISSING_GLYPH} sale`));
    assert.ok(copy.equals(boxes), 'the host-only characters are drawn as missing-glyph boxes');
    // The boxes are visible ink, not nothing.
    assert.ok(!copy.equals(pixels(element('東京  sale'))));
  });

  test('PDF: the embedded fonts are bundled ones only, never DejaVu', async () => {
    hostFontPresent();
    const document = readDocument({
      name: 'Host fonts',
      sizes: [
        {
          name: 'Banner',
          width: 320,
          height: 80,
          slides: [{ elements: [element(`東京の春セール ${HOST_ONLY}`)] }],
        },
      ],
    });
    const raw = (await renderPdf(document, 0)).toString('latin1');
    // Skia writes font dictionaries as plain objects: every /BaseFont is there to read (subset tag, then the name).
    const fonts = [...raw.matchAll(/\/BaseFont\s*\/(?:[A-Z]{6}\+)?([^\s/<>[\]]+)/g)].map((match) => match[1]!);
    assert.ok(fonts.length > 0, 'the PDF embeds fonts');
    for (const font of new Set(fonts)) {
      assert.match(font, /^(Inter|NotoSans)/, `${font} is a bundled font (all fonts: ${[...new Set(fonts)]})`);
    }
    assert.ok(!fonts.some((font) => /dejavu/i.test(font)));
  });
});
