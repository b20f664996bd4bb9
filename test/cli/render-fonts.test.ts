// `placard render --font <file>` (issue 17): font files from the designer's disk drawn where the document (or a
// FONTFAMILY change) names their family, as an uploaded brand font would be; a variable font's named instances are
// its variants; a file that is no font fails with the upload's code (exit 2), and the PDF embeds the local font.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runRender } from '../../src/cli/render.js';
import { pdfFonts } from '../helpers/pdf.js';
import { decodePng, type Pixels } from '../render/pixels.js';

const FONTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/fonts');
const LOBSTER = path.join(FONTS, 'LobsterTwo-Regular.otf');
const VARIABLE = path.join(FONTS, 'InterDisplay-Variable.ttf');
const SERIF = path.join(FONTS, 'DejaVuSerif.ttf');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-cli-fonts-test-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let count = 0;
const fresh = (ext: string) => path.join(dir, `f-${count++}.${ext}`);

function writeJson(value: unknown): string {
  const file = fresh('json');
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
}

function documentIn(family: string, variant = '400'): string {
  return writeJson({
    name: 'Local fonts',
    sizes: [
      {
        name: 'Banner',
        width: 300,
        height: 100,
        backgroundColor: '#FFFFFF',
        slides: [
          {
            duration: 3,
            elements: [
              {
                type: 'text',
                name: 'headline',
                x: 10,
                y: 20,
                width: 280,
                height: 60,
                text: 'Hamburg 1234',
                fontFamily: family,
                fontVariant: variant,
                fontSize: 36,
                color: '#000000',
              },
            ],
          },
        ],
      },
    ],
  });
}

async function render(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await runRender(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { status, stdout, stderr };
}

async function pngOf(document: string, ...flags: string[]): Promise<Pixels> {
  const out = fresh('png');
  const res = await render(document, '--format', 'png', '--out', out, ...flags);
  assert.equal(res.status, 0, res.stderr);
  return decodePng(fs.readFileSync(out));
}

function differing(a: Pixels, b: Pixels): number {
  let n = 0;
  for (let y = 0; y < a.height; y++) for (let x = 0; x < a.width; x++) if (a.at(x, y)[0] !== b.at(x, y)[0]) n += 1;
  return n;
}

function ink(image: Pixels): number {
  let n = 0;
  for (let y = 0; y < image.height; y++) for (let x = 0; x < image.width; x++) if (image.at(x, y)[0]! < 128) n += 1;
  return n;
}

describe('placard render --font', () => {
  test('an OTF file draws the family the document names; without it the default font draws', async () => {
    const doc = documentIn('Lobster Two');
    const withFont = await pngOf(doc, '--font', LOBSTER);
    const without = await pngOf(doc);
    const inter = await pngOf(documentIn('Inter'));
    assert.equal(differing(without, inter), 0, 'an unknown family draws in the default font (Inter)');
    assert.ok(differing(withFont, inter) > 500, 'Lobster Two draws unlike Inter');
  });

  test('a variable font: its named instances are the variants; a FONTFAMILY change names the local family', async () => {
    const changes = (variant: string) =>
      writeJson({
        elementsChanges: [
          {
            elementName: 'headline',
            changes: [
              { attribute: 'FONTFAMILY', value: 'inter display' },
              { attribute: 'FONTVARIANT', value: variant },
            ],
          },
        ],
      });
    const thin = await pngOf(documentIn('Inter'), '--font', VARIABLE, '--changes', changes('100'));
    const black = await pngOf(documentIn('Inter'), '--font', VARIABLE, '--changes', changes('900'));
    assert.ok(ink(thin) * 2 < ink(black), `thin ${ink(thin)}, black ${ink(black)}`);
    const interBlack = await pngOf(documentIn('Inter', '900'));
    assert.ok(differing(black, interBlack) > 300, 'Inter Display Black is not Inter Black');
  });

  test('the PDF embeds the local font', async () => {
    const out = fresh('pdf');
    const res = await render(documentIn('DejaVu Serif'), '--format', 'pdf', '--out', out, '--font', SERIF);
    assert.equal(res.status, 0, res.stderr);
    const fonts = pdfFonts(out);
    assert.ok(
      fonts.some((font) => /DejaVuSerif/.test(font.name ?? '') && font.embedded),
      `DejaVu Serif is embedded: ${JSON.stringify(fonts)}`,
    );
  });

  test('a file that is no font, or a family variant given twice, exits 2 with FONT_REJECTED naming the file', async () => {
    const bogus = fresh('ttf');
    fs.writeFileSync(bogus, '%PDF-1.7 not a font');
    const out = fresh('png');
    const res = await render(documentIn('Lobster Two'), '--format', 'png', '--out', out, '--font', bogus);
    assert.equal(res.status, 2);
    assert.match(res.stderr, /^FONT_REJECTED: --font .*f-\d+\.ttf is not a font file/);
    assert.equal(fs.existsSync(out), false);
    const twice = await render(
      documentIn('Lobster Two'),
      '--format',
      'png',
      '--out',
      out,
      '--font',
      LOBSTER,
      '--font',
      LOBSTER,
    );
    assert.equal(twice.status, 2);
    assert.match(twice.stderr, /Lobster Two 400 is already given by another --font file/);
    const missing = await render(documentIn('Lobster Two'), '--format', 'png', '--out', out, '--font', fresh('otf'));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /FONT_REJECTED: --font .* cannot be read/);
  });
});
