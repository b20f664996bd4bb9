// The PDF encoder (SPEC §5, §6): one page per selected slide of one size, drawn through the same path as raster
// frames (the caller's `paint`, i.e. the pipeline's frame drawing) into Skia's PDF backend, so text stays text with its
// fonts embedded (Skia subsets and embeds every font it draws with) and images keep their full resolution.
//
// Units: design px are CSS px (1/96 in) and PDF points are 1/72 in, so 1 px = 0.75 pt: a 300x250 banner is a
// 225 x 187.5 pt page and prints at the size a browser shows it. Skia rounds page sizes to whole points, so the page
// is drawn shifted by the rounding and its exact MediaBox is written afterwards (see `finishPdf`).
//
// PDF_PRINT adds what a print shop asks for: a 3 mm bleed on every side filled with the background colour (content that
// reaches past the edge continues into it), crop marks at the trim corners inside the bleed, TrimBox and BleedBox on
// every page, images stored losslessly, and the PDF/A-2b identification Skia can write (XMP metadata with pdfaid
// part 2 / conformance B, an sRGB OutputIntent, a document ID). Skia writes no creation date through this binding and
// no page box but the MediaBox, so `finishPdf` appends them as one incremental update, which PDF/A permits.
import zlib from 'node:zlib';
import { PDFDocument, type PDFMetadata, type SKRSContext2D } from '@napi-rs/canvas';
import type { DesignDocument } from '../../domain/design.schema.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import type { AssetFetcher } from '../../render/media/assets.js';
import { recordActualText } from '../../render/text/text-paint.js';
import type { ResolvedAssets } from '../../render/types.js';
import { drawFrame, frameOf, resolveAssets } from '../pipeline.js';

export const PDF_PRESETS = ['PDF_STANDARD', 'PDF_PRINT'] as const;
export type PdfPreset = (typeof PDF_PRESETS)[number];

/** Points per CSS pixel: 72 pt per inch over 96 px per inch. */
export const PT_PER_PX = 72 / 96;
export const BLEED_MM = 3;
/** The bleed of PDF_PRINT in points (3 mm = 8.504 pt). */
export const BLEED_PT = (BLEED_MM / 25.4) * 72;

/** Crop marks: hairlines that stop this far short of the trim, so a slightly misaligned cut never shows them. */
const MARK_GAP_PT = (1 / 25.4) * 72;
const MARK_WIDTH_PT = 0.25;

/** The size being exported, in px, as the document holds it. */
export interface PdfSize {
  name: string;
  width: number;
  height: number;
  backgroundColor?: string;
  /** How many slides the size has. */
  slideCount: number;
}

/**
 * Draws slide `slide` (from 0) in px into `ctx`, origin at the top-left of the design, as the raster path draws a
 * still frame (final state of every animation). The pipeline's frame drawing with `output: 'pdf'`.
 */
export type PaintSlide = (ctx: SKRSContext2D, slide: number) => void;

export interface PdfOptions {
  /** Default PDF_STANDARD. */
  preset?: PdfPreset;
  /** `exportSettings.slide`: the slides to export, counting from 0; absent or empty means every slide. */
  slides?: readonly number[];
  /** The document title; default: the size's name. */
  title?: string;
  /** Who made the design (the team or user); omitted when absent. */
  author?: string;
  /** The creation and modification date written into the file; default now. */
  createdAt?: Date;
}

/**
 * The pages to make: the selected slides in document order, each once (a selection is a set of slides, not a
 * sequence). Absent or empty selects every slide. An index the size does not have is VALIDATION_FAILED naming
 * `exportSettings.slide[i]`.
 */
export function selectSlides(
  size: Pick<PdfSize, 'name' | 'width' | 'height' | 'slideCount'>,
  selection?: readonly number[],
): number[] {
  const all = Array.from({ length: size.slideCount }, (_, i) => i);
  if (!selection?.length) return all;
  const details: ErrorDetail[] = [];
  selection.forEach((slide, i) => {
    if (!Number.isInteger(slide) || slide < 0 || slide >= size.slideCount) {
      const range = size.slideCount === 1 ? 'only slide 0' : `slides 0 to ${size.slideCount - 1}`;
      details.push({
        path: `/exportSettings/slide/${i}`,
        in: 'body',
        message: `slide ${slide} does not exist: size '${size.name}' ${size.width}x${size.height} has ${range} (slides count from 0)`,
      });
    }
  });
  if (details.length) {
    const first = details[0];
    const index = first.path.split('/').pop();
    const more = details.length > 1 ? ` (and ${details.length - 1} more problem(s), see details)` : '';
    throw new AppError('VALIDATION_FAILED', `exportSettings.slide[${index}]: ${first.message}${more}`, { details });
  }
  const wanted = new Set(selection);
  return all.filter((slide) => wanted.has(slide));
}

/** Page geometry in points: the trim (the design) and the media box around it (larger by the bleed in PRINT). */
export interface PageGeometry {
  trimWidth: number;
  trimHeight: number;
  bleed: number;
  mediaWidth: number;
  mediaHeight: number;
}

export function pageGeometry(size: Pick<PdfSize, 'width' | 'height'>, preset: PdfPreset): PageGeometry {
  const trimWidth = size.width * PT_PER_PX;
  const trimHeight = size.height * PT_PER_PX;
  const bleed = preset === 'PDF_PRINT' ? BLEED_PT : 0;
  return { trimWidth, trimHeight, bleed, mediaWidth: trimWidth + 2 * bleed, mediaHeight: trimHeight + 2 * bleed };
}

/** The page side Skia writes for a requested one: rounded to whole points (SkSize::toRound at 72 dpi). */
const skiaSide = (side: number) => Math.floor(side + 0.5);

function metadataFor(size: PdfSize, preset: PdfPreset, options: PdfOptions): PDFMetadata {
  const print = preset === 'PDF_PRINT';
  return {
    title: options.title ?? size.name,
    ...(options.author ? { author: options.author } : {}),
    creator: 'Placard',
    producer: 'Placard',
    // Opaque images: lossless (101) for print; JPEG 90 for screen, which keeps photos sharp at a fraction of the size.
    // Images with transparency are always stored losslessly. Neither preset downsamples: Skia embeds the pixels it got.
    encodingQuality: print ? 101 : 90,
    // The resolution of what cannot stay vector (blur, shadows) stays at Skia's 72 dpi: in @napi-rs/canvas 1.1.1 any
    // other value (its native name is `rasterDpi`; the typed `rasterDPI` is ignored) scales the page's initial
    // transform, which the context's first translate or scale then discards, so every element lands in the wrong place.
    pdfa: print,
  };
}

/** Crop marks at the four trim corners, in the bleed: a white underlay keeps them visible on a dark background. */
function drawCropMarks(ctx: SKRSContext2D, page: PageGeometry): void {
  const { bleed: b, trimWidth: w, trimHeight: h } = page;
  const length = b - MARK_GAP_PT;
  if (length <= 0) return;
  const lines: Array<[number, number, number, number]> = [];
  for (const x of [b, b + w]) {
    lines.push([x, 0, x, length], [x, b + h + MARK_GAP_PT, x, b + h + b]);
  }
  for (const y of [b, b + h]) {
    lines.push([0, y, length, y], [b + w + MARK_GAP_PT, y, b + w + b, y]);
  }
  ctx.save();
  ctx.lineCap = 'butt';
  for (const [colour, width] of [
    ['#FFFFFF', MARK_WIDTH_PT * 3],
    ['#000000', MARK_WIDTH_PT],
  ] as const) {
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.beginPath();
    for (const [x1, y1, x2, y2] of lines) {
      ctx.moveTo(x1, y1);
      ctx.lineTo(x2, y2);
    }
    ctx.stroke();
  }
  ctx.restore();
}

/** Renders the selected slides of one size as a PDF. Throws VALIDATION_FAILED for a slide the size does not have. */
export function encodePdf(size: PdfSize, paint: PaintSlide, options: PdfOptions = {}): Buffer {
  const preset = options.preset ?? 'PDF_STANDARD';
  const slides = selectSlides(size, options.slides);
  const page = pageGeometry(size, preset);
  const doc = new PDFDocument(metadataFor(size, preset, options));
  const actualTexts: string[][] = [];
  for (const slide of slides) {
    // The page's context is the same native class as a canvas's (every SKRSContext2D method), typed more narrowly;
    // only `ctx.canvas` is missing, which no drawing code may rely on.
    const ctx = doc.beginPage(page.mediaWidth, page.mediaHeight) as SKRSContext2D;
    actualTexts.push(recordActualText(ctx));
    ctx.save();
    // Skia flips y around its rounded page height; the exact MediaBox written later keeps the bottom-left corner, so
    // moving everything down by the rounding puts the design's top-left corner at the exact page's top-left.
    ctx.translate(0, skiaSide(page.mediaHeight) - page.mediaHeight);
    if (size.backgroundColor) {
      // The pipeline paints the background over the design; this also covers the bleed.
      ctx.fillStyle = size.backgroundColor;
      ctx.fillRect(0, 0, page.mediaWidth, page.mediaHeight);
    }
    ctx.save();
    ctx.translate(page.bleed, page.bleed);
    ctx.scale(PT_PER_PX, PT_PER_PX);
    paint(ctx, slide);
    ctx.restore();
    if (page.bleed > 0) drawCropMarks(ctx, page);
    ctx.restore();
    doc.endPage();
  }
  return finishPdf(doc.close(), {
    createdAt: options.createdAt ?? new Date(),
    title: options.title ?? size.name,
    author: options.author,
    page,
    actualTexts,
  });
}

export interface RenderPdfOptions extends Omit<PdfOptions, 'title'> {
  /** The document title; default: the design's name. */
  title?: string;
  /** Fetches media; default: this thread's fetcher (pipeline.ts). */
  fetcher?: AssetFetcher;
}

/**
 * One size of a design as a PDF, through the pipeline: the selected slides' assets are resolved first (SOURCE_REJECTED
 * names a bad URL), then each page draws the still frame (every animation in its final state) with `output: 'pdf'`.
 */
export async function renderPdf(
  document: DesignDocument,
  sizeIndex: number,
  options: RenderPdfOptions = {},
): Promise<Buffer> {
  const [size] = frameOf(document, sizeIndex, 0);
  const pdfSize: PdfSize = { ...size, slideCount: size.slides.length };
  const slides = selectSlides(pdfSize, options.slides);
  const resolved = await Promise.all(
    slides.map((slide) => resolveAssets(document, sizeIndex, slide, { fetcher: options.fetcher })),
  );
  const assets = new Map<number, ResolvedAssets>(slides.map((slide, i) => [slide, resolved[i]]));
  const paint: PaintSlide = (ctx, slide) =>
    drawFrame(ctx, size, size.slides[slide], assets.get(slide)!, { output: 'pdf' });
  return encodePdf(pdfSize, paint, { ...options, slides, title: options.title ?? document.name });
}

// ---- the incremental update: dates and page boxes Skia does not write ----

interface Finish {
  createdAt: Date;
  title: string;
  author?: string;
  /** Every page has this geometry: its exact MediaBox, and TrimBox and BleedBox when it has a bleed. */
  page: PageGeometry;
  /** Per page, the source text of every text run, in drawing order (text-paint.ts frames each with two markers). */
  actualTexts?: string[][];
}

// A marker's text object as Skia writes it: the marker font size, a text matrix, one glyph (see text-paint.ts).
// ACTUAL_TEXT_MARKER_PX is 0.25, which Skia writes as `.25`.
const MARKER = /BT\n\/F\d+ \.25 Tf\n[-\d. ]+ Tm\n<[0-9A-F]+> Tj\nET\n/g;

/**
 * The content stream of a page with each marker pair replaced by `/Span <</ActualText …>> BDC` … `EMC` (ISO 32000-1
 * §14.9.4), or undefined when the markers do not pair up with the runs (then the page is left as Skia wrote it).
 */
function withActualText(content: string, texts: string[]): string | undefined {
  const markers = content.match(MARKER)?.length ?? 0;
  if (markers !== texts.length * 2) return undefined;
  let index = 0;
  return content.replace(MARKER, () => {
    const text = texts[index >> 1]!;
    index += 1;
    return index % 2 === 1 ? `/Span <</ActualText ${textString(text)}>> BDC\n` : 'EMC\n';
  });
}

/** Page `n`'s content stream object rewritten with ActualText spans, or undefined when it has no runs or no markers. */
function actualTextContent(
  pdf: string,
  xref: Xref,
  n: number,
  texts: string[] | undefined,
): [number, Buffer] | undefined {
  if (!texts?.length) return undefined;
  const contents = reference(objectBody(pdf, xref, n), 'Contents');
  if (contents === undefined) return undefined;
  const body = objectBody(pdf, xref, contents);
  const head = /^<<([\s\S]*?)>>\s*stream\r?\n/.exec(body);
  const length = head && /\/Length (\d+)/.exec(head[1]);
  if (!head || !length) return undefined;
  const start = xref.offsets.get(contents)! + pdf.slice(xref.offsets.get(contents)!).indexOf(head[0]) + head[0].length;
  const raw = Buffer.from(pdf.slice(start, start + Number(length[1])), 'latin1');
  const flate = /\/Filter\s*\/FlateDecode/.test(head[1]);
  const rewritten = withActualText((flate ? zlib.inflateSync(raw) : raw).toString('latin1'), texts);
  if (rewritten === undefined) return undefined;
  const data = zlib.deflateSync(Buffer.from(rewritten, 'latin1'));
  return [
    contents,
    Buffer.concat([
      Buffer.from(`<</Filter /FlateDecode\n/Length ${data.length}>> stream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]),
  ];
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `D:20261121100000Z`: the PDF date form (ISO 32000-1 §7.9.4), always in UTC. */
function pdfDate(date: Date): string {
  return `D:${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
}

/** `2026-11-21T10:00:00Z`: the XMP form of the same instant (seconds precision, as the PDF date has). */
function xmpDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** A PDF text string that holds any Unicode: UTF-16BE with its byte order mark, written in hex. */
function textString(value: string): string {
  let hex = 'FEFF';
  for (let i = 0; i < value.length; i++) hex += value.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase();
  return `<${hex}>`;
}

const num = (n: number) => String(Math.round(n * 10_000) / 10_000);

/** The parts of a classic (non-stream) xref table Skia writes: object offsets and the trailer. */
interface Xref {
  offsets: Map<number, number>;
  trailer: string;
  startxref: number;
}

function readXref(pdf: string): Xref {
  const start = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(pdf);
  if (!start) throw new Error('the PDF has no startxref at its end');
  const startxref = Number(start[1]);
  const table = /^xref\s+/.exec(pdf.slice(startxref, startxref + 5));
  if (!table) throw new Error('the PDF does not use a classic xref table');
  const offsets = new Map<number, number>();
  let at = startxref + table[0].length;
  const section = /(\d+) (\d+)[ \t]*\r?\n/y;
  for (;;) {
    section.lastIndex = at;
    const head = section.exec(pdf);
    if (!head) break;
    const first = Number(head[1]);
    const count = Number(head[2]);
    at = section.lastIndex;
    for (let i = 0; i < count; i++) {
      const entry = pdf.slice(at, at + 20);
      if (entry[17] === 'n') offsets.set(first + i, Number(entry.slice(0, 10)));
      at += 20;
    }
  }
  const trailer = /trailer\s*(<<[\s\S]*?>>)\s*startxref/.exec(pdf.slice(at));
  if (!trailer) throw new Error('the PDF has no trailer');
  return { offsets, trailer: trailer[1], startxref };
}

/** The body of object `n` (between `n 0 obj` and `endobj`). */
function objectBody(pdf: string, xref: Xref, n: number): string {
  const offset = xref.offsets.get(n);
  if (offset === undefined) throw new Error(`the PDF has no object ${n}`);
  const end = pdf.indexOf('endobj', offset);
  return pdf.slice(offset, end).replace(/^\d+ \d+ obj\s*/, '');
}

function reference(dict: string, key: string): number | undefined {
  const match = new RegExp(`/${key}\\s+(\\d+) 0 R`).exec(dict);
  return match ? Number(match[1]) : undefined;
}

/** Every page object under the page tree node `n` (Skia builds a tree of /Pages nodes for long documents). */
function pageObjects(pdf: string, xref: Xref, n: number): number[] {
  const body = objectBody(pdf, xref, n);
  if (!/\/Type\s*\/Pages\b/.test(body)) return [n];
  const kids = /\/Kids\s*\[([^\]]*)\]/.exec(body);
  if (!kids) return [];
  return [...kids[1].matchAll(/(\d+) 0 R/g)].flatMap((kid) => pageObjects(pdf, xref, Number(kid[1])));
}

/** Adds entries to the dictionary `body` (an object without a stream), before its closing `>>`. */
function addToDict(body: string, entries: string): string {
  const end = body.lastIndexOf('>>');
  if (end === -1 || /\bstream\b/.test(body)) throw new Error('expected a dictionary object without a stream');
  return `${body.slice(0, end)}\n${entries}${body.slice(end)}`;
}

/**
 * Appends one incremental update (ISO 32000-1 §7.5.6) that replaces the Info dictionary (adding CreationDate and
 * ModDate), the XMP metadata when there is one (adding the same dates, which PDF/A requires to match), and the page
 * objects (the exact MediaBox, and TrimBox and BleedBox with a bleed). The original bytes are kept as they are.
 */
function finishPdf(original: Buffer, finish: Finish): Buffer {
  const pdf = original.toString('latin1');
  const xref = readXref(pdf);
  const root = reference(xref.trailer, 'Root');
  const info = reference(xref.trailer, 'Info');
  if (root === undefined || info === undefined) throw new Error('the PDF trailer lacks Root or Info');
  const catalog = objectBody(pdf, xref, root);
  const replaced = new Map<number, Buffer>();

  const date = pdfDate(finish.createdAt);
  const infoEntries = [
    `/Title ${textString(finish.title)}`,
    ...(finish.author ? [`/Author ${textString(finish.author)}`] : []),
    `/Creator ${textString('Placard')}`,
    `/Producer ${textString('Placard')}`,
    `/CreationDate (${date})`,
    `/ModDate (${date})`,
  ];
  replaced.set(info, Buffer.from(`<<${infoEntries.join('\n')}>>`, 'latin1'));

  const metadata = reference(catalog, 'Metadata');
  if (metadata !== undefined) {
    const body = objectBody(pdf, xref, metadata);
    const stream = /stream\r?\n([\s\S]*?)\r?\nendstream/.exec(body);
    // The XMP is written unfiltered (PDF/A forbids filters on it); its bytes are UTF-8.
    const xmp = stream && Buffer.from(stream[1], 'latin1').toString('utf8');
    if (!xmp?.includes('xmlns:xmp=') || !xmp.includes('</rdf:Description>')) {
      throw new Error('the XMP metadata Skia wrote has an unexpected form; cannot add its dates');
    }
    const when = xmpDate(finish.createdAt);
    const dated = xmp.replace(
      '</rdf:Description>',
      `<xmp:CreateDate>${when}</xmp:CreateDate>\n<xmp:ModifyDate>${when}</xmp:ModifyDate>\n` +
        `<xmp:MetadataDate>${when}</xmp:MetadataDate>\n</rdf:Description>`,
    );
    const bytes = Buffer.from(dated, 'utf8');
    replaced.set(
      metadata,
      Buffer.concat([
        Buffer.from(`<</Type /Metadata\n/Subtype /XML\n/Length ${bytes.length}>> stream\n`, 'latin1'),
        bytes,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  }

  const pagesRoot = reference(catalog, 'Pages');
  if (pagesRoot === undefined) throw new Error('the PDF catalog has no Pages');
  const { page } = finish;
  const box = (...sides: number[]) => `[${sides.map(num).join(' ')}]`;
  const media = box(0, 0, page.mediaWidth, page.mediaHeight);
  const skiaBox = box(0, 0, skiaSide(page.mediaWidth), skiaSide(page.mediaHeight));
  const boxes = [`/MediaBox ${media}`];
  if (page.bleed > 0) {
    const { bleed: b, trimWidth: w, trimHeight: h } = page;
    boxes.push(`/TrimBox ${box(b, b, b + w, b + h)}`, `/BleedBox ${media}`);
  }
  for (const [index, n] of pageObjects(pdf, xref, pagesRoot).entries()) {
    const content = actualTextContent(pdf, xref, n, finish.actualTexts?.[index]);
    if (content) replaced.set(...content);
    const body = objectBody(pdf, xref, n).trimEnd();
    const found = /\/MediaBox\s*(\[[^\]]*\])/.exec(body);
    // The shift in encodePdf assumes Skia's rounding; a binding that rounds otherwise must fail loudly.
    if (!found || found[1].replace(/\s+/g, ' ') !== skiaBox) {
      throw new Error(`page object ${n} has MediaBox ${found?.[1]} where ${skiaBox} was expected`);
    }
    const rest = body.replace(found[0], '');
    replaced.set(n, Buffer.from(addToDict(rest, boxes.join('\n')), 'latin1'));
  }

  const chunks: Buffer[] = [original];
  let offset = original.length;
  const push = (chunk: Buffer) => {
    chunks.push(chunk);
    offset += chunk.length;
  };
  if (!pdf.endsWith('\n')) push(Buffer.from('\n', 'latin1'));
  const numbers = [...replaced.keys()].sort((a, b) => a - b);
  const written = new Map<number, number>();
  for (const n of numbers) {
    written.set(n, offset);
    push(Buffer.concat([Buffer.from(`${n} 0 obj\n`, 'latin1'), replaced.get(n)!, Buffer.from('\nendobj\n', 'latin1')]));
  }
  const xrefAt = offset;
  // One subsection per object: entries are exactly 20 bytes (offset, generation, keyword, two-byte end of line).
  let table = 'xref\n';
  for (const n of numbers) table += `${n} 1\n${String(written.get(n)).padStart(10, '0')} 00000 n\r\n`;
  const size = /\/Size\s+(\d+)/.exec(xref.trailer)?.[1];
  const id = /\/ID\s*(\[[^\]]*\])/.exec(xref.trailer)?.[1];
  const trailer = [
    `/Size ${size}`,
    `/Root ${root} 0 R`,
    `/Info ${info} 0 R`,
    ...(id ? [`/ID ${id}`] : []),
    `/Prev ${xref.startxref}`,
  ].join('\n');
  push(Buffer.from(`${table}trailer\n<<${trailer}>>\nstartxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(chunks);
}
