// PDFs read back in tests as a reader of the file would, through pdf.js (pdfjs-dist, Mozilla's reader, Apache-2.0) so
// that `npm install && npm test` needs nothing but Node: no poppler-utils. pdf.js opens the file strictly
// (stopAtErrors: a broken xref or object fails the test instead of being repaired), counts the pages, reads the Info
// dictionary and the XMP stream, extracts text and renders pages onto an @napi-rs/canvas canvas.
//
// What pdf.js does not expose (TrimBox and BleedBox, a font's ToUnicode map and whether its program is embedded, an
// image's encoding) is read from the raw object tree: pdf.js gives the page's object reference, and a small reader
// below follows it through the objects. Written by hand because no maintained npm reader exposes the object tree
// without also bringing a writer; it reads classic (uncompressed) objects, which is what Skia's PDF backend writes,
// and says so clearly when a needed object is inside an object stream.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api.js';

// pdf.js 6 uses Promise.withResolvers and ArrayBuffer.prototype.transferToFixedLength (Node 21/22+); the project runs
// on Node 20, where its legacy build does not bring them. Without the second, a page with text renders blank.
if (!('transferToFixedLength' in ArrayBuffer.prototype)) {
  Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length = this.byteLength) {
      const moved: ArrayBuffer = structuredClone(this, { transfer: [this] });
      if (length === moved.byteLength) return moved;
      const copy = new Uint8Array(length);
      copy.set(new Uint8Array(moved, 0, Math.min(length, moved.byteLength)));
      return copy.buffer;
    },
  });
}
if (!('withResolvers' in Promise)) {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      return { promise, resolve, reject };
    },
  });
}
const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
pdfjs.GlobalWorkerOptions.workerSrc ||= 'pdfjs-dist/legacy/build/pdf.worker.mjs';
const root = `${path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))}/`;

export type PdfInput = Buffer | Uint8Array | string;

function bytesOf(input: PdfInput): Uint8Array {
  // pdf.js transfers (detaches) the buffer it is given: always hand it a copy.
  return new Uint8Array(typeof input === 'string' ? fs.readFileSync(input) : input);
}

/** Opens a PDF with pdf.js, strictly; `use` runs on it and the document is destroyed afterwards. */
export async function withPdf<T>(input: PdfInput, use: (doc: PDFDocumentProxy) => Promise<T>): Promise<T> {
  const task = pdfjs.getDocument({
    data: bytesOf(input),
    stopAtErrors: true,
    verbosity: 0,
    standardFontDataUrl: `${root}standard_fonts/`,
    cMapUrl: `${root}cmaps/`,
    cMapPacked: true,
    wasmUrl: `${root}wasm/`,
  });
  const doc = await task.promise;
  try {
    return await use(doc);
  } finally {
    await task.destroy();
  }
}

export type Box = [number, number, number, number];

export interface PdfPageInfo {
  /** width x height in points, as readers size the page (the CropBox, which defaults to the MediaBox). */
  width: number;
  height: number;
  MediaBox: Box;
  CropBox: Box;
  BleedBox: Box;
  TrimBox: Box;
}

export interface PdfInfo {
  pages: number;
  page: PdfPageInfo[];
  /** The Info dictionary's strings (Title, Author, Creator, Producer, CreationDate, ModDate as written, D:…). */
  info: Record<string, string>;
  /** CreationDate and ModDate as dates, when present. */
  created?: Date;
  modified?: Date;
  /** The raw XMP metadata stream, or null when the document has none. */
  xmp: string | null;
}

export async function pdfInfo(input: PdfInput): Promise<PdfInfo> {
  const raw = rawPdf(input);
  return withPdf(raw.bytes, async (doc) => {
    const { info, metadata } = (await doc.getMetadata()) as { info: Record<string, unknown>; metadata: unknown };
    const strings: Record<string, string> = {};
    for (const [key, value] of Object.entries(info)) if (typeof value === 'string') strings[key] = value;
    const date = (text: string | undefined) =>
      text ? (pdfjs.PDFDateString.toDateObject(text) ?? undefined) : undefined;
    const page: PdfPageInfo[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const proxy = await doc.getPage(n);
      const [x0, y0, x1, y1] = proxy.view;
      page.push({ width: x1 - x0, height: y1 - y0, ...raw.boxes(proxy.ref!) });
    }
    return {
      pages: doc.numPages,
      page,
      info: strings,
      created: date(strings.CreationDate),
      modified: date(strings.ModDate),
      xmp: metadata ? rawXmp(raw) : null,
    };
  });
}

/**
 * Text per page (index 0 is page 1), in content order; a line ends where pdf.js sees the end of a line.
 *
 * A marked-content span with an ActualText (ISO 32000-1 §14.9.4) reads as its ActualText in place of its glyphs, as
 * copy-and-paste and text extraction in readers such as Acrobat and poppler do: the PDF encoder wraps every text run
 * in one, so that ligatures, joined Arabic and conjuncts copy as typed. pdf.js's text extraction reports the spans but
 * not their ActualText, so the page's content stream is read here for it, span by span, in the same order.
 */
export async function pdfText(input: PdfInput): Promise<string[]> {
  const raw = rawPdf(input);
  return withPdf(raw.bytes, async (doc) => {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent({ includeMarkedContent: true });
      const spans = raw.markedContent(page.ref!);
      const begins = content.items.filter((item) => 'type' in item && item.type.startsWith('beginMarkedContent'));
      if (begins.length !== spans.length)
        throw new Error(
          `page ${n}: pdf.js sees ${begins.length} marked-content spans, the content stream ${spans.length}`,
        );
      // Chunks of text where they sit on the page: a plain text item, or a span's ActualText at its first glyph.
      const chunks: { text: string; x: number; y: number; size: number }[] = [];
      let next = 0;
      // Per open span: the chunk of the outermost span with an ActualText around it, which stands for all text inside.
      const open: ((typeof chunks)[number] | undefined)[] = [];
      const placed = new Set<(typeof chunks)[number]>();
      for (const item of content.items) {
        if ('type' in item) {
          if (item.type === 'endMarkedContent') open.pop();
          else if (item.type.startsWith('beginMarkedContent')) {
            const actual = spans[next++];
            const around = open.at(-1);
            open.push(around ?? (actual === undefined ? undefined : { text: actual, x: 0, y: 0, size: 0 }));
          }
          continue;
        }
        const [, , , , x, y] = item.transform as number[];
        const span = open.at(-1);
        if (!span) {
          // pdf.js gives a right-to-left item's text in typed order; the line below is laid out visually.
          const text = item.dir === 'rtl' ? graphemes(item.str).reverse().join('') : item.str;
          if (text) chunks.push({ text, x, y, size: item.height });
        } else if (!placed.has(span)) {
          Object.assign(span, { x, y, size: item.height });
          placed.add(span);
          chunks.push(span);
        }
      }
      pages.push(readingOrder(chunks));
    }
    return pages;
  });
}

export interface PdfFont {
  /** BaseFont (with its subset tag, e.g. ABCDEF+Inter-Bold), or null for a Type 3 font without a name. */
  name: string | null;
  /** Subtype of the font dictionary: Type0, TrueType, Type1, Type3, …; for a Type0 font, its descendant's too. */
  subtype: string;
  descendant?: string;
  embedded: boolean;
  subset: boolean;
  toUnicode: boolean;
}

/** Every font the pages use (their resources, Form XObjects included), each object once, in page order. */
export function pdfFonts(input: PdfInput): PdfFont[] {
  const raw = rawPdf(input);
  const fonts: PdfFont[] = [];
  const seen = new Set<string>();
  for (const resources of raw.allResources()) {
    const fontDict = raw.resolve(resources.Font);
    if (!isDict(fontDict)) continue;
    for (const ref of Object.values(fontDict)) {
      const key = isRef(ref) ? `${ref.num} ${ref.gen}` : null;
      if (key && seen.has(key)) continue;
      if (key) seen.add(key);
      const font = raw.resolve(ref);
      if (!isDict(font)) continue;
      const subtype = nameOf(font.Subtype) ?? '?';
      const name = nameOf(font.BaseFont) ?? null;
      let descriptorHolder = font;
      let descendant: string | undefined;
      if (subtype === 'Type0') {
        const kids = raw.resolve(font.DescendantFonts);
        const kid = Array.isArray(kids) ? raw.resolve(kids[0]) : undefined;
        if (isDict(kid)) {
          descriptorHolder = kid;
          descendant = nameOf(kid.Subtype);
        }
      }
      const descriptor = raw.resolve(descriptorHolder.FontDescriptor);
      const embedded =
        subtype === 'Type3' ||
        (isDict(descriptor) && ['FontFile', 'FontFile2', 'FontFile3'].some((k) => descriptor[k] !== undefined));
      fonts.push({
        name,
        subtype,
        ...(descendant ? { descendant } : {}),
        embedded,
        subset: name !== null && /^[A-Z]{6}\+/.test(name),
        toUnicode: font.ToUnicode !== undefined,
      });
    }
  }
  return fonts;
}

export interface PdfImage {
  width: number;
  height: number;
  /** The image stream's filters, e.g. ['DCTDecode'] for JPEG, ['FlateDecode'] for lossless; [] when stored raw. */
  filters: string[];
  /** Whether the image has a soft mask (alpha), stored as an image of its own. */
  smask: boolean;
}

/** Every image XObject the pages draw (soft masks are not listed on their own), each object once. */
export function pdfImages(input: PdfInput): PdfImage[] {
  const raw = rawPdf(input);
  const images: PdfImage[] = [];
  const seen = new Set<string>();
  for (const resources of raw.allResources()) {
    const xobjects = raw.resolve(resources.XObject);
    if (!isDict(xobjects)) continue;
    for (const ref of Object.values(xobjects)) {
      const key = isRef(ref) ? `${ref.num} ${ref.gen}` : null;
      if (key && seen.has(key)) continue;
      if (key) seen.add(key);
      const image = raw.resolve(ref);
      if (!isDict(image) || nameOf(image.Subtype) !== 'Image') continue;
      const filter = raw.resolve(image.Filter);
      const filters = (Array.isArray(filter) ? filter : filter === undefined ? [] : [filter]).map(
        (f) => nameOf(raw.resolve(f)) ?? '?',
      );
      images.push({
        width: Number(raw.resolve(image.Width)),
        height: Number(raw.resolve(image.Height)),
        filters,
        smask: image.SMask !== undefined,
      });
    }
  }
  return images;
}

/** Page `page` (from 1) rendered by pdf.js at `dpi` onto an opaque white canvas, as a PNG. */
export async function renderPdfPage(input: PdfInput, page: number, dpi: number): Promise<Buffer> {
  return withPdf(input, async (doc) => {
    const proxy = await doc.getPage(page);
    const viewport = proxy.getViewport({ scale: dpi / 72 });
    const canvas = createCanvas(Math.round(viewport.width), Math.round(viewport.height));
    const context = canvas.getContext('2d');
    // pdf.js is typed for the DOM's canvas; @napi-rs/canvas is the one its Node build draws with.
    type RenderParameters = Parameters<typeof proxy.render>[0];
    await proxy.render({
      canvas: canvas as unknown as RenderParameters['canvas'],
      canvasContext: context as unknown as RenderParameters['canvasContext'],
      viewport,
      background: 'white',
    }).promise;
    return canvas.toBuffer('image/png');
  });
}

// ---- The raw object tree ----------------------------------------------------------------------------------------

interface Ref {
  num: number;
  gen: number;
}
interface PdfName {
  name: string;
}
type PdfValue = number | boolean | null | string | PdfName | Ref | PdfValue[] | PdfDict;
interface PdfDict {
  [key: string]: PdfValue;
}

const isRef = (value: unknown): value is Ref =>
  typeof value === 'object' && value !== null && 'num' in value && 'gen' in value && !('name' in value);
const isDict = (value: unknown): value is PdfDict =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !isRef(value) && !('name' in value);
const nameOf = (value: unknown): string | undefined =>
  typeof value === 'object' && value !== null && 'name' in value ? (value as { name: string }).name : undefined;

interface RawPdf {
  bytes: Uint8Array;
  text: string;
  resolve(value: PdfValue | undefined): PdfValue | undefined;
  boxes(ref: Ref): { MediaBox: Box; CropBox: Box; BleedBox: Box; TrimBox: Box };
  allResources(): PdfDict[];
  /** The marked-content spans (BMC, BDC) of page `ref`'s content, in order: each one's ActualText, if it has one. */
  markedContent(ref: Ref): (string | undefined)[];
  /** Offset just after the `stream` keyword of object `ref`'s stream, and its dictionary. */
  streamOf(ref: Ref): { dict: PdfDict; start: number } | null;
}

function rawPdf(input: PdfInput): RawPdf {
  const bytes = bytesOf(input);
  const text = Buffer.from(bytes).toString('latin1');
  // The last definition of an object wins: incremental updates append new versions of objects.
  const offsets = new Map<string, number>();
  for (const match of text.matchAll(/(?<![0-9])(\d+)\s+(\d+)\s+obj\b/g))
    offsets.set(`${match[1]} ${match[2]}`, match.index + match[0].length);
  const objectStreams = /\/Type\s*\/ObjStm\b/.test(text);
  const cache = new Map<string, PdfValue>();

  const object = (ref: Ref): PdfValue | undefined => {
    const key = `${ref.num} ${ref.gen}`;
    if (cache.has(key)) return cache.get(key);
    const at = offsets.get(key);
    if (at === undefined) {
      if (objectStreams) throw new Error(`object ${key} R is inside an object stream, which this reader does not read`);
      return undefined;
    }
    const value = parse(text, at).value;
    cache.set(key, value);
    return value;
  };
  const resolve = (value: PdfValue | undefined): PdfValue | undefined => {
    let current = value;
    for (let hops = 0; isRef(current) && hops < 32; hops++) current = object(current);
    return current;
  };
  const numbers = (value: PdfValue | undefined): Box | undefined => {
    const array = resolve(value);
    return Array.isArray(array) ? (array.map((v) => Number(resolve(v))) as Box) : undefined;
  };
  const inherited = (page: PdfDict, key: string): PdfValue | undefined => {
    let node: PdfValue | undefined = page;
    for (let depth = 0; isDict(node) && depth < 64; depth++) {
      if (node[key] !== undefined) return node[key];
      node = resolve(node.Parent);
    }
    return undefined;
  };
  const pageRefs = (): Ref[] => {
    const trailerRoot = [...text.matchAll(/\/Root\s+(\d+)\s+(\d+)\s+R/g)].at(-1);
    if (!trailerRoot) throw new Error('no /Root in the trailer');
    const catalog = resolve({ num: Number(trailerRoot[1]), gen: Number(trailerRoot[2]) });
    const refs: Ref[] = [];
    const walk = (ref: PdfValue | undefined, depth: number) => {
      const node = resolve(ref);
      if (!isDict(node) || depth > 64) return;
      if (nameOf(node.Type) === 'Page' && isRef(ref)) refs.push(ref);
      const kids = resolve(node.Kids);
      if (Array.isArray(kids)) for (const kid of kids) walk(kid, depth + 1);
    };
    walk(isDict(catalog) ? catalog.Pages : undefined, 0);
    return refs;
  };

  return {
    bytes,
    text,
    resolve,
    boxes(ref) {
      const page = resolve(ref);
      if (!isDict(page)) throw new Error(`page object ${ref.num} ${ref.gen} R is not a dictionary`);
      const MediaBox = numbers(inherited(page, 'MediaBox'));
      if (!MediaBox) throw new Error(`page ${ref.num} ${ref.gen} R has no MediaBox`);
      const CropBox = numbers(inherited(page, 'CropBox')) ?? MediaBox;
      return {
        MediaBox,
        CropBox,
        BleedBox: numbers(page.BleedBox) ?? CropBox,
        TrimBox: numbers(page.TrimBox) ?? CropBox,
      };
    },
    allResources() {
      const all: PdfDict[] = [];
      const seen = new Set<PdfDict>();
      const visit = (value: PdfValue | undefined, depth: number) => {
        const resources = resolve(value);
        if (!isDict(resources) || seen.has(resources) || depth > 16) return;
        seen.add(resources);
        all.push(resources);
        const xobjects = resolve(resources.XObject);
        if (!isDict(xobjects)) return;
        for (const xobject of Object.values(xobjects)) {
          const form = resolve(xobject);
          if (isDict(form) && nameOf(form.Subtype) === 'Form') visit(form.Resources, depth + 1);
        }
      };
      for (const ref of pageRefs()) {
        const page = resolve(ref);
        if (isDict(page)) visit(inherited(page, 'Resources'), 0);
      }
      return all;
    },
    markedContent(ref) {
      const page = resolve(ref);
      if (!isDict(page)) throw new Error(`page object ${ref.num} ${ref.gen} R is not a dictionary`);
      const contents = resolve(page.Contents);
      const streams = Array.isArray(contents) ? contents : contents === undefined ? [] : [page.Contents];
      const decoded = streams.map((stream) => {
        if (!isRef(stream)) throw new Error('a content stream is not an indirect object');
        const found = this.streamOf(stream);
        if (!found) throw new Error(`content stream ${stream.num} ${stream.gen} R not found`);
        const length = Number(resolve(found.dict.Length));
        const data = Buffer.from(bytes.subarray(found.start, found.start + length));
        const filter = resolve(found.dict.Filter);
        const filters = (Array.isArray(filter) ? filter : filter === undefined ? [] : [filter]).map((f) =>
          nameOf(resolve(f)),
        );
        if (filters.length === 0) return data.toString('latin1');
        if (filters.length === 1 && filters[0] === 'FlateDecode') return zlib.inflateSync(data).toString('latin1');
        throw new Error(`content stream filters ${filters.join(', ')}: only FlateDecode is read here`);
      });
      const properties = resolve(inherited(page, 'Resources'));
      const named = isDict(properties) ? resolve(properties.Properties) : undefined;
      const spans: (string | undefined)[] = [];
      for (const op of operators(decoded.join('\n'))) {
        if (op.operator === 'BMC') spans.push(undefined);
        if (op.operator !== 'BDC') continue;
        let props: PdfValue | undefined = op.operands[1];
        const name = nameOf(props);
        if (name !== undefined) props = isDict(named) ? resolve(named[name]) : undefined;
        const actual = isDict(props) ? resolve(props.ActualText) : undefined;
        spans.push(typeof actual === 'string' ? textString(actual) : undefined);
      }
      return spans;
    },
    streamOf(ref) {
      const at = offsets.get(`${ref.num} ${ref.gen}`);
      if (at === undefined) return null;
      const { value, end } = parse(text, at);
      const keyword = /^\s*stream\r?\n/.exec(text.slice(end, end + 16));
      return isDict(value) && keyword ? { dict: value, start: end + keyword[0].length } : null;
    },
  };
}

/** The XMP stream as text (pdf.js parses it into fields; tests check the exact serialisation, so read it raw). */
function rawXmp(raw: RawPdf): string | null {
  const trailerRoot = [...raw.text.matchAll(/\/Root\s+(\d+)\s+(\d+)\s+R/g)].at(-1);
  if (!trailerRoot) return null;
  const catalog = raw.resolve({ num: Number(trailerRoot[1]), gen: Number(trailerRoot[2]) });
  const ref = isDict(catalog) ? catalog.Metadata : undefined;
  if (!isRef(ref)) return null;
  const stream = raw.streamOf(ref);
  if (!stream) return null;
  if (stream.dict.Filter !== undefined) throw new Error('the XMP stream is compressed; read it uncompressed');
  const length = Number(raw.resolve(stream.dict.Length));
  return Buffer.from(raw.bytes.subarray(stream.start, stream.start + length)).toString('utf8');
}

const segmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });
const graphemes = (text: string) => [...segmenter.segment(text)].map((part) => part.segment);

/**
 * Chunks (text in visual order, as ActualText of a right-to-left run is written: readers apply the bidi algorithm to
 * the line) laid out as a reader reads them: lines from the top, each line's chunks from left to right, and a line
 * whose letters are mostly right-to-left (Arabic, Hebrew) turned from visual into typed order by reversing its
 * graphemes. That is the whole bidi algorithm for a line in one direction; a line that mixes directions (numbers or
 * Latin words inside Arabic) would need the full algorithm, which no test here needs.
 */
function readingOrder(chunks: { text: string; x: number; y: number; size: number }[]): string {
  const lines: (typeof chunks)[] = [];
  for (const chunk of [...chunks].sort((a, b) => b.y - a.y)) {
    const line = lines.at(-1);
    if (line && Math.abs(line[0].y - chunk.y) <= Math.max(line[0].size, chunk.size) / 2) line.push(chunk);
    else lines.push([chunk]);
  }
  return lines
    .map((line) => {
      const visual = line
        .sort((a, b) => a.x - b.x)
        .map((chunk) => chunk.text)
        .join('');
      const rtl = visual.match(/[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/gu)?.length ?? 0;
      const letters = visual.match(/\p{L}/gu)?.length ?? 0;
      return rtl * 2 > letters ? graphemes(visual).reverse().join('') : visual;
    })
    .join('\n');
}

/** A PDF text string: UTF-16BE after its byte order mark, or PDFDocEncoding (Latin-1 for the characters used here). */
function textString(bytes: string): string {
  if (!bytes.startsWith('\xfe\xff')) return bytes;
  const units = Buffer.from(bytes.slice(2), 'latin1');
  let out = '';
  for (let i = 0; i + 1 < units.length; i += 2) out += String.fromCharCode(units.readUInt16BE(i));
  return out;
}

/** The operators of a content stream with their operands (ISO 32000-1 §7.8.2); inline images are skipped whole. */
function* operators(content: string): Generator<{ operator: string; operands: PdfValue[] }> {
  let i = 0;
  let operands: PdfValue[] = [];
  while (i < content.length) {
    const c = content[i];
    if (/[\0\t\n\f\r ]/.test(c)) {
      i++;
    } else if (c === '%') {
      while (i < content.length && content[i] !== '\n' && content[i] !== '\r') i++;
    } else if (/[(<[/+\-.0-9]/.test(c)) {
      const { value, end } = parse(content, i);
      operands.push(value);
      i = end;
    } else {
      const from = i;
      while (i < content.length && !/[\0\t\n\f\r ()<>[\]{}/%]/.test(content[i])) i++;
      const operator = content.slice(from, i) || content[i++];
      if (operator === 'BI') {
        const end = content.slice(i).search(/\sEI(?=[\0\t\n\f\r ]|$)/);
        if (end < 0) throw new Error('an inline image without EI');
        i += end + 3;
      }
      yield { operator, operands };
      operands = [];
    }
  }
}

/** A tiny reader of one PDF value (ISO 32000-1 §7.3), enough for dictionaries, arrays, names, numbers, strings, refs. */
function parse(text: string, start: number): { value: PdfValue; end: number } {
  let i = start;
  const skip = () => {
    for (;;) {
      while (i < text.length && /[\0\t\n\f\r ]/.test(text[i])) i++;
      if (text[i] !== '%') return;
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
    }
  };
  const delimiter = /[\0\t\n\f\r ()<>[\]{}/%]/;
  const token = () => {
    const from = i;
    while (i < text.length && !delimiter.test(text[i])) i++;
    return text.slice(from, i);
  };
  const value = (): PdfValue => {
    skip();
    const c = text[i];
    if (c === '<' && text[i + 1] === '<') {
      i += 2;
      const dict: PdfDict = {};
      for (;;) {
        skip();
        if (text[i] === '>' && text[i + 1] === '>') {
          i += 2;
          return dict;
        }
        if (text[i] !== '/') throw new Error(`a dictionary key is not a name at offset ${i}`);
        i++;
        const key = token();
        dict[key] = value();
      }
    }
    if (c === '[') {
      i++;
      const array: PdfValue[] = [];
      for (;;) {
        skip();
        if (text[i] === ']') {
          i++;
          return array;
        }
        array.push(value());
      }
    }
    if (c === '/') {
      i++;
      return { name: token().replace(/#([0-9a-fA-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16))) };
    }
    if (c === '(') {
      let depth = 0;
      let out = '';
      i++;
      for (; i < text.length; i++) {
        const ch = text[i];
        if (ch === '\\') {
          const next = text[++i];
          const octal = /^[0-7]{1,3}/.exec(text.slice(i, i + 3));
          if (octal) {
            out += String.fromCharCode(Number.parseInt(octal[0], 8) & 0xff);
            i += octal[0].length - 1;
          } else if (next === '\r' || next === '\n') {
            if (next === '\r' && text[i + 1] === '\n') i++;
          } else out += { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' }[next] ?? next;
          continue;
        }
        if (ch === '(') depth++;
        if (ch === ')' && depth-- === 0) break;
        out += ch;
      }
      i++;
      return out;
    }
    if (c === '<') {
      const end = text.indexOf('>', i);
      const hex = text.slice(i + 1, end).replace(/\s+/g, '');
      i = end + 1;
      return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex').toString('latin1');
    }
    const word = token();
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    const number = Number(word);
    if (word === '' || Number.isNaN(number)) throw new Error(`unexpected '${word || text[i]}' at offset ${i}`);
    // `num gen R` is a reference: look ahead without consuming when it is not.
    const back = i;
    const ref = /^\s+(\d+)\s+R(?![^\0\t\n\f\r ()<>[\]{}/%])/.exec(text.slice(i, i + 24));
    if (Number.isInteger(number) && ref) {
      i += ref[0].length;
      return { num: number, gen: Number(ref[1]) };
    }
    i = back;
    return number;
  };
  const result = value();
  return { value: result, end: i };
}
