// Font files as uploaded (issue 17): the format by content, every face of a TrueType collection written out as a
// font Skia registers and draws, WOFF and WOFF2 read alike, fsType licence bits, and refusals with reasons.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import subsetFont from 'subset-font';
import {
  embeddableFsType,
  FontFileError,
  fontFileCoverage,
  parseFontFile,
  sniffFont,
} from '../../src/render/text/brand-font-file.js';
import { useBrandFamilies } from '../../src/render/text/brand-fonts.js';
import { fontStack } from '../../src/render/text/font-registry.js';

const FONTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/fonts');
const serif = fs.readFileSync(path.join(FONTS, 'DejaVuSerif.ttf'));
const serifBold = fs.readFileSync(path.join(FONTS, 'DejaVuSerif-Bold.ttf'));

/** A TrueType collection of whole fonts: the ttcf header, then each font's directory and tables, offsets rebased. */
function collectionOf(fonts: Buffer[]): Buffer {
  const header = Buffer.alloc(12 + 4 * fonts.length);
  header.write('ttcf', 0, 'latin1');
  header.writeUInt32BE(0x00010000, 4);
  header.writeUInt32BE(fonts.length, 8);
  const parts: Buffer[] = [header];
  let offset = header.length;
  fonts.forEach((font, i) => {
    header.writeUInt32BE(offset, 12 + 4 * i);
    const copy = Buffer.from(font);
    const tables = copy.readUInt16BE(4);
    for (let t = 0; t < tables; t++) {
      const record = 12 + t * 16;
      copy.writeUInt32BE(copy.readUInt32BE(record + 8) + offset, record + 8);
    }
    parts.push(copy);
    offset += copy.length;
  });
  return Buffer.concat(parts);
}

function inkOf(family: string): string {
  const canvas = createCanvas(200, 50);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, 200, 50);
  ctx.fillStyle = '#000';
  ctx.font = `30px "${family}"`;
  ctx.fillText('Hamburg', 5, 38);
  return canvas.toBuffer('image/png').toString('base64');
}

describe('brand font files', () => {
  test('a TrueType collection gives one standalone face per font, each registered and drawn by Skia', () => {
    const ttc = collectionOf([serif, serifBold]);
    assert.equal(sniffFont(ttc), 'ttc');
    const parsed = parseFontFile(ttc, 'serif.ttc');
    assert.equal(parsed.format, 'ttc');
    assert.deepEqual(
      parsed.faces.map((f) => [f.family, f.variant, f.storedFormat]),
      [
        ['DejaVu Serif', '400', 'ttf'],
        ['DejaVu Serif', '700', 'ttf'],
      ],
    );
    for (const face of parsed.faces) {
      assert.equal(sniffFont(face.bytes), 'ttf');
      assert.equal(parseFontFile(face.bytes, 'face.ttf').faces[0]!.variant, face.variant);
    }
    assert.ok(GlobalFonts.register(parsed.faces[0]!.bytes, 'BrandFileTestRegular'));
    assert.ok(GlobalFonts.register(parsed.faces[1]!.bytes, 'BrandFileTestBold'));
    assert.notEqual(inkOf('BrandFileTestRegular'), inkOf('BrandFileTestBold'));
  });

  test('WOFF and WOFF2 are read by content, with the same family and variant as the TTF', async () => {
    for (const targetFormat of ['woff', 'woff2'] as const) {
      const bytes = await subsetFont(serifBold, 'Hamburg', { targetFormat });
      assert.equal(sniffFont(bytes), targetFormat);
      const parsed = parseFontFile(bytes, `x.${targetFormat === 'woff' ? 'bin' : 'dat'}`);
      assert.equal(parsed.format, targetFormat);
      assert.deepEqual(
        parsed.faces.map((f) => [f.family, f.variant]),
        [['DejaVu Serif', '700']],
      );
      assert.ok(
        fontFileCoverage(bytes).some(([first, last]) => first <= 0x48 && 0x48 <= last),
        'maps H',
      );
    }
  });

  test('fsType: restricted, no-subsetting and bitmap-only forbid embedding; installable and preview & print allow it', () => {
    assert.equal(embeddableFsType(0), true);
    assert.equal(embeddableFsType(0x0004), true);
    assert.equal(embeddableFsType(0x0008), true);
    assert.equal(embeddableFsType(0x0002), false);
    assert.equal(embeddableFsType(0x0100), false);
    assert.equal(embeddableFsType(0x0200), false);
  });

  test('a brand family falls back to the Noto fonts for characters it lacks, as bundled families do', () => {
    useBrandFamilies([
      {
        name: 'PlacardBrandFallbackTest',
        displayName: 'DejaVu Serif',
        faces: [
          { fontId: 1, variant: '400', path: path.join(FONTS, 'DejaVuSerif.ttf'), embeddable: true, fileName: 'f' },
        ],
      },
    ]);
    const latin = fontStack('PlacardBrandFallbackTest', '400', 'Hamburg');
    assert.deepEqual(latin.families, ['PlacardBrandFallbackTest|400|brand']);
    const mixed = fontStack('PlacardBrandFallbackTest', '400', 'Hamburg 東京');
    assert.equal(mixed.families[0], 'PlacardBrandFallbackTest|400|brand');
    assert.ok(
      mixed.families.some((alias) => alias.startsWith('Noto Sans JP|')),
      mixed.families.join(', '),
    );
  });

  test('refusals say why: not a font, truncated, over 10 MB', () => {
    const refuse = (bytes: Buffer, pattern: RegExp) =>
      assert.throws(
        () => parseFontFile(bytes, 'f'),
        (error: unknown) => error instanceof FontFileError && pattern.test(error.message),
      );
    refuse(Buffer.from('%PDF-1.7 not a font'), /is not a font file/);
    refuse(serif.subarray(0, 2000), /malformed|damaged/);
    refuse(Buffer.concat([serif, Buffer.alloc(10 * 1024 * 1024)]), /at most 10 MB/);
    // A collection that claims more faces than it holds.
    const ttc = collectionOf([serif]);
    ttc.writeUInt32BE(5000, 8);
    refuse(ttc, /.+/);
  });
});
