// Fonts for every script: the registry lists the element family's subsets, then exactly the Noto fallbacks a text needs
// (by the fonts' real cmaps), registers each file once, and picks faces the way CSS does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { covers, woffCoverage } from '../../src/render/font-coverage.js';
import { cssFont, fontStack, nearestWeight, registrationStats, resolveFace } from '../../src/render/font-registry.js';
import { fontFile } from '../../src/render/fonts.js';

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
