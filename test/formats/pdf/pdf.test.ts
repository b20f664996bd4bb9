// The PDF encoder, read back as a reader of the file would, through pdf.js (test/helpers/pdf.ts): page count, page
// boxes and metadata, text (text is text, not pixels), fonts (embedded), images (resolution and encoding) and the
// rendered page (what it looks like). Slides are painted here with plain canvas calls so that the encoder is tested
// on its own; the document-level test at the end goes through the pipeline.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { createCanvas, GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import { PNG } from 'pngjs';
import { readDocument } from '../../../src/domain/design.schema.js';
import { textKind } from '../../../src/elements/text/index.js';
import { AppError } from '../../../src/errors.js';
import {
  BLEED_PT,
  encodePdf,
  type PaintSlide,
  type PdfSize,
  renderPdf,
  selectSlides,
} from '../../../src/formats/pdf/pdf.js';
import { fontFile } from '../../../src/render/text/fonts.js';
import { pdfFonts, pdfImages, pdfInfo, pdfText, renderPdfPage } from '../../helpers/pdf.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-pdf-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

// A catalogue font under a name of its own, so that this test does not depend on how the pipeline registers fonts.
GlobalFonts.registerFromPath(fontFile('Inter', '700', 'latin')!, 'PdfTestInter');

let files = 0;
function save(pdf: Buffer): string {
  const file = path.join(dir, `${files++}.pdf`);
  fs.writeFileSync(file, pdf);
  return file;
}

function near(actual: number[], expected: number[], tolerance = 0.01) {
  assert.equal(actual.length, expected.length);
  for (const [i, a] of actual.entries()) assert.ok(Math.abs(a - expected[i]) <= tolerance, `${actual} ≈ ${expected}`);
}

/** Page `page` (from 1) rendered by pdf.js at `dpi`, decoded. */
async function raster(file: string, page: number, dpi: number): Promise<PNG> {
  return PNG.sync.read(await renderPdfPage(file, page, dpi));
}

function pixel(png: PNG, x: number, y: number): [number, number, number] {
  const i = (png.width * y + x) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2]];
}

function close(actual: [number, number, number], expected: [number, number, number], tolerance = 8) {
  assert.ok(
    actual.every((c, i) => Math.abs(c - expected[i]) <= tolerance),
    `rgb(${actual}) is close to rgb(${expected})`,
  );
}

const NAVY: [number, number, number] = [0x0f, 0x17, 0x2a];
const size: PdfSize = { name: 'Medium Rectangle', width: 300, height: 250, backgroundColor: '#0F172A', slideCount: 3 };

/** Background, a red top row, a blue bottom row and "Slide n" in the test font. */
const paint: PaintSlide = (ctx, slide) => {
  ctx.fillStyle = '#0F172A';
  ctx.fillRect(0, 0, 300, 250);
  ctx.fillStyle = '#FF0000';
  ctx.fillRect(0, 0, 300, 2);
  ctx.fillStyle = '#0000FF';
  ctx.fillRect(0, 248, 300, 2);
  ctx.fillStyle = '#FFFFFF';
  ctx.font = '700 24px PdfTestInter';
  ctx.fillText(`Slide ${slide + 1}`, 16, 120);
};

describe('PDF_STANDARD', () => {
  const file = save(encodePdf(size, paint, { title: 'Spring sale', author: 'Acme Ads' }));

  test('makes one page per slide, 0.75 pt per px, exactly', async () => {
    const fields = await pdfInfo(file);
    assert.equal(fields.pages, 3);
    for (const page of fields.page) assert.deepEqual([page.width, page.height], [225, 187.5]);
  });

  test('puts the design exactly on the page: 300x250 px at 96 dpi, first and last rows where they were drawn', async () => {
    const png = await raster(file, 1, 96);
    assert.deepEqual([png.width, png.height], [300, 250]);
    close(pixel(png, 150, 0), [255, 0, 0]);
    close(pixel(png, 150, 249), [0, 0, 255]);
    close(pixel(png, 150, 60), NAVY);
  });

  test('keeps text as text in an embedded font', async () => {
    assert.deepEqual(
      (await pdfText(file)).map((page) => page.trim()),
      ['Slide 1', 'Slide 2', 'Slide 3'],
    );
    const fonts = pdfFonts(file);
    const inter = fonts.find(({ name }) => /\+Inter-Bold$/.test(name ?? ''));
    assert.ok(inter, `Inter Bold is listed: ${JSON.stringify(fonts)}`);
    // Every font is embedded, as a subset, with a Unicode map.
    for (const font of fonts)
      assert.deepEqual([font.embedded, font.subset, font.toUnicode], [true, true, true], JSON.stringify(font));
  });

  test('carries title, author, creator, producer and the creation date, and no PDF/A metadata', async () => {
    const createdAt = new Date('2026-11-21T10:00:00.000Z');
    const dated = save(encodePdf(size, paint, { title: 'Spring sale — 300x250', author: 'Zoë', createdAt }));
    const fields = await pdfInfo(dated);
    assert.equal(fields.info.Title, 'Spring sale — 300x250');
    assert.equal(fields.info.Author, 'Zoë');
    assert.equal(fields.info.Creator, 'Placard');
    assert.equal(fields.info.Producer, 'Placard');
    assert.equal(fields.created?.toISOString(), '2026-11-21T10:00:00.000Z');
    assert.equal(fields.modified?.toISOString(), '2026-11-21T10:00:00.000Z');
    assert.equal(fields.xmp, null);
  });

  test('the title defaults to the size name and the author is left out when unknown', async () => {
    const fields = (await pdfInfo(save(encodePdf(size, paint)))).info;
    assert.equal(fields.Title, 'Medium Rectangle');
    assert.equal(fields.Author, undefined);
  });
});

describe('slide selection', () => {
  test('exports the selected slides in document order, each once', async () => {
    const file = save(encodePdf(size, paint, { slides: [2, 0, 2] }));
    assert.equal((await pdfInfo(file)).pages, 2);
    const pages = await pdfText(file);
    assert.match(pages[0], /Slide 1/);
    assert.match(pages[1], /Slide 3/);
  });

  test('an empty selection means every slide', () => {
    assert.deepEqual(selectSlides(size, []), [0, 1, 2]);
    assert.deepEqual(selectSlides(size, undefined), [0, 1, 2]);
  });

  test('a slide the size does not have is VALIDATION_FAILED naming exportSettings.slide[i]', () => {
    assert.throws(
      () => encodePdf(size, paint, { slides: [0, 3, 7] }),
      (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, 'VALIDATION_FAILED');
        assert.equal(error.status, 400);
        assert.equal(
          error.message,
          "exportSettings.slide[1]: slide 3 does not exist: size 'Medium Rectangle' 300x250 has slides 0 to 2 " +
            '(slides count from 0) (and 1 more problem(s), see details)',
        );
        assert.deepEqual(
          error.details?.map((d) => d.path),
          ['/exportSettings/slide/1', '/exportSettings/slide/2'],
        );
        return true;
      },
    );
  });
});

/** A 400x400 opaque image with detail, drawn into a 100x100 px box: print must keep all 400x400 pixels. */
function photo(ctx: SKRSContext2D) {
  const canvas = createCanvas(400, 400);
  const c = canvas.getContext('2d');
  for (let x = 0; x < 400; x += 4) {
    c.fillStyle = `rgb(${x % 256}, ${(x * 7) % 256}, ${(x * 3) % 256})`;
    c.fillRect(x, 0, 4, 400);
  }
  ctx.drawImage(canvas, 0, 0, 100, 100);
}

/** The images the pages draw (soft masks not listed on their own), as { width, height, filters }. */
function images(file: string) {
  return pdfImages(file).map(({ width, height, filters }) => ({ width, height, filters }));
}

describe('PDF_PRINT', () => {
  const createdAt = new Date('2026-11-21T10:00:00.000Z');
  const bleedPaint: PaintSlide = (ctx, slide) => {
    paint(ctx, slide);
    // An orange block that reaches past the left and bottom edges must continue into the bleed.
    ctx.fillStyle = '#F59E0B';
    ctx.fillRect(-20, 200, 100, 80);
    photo(ctx);
  };
  const title = 'Spring sale — Été <2026>';
  const file = save(encodePdf(size, bleedPaint, { preset: 'PDF_PRINT', title, author: 'Zoë', createdAt }));
  const trim = [225, 187.5];
  const media = trim.map((side) => side + 2 * BLEED_PT);

  test('grows every page by a 3 mm bleed on each side, with TrimBox and BleedBox', async () => {
    assert.ok(Math.abs(BLEED_PT - (3 / 25.4) * 72) < 1e-9);
    const fields = await pdfInfo(file);
    assert.equal(fields.pages, 3);
    // Every page has the boxes, not only the first.
    for (const page of fields.page) {
      near(page.MediaBox, [0, 0, ...media]);
      near(page.BleedBox, [0, 0, ...media]);
      near(page.TrimBox, [BLEED_PT, BLEED_PT, BLEED_PT + trim[0], BLEED_PT + trim[1]]);
    }
  });

  test('fills the bleed with the background, lets content run into it and draws crop marks at the trim corners', async () => {
    // 8 px per pt: the 8.5 pt bleed is 68 px wide. pdf.js anti-aliases strokes without snapping them to the pixel grid
    // (poppler snaps): at 4 px per pt the 0.75 pt white underlay straddles pixel edges and, blended with the hairline
    // on top, no pixel of it comes out light; at 8 px per pt the underlay covers whole pixels beside the hairline.
    const dpi = 576;
    const png = await raster(file, 1, dpi);
    const px = (pt: number) => Math.round((pt * dpi) / 72);
    const b = px(BLEED_PT);
    assert.ok(Math.abs(png.width - px(media[0])) <= 1 && Math.abs(png.height - px(media[1])) <= 1);
    // The bleed beside the middle of the right edge: background.
    close(pixel(png, png.width - 3, Math.round(png.height / 2)), NAVY);
    // The top row of the design sits at the trim's top edge, just inside the bleed.
    close(pixel(png, Math.round(png.width / 2), b + 2), [255, 0, 0]);
    close(pixel(png, Math.round(png.width / 2), b - 4), NAVY);
    // The orange block continues into the left bleed.
    close(pixel(png, 3, png.height - b - 20), [0xf5, 0x9e, 0x0b]);

    // Crop marks: a dark hairline on a light underlay along the trim lines, only in the bleed.
    const markColumn = (x: number, y0: number, y1: number) => {
      let found = false;
      for (let y = y0; y < y1; y++) {
        for (let dx = -2; dx <= 2; dx++) {
          const [r, g, bl] = pixel(png, x + dx, y);
          if (r > 200 && g > 200 && bl > 200) found = true;
        }
      }
      return found;
    };
    assert.ok(markColumn(b, 0, b - 8), 'a mark above the top-left trim corner');
    assert.ok(markColumn(png.width - b, 0, b - 8), 'a mark above the top-right trim corner');
    assert.ok(!markColumn(png.width - b, b + 40, b + 80), 'no mark inside the trim');
  });

  test('keeps images at full resolution and lossless, where PDF_STANDARD stores opaque photos as JPEG', async () => {
    const print = images(file);
    assert.ok(print.length > 0);
    for (const image of print) assert.deepEqual(image, { width: 400, height: 400, filters: ['FlateDecode'] });
    const standard = images(save(encodePdf(size, bleedPaint)));
    assert.ok(standard.length > 0);
    for (const image of standard) assert.deepEqual(image, { width: 400, height: 400, filters: ['DCTDecode'] });
  });

  test('identifies itself as PDF/A-2b: XMP with pdfaid and dates that match the Info dictionary, sRGB OutputIntent', async () => {
    const fields = await pdfInfo(file);
    assert.equal(fields.info.Title, title);
    assert.equal(fields.info.Author, 'Zoë');
    assert.equal(fields.info.Producer, 'Placard');
    assert.equal(fields.created?.toISOString(), '2026-11-21T10:00:00.000Z');
    const xmp = fields.xmp;
    assert.ok(xmp, 'a Metadata stream');
    assert.match(xmp, /<pdfaid:part>2<\/pdfaid:part>/);
    assert.match(xmp, /<pdfaid:conformance>B<\/pdfaid:conformance>/);
    assert.match(xmp, /<xmp:CreateDate>2026-11-21T10:00:00Z<\/xmp:CreateDate>/);
    assert.match(xmp, /<xmp:ModifyDate>2026-11-21T10:00:00Z<\/xmp:ModifyDate>/);
    // The XMP says what the Info dictionary says (PDF/A requires it), non-ASCII and markup characters included.
    assert.match(xmp, /<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Spring sale — Été &lt;2026><\/rdf:li>/);
    assert.match(xmp, /<dc:creator><rdf:Seq><rdf:li>Zoë<\/rdf:li><\/rdf:Seq><\/dc:creator>/);
    assert.match(xmp, /<xmp:CreatorTool>Placard<\/xmp:CreatorTool>/);
    assert.match(xmp, /<pdf:Producer>Placard<\/pdf:Producer>/);
    const raw = fs.readFileSync(file, 'latin1');
    assert.match(raw, /\/OutputIntents \[<<\/Type \/OutputIntent\s+\/S \/GTS_PDFA1/);
    assert.match(raw, /\/Info \(sRGB IEC61966-2\.1\)/);
    // PDF/A asks for a document ID in every trailer, the appended one included.
    const trailers = [...raw.matchAll(/trailer\s*<<([\s\S]*?)>>\s*startxref/g)];
    assert.equal(trailers.length, 2, 'the original trailer and the one of the incremental update');
    for (const [, trailer] of trailers) assert.match(trailer, /\/ID \[<[0-9A-F]{32}> <[0-9A-F]{32}>\]/);
  });
});

describe('a design document through the pipeline', () => {
  const document = readDocument(
    JSON.parse(fs.readFileSync(path.resolve('test/render/fixtures/pdf-text.json'), 'utf8')),
  );

  test('draws each slide on its page with the same drawing path as raster frames', async () => {
    const file = save(await renderPdf(document, 0, { slides: [0] }));
    const fields = await pdfInfo(file);
    assert.equal(fields.pages, 1);
    assert.equal(fields.info.Title, 'Spring sale');
    const page = await raster(file, 1, 96);
    close(pixel(page, 150, 20), NAVY);
    close(pixel(page, 150, 225), [0xf5, 0x9e, 0x0b]);
  });

  // Marked: the text kind's draw lands with the text-layout issue; until then this test runs as a TODO (reported, not
  // failing), and it becomes an ordinary test by itself as soon as textKind.draw exists.
  test('text elements come out as extractable text in their own embedded fonts', {
    todo: textKind.draw ? false : 'text drawing (elements/text) has not landed yet',
  }, async () => {
    const file = save(await renderPdf(document, 0));
    const pages = await pdfText(file);
    assert.match(pages[0], /Spring sale/);
    assert.match(pages[1], /Shop now/);
    const fonts = pdfFonts(file);
    const embedded = (pattern: RegExp) =>
      fonts.some((f) => pattern.test(f.name ?? '') && f.embedded && f.subset && f.toUnicode);
    assert.ok(embedded(/\+Inter\S*Bold/), JSON.stringify(fonts));
    assert.ok(embedded(/\+Lora\S*Italic/), JSON.stringify(fonts));
  });
});
