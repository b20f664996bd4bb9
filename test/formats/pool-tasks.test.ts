// Work other than renders on the render threads (issues 17 and 20): an uploaded font file is read (parsed, checked,
// its variable instances made static) on a worker thread, never on this one, and a broken file is refused there with
// its reason; preflight of a variant runs there too and finds what it finds on this thread.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { AppError } from '../../src/errors.js';
import { createRenderPool, type RenderPool } from '../../src/formats/pool.js';
import { preflightVariant } from '../../src/formats/preflight/variant.js';
import { FontFileError } from '../../src/render/text/brand-font-file.js';
import { catalogueFonts } from '../../src/render/text/fonts.js';
import { startTestApp } from '../helpers/app.js';
import { FIXTURES, type FixtureMedia, startFixtureMedia } from './preflight/fixtures.js';

const FONTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/fonts');
const serif = fs.readFileSync(path.join(FONTS, 'DejaVuSerif.ttf'));
const variable = fs.readFileSync(path.join(FONTS, 'InterDisplay-Variable.ttf'));

/** The font with its loca table overwritten by noise: glyph offsets pointing anywhere. */
function fuzzedLoca(font: Buffer): Buffer {
  const copy = Buffer.from(font);
  for (let i = 0; i < copy.readUInt16BE(4); i++) {
    const record = 12 + i * 16;
    if (copy.toString('latin1', record, record + 4) !== 'loca') continue;
    const offset = copy.readUInt32BE(record + 8);
    for (let j = 0; j < copy.readUInt32BE(record + 12); j += 2) copy.writeUInt16BE((j * 7919) & 0xffff, offset + j);
    return copy;
  }
  throw new Error('no loca table');
}

/** A font whose maxp claims 65 535 glyphs. */
function absurdGlyphCount(font: Buffer): Buffer {
  const copy = Buffer.from(font);
  for (let i = 0; i < copy.readUInt16BE(4); i++) {
    const record = 12 + i * 16;
    if (copy.toString('latin1', record, record + 4) !== 'maxp') continue;
    copy.writeUInt16BE(0xffff, copy.readUInt32BE(record + 8) + 4);
    return copy;
  }
  throw new Error('no maxp table');
}

let pool: RenderPool;
let media: FixtureMedia;
before(async () => {
  pool = createRenderPool({ threads: 1, allowPrivateUrls: true });
  media = await startFixtureMedia();
});
after(async () => {
  await pool.close();
  await media.close();
});

describe('font files are read on a render thread', () => {
  test('a TrueType file: its face, read by another thread, handed back as Buffers', async () => {
    const font = await pool.readFont(serif, 'serif.ttf');
    assert.notEqual(font.threadId, threadId, 'read on a worker thread, not this one');
    assert.notEqual(font.threadId, 0);
    assert.equal(font.format, 'ttf');
    assert.deepEqual(
      font.faces.map((f) => [f.family, f.variant]),
      [['DejaVu Serif', '400']],
    );
    assert.ok(Buffer.isBuffer(font.faces[0]!.bytes));
    assert.ok(font.faces[0]!.bytes.equals(serif));
  });

  test('a variable font: one static file per named instance (no fvar table left)', async () => {
    const font = await pool.readFont(variable, 'inter-display.ttf');
    assert.notEqual(font.threadId, threadId);
    assert.equal(font.faces.length, 9);
    for (const face of font.faces) {
      const tables = new Set<string>();
      for (let i = 0; i < face.bytes.readUInt16BE(4); i++)
        tables.add(face.bytes.toString('latin1', 12 + i * 16, 16 + i * 16));
      assert.ok(!tables.has('fvar') && !tables.has('gvar'), `${face.variant} is static: ${[...tables].join(' ')}`);
      assert.ok(tables.has('glyf'));
    }
    assert.equal(new Set(font.faces.map((f) => f.bytes.toString('base64'))).size, 9);
  });

  test('malicious files are refused with their reason, and the thread lives on', async () => {
    const refused = async (bytes: Buffer, pattern: RegExp) =>
      assert.rejects(pool.readFont(bytes, 'evil.ttf'), (error: unknown) => {
        assert.ok(error instanceof FontFileError, String(error));
        assert.match(error.message, pattern);
        return true;
      });
    await refused(Buffer.from('%PDF-1.7 not a font at all'), /is not a font file/);
    await refused(serif.subarray(0, 3000), /damaged|malformed|past the end|locates/);
    await refused(fuzzedLoca(serif), /loca|malformed|outline|advance/);
    await refused(absurdGlyphCount(serif), /glyphs|loca|malformed/);
    await refused(Buffer.concat([serif, Buffer.alloc(10 * 1024 * 1024)]), /at most 10 MB/);
    // The same thread still reads a good file.
    assert.equal((await pool.readFont(serif, 'again.ttf')).faces.length, 1);
  });
});

describe('preflight runs on a render thread', () => {
  test('it finds on the thread what it finds here', async () => {
    const document = media.document(FIXTURES.TEXT_OVERFLOW.trigger);
    const here = await preflightVariant(document, {}, { fonts: catalogueFonts, fetcher: media.fetcher });
    const there = await pool.preflight({ document, request: {} });
    assert.notEqual(there.threadId, threadId);
    assert.deepEqual(
      there.findings.map((f) => [f.code, f.elementName]),
      here.findings.map((f) => [f.code, f.elementName]),
    );
    assert.ok(there.findings.some((f) => f.code === 'TEXT_OVERFLOW'));
    assert.deepEqual(there.summary, here.summary);
  });

  test('a request error keeps its code and details across the thread', async () => {
    const document = media.document(FIXTURES.TEXT_OVERFLOW.pass);
    await assert.rejects(pool.preflight({ document, request: { allowedSizeHashesOnly: ['nope'] } }), (error) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'UNKNOWN_SIZE_HASH');
      assert.equal(error.details?.[0]?.path, '/allowedSizeHashesOnly/0');
      return true;
    });
  });
});

describe('the app hands uploads and preflight to the render threads', () => {
  test('a multipart upload is read by RenderPool.readFont on a worker thread; a broken file still fails alone', async () => {
    const reads: Array<{ fileName: string; threadId?: number; refused?: string }> = [];
    const preflights: number[] = [];
    const watched: RenderPool = {
      ...pool,
      threads: pool.threads,
      render: (job, options) => pool.render(job, options),
      renderFiles: (job, options) => pool.renderFiles(job, options),
      queued: () => pool.queued(),
      close: async () => {},
      async readFont(bytes, fileName, options) {
        try {
          const font = await pool.readFont(bytes, fileName, options);
          reads.push({ fileName, threadId: font.threadId });
          return font;
        } catch (error) {
          reads.push({ fileName, refused: (error as Error).message });
          throw error;
        }
      },
      async preflight(task, options) {
        const report = await pool.preflight(task, options);
        preflights.push(report.threadId);
        return report;
      },
    };
    const t = await startTestApp({ renderPool: watched });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const kit = (
        await t.app.inject({
          method: 'POST',
          url: '/v1/brandkits/create',
          headers: t.owner.headers,
          payload: { name: 'Kit' },
        })
      ).json().response.brandKit.id;
      const form = new FormData();
      form.append('file', new Blob([serif]), 'serif.ttf');
      form.append('file', new Blob([fuzzedLoca(serif)]), 'evil.ttf');
      const res = await fetch(`${origin}/v1/brandkit/${kit}/fonts`, {
        method: 'POST',
        headers: t.owner.headers,
        body: form,
      });
      const body = (await res.json()) as { response: { fonts: Array<{ family?: string; error?: string }> } };
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.response.fonts[0]!.family, 'DejaVu Serif');
      assert.match(body.response.fonts[1]!.error ?? '', /evil\.ttf/);
      assert.deepEqual(
        reads.map((r) => r.fileName),
        ['serif.ttf', 'evil.ttf'],
      );
      assert.ok(reads[0]!.threadId !== undefined && reads[0]!.threadId !== threadId, 'read on a worker thread');
      assert.ok(reads[1]!.refused, 'the broken file was refused on the thread');

      const imported = await t.app.inject({
        method: 'POST',
        url: '/v1/templates/import',
        headers: t.owner.headers,
        payload: {
          projectId: (
            await t.app.inject({
              method: 'POST',
              url: '/v1/projects',
              headers: t.owner.headers,
              payload: { name: 'P', brandKitId: kit },
            })
          ).json().response.project.id,
          name: 'Overflow',
          document: media.document(FIXTURES.TEXT_OVERFLOW.trigger),
        },
      });
      assert.equal(imported.statusCode, 200, imported.body);
      const checked = await t.app.inject({
        method: 'POST',
        url: `/v1/templates/${imported.json().response.template.id}/preflight`,
        headers: t.owner.headers,
        payload: {},
      });
      assert.equal(checked.statusCode, 200, checked.body);
      assert.ok(checked.json().response.findings.some((f: { code: string }) => f.code === 'TEXT_OVERFLOW'));
      assert.equal(preflights.length, 1);
      assert.notEqual(preflights[0], threadId);
    } finally {
      await t.close();
    }
  });
});
