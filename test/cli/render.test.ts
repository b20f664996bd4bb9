// `placard render` as a designer or CI runs it: the files it writes are decoded and looked at (pixels, page sizes),
// and invalid input exits 2 with the code and message the API gives for the same input. Most renders run the command
// in this process (runRender, what main.ts calls); the exit statuses are checked on the real process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { createCanvas, Image } from '@napi-rs/canvas';
import { PNG } from 'pngjs';
import { runRender } from '../../src/cli/render.js';
import { applyChanges } from '../../src/domain/changes.js';
import { readDocument } from '../../src/domain/design.schema.js';
import { exportFileName, safeFileStem } from '../../src/domain/export-plan.js';
import { AppError } from '../../src/errors.js';
import { catalogueFonts } from '../../src/render/text/fonts.js';
import { pdfInfo } from '../helpers/pdf.js';

const MAIN = path.resolve('src/main.ts');
const SET = path.resolve('test/render/fixtures/cli-set.json');
const STEM = 'Spring_ sale_2026';
const ORANGE: Rgb = [0xf5, 0x9e, 0x0b];
const NAVY: Rgb = [0x0f, 0x17, 0x2a];

type Rgb = [number, number, number];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-cli-render-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

let count = 0;
const fresh = (name = `out-${count++}`) => path.join(dir, name);

function writeJson(value: unknown): string {
  const file = fresh(`input-${count++}.json`);
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
}

/** runRender in this process, with its output captured. */
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

/** The real command, as a process. */
function placard(...args: string[]) {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return spawnSync(process.execPath, ['--import', 'tsx', MAIN, 'render', ...args], { env, encoding: 'utf8' });
}

function png(file: string): PNG {
  return PNG.sync.read(fs.readFileSync(file));
}

function pngPixel(image: PNG, x: number, y: number): Rgb {
  const i = (image.width * y + x) * 4;
  return [image.data[i], image.data[i + 1], image.data[i + 2]];
}

/** Any format Skia decodes (JPEG, WEBP): its size and one pixel. */
function decoded(file: string, x: number, y: number): { width: number; height: number; pixel: Rgb } {
  const image = new Image();
  image.src = fs.readFileSync(file);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const [r, g, b] = ctx.getImageData(x, y, 1, 1).data;
  return { width: image.width, height: image.height, pixel: [r, g, b] };
}

function close(actual: Rgb, expected: Rgb, tolerance = 6) {
  assert.ok(
    actual.every((c, i) => Math.abs(c - expected[i]) <= tolerance),
    `rgb(${actual}) is close to rgb(${expected})`,
  );
}

/** Pages, page size (points) and title of a PDF, read with pdf.js. */
async function pdfSummary(file: string) {
  const { pages, page, info } = await pdfInfo(file);
  return { pages, width: page[0].width, height: page[0].height, title: info.Title };
}

/** The API's error for the same input, as the command prints it first. */
function apiError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return `${error.code}: ${error.message}`;
  }
  assert.fail('expected the input to be refused');
}

describe('placard render: formats', () => {
  test('png of one size by hash: the design at its size, drawn', async () => {
    const out = fresh('one.png');
    const run = await render(SET, '--format', 'png', '--size', 'mrect01', '--out', out);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `${out}\n`);
    const image = png(out);
    assert.deepEqual([image.width, image.height], [300, 250]);
    close(pngPixel(image, 10, 10), ORANGE);
    close(pngPixel(image, 200, 200), NAVY);
  });

  test('--scale 2 doubles the pixels', async () => {
    const out = fresh('double.png');
    const run = await render(SET, '--format', 'PNG', '--size', '300x250', '--scale', '2', '--out', out);
    assert.equal(run.status, 0, run.stderr);
    const image = png(out);
    assert.deepEqual([image.width, image.height], [600, 500]);
    close(pngPixel(image, 290, 240), ORANGE);
    close(pngPixel(image, 310, 260), NAVY);
  });

  test('jpg (also spelt jpeg) and webp decode to the design', async () => {
    for (const [format, ext] of [
      ['jpeg', 'jpg'],
      ['webp', 'webp'],
    ]) {
      const out = fresh(`one.${ext}`);
      const run = await render(SET, '--format', format, '--size', 'mrect01', '--quality', '95', '--out', out);
      assert.equal(run.status, 0, run.stderr);
      const image = decoded(out, 10, 10);
      assert.deepEqual([image.width, image.height], [300, 250], format);
      close(image.pixel, ORANGE, 12);
      close(decoded(out, 200, 200).pixel, NAVY, 12);
    }
  });

  test('pdf: one page per slide at 0.75 pt per px; PDF_PRINT adds the bleed', async () => {
    const out = fresh('leader.pdf');
    const run = await render(SET, '--format', 'pdf', '--size', '728x90', '--out', out);
    assert.equal(run.status, 0, run.stderr);
    const info = await pdfSummary(out);
    assert.deepEqual(info, { pages: 2, width: 546, height: 67.5, title: 'Spring: sale/2026' });

    const print = fresh('leader-print.pdf');
    const second = await render(
      SET,
      '--format',
      'pdf',
      '--size',
      'leader1',
      '--pdf-preset',
      'PDF_PRINT',
      '--slide',
      '1',
    );
    assert.equal(second.status, 2, 'no --out');
    const printed = await render(
      SET,
      ...['--format', 'pdf', '--size', 'leader1', '--pdf-preset', 'PDF_PRINT', '--slide', '1', '--out', print],
    );
    assert.equal(printed.status, 0, printed.stderr);
    const printInfo = await pdfSummary(print);
    assert.equal(printInfo.pages, 1);
    const { width, height } = printInfo;
    const bleed = (2 * 3 * 72) / 25.4;
    assert.ok(
      Math.abs(width - (546 + bleed)) < 0.01 && Math.abs(height - (67.5 + bleed)) < 0.01,
      `${width} x ${height} pts`,
    );
  });
});

describe('placard render: changes and sets', () => {
  test('--changes applies element and general changes before drawing', async () => {
    const changes = writeJson({
      elementsChanges: [{ elementName: 'panel', changes: [{ attribute: 'BGCOLOR', value: '#10B981' }] }],
      generalChanges: { backgroundColor: '#FFFFFF' },
    });
    const out = fresh('changed.png');
    const run = await render(SET, '--format', 'png', '--size', 'mrect01', '--changes', changes, '--out', out);
    assert.equal(run.status, 0, run.stderr);
    const image = png(out);
    close(pngPixel(image, 10, 10), [0x10, 0xb9, 0x81]);
    close(pngPixel(image, 200, 200), [255, 255, 255]);
  });

  test('a set without --size writes one file per size (and per slide for rasters) named as exports name them', async () => {
    const out = fresh('set');
    const run = await render(SET, '--format', 'png', '--out', out);
    assert.equal(run.status, 0, run.stderr);
    const names = [`${STEM}-300x250.png`, `${STEM}-728x90-1.png`, `${STEM}-728x90-2.png`];
    assert.deepEqual(fs.readdirSync(out).sort(), names);
    assert.equal(run.stdout, names.map((name) => `${path.join(out, name)}\n`).join(''));
    const [, first, second] = names.map((name) => png(path.join(out, name)));
    assert.deepEqual([first.width, first.height], [728, 90]);
    close(pngPixel(first, 10, 10), ORANGE);
    close(pngPixel(second, 10, 10), NAVY);
    close(pngPixel(second, 700, 80), ORANGE);

    const pdfs = fresh('set-pdf');
    const pdf = await render(SET, '--format', 'pdf', '--out', pdfs);
    assert.equal(pdf.status, 0, pdf.stderr);
    assert.deepEqual(fs.readdirSync(pdfs).sort(), [`${STEM}-300x250.pdf`, `${STEM}-728x90.pdf`]);
    assert.equal((await pdfSummary(path.join(pdfs, `${STEM}-728x90.pdf`))).pages, 2);
  });

  test('sizes that share their dimensions do not overwrite each other', async () => {
    const doc = JSON.parse(fs.readFileSync(SET, 'utf8'));
    doc.sizes[1] = { ...doc.sizes[0], hash: 'mrect02', name: 'Another rectangle' };
    const out = fresh('twins');
    const run = await render(writeJson(doc), '--format', 'webp', '--out', out);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(fs.readdirSync(out).sort(), [`${STEM}-300x250 (2).webp`, `${STEM}-300x250.webp`]);
  });

  test('file names are safe on every OS', () => {
    assert.equal(safeFileStem('  ..Q3: "Best" <deal>?/\\|*\u0007  '), 'Q3_ _Best_ _deal_______');
    assert.equal(safeFileStem('...'), 'design');
    assert.equal(safeFileStem('Été 2026 — 日本'), 'Été 2026 — 日本');
    assert.ok(Buffer.byteLength(safeFileStem('日'.repeat(200))) <= 200);
    assert.equal(exportFileName('Spring', { width: 300, height: 250 }, 0, 'png'), 'Spring-300x250-1.png');
    assert.equal(exportFileName('Spring', { width: 300, height: 250 }, undefined, 'pdf'), 'Spring-300x250.pdf');
  });
});

describe('placard render: invalid input exits 2 with the API code and message', () => {
  test('an invalid document: VALIDATION_FAILED with the message of the document validator', () => {
    const doc = JSON.parse(fs.readFileSync(SET, 'utf8'));
    doc.sizes[0].width = 0;
    doc.sizes[1].slides[0].elements[0].fill = 'orange-ish';
    const file = writeJson(doc);
    const out = fresh('never.png');
    const run = placard(file, '--format', 'png', '--out', out);
    assert.equal(run.status, 2, run.stderr);
    const expected = apiError(() => readDocument(doc));
    assert.match(expected, /^VALIDATION_FAILED: sizes\[0\]\.width: /);
    assert.equal(run.stderr.split('\n')[0], expected);
    assert.match(run.stderr, /\n {2}sizes\[1\]\.slides\[0\]\.elements\[0\]\.fill: must be a colour/);
    assert.equal(fs.existsSync(out), false, 'nothing is written');
  });

  test('invalid changes: the codes and messages of element changes', () => {
    const doc = readDocument(JSON.parse(fs.readFileSync(SET, 'utf8')));
    const cases = [
      [{ elementName: 'panel', changes: [{ attribute: 'BGCOLOR', value: 'red' }] }],
      [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Hi' }] }],
    ];
    const codes: string[] = [];
    for (const elementsChanges of cases) {
      const run = placard(
        SET,
        '--format',
        'png',
        '--out',
        fresh('never.png'),
        '--changes',
        writeJson({ elementsChanges }),
      );
      assert.equal(run.status, 2, run.stderr);
      const expected = apiError(() => applyChanges(doc, elementsChanges, undefined, catalogueFonts));
      assert.equal(run.stderr.split('\n')[0], expected);
      codes.push(expected.split(':')[0]);
    }
    assert.deepEqual(codes, ['INVALID_ELEMENT_CHANGE', 'UNKNOWN_ELEMENT']);
  });

  test('a changes file of the wrong shape is VALIDATION_FAILED, as the request body would be', async () => {
    const changes = writeJson({
      elementsChanges: [{ elementName: 'panel', changes: [{ attribute: 'COLOUR', value: '#FFF' }] }],
    });
    const run = await render(SET, '--format', 'png', '--out', fresh('never.png'), '--changes', changes);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^VALIDATION_FAILED: elementsChanges\[0\]\.changes\[0\]\.attribute: must be one of /);
  });

  test('an unknown --size is UNKNOWN_SIZE_HASH', () => {
    const run = placard(SET, '--format', 'png', '--size', 'zzzzzzz', '--out', fresh('never.png'));
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /^UNKNOWN_SIZE_HASH: --size: 'zzzzzzz' is neither a size hash nor the WxH of a size/);
    assert.match(run.stderr, /its sizes: 300x250 \(mrect01\), 728x90 \(leader1\)/);
  });

  test('a slide the size does not have, a bad flag value, a missing file, an unreadable document', async () => {
    const slide = await render(SET, '--format', 'pdf', '--size', 'mrect01', '--slide', '1', '--out', fresh('n.pdf'));
    assert.equal(slide.status, 2);
    assert.match(slide.stderr, /^VALIDATION_FAILED: exportSettings\.slide\[0\]: slide 1 does not exist/);

    const scale = await render(SET, '--format', 'png', '--scale', 'two', '--out', fresh('n.png'));
    assert.equal(scale.status, 2);
    assert.match(scale.stderr, /--scale must be a number greater than 0 and at most 16, received 'two'/);

    const wide = JSON.parse(fs.readFileSync(SET, 'utf8'));
    wide.sizes[1].width = 1080;
    const tooLarge = await render(writeJson(wide), '--format', 'png', '--scale', '16', '--out', fresh('n'));
    assert.equal(tooLarge.status, 2);
    assert.match(
      tooLarge.stderr,
      /^VALIDATION_FAILED: exportSettings.scale: scale 16 makes a 1080x90 size 17280 px on its longest side/,
    );
    assert.equal(fs.existsSync(fresh('n')), false, 'nothing is written when one size cannot be rendered');

    const missing = await render(fresh('absent.json'), '--format', 'png', '--out', fresh('n.png'));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot read the document .*absent\.json/);

    const garbage = fresh('garbage.json');
    fs.writeFileSync(garbage, '{ "name": ');
    const json = await render(garbage, '--format', 'png', '--out', fresh('n.png'));
    assert.equal(json.status, 2);
    assert.match(json.stderr, /^INVALID_JSON: .*garbage\.json: the document is not valid JSON/);
  });

  test('gif and mp4 of every size, named as exports name them; and html zips per size', async () => {
    const dir = fresh('motion');
    const gif = await render(SET, '--format', 'gif', '--gif-preset', 'static', '--out', dir);
    assert.equal(gif.status, 0, gif.stderr);
    const gifs = fs.readdirSync(dir).sort();
    assert.ok(gifs.length >= 2 && gifs.every((name) => /-\d+x\d+\.gif$/.test(name)), gifs.join(', '));
    for (const name of gifs) assert.equal(fs.readFileSync(path.join(dir, name)).subarray(0, 6).toString(), 'GIF89a');

    const one = JSON.parse(fs.readFileSync(SET, 'utf8'));
    const [w, h] = [one.sizes[0].width, one.sizes[0].height];
    const mp4 = await render(SET, '--format', 'mp4', '--fps', '5', '--size', `${w}x${h}`, '--out', fresh('one.mp4'));
    assert.equal(mp4.status, 0, mp4.stderr);
    assert.equal(fs.readFileSync(fresh('one.mp4')).subarray(4, 8).toString(), 'ftyp');

    const badPreset = await render(SET, '--format', 'gif', '--gif-preset', 'tiny', '--out', fresh('n.gif'));
    assert.equal(badPreset.status, 2);
    assert.match(badPreset.stderr, /--gif-preset must be one of highQuality, optimized, static, received 'tiny'/);

    const htmlDir = fresh('html');
    const html = await render(SET, '--format', 'html', '--network', '3', '--out', htmlDir);
    assert.equal(html.status, 0, html.stderr);
    const zips = fs.readdirSync(htmlDir).filter((name) => name.endsWith('.zip'));
    assert.ok(zips.length >= 2 && zips.every((name) => /-\d+x\d+\.zip$/.test(name)), zips.join(', '));
    for (const name of zips) assert.equal(fs.readFileSync(path.join(htmlDir, name)).subarray(0, 2).toString(), 'PK');

    const meta = placard(SET, '--format', 'html', '--network', '12', '--out', fresh('never.zip'));
    assert.notEqual(meta.status, 0);
    assert.match(meta.stderr, /^VALIDATION_FAILED: .*does not accept HTML5 packages/);
  });
});
