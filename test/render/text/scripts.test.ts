// Fonts for every script: the registry lists the element family's subsets, then exactly the Noto fallbacks a text needs
// (by the fonts' real cmaps), registers each file once, and picks faces the way CSS does; and text in Japanese, Chinese,
// Korean, Arabic, Hebrew, Devanagari, Thai and emoji draws real glyphs, never missing-glyph boxes (tofu).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { textKind } from '../../../src/elements/text/index.js';
import type { TextElement } from '../../../src/elements/text/schema.js';
import { covers, woffCoverage } from '../../../src/render/text/font-coverage.js';
import {
  cssFont,
  fontStack,
  nearestWeight,
  registrationStats,
  resolveFace,
} from '../../../src/render/text/font-registry.js';
import { fontFile } from '../../../src/render/text/fonts.js';
import { graphemesOf } from '../../../src/render/text/line-break.js';
import { layoutWithFonts, textBoxOf } from '../../../src/render/text/text-paint.js';

describe('font registry', () => {
  test('a Latin text needs only the family latin subset, in the face asked for', () => {
    assert.deepEqual(fontStack('Inter', '700', 'Spring sale'), {
      weight: 700,
      style: 'normal',
      families: ['Inter|700|latin'],
    });
    assert.equal(
      cssFont(fontStack('Inter', '400italic', 'x'), 13.3333333),
      'italic 400 13.333px "Inter|400italic|latin"',
    );
  });

  test('other scripts add the family subsets and the fallbacks that hold them, in fallback order', () => {
    const stack = fontStack('Inter', '400', 'Привет 日本語 한국어 שלום مرحبا हिन्दी ไทย 😀');
    assert.deepEqual(stack.families, [
      'Inter|400|latin',
      'Inter|400|cyrillic',
      'Noto Sans JP|400|japanese',
      'Noto Sans KR|400|korean',
      'Noto Sans Arabic|400|arabic',
      'Noto Sans Hebrew|400|hebrew',
      'Noto Sans Devanagari|400|devanagari',
      'Noto Sans Thai|400|thai',
      'Noto Color Emoji|400|emoji',
    ]);
  });

  test('a character Japanese lacks brings in Simplified Chinese; the emoji font has one weight', () => {
    // 这 (U+8FD9) is simplified-only: Noto Sans JP has no glyph for it.
    const stack = fontStack('Inter', '700', '这 😀');
    assert.deepEqual(stack.families, [
      'Inter|700|latin',
      'Noto Sans SC|700|chinese-simplified',
      'Noto Color Emoji|400|emoji',
    ]);
  });

  test('fallbacks are chosen from the fonts, not from the browser slices (SC slices claim Devanagari it lacks)', () => {
    const sc = woffCoverage(fontFile('Noto Sans SC', '400', 'chinese-simplified', 'woff')!);
    assert.equal(covers(sc, 0x4e2d), true); // 中
    assert.equal(covers(sc, 0x0939), false); // ह
    assert.ok(fontStack('Inter', '400', 'ह').families.includes('Noto Sans Devanagari|400|devanagari'));
  });

  test('files are registered once per thread', () => {
    fontStack('Lora', '400', 'Once');
    const before = registrationStats().files;
    fontStack('Lora', '400', 'Once more');
    fontStack('Lora', '400', 'And again');
    assert.equal(registrationStats().files, before);
  });

  test('weights match as CSS does', () => {
    assert.equal(nearestWeight(700, [300, 400, 900]), 900);
    assert.equal(nearestWeight(700, [300, 400]), 400);
    assert.equal(nearestWeight(300, [400, 500]), 400);
    assert.equal(nearestWeight(300, [100, 400]), 100);
    assert.equal(nearestWeight(400, [300, 500, 600]), 500);
    assert.equal(nearestWeight(500, [300, 600]), 300);
  });

  test('bold takes the nearest weight the family has, italic a synthetic slant when there is no italic face', () => {
    // Anton has one face, 400: bold stays 400 (no fake bold), italic is synthetic.
    assert.deepEqual(resolveFace('Anton', '700italic'), {
      fontFamily: 'Anton',
      variant: '400',
      weight: 400,
      syntheticItalic: true,
    });
    assert.deepEqual(fontStack('Anton', '700italic', 'A'), {
      weight: 400,
      style: 'italic',
      families: ['Anton|400|latin'],
    });
    assert.equal(resolveFace('Playfair Display', '300italic').variant, '400italic');
    // An unknown family draws with the default font.
    assert.equal(resolveFace('No Such Font', '600').fontFamily, 'Inter');
  });

  test('Skia draws the registered face: 700 is wider than 400 and a synthetic italic differs from upright', () => {
    const ctx = createCanvas(10, 10).getContext('2d');
    const width = (font: string) => {
      ctx.font = font;
      return ctx.measureText('Hamburgefonstiv').width;
    };
    const regular = width(cssFont(fontStack('Inter', '400', 'H'), 40));
    const bold = width(cssFont(fontStack('Inter', '700', 'H'), 40));
    assert.ok(bold > regular * 1.03, `${bold} vs ${regular}`);

    const ink = (font: string) => {
      const canvas = createCanvas(400, 80);
      const c = canvas.getContext('2d');
      c.font = font;
      c.fillText('Ill', 10, 60);
      return Buffer.from(c.getImageData(0, 0, 400, 80).data);
    };
    const upright = ink(cssFont(fontStack('Anton', '400', 'I'), 50));
    const slanted = ink(cssFont(fontStack('Anton', '400italic', 'I'), 50));
    assert.notDeepEqual(slanted, upright);
  });
});

/** Each script with a word in it (no spaces: the fallback fonts need not have one) and the font that must draw it. */
const SCRIPTS = [
  { script: 'Japanese', word: 'こんにちは世界', font: 'Noto Sans JP|400|japanese' },
  // Simplified-only characters: Noto Sans JP has none of them.
  { script: 'Chinese', word: '这说们汉语', font: 'Noto Sans SC|400|chinese-simplified' },
  { script: 'Korean', word: '안녕하세요', font: 'Noto Sans KR|400|korean' },
  { script: 'Arabic', word: 'مرحبا', font: 'Noto Sans Arabic|400|arabic' },
  { script: 'Hebrew', word: 'שלום', font: 'Noto Sans Hebrew|400|hebrew' },
  { script: 'Devanagari', word: 'नमस्ते', font: 'Noto Sans Devanagari|400|devanagari' },
  { script: 'Thai', word: 'สวัสดี', font: 'Noto Sans Thai|400|thai' },
  { script: 'emoji', word: '😀🎉👍🏽', font: 'Noto Color Emoji|400|emoji' },
];
const EVERY_SCRIPT = `Sale ${SCRIPTS.map((s) => s.word).join(' ')}`;
/** A private-use code point no font has: it draws as the .notdef glyph, the tofu box. */
const TOFU = '\u{10FFFD}';

/** The pixels of `text` drawn alone in `font`, black on white, with `direction`. */
function glyphs(text: string, font: string, direction: 'ltr' | 'rtl' = 'ltr'): Buffer {
  const canvas = createCanvas(360, 90);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#FFFFFF';
  ctx.fillRect(0, 0, 360, 90);
  ctx.fillStyle = '#000000';
  ctx.font = font;
  ctx.direction = direction;
  ctx.textAlign = 'left';
  ctx.fillText(text, 10, 64);
  return Buffer.from(ctx.getImageData(0, 0, 360, 90).data);
}

/** The font the text kind lays `text` out with (the first run's: one element, one font stack). */
function layoutFont(text: string): string {
  const box = textBoxOf(
    { fontSize: 48 },
    { text, markdown: false, width: 2000, height: 400 },
    {
      align: 'left',
      verticalAlign: 'top',
      fontSize: 48,
    },
  );
  return layoutWithFonts(box, { fontFamily: 'Inter', fontVariant: '400' }).lines[0]!.runs[0]!.font;
}

describe('every script draws real glyphs', () => {
  test('the tofu detector works: without fallbacks Japanese is a row of missing-glyph boxes', () => {
    const interOnly = cssFont(fontStack('Inter', '400', 'a'), 48);
    const tofu = glyphs(TOFU, interOnly);
    assert.notDeepEqual(tofu, glyphs(' ', interOnly), 'the tofu box has ink');
    for (const char of 'こんにちは') assert.deepEqual(glyphs(char, interOnly), tofu, char);
  });

  for (const { script, word } of SCRIPTS) {
    test(`${script}: no grapheme draws as the tofu box of the font the layout uses`, () => {
      const font = layoutFont(EVERY_SCRIPT);
      const tofu = glyphs(TOFU, font);
      for (const grapheme of graphemesOf(word)) {
        assert.notDeepEqual(
          glyphs(grapheme, font),
          tofu,
          `${script} ${grapheme} (U+${grapheme.codePointAt(0)!.toString(16)})`,
        );
      }
    });
  }

  test('the source check works: Hebrew without its Noto font falls back to a system font and draws differently', (t) => {
    const interOnly = cssFont(fontStack('Inter', '400', 'a'), 48);
    fontStack('Inter', '400', 'שלום');
    const system = glyphs('שלום', interOnly, 'rtl');
    // Without a system font that has Hebrew there is nothing a system font could pass off as Noto.
    if (system.equals(glyphs(TOFU, interOnly))) return t.skip('no system font with Hebrew on this machine');
    assert.notDeepEqual(system, glyphs('שלום', '400 48px "Noto Sans Hebrew|400|hebrew"', 'rtl'));
  });

  for (const { script, word, font: alias } of SCRIPTS) {
    test(`${script}: the glyphs come from ${alias.split('|')[0]}, not from a system font`, () => {
      const font = layoutFont(EVERY_SCRIPT);
      const size = '48px';
      const only = `${/^(italic )?\d+ /.exec(font)![0]}${size} "${alias}"`;
      assert.ok(font.includes(`"${alias}"`), font);
      const direction = script === 'Arabic' || script === 'Hebrew' ? 'rtl' : 'ltr';
      assert.deepEqual(glyphs(word, font, direction), glyphs(word, only, direction));
    });
  }

  test('the emoji draws in colour whatever the text colour', () => {
    const pixels = glyphs('😀', layoutFont('😀'));
    let coloured = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const [r, g, b] = [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 80) coloured++;
    }
    assert.ok(coloured > 200, `${coloured} coloured pixels`);
  });

  test('Skia shapes Arabic: joined letters are narrower than the same letters isolated', () => {
    const font = layoutFont('مرحبا');
    const ctx = createCanvas(10, 10).getContext('2d');
    ctx.font = font;
    const joined = ctx.measureText('مرحبا').width;
    const isolated = [...'مرحبا'].reduce((sum, letter) => sum + ctx.measureText(letter).width, 0);
    assert.ok(joined < isolated * 0.9, `${joined} vs ${isolated}`);
  });

  test('a text element with every script draws each line inside its box, the emoji in colour', () => {
    const element: TextElement = {
      name: 'all',
      type: 'text',
      x: 0,
      y: 0,
      width: 400,
      height: 300,
      text: SCRIPTS.map((s) => s.word).join('\n'),
      fontFamily: 'Inter',
      fontVariant: '400',
      fontSize: 24,
      color: '#000000',
    };
    const canvas = createCanvas(400, 300);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#FFFFFF';
    ctx.fillRect(0, 0, 400, 300);
    textKind.draw!(element, { ctx, assets: { image: () => undefined }, time: 0, output: 'raster' });
    const data = ctx.getImageData(0, 0, 400, 300).data;
    // Every line box (28.8 px tall) has ink; the emoji line has colour.
    for (let line = 0; line < SCRIPTS.length; line++) {
      let inked = 0;
      let coloured = 0;
      for (let y = Math.floor(line * 28.8); y < Math.floor((line + 1) * 28.8); y++) {
        for (let x = 0; x < 400; x++) {
          const i = (y * 400 + x) * 4;
          const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
          if (r < 128) inked++;
          if (Math.max(r, g, b) - Math.min(r, g, b) > 80) coloured++;
        }
      }
      assert.ok(inked > 50, `${SCRIPTS[line]!.script} line has ${inked} dark pixels`);
      if (SCRIPTS[line]!.script === 'emoji') assert.ok(coloured > 100, `${coloured} coloured pixels`);
    }
  });
});
