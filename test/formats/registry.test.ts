// Every output format through the registry (issue 13): its settings schema refuses bad values naming the field as the
// API names it, its `check` refuses what the API refuses before an export is created, its defaults are documented
// values, and its render makes a file that is what its content type says.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import sharp from 'sharp';
import { Type } from 'typebox';
import { readDocument } from '../../src/domain/design.schema.js';
import { AppError } from '../../src/errors.js';
import {
  EXPORT_TYPES,
  FORMAT_SETTINGS_PROPERTIES,
  FORMATS,
  findFormat,
  formatOf,
  normaliseType,
  type RenderJob,
  renderJob,
} from '../../src/formats/registry.js';
import { describeValidation } from '../../src/http/validation.js';
import { createAssetFetcher } from '../../src/render/media/assets.js';

const ajv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: true, verbose: true, strict: false });

/** The API's message for exportSettings of one format, or null when they pass. */
function refusal(type: string, exportSettings: unknown): string | null {
  const validate = ajv.compile(Type.Object({ exportSettings: formatOf(type).settings }));
  if (validate({ exportSettings })) return null;
  return describeValidation(validate.errors ?? [], 'body').message;
}

function refused(run: () => void): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  assert.fail('the check accepted it');
}

/** A size of `slides` slides of `seconds` each. */
const size = (width: number, height: number, seconds = 5, slides = 1) =>
  readDocument({
    name: 'D',
    sizes: [
      {
        name: 'S',
        width,
        height,
        backgroundColor: '#336699',
        slides: Array.from({ length: slides }, () => ({ duration: seconds, elements: [] })),
      },
    ],
  }).sizes[0];

describe('the format registry', () => {
  test('knows every type and alias, case-insensitively, and nothing else', () => {
    assert.deepEqual(EXPORT_TYPES, ['png', 'jpg', 'jpeg', 'webp', 'avif', 'pdf', 'gif', 'mp4', 'html', 'html5']);
    assert.equal(normaliseType('JPEG'), 'jpg');
    assert.equal(normaliseType('Html5'), 'html');
    assert.equal(normaliseType('AVIF'), 'avif');
    assert.equal(findFormat('bmp'), undefined);
    assert.throws(() => formatOf('bmp'), /no output format is registered for type "bmp"/);
    assert.equal(new Set(FORMATS.map((f) => f.extension)).size, FORMATS.length, 'one extension per format');
  });

  test('the composed exportSettings describe a shared setting once per format, all optional', () => {
    const quality = FORMAT_SETTINGS_PROPERTIES.quality as { description: string };
    for (const what of ['JPG', 'WEBP', 'AVIF', 'HTML']) assert.match(quality.description, new RegExp(what));
    const validate = ajv.compile(Type.Object(FORMAT_SETTINGS_PROPERTIES, { additionalProperties: false }));
    assert.equal(validate({}), true, JSON.stringify(validate.errors));
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['png', { scale: 0 }, /^exportSettings\.scale: must be > 0/],
    ['png', { scale: 17 }, /^exportSettings\.scale: must be <= 16/],
    ['jpg', { quality: 0 }, /^exportSettings\.quality: must be >= 1/],
    ['webp', { quality: 101 }, /^exportSettings\.quality: must be <= 100/],
    ['avif', { quality: 50.5 }, /^exportSettings\.quality: must be an integer/],
    ['avif', { scale: '2' }, /^exportSettings\.scale: must be a number/],
    ['pdf', { pdfPreset: 'PDF_X' }, /^exportSettings\.pdfPreset: must be one of PDF_STANDARD, PDF_PRINT/],
    ['pdf', { slide: [0, -1] }, /^exportSettings\.slide\[1\]: must be >= 0/],
    ['gif', { gifPreset: 'fast' }, /^exportSettings\.gifPreset: must be one of highQuality/],
    ['mp4', { targetFPS: 61 }, /^exportSettings\.targetFPS: must be <= 60/],
    ['html', { networkId: 0 }, /^exportSettings\.networkId: must be >= 1/],
    ['html', { urlTarget: '_new' }, /^exportSettings\.urlTarget: must be one of _blank/],
  ];
  for (const [type, settings, message] of bad) {
    test(`${type}: ${JSON.stringify(settings)} is refused naming the field`, () => {
      const answer = refusal(type, settings);
      assert.ok(answer, 'refused');
      assert.match(answer, message);
    });
  }

  test('defaults are the documented ones, and settings of other formats are ignored', () => {
    const given = { quality: 33, scale: 2, gifPreset: 'static', targetFPS: 12, pdfPreset: 'PDF_PRINT' } as never;
    assert.deepEqual(formatOf('png').defaults({} as never), { scale: 1 });
    assert.deepEqual(formatOf('jpg').defaults({} as never), { scale: 1, quality: 90 });
    assert.deepEqual(formatOf('webp').defaults({} as never), { scale: 1, quality: 90 });
    assert.deepEqual(formatOf('avif').defaults({} as never), { scale: 1, quality: 50 });
    assert.deepEqual(formatOf('avif').defaults(given), { scale: 2, quality: 33 });
    assert.deepEqual(formatOf('pdf').defaults({ slide: [2, 0, 2] } as never), {
      pdfPreset: 'PDF_STANDARD',
      slide: [0, 2],
    });
    assert.deepEqual(formatOf('gif').defaults(given), { gifPreset: 'static' });
    assert.deepEqual(formatOf('mp4').defaults({} as never), { targetFPS: 30 });
    assert.equal((formatOf('html').defaults({} as never) as { quality: number }).quality, 80);
  });

  test('each check refuses what the API refuses, with its code and the field', () => {
    const wide = size(1080, 1080);
    for (const type of ['png', 'jpg', 'webp', 'avif']) {
      const format = formatOf(type);
      const error = refused(() => format.check(wide, format.defaults({ scale: 16 } as never) as never));
      assert.equal(error.code, 'VALIDATION_FAILED');
      assert.match(error.message, /^exportSettings\.scale: scale 16 makes a 1080x1080 size 17280 px/);
      assert.equal(error.details?.[0].path, '/exportSettings/scale');
      format.check(wide, format.defaults({ scale: 14 } as never) as never);
    }
    const pdf = formatOf('pdf');
    const slide = refused(() => pdf.check(wide, pdf.defaults({ slide: [3] } as never) as never));
    assert.equal(slide.code, 'VALIDATION_FAILED');
    assert.match(slide.message, /^exportSettings\.slide\[0\]: slide 3 does not exist/);
    const long = size(300, 250, 200, 2);
    for (const type of ['gif', 'mp4']) {
      const format = formatOf(type);
      const error = refused(() => format.check(long, format.defaults({} as never) as never));
      assert.equal(error.code, 'UNPROCESSABLE');
      assert.match(error.message, new RegExp(`^type: ${type} plays the slides of 300x250 for 400 s`));
    }
    formatOf('gif').check(long, { gifPreset: 'static' } as never); // one frame: no duration limit
    const html = formatOf('html');
    const network = refused(() => html.check(wide, html.defaults({ networkId: 999999 } as never) as never));
    assert.equal(network.code, 'VALIDATION_FAILED');
    assert.match(network.message, /^exportSettings\.networkId 999999 is not an ad network/);
  });

  test('the still formats render a file of their content type through the registry', async () => {
    const document = readDocument({
      name: 'D',
      sizes: [{ name: 'S', width: 40, height: 30, backgroundColor: '#336699', slides: [{ elements: [] }] }],
    });
    const fetcher = createAssetFetcher({ allowPrivateUrls: false });
    const expected: Record<string, string> = { png: 'png', jpg: 'jpeg', webp: 'webp', avif: 'heif' };
    for (const [type, decoded] of Object.entries(expected)) {
      const format = formatOf(type);
      const job = {
        document,
        sizeIndex: 0,
        slideIndex: 0,
        format: format.type,
        settings: format.defaults({ scale: 2 } as never),
      } as RenderJob;
      const { bytes } = await renderJob(job, { fetcher });
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.format, decoded, type);
      assert.deepEqual([meta.width, meta.height], [80, 60], `${type}: scale 2`);
      const { data } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      for (const [i, want] of [0x33, 0x66, 0x99].entries()) {
        assert.ok(Math.abs(data[i] - want) <= 4, `${type}: the background, channel ${i} is ${data[i]}`);
      }
    }
  });
});
