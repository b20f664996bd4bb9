// The font catalogue is read from the installed @fontsource packages: enough popular families with all their variants,
// the Noto fallbacks for every script, and files that exist where the catalogue says.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  catalogueFonts,
  fallbackFamilies,
  fontCatalogue,
  fontFamily,
  fontFile,
  fontFiles,
} from '../../../src/render/text/fonts.js';

const FALLBACKS = [
  'Noto Sans JP',
  'Noto Sans SC',
  'Noto Sans KR',
  'Noto Sans Arabic',
  'Noto Sans Hebrew',
  'Noto Sans Devanagari',
  'Noto Sans Thai',
  'Noto Color Emoji',
];

describe('font catalogue', () => {
  test('has at least 20 popular families besides the fallbacks, sorted by name', () => {
    const names = fontCatalogue().map((f) => f.fontFamily);
    const popular = names.filter((name) => !FALLBACKS.includes(name));
    assert.ok(popular.length >= 20, `${popular.length} families`);
    for (const family of [
      'Inter',
      'Roboto',
      'Open Sans',
      'Lato',
      'Montserrat',
      'Poppins',
      'Playfair Display',
      'Source Sans 3',
    ]) {
      assert.ok(names.includes(family), family);
    }
    assert.deepEqual(
      names,
      [...names].sort((a, b) => a.localeCompare(b)),
    );
  });

  test('Inter has every weight, each with its italic, lightest first', () => {
    const inter = fontFamily('Inter');
    assert.deepEqual(
      inter?.variants,
      ['100', '200', '300', '400', '500', '600', '700', '800', '900'].flatMap((w) => [w, `${w}italic`]),
    );
    assert.ok(inter?.scripts.includes('latin'));
    assert.ok(inter?.scripts.includes('cyrillic'));
  });

  test('variants come from the files each package ships', () => {
    assert.deepEqual(fontFamily('Lato')?.variants, [
      '100',
      '100italic',
      '300',
      '300italic',
      '400',
      '400italic',
      '700',
      '700italic',
      '900',
      '900italic',
    ]);
    assert.deepEqual(fontFamily('Bebas Neue')?.variants, ['400']);
    assert.deepEqual(fontFamily('Oswald')?.variants, ['200', '300', '400', '500', '600', '700']);
  });

  test('the Noto fallbacks cover CJK, Arabic, Hebrew, Devanagari, Thai and emoji', () => {
    assert.deepEqual(fallbackFamilies(), FALLBACKS);
    const scripts = new Map(fontCatalogue().map((f) => [f.fontFamily, f.scripts]));
    const expected: [string, string][] = [
      ['Noto Sans JP', 'japanese'],
      ['Noto Sans SC', 'chinese-simplified'],
      ['Noto Sans KR', 'korean'],
      ['Noto Sans Arabic', 'arabic'],
      ['Noto Sans Hebrew', 'hebrew'],
      ['Noto Sans Devanagari', 'devanagari'],
      ['Noto Sans Thai', 'thai'],
      ['Noto Color Emoji', 'emoji'],
    ];
    for (const [family, script] of expected)
      assert.ok(scripts.get(family)?.includes(script), `${family} covers ${script}`);
  });

  test('names match case-insensitively and answer with the catalogue’s spelling', () => {
    assert.equal(fontFamily('  open SANS ')?.fontFamily, 'Open Sans');
    assert.equal(catalogueFonts.family('playfair display')?.fontFamily, 'Playfair Display');
    assert.equal(fontFamily('Comic Sans MS'), undefined);
    assert.equal(catalogueFonts.family('Comic Sans MS'), undefined);
  });
});

describe('font files', () => {
  test('fontFile gives the absolute path of a file that exists, in either format', () => {
    const woff2 = fontFile('Inter', '700italic', 'latin');
    assert.ok(woff2 && path.isAbsolute(woff2));
    assert.equal(path.basename(woff2), 'inter-latin-700-italic.woff2');
    assert.ok(fs.statSync(woff2).size > 10_000);
    assert.equal(fs.readFileSync(woff2).subarray(0, 4).toString('latin1'), 'wOF2');
    const woff = fontFile('inter', '400', 'latin', 'woff');
    assert.equal(woff && fs.readFileSync(woff).subarray(0, 4).toString('latin1'), 'wOFF');
    assert.equal(fontFile('Inter', '950', 'latin'), undefined);
    assert.equal(fontFile('Inter', '400', 'klingon'), undefined);
    assert.equal(fontFile('Nope', '400', 'latin'), undefined);
  });

  test('every variant of every family has files, and each one exists', () => {
    for (const family of fontCatalogue()) {
      for (const variant of family.variants) {
        const files = fontFiles(family.fontFamily, variant);
        assert.ok(files.length > 0, `${family.fontFamily} ${variant}`);
        for (const file of files) assert.ok(fs.existsSync(file.path), file.path);
      }
    }
  });

  test('fontFiles lists latin first, then the other subsets, with their unicode ranges', () => {
    const inter = fontFiles('Inter', '400');
    assert.deepEqual(
      inter.map((f) => f.subset),
      ['latin', 'cyrillic', 'cyrillic-ext', 'greek', 'greek-ext', 'latin-ext', 'vietnamese'],
    );
    assert.match(inter[0].unicodeRange ?? '', /^U\+0000-00FF/);
    assert.equal(path.extname(inter[0].path), '.woff2');
    assert.equal(path.extname(fontFiles('Inter', '400', { format: 'woff' })[0].path), '.woff');
  });

  test('a large script comes as one whole file, or as ordered slices with unicode ranges on request', () => {
    const whole = fontFiles('Noto Sans JP', '400');
    assert.deepEqual(
      whole.map((f) => f.subset),
      ['latin', 'cyrillic', 'japanese', 'latin-ext', 'vietnamese'],
    );
    assert.ok(fs.statSync(whole[2].path).size > 500_000, 'the whole Japanese file');
    const sliced = fontFiles('Noto Sans JP', '400', { slices: true });
    assert.ok(!sliced.some((f) => f.subset === 'japanese'));
    const numbers = sliced.filter((f) => /^\d+$/.test(f.subset)).map((f) => Number(f.subset));
    assert.ok(numbers.length > 100, `${numbers.length} slices`);
    assert.deepEqual(
      numbers,
      [...numbers].sort((a, b) => a - b),
    );
    assert.ok(
      sliced.every((f) => f.unicodeRange),
      'every slice has its unicode range',
    );
    // Hiragana (U+3042 あ) is in one of the slices.
    assert.ok(sliced.some((f) => /U\+30[0-4][0-9A-F]/i.test(f.unicodeRange ?? '')));
    assert.deepEqual(
      fontFiles('Noto Color Emoji', '400').map((f) => f.subset),
      ['emoji'],
    );
    assert.deepEqual(fontFiles('Inter', '950'), []);
  });
});
