// Brand fonts (issue 17) through the whole stack, with real font files (DejaVu, test/fixtures/fonts, free licence):
// multipart and link uploads read family and variant from the files; exports draw with the team's font (pixels
// differ from Inter and match a golden), the PDF embeds it (read back with pdf.js), another team never sees it and its own
// same-named family draws differently; a non-embeddable font fails the PDF; bad files fail alone and store nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as fontkit from 'fontkit';
import subsetFont from 'subset-font';
import { createFontFetcher } from '../../../src/render/media/font-fetch.js';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';
import { pdfFonts, pdfText } from '../../helpers/pdf.js';
import { readZip } from '../../helpers/zip.js';
import { expectGolden } from '../../render/golden.js';
import { type MediaServer, startMediaServer } from '../../render/media-fixtures.js';
import { decodePng, type Pixels } from '../../render/pixels.js';

const FONTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/fonts');
const serif = fs.readFileSync(path.join(FONTS, 'DejaVuSerif.ttf'));
const serifBold = fs.readFileSync(path.join(FONTS, 'DejaVuSerif-Bold.ttf'));
const mono = fs.readFileSync(path.join(FONTS, 'DejaVuSansMono.ttf'));
// An OpenType font with CFF outlines (Debian's fonts-lobstertwo, OFL) and a variable TrueType font with nine named
// instances on its wght axis (Inter Display from Debian's fonts-inter-variable, OFL, cut to Latin with subset-font).
const lobster = fs.readFileSync(path.join(FONTS, 'LobsterTwo-Regular.otf'));
const variable = fs.readFileSync(path.join(FONTS, 'InterDisplay-Variable.ttf'));

/** Pixels darker than mid grey: how much ink a text put down. */
function inkOf(image: Pixels): number {
  let count = 0;
  for (let y = 0; y < image.height; y++) for (let x = 0; x < image.width; x++) if (image.at(x, y)[0]! < 128) count += 1;
  return count;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any;

/** A copy of a TrueType font whose OS/2 fsType says "restricted licence embedding" (bit 1). */
function restricted(font: Buffer): Buffer {
  const copy = Buffer.from(font);
  const tables = copy.readUInt16BE(4);
  for (let i = 0; i < tables; i++) {
    const record = 12 + i * 16;
    if (copy.toString('latin1', record, record + 4) === 'OS/2') {
      copy.writeUInt16BE(0x0002, copy.readUInt32BE(record + 8) + 8);
      return copy;
    }
  }
  throw new Error('no OS/2 table');
}

/** The font with its loca table overwritten by noise: glyph offsets pointing anywhere. */
function fuzzedLoca(font: Buffer): Buffer {
  const copy = Buffer.from(font);
  const tables = copy.readUInt16BE(4);
  for (let i = 0; i < tables; i++) {
    const record = 12 + i * 16;
    if (copy.toString('latin1', record, record + 4) === 'loca') {
      const offset = copy.readUInt32BE(record + 8);
      const length = copy.readUInt32BE(record + 12);
      for (let j = 0; j < length; j += 2) copy.writeUInt16BE((j * 7919) & 0xffff, offset + j);
      return copy;
    }
  }
  throw new Error('no loca table');
}

function differingPixels(a: Pixels, b: Pixels): number {
  let count = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) if (a.at(x, y)[0] !== b.at(x, y)[0]) count += 1;
  }
  return count;
}

function textDesign(family: string, text = 'Hamburg 1234', variant = '400') {
  return {
    name: 'Type',
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
                text,
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
  };
}

describe('brand fonts over HTTP', () => {
  let t: TestApp;
  let origin: string;
  let media: MediaServer;
  let kit: number;
  let project: number;
  let other: Caller & { teamId: number };
  let otherProject: number;
  let otherKit: number;

  async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = t.owner.headers) {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text, json: (text ? JSON.parse(text) : null) as Json };
  }

  async function ok(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
    const res = await api(method, url, body, headers);
    assert.equal(res.status, 200, `${method} ${url}: ${res.body}`);
    return res.json.response;
  }

  async function uploadFiles(kitId: number, files: Array<[string, Buffer]>, headers = t.owner.headers) {
    const form = new FormData();
    for (const [name, bytes] of files) form.append('file', new Blob([bytes]), name);
    const res = await fetch(`${origin}/v1/brandkit/${kitId}/fonts`, { method: 'POST', headers, body: form });
    const text = await res.text();
    return { status: res.status, body: text, json: JSON.parse(text) as Json };
  }

  async function exportOf(hash: string, type: string, headers?: Record<string, string>) {
    const created = (await ok('POST', '/v1/export', { creativeHash: hash, type }, headers)).export;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = await ok('GET', `/v1/export/${created.id}`, undefined, headers);
      if (!['pending', 'inProgress'].includes(found.status)) return found;
      if (Date.now() > deadline) throw new Error(`export ${created.id} still ${found.status}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function fileOf(done: Json, headers?: Record<string, string>): Promise<Buffer> {
    assert.equal(done.status, 'complete', JSON.stringify(done.errorLog));
    const file = await t.download(done.creatives[0].url);
    assert.equal(file.status, 200);
    void headers;
    return file.body;
  }

  async function fontRows(): Promise<number> {
    const row = await t.runtime.db.kysely
      .selectFrom('brand_fonts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n);
  }

  before(async () => {
    media = await startMediaServer();
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    kit = (await ok('POST', '/v1/brandkits/create', { name: 'Brand' })).brandKit.id;
    project = (await ok('POST', '/v1/projects', { name: 'Ads', brandKitId: kit })).project.id;
    other = await t.newTeam('Rival');
    otherKit = (await ok('POST', '/v1/brandkits/create', { name: 'Rival kit' }, other.headers)).brandKit.id;
    otherProject = (await ok('POST', '/v1/projects', { name: 'Rival ads', brandKitId: otherKit }, other.headers))
      .project.id;
    // The rival uploads a different file under the same family name: DejaVu Serif Bold only.
    const rival = await uploadFiles(otherKit, [['rival.ttf', serifBold]], other.headers);
    assert.equal(rival.status, 200, rival.body);
  });

  after(async () => {
    await t?.close();
    await media?.close();
  });

  test('multipart upload: one face per file, family and variant from the name and OS/2 tables', async () => {
    const res = await uploadFiles(kit, [
      ['serif-regular.bin', serif],
      ['serif-bold.ttf', serifBold],
    ]);
    assert.equal(res.status, 200, res.body);
    const fonts = res.json.response.fonts;
    assert.deepEqual(
      fonts.map((f: Json) => [f.family, f.variant, f.style, f.weight, f.format, f.embeddable, f.fileName]),
      [
        ['DejaVu Serif', '400', 'normal', 400, 'ttf', true, 'serif-regular.bin'],
        ['DejaVu Serif', '700', 'normal', 700, 'ttf', true, 'serif-bold.ttf'],
      ],
    );
    assert.ok(fonts[0].glyphCount > 3000);
    assert.ok(Number.isInteger(fonts[0].id));

    const listed = await ok('GET', `/v1/brandkit/${kit}/fonts`);
    assert.equal(listed.totalCount, 2);
    assert.deepEqual(listed.nodes.map((f: Json) => f.id).sort(), fonts.map((f: Json) => f.id).sort());
    assert.equal(typeof listed.pageInfo.hasNextPage, 'boolean');
  });

  test('upload by link: a WOFF2 is recognised by content; a failed source carries its error, the others are stored', async () => {
    const woff2 = await subsetFont(mono, 'Hamburg 1234 Monospace', { targetFormat: 'woff2' });
    media.route('/fonts/mono', (_req, res) => {
      res.writeHead(200).end(woff2);
    });
    media.route('/fonts/not-a-font.ttf', (_req, res) => {
      res.writeHead(200).end('<html>hello</html>');
    });
    const before = await fontRows();
    const answer = await ok('POST', '/v1/brandkit/uploadFonts', {
      brandkitId: kit,
      sources: [`${media.origin}/fonts/mono`, `${media.origin}/fonts/not-a-font.ttf`, `${media.origin}/fonts/missing`],
    });
    const [stored, notFont, missing] = answer.fonts;
    assert.equal(stored.family, 'DejaVu Sans Mono');
    assert.equal(stored.variant, '400');
    assert.equal(stored.format, 'woff2');
    assert.equal(notFont.code, 'FONT_REJECTED');
    assert.match(notFont.error, /not-a-font\.ttf is not a font file/);
    assert.equal(missing.code, 'SOURCE_REJECTED');
    assert.match(missing.error, /HTTP 404/);
    assert.equal(await fontRows(), before + 1);
  });

  test('bad files: not a font, truncated, fuzzed tables, over 10 MB, a face the kit has — each fails alone, nothing changes', async () => {
    const before = await fontRows();
    const big = Buffer.concat([serif, Buffer.alloc(10 * 1024 * 1024)]);
    const res = await uploadFiles(kit, [
      ['notes.ttf', Buffer.from('this is not a font at all, just text')],
      ['truncated.ttf', serif.subarray(0, 4000)],
      ['fuzzed.ttf', fuzzedLoca(mono)],
      ['huge.ttf', big],
      ['again.ttf', serif],
    ]);
    assert.equal(res.status, 200, res.body);
    const fonts = res.json.response.fonts as Json[];
    assert.deepEqual(
      fonts.map((f) => f.code),
      ['FONT_REJECTED', 'FONT_REJECTED', 'FONT_REJECTED', 'FONT_REJECTED', 'FONT_REJECTED'],
    );
    assert.match(fonts[0].error, /notes\.ttf is not a font file/);
    assert.match(fonts[1].error, /truncated\.ttf/);
    assert.match(fonts[2].error, /fuzzed\.ttf/);
    assert.match(fonts[3].error, /huge\.ttf is larger than the 10 MB/);
    assert.match(fonts[4].error, /already has DejaVu Serif 400/);
    assert.equal(await fontRows(), before);

    const none = await uploadFiles(kit, []);
    assert.equal(none.status, 400);
    const json = await api('POST', `/v1/brandkit/${kit}/fonts`, { file: 'x' });
    assert.equal(json.status, 415);
    const foreign = await uploadFiles(kit, [['x.ttf', serif]], other.headers);
    assert.equal(foreign.status, 404);
    const viewer = await t.userWith('Viewer');
    assert.equal((await uploadFiles(kit, [['x.ttf', mono]], viewer.headers)).status, 403);
  });

  test('the guarded fetcher refuses a private address', async () => {
    const fetcher = createFontFetcher({ allowPrivateUrls: false });
    await assert.rejects(fetcher.fetch(`${media.origin}/fonts/mono`), (error: Json) => {
      assert.equal(error.code, 'SOURCE_REJECTED');
      assert.match(error.message, /private|loopback|127\.0\.0\.1/i);
      return true;
    });
  });

  test('the fonts lists: GET /v1/fonts marks the team’s families, fontVariants answers their variants', async () => {
    const fonts = await ok('GET', '/v1/fonts');
    const serifEntry = fonts.find((f: Json) => f.fontFamily === 'DejaVu Serif');
    assert.deepEqual(serifEntry.variants, ['400', '700']);
    assert.equal(serifEntry.team, true);
    assert.ok(fonts.find((f: Json) => f.fontFamily === 'Inter'));
    const variants = await ok('GET', '/v1/templates/fontVariants?fontFamily=dejavu%20serif');
    assert.deepEqual(variants, [{ fontFamily: 'DejaVu Serif', variants: ['400', '700'] }]);
    const rivalVariants = await ok(
      'GET',
      '/v1/templates/fontVariants?fontFamily=DejaVu%20Serif',
      undefined,
      other.headers,
    );
    assert.deepEqual(rivalVariants, [{ fontFamily: 'DejaVu Serif', variants: ['700'] }]);
  });

  test('a PNG drawn with the brand font differs from Inter, matches its golden, and the rival team draws its own', async () => {
    const brand = (
      await ok('POST', '/v1/templates/import', {
        projectId: project,
        name: 'Brand',
        document: textDesign('DejaVu Serif'),
      })
    ).template.id;
    const inter = (
      await ok('POST', '/v1/templates/import', { projectId: project, name: 'Inter', document: textDesign('Inter') })
    ).template.id;
    const brandPng = await fileOf(await exportOf(brand, 'PNG'));
    const interPng = await fileOf(await exportOf(inter, 'PNG'));
    expectGolden('brand-font-dejavu-serif', brandPng);
    const a = decodePng(brandPng);
    const differing = differingPixels(a, decodePng(interPng));
    assert.ok(differing > 500, `only ${differing} pixels differ from Inter`);

    const rival = (
      await ok(
        'POST',
        '/v1/templates/import',
        { projectId: otherProject, name: 'Rival', document: textDesign('DejaVu Serif') },
        other.headers,
      )
    ).template.id;
    const rivalPng = await fileOf(await exportOf(rival, 'PNG', other.headers), other.headers);
    const rivalDiffering = differingPixels(a, decodePng(rivalPng));
    assert.ok(rivalDiffering > 500, 'the rival’s bold file is not the first team’s regular one');
    // And the first team still draws its own after the rival's registration.
    expectGolden('brand-font-dejavu-serif', await fileOf(await exportOf(brand, 'PNG')));
  });

  test('the thumbnail of a design in the brand font is drawn with it', async () => {
    const thumbOf = async (family: string) => {
      const template = (
        await ok('POST', '/v1/templates/import', { projectId: project, name: family, document: textDesign(family) })
      ).template;
      // Imports answer before their thumbnail exists (issue 14): it is listed once the background job drew it.
      await t.runtime.jobs.idle();
      const listed = await ok(
        'GET',
        `/v1/templates?projectId=${project}&keyword=${encodeURIComponent(family)}&exactSearch=true`,
      );
      const node = listed.nodes.find((n: { id: string }) => n.id === template.id);
      const file = await t.download(node.thumbUrl);
      assert.equal(file.status, 200);
      return decodePng(file.body);
    };
    const brand = await thumbOf('DejaVu Serif');
    const inter = await thumbOf('Inter');
    assert.ok(differingPixels(brand, inter) > 500);
  });

  test('the PDF embeds the brand font', async () => {
    const brand = (
      await ok('POST', '/v1/templates/import', {
        projectId: project,
        name: 'Pdf',
        document: textDesign('DejaVu Serif'),
      })
    ).template.id;
    const pdf = await fileOf(await exportOf(brand, 'PDF'));
    const fonts = pdfFonts(pdf);
    const font = fonts.find((f) => /DejaVuSerif/.test(f.name ?? ''));
    assert.ok(font, JSON.stringify(fonts));
    assert.equal(font.embedded, true, 'embedded');
  });

  test('the HTML5 package carries a subset of the brand font as its web font', async () => {
    const brand = (
      await ok('POST', '/v1/templates/import', {
        projectId: project,
        name: 'Html',
        document: textDesign('DejaVu Serif'),
      })
    ).template.id;
    const zip = await readZip(await fileOf(await exportOf(brand, 'html5')));
    const fonts = [...zip.entries()].filter(([name]) => /\.woff2?$/.test(name));
    assert.equal(fonts.length, 1, [...zip.keys()].join(', '));
    const face = fontkit.create(fonts[0]![1]) as fontkit.Font;
    assert.equal(face.familyName, 'DejaVu Serif');
    // Subset to the characters shown ("Hamburg 1234": 11 distinct) plus .notdef, not the 3,400 glyphs of the file.
    assert.ok(face.numGlyphs < 40, `${face.numGlyphs} glyphs`);
    const html = zip.get('index.html')!.toString('utf8');
    assert.doesNotMatch(html, /PlacardBrand/, 'the internal family name never reaches the package');
  });

  test('the share page plays the package with the brand font', async () => {
    const hash = (
      await ok('POST', '/v1/templates/import', {
        projectId: project,
        name: 'Shared',
        document: textDesign('DejaVu Serif'),
      })
    ).template.id;
    const link = new URL((await ok('GET', `/v1/shareLink/${hash}`)).shareLinkUrl);
    const base = `${origin}${link.pathname}/0`;
    const html = await (await fetch(`${base}/index.html`)).text();
    const fontFile = /[\w./-]+\.woff2?/.exec(html)?.[0];
    assert.ok(fontFile, html.slice(0, 500));
    const res = await fetch(`${base}/${fontFile.replace(/^\.?\//, '')}`);
    assert.equal(res.status, 200);
    const face = fontkit.create(Buffer.from(await res.arrayBuffer())) as fontkit.Font;
    assert.equal(face.familyName, 'DejaVu Serif');
  });

  test('brand kit typography entries point at uploaded fonts by fontId; another team’s fontId is a 422', async () => {
    const listed = await ok('GET', `/v1/brandkit/${kit}/fonts`);
    const bold = listed.nodes.find((f: Json) => f.family === 'DejaVu Serif' && f.variant === '700');
    const entry = { fontId: bold.id, fontName: 'DejaVu Serif', fontSize: 32, fontWeight: '700', type: 'heading' };
    const updated = await ok('PUT', '/v1/brandkits', { brandkitId: kit, name: 'Brand', typography: [entry] });
    assert.deepEqual(updated.brandKit.typography, [entry]);
    const projectView = await ok('PUT', '/v1/projects', { projectId: project, name: 'Ads' });
    assert.deepEqual(projectView.project.brandKit.typography, [entry]);
    const rivalFont = (await ok('GET', `/v1/brandkit/${otherKit}/fonts`, undefined, other.headers)).nodes[0]
      .id as number;
    const foreign = await api('PUT', '/v1/brandkits', {
      brandkitId: kit,
      name: 'Brand',
      typography: [{ ...entry, fontId: rivalFont }],
    });
    assert.equal(foreign.status, 422);
    assert.match(foreign.json.error, /typography\[0\]\.fontId/);
    assert.deepEqual((await ok('PUT', '/v1/brandkits', { brandkitId: kit, name: 'Brand' })).brandKit.typography, [
      entry,
    ]);
  });

  test('deleting a brand kit removes the font files no other kit of the team holds', async () => {
    const doomed = (await ok('POST', '/v1/brandkits/create', { name: 'Doomed' })).brandKit.id;
    const own = await subsetFont(serifBold, 'Doomed only', { targetFormat: 'woff2' });
    const up = await uploadFiles(doomed, [
      ['own.woff2', own],
      ['shared.ttf', serif],
    ]);
    assert.equal(up.status, 200, up.body);
    const keys = await t.runtime.db.kysely
      .selectFrom('brand_fonts')
      .select(['blob_key', 'file_name'])
      .where('brand_kit_id', '=', doomed)
      .execute();
    const key = (name: string) => keys.find((row) => row.file_name === name)!.blob_key;
    assert.ok(await t.runtime.blobs.get(key('own.woff2')));
    assert.deepEqual(await ok('DELETE', '/v1/brandkits', { brandkitId: doomed }), { status: 'success' });
    assert.equal(await t.runtime.blobs.get(key('own.woff2')), null);
    assert.ok(await t.runtime.blobs.get(key('shared.ttf')), 'the Brand kit still draws with DejaVu Serif 400');
  });

  test('FONTFAMILY and FONTVARIANT accept the team’s families only', async () => {
    const inter = (
      await ok('POST', '/v1/templates/import', { projectId: project, name: 'Switch', document: textDesign('Inter') })
    ).template.id;
    const change = (changes: Array<{ attribute: string; value: string }>, headers?: Record<string, string>) =>
      api(
        'POST',
        '/v1/export-with-changes',
        { templateHash: inter, type: 'png', elementsChanges: [{ elementName: 'headline', changes }] },
        headers,
      );
    const good = await change([
      { attribute: 'FONTFAMILY', value: 'dejavu serif' },
      { attribute: 'FONTVARIANT', value: '700' },
    ]);
    assert.equal(good.status, 200, good.body);
    const missingVariant = await change([
      { attribute: 'FONTFAMILY', value: 'DejaVu Serif' },
      { attribute: 'FONTVARIANT', value: '300' },
    ]);
    assert.equal(missingVariant.status, 422);
    assert.equal(missingVariant.json.code, 'FONT_VARIANT_UNAVAILABLE');
    assert.match(missingVariant.json.error, /400, 700/);
    const unknown = await change([{ attribute: 'FONTFAMILY', value: 'Acme Grotesk' }]);
    assert.equal(unknown.status, 422);
    assert.match(unknown.json.error, /FONTFAMILY needs a family of the font catalogue/);
    // The rival team has DejaVu Serif 700 only: 400 is not one of its variants.
    const rival = (
      await ok(
        'POST',
        '/v1/templates/import',
        { projectId: otherProject, name: 'Rival switch', document: textDesign('Inter') },
        other.headers,
      )
    ).template.id;
    const rivalChange = await api(
      'POST',
      '/v1/export-with-changes',
      {
        templateHash: rival,
        type: 'png',
        elementsChanges: [
          {
            elementName: 'headline',
            changes: [
              { attribute: 'FONTFAMILY', value: 'DejaVu Serif' },
              { attribute: 'FONTVARIANT', value: '400' },
            ],
          },
        ],
      },
      other.headers,
    );
    assert.equal(rivalChange.status, 422, rivalChange.body);
    assert.equal(rivalChange.json.code, 'FONT_VARIANT_UNAVAILABLE');
  });

  test('a font whose fsType forbids embedding draws in PNG and fails the PDF with FONT_NOT_EMBEDDABLE; the project’s kit wins', async () => {
    const strictKit = (await ok('POST', '/v1/brandkits/create', { name: 'Strict' })).brandKit.id;
    const strictProject = (await ok('POST', '/v1/projects', { name: 'Strict ads', brandKitId: strictKit })).project.id;
    const up = await uploadFiles(strictKit, [['mono-restricted.ttf', restricted(mono)]]);
    assert.equal(up.status, 200, up.body);
    assert.equal(up.json.response.fonts[0].embeddable, false);
    const importTo = async (projectId: number) =>
      (
        await ok('POST', '/v1/templates/import', {
          projectId,
          name: 'Strict',
          document: textDesign('DejaVu Sans Mono'),
        })
      ).template.id;
    const strict = await importTo(strictProject);
    assert.equal((await exportOf(strict, 'PNG')).status, 'complete');
    const pdf = await exportOf(strict, 'PDF');
    assert.equal(pdf.status, 'failed');
    assert.equal(pdf.errorLog.code, 'FONT_NOT_EMBEDDABLE');
    assert.match(pdf.errorLog.failures[0].message, /DejaVu Sans Mono.*mono-restricted\.ttf/);
    // The first project's kit holds its own (embeddable) DejaVu Sans Mono 400 from the link upload: it wins there.
    assert.equal((await exportOf(await importTo(project), 'PDF')).status, 'complete');
  });

  test('deleting a font that a design uses is allowed; the export falls back and says so in warnings', async () => {
    const tempKit = (await ok('POST', '/v1/brandkits/create', { name: 'Temp' })).brandKit.id;
    const up = await uploadFiles(tempKit, [['bold.ttf', serifBold]]);
    const font = up.json.response.fonts[0];
    const doc = textDesign('DejaVu Serif');
    doc.sizes[0]!.slides[0]!.elements[0]!.fontFamily = 'Gone Sans';
    const hash = (await ok('POST', '/v1/templates/import', { projectId: project, name: 'Gone', document: doc }))
      .template.id;
    assert.equal(
      (await api('DELETE', '/v1/brandkit/fonts', { brandkitId: tempKit, fontId: font.id }, other.headers)).status,
      404,
    );
    assert.deepEqual(await ok('DELETE', '/v1/brandkit/fonts', { brandkitId: tempKit, fontId: font.id }), {
      status: 'success',
    });
    assert.equal((await api('DELETE', '/v1/brandkit/fonts', { brandkitId: tempKit, fontId: font.id })).status, 404);
    const done = await exportOf(hash, 'PNG');
    assert.equal(done.status, 'complete');
    const creative = await t.runtime.db.kysely
      .selectFrom('export_creatives')
      .select('warnings')
      .where('export_id', '=', done.id)
      .executeTakeFirstOrThrow();
    assert.match(String(creative.warnings), /Gone Sans.*not available/);
  });

  test('an OTF (CFF outlines) is read, drawn and embedded: family and variant from the file, pixels unlike Inter, the PDF embeds it', async () => {
    const res = await uploadFiles(kit, [['lobster.dat', lobster]]);
    assert.equal(res.status, 200, res.body);
    const [font] = res.json.response.fonts;
    assert.deepEqual(
      [font.family, font.variant, font.style, font.weight, font.format, font.embeddable, font.variation],
      ['Lobster Two', '400', 'normal', 400, 'otf', true, null],
    );
    const template = async (family: string) =>
      (
        await ok('POST', '/v1/templates/import', {
          projectId: project,
          name: `Otf ${family}`,
          document: textDesign(family),
        })
      ).template.id;
    const otf = await template('Lobster Two');
    const png = await fileOf(await exportOf(otf, 'PNG'));
    if (process.env.PLACARD_KEEP_PNG) fs.writeFileSync(path.join(os.tmpdir(), 'brand-font-otf.png'), png);
    const inter = decodePng(await fileOf(await exportOf(await template('Inter'), 'PNG')));
    const drawn = decodePng(png);
    assert.ok(inkOf(drawn) > 300, 'the OTF draws ink');
    assert.ok(differingPixels(drawn, inter) > 500, 'Lobster Two does not look like Inter');
    // Skia's PDF backend embeds CFF outlines as Type 3 fonts (vector glyphs with a ToUnicode map), TrueType outlines
    // as TrueType subsets (docs/decisions.md): the text is embedded as outlines and still reads as text.
    const pdf = await fileOf(await exportOf(otf, 'PDF'));
    const fonts = pdfFonts(pdf);
    assert.ok(fonts.length > 0, 'the PDF has fonts');
    // Type 3, embedded (its glyphs are in the file), not a subset-tagged font program, with a Unicode map.
    for (const font of fonts)
      assert.deepEqual(
        [font.subtype, font.embedded, font.subset, font.toUnicode],
        ['Type3', true, false, true],
        JSON.stringify(font),
      );
    assert.match((await pdfText(pdf)).join('\n'), /Hamburg 1234/);
  });

  test('a variable font: each named instance is a variant, drawn with its own axis values', async () => {
    const res = await uploadFiles(kit, [['inter-display.ttf', variable]]);
    assert.equal(res.status, 200, res.body);
    const fonts = res.json.response.fonts;
    assert.deepEqual(
      fonts.map((f: Json) => [f.family, f.variant, f.weight, f.variation?.wght]),
      [100, 200, 300, 400, 500, 600, 700, 800, 900].map((w) => ['Inter Display', String(w), w, w]),
    );
    // Each instance is stored as a static font of its own (its file differs from the others').
    assert.equal(new Set(fonts.map((f: Json) => f.checksum)).size, 9);
    const variants = await ok('GET', '/v1/templates/fontVariants?fontFamily=Inter%20Display');
    assert.ok(JSON.stringify(variants).includes('900'), JSON.stringify(variants));

    const pngOf = async (variant: string) => {
      const id = (
        await ok('POST', '/v1/templates/import', {
          projectId: project,
          name: `Variable ${variant}`,
          document: textDesign('Inter Display', 'Hamburg 1234', variant),
        })
      ).template.id;
      const png = await fileOf(await exportOf(id, 'PNG'));
      if (process.env.PLACARD_KEEP_PNG) fs.writeFileSync(path.join(os.tmpdir(), `brand-font-var-${variant}.png`), png);
      return decodePng(png);
    };
    const thin = await pngOf('100');
    const regular = await pngOf('400');
    const black = await pngOf('900');
    assert.ok(differingPixels(thin, black) > 500, 'the Thin and Black instances draw differently');
    // Heavier instances put down more ink: the axis values are applied, not the default instance for all.
    assert.ok(
      inkOf(thin) < inkOf(regular) && inkOf(regular) < inkOf(black),
      `${inkOf(thin)} ${inkOf(regular)} ${inkOf(black)}`,
    );
  });

  test('preflight measures with the brand font and names it as the team knows it; FONTFAMILY may name it', async () => {
    const id = (
      await ok('POST', '/v1/templates/import', {
        projectId: project,
        name: 'Preflight brand',
        document: textDesign('Inter', 'Hamburg ไทย'),
      })
    ).template.id;
    const res = await ok('POST', `/v1/templates/${id}/preflight`, {
      elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'FONTFAMILY', value: 'dejavu serif' }] }],
    });
    const fallback = res.findings.find((f: Json) => f.code === 'FONT_FALLBACK');
    assert.ok(fallback, JSON.stringify(res.findings));
    assert.equal(fallback.details.fontFamily, 'DejaVu Serif');
    assert.match(fallback.message, /DejaVu Serif lacks/);
    assert.doesNotMatch(JSON.stringify(res.findings), /PlacardBrand/);
    // Another team has no such family: its FONTFAMILY change is refused as an export's would be.
    const rival = (
      await ok(
        'POST',
        '/v1/templates/import',
        { projectId: otherProject, name: 'Rival preflight', document: textDesign('Inter') },
        other.headers,
      )
    ).template.id;
    const refused = await api(
      'POST',
      `/v1/templates/${rival}/preflight`,
      { elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'FONTFAMILY', value: 'Lobster Two' }] }] },
      other.headers,
    );
    assert.equal(refused.status, 422, refused.body);
    assert.equal(refused.json.code, 'FONT_VARIANT_UNAVAILABLE');
  });
});
