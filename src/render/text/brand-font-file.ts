// Reads an uploaded font file (issue 17): the format by its first bytes (never by its name), every face with fontkit
// (TTF, OTF, WOFF, WOFF2, TrueType/OpenType collections; a variable font's named instances), and a check that the
// tables a renderer reads hold together, so that a fuzzed or truncated file is refused at upload and never reaches a
// render thread. Pure over bytes: the upload service and the render threads (coverage) both use it.
import { createRequire } from 'node:module';
import type * as Fontkit from 'fontkit';

/** A font file may be at most this large (documented in the README and the route). */
export const MAX_FONT_BYTES = 10 * 1024 * 1024;
/** A collection or a variable font may bring at most this many faces. */
export const MAX_FACES = 64;

// fontkit (with its Brotli dictionary and Unicode tables, ~100 ms) is loaded by the first font read, through its
// CommonJS build so that reading stays synchronous: every render thread and `placard render` import this module for
// brand-font coverage, and most renders read no font file (issue 21).
let loadedFontkit: typeof Fontkit | undefined;
const fontkit = {
  create(buffer: Buffer, postscriptName?: string): Fontkit.Font | Fontkit.FontCollection {
    loadedFontkit ??= createRequire(import.meta.url)('fontkit') as typeof Fontkit;
    return loadedFontkit.create(buffer, postscriptName);
  },
};

export type FontFileFormat = 'ttf' | 'otf' | 'woff' | 'woff2' | 'ttc';

export interface ParsedFace {
  family: string;
  /** `400`, `700italic` (the seed's FONTVARIANT spelling). */
  variant: string;
  style: 'normal' | 'italic';
  weight: number;
  glyphCount: number;
  postscriptName: string | null;
  /** The OS/2 fsType bits as stored. */
  fsType: number;
  /** Whether fsType lets a subset of the font be embedded in a document (PDF) or a web package (HTML5). */
  embeddable: boolean;
  /** A named instance of a variable font: axis tag → value; null for a static face. */
  variation: Record<string, number> | null;
  /** The file a renderer registers for this face: the upload itself, or a collection's face as a standalone font. */
  bytes: Buffer;
  /** Format of `bytes`. */
  storedFormat: Exclude<FontFileFormat, 'ttc'>;
}

export interface ParsedFontFile {
  format: FontFileFormat;
  faces: ParsedFace[];
}

/** Why a file is not a usable font; the message is meant for the person who uploaded it. */
export class FontFileError extends Error {}

/** The format of a font file by its signature, or null when the bytes are no font this service reads. */
export function sniffFont(bytes: Uint8Array): FontFileFormat | null {
  if (bytes.length < 12) return null;
  const tag = Buffer.from(bytes.subarray(0, 4)).toString('latin1');
  if (tag === '\x00\x01\x00\x00' || tag === 'true') return 'ttf';
  if (tag === 'OTTO') return 'otf';
  if (tag === 'wOFF') return 'woff';
  if (tag === 'wOF2') return 'woff2';
  if (tag === 'ttcf') return 'ttc';
  return null;
}

// OS/2 fsType bits (OpenType spec, OS/2 table). fontkit decodes them as named flags.
const FS_TYPE_BITS = {
  noEmbedding: 0x0002,
  viewOnly: 0x0004,
  editable: 0x0008,
  noSubsetting: 0x0100,
  bitmapOnly: 0x0200,
} as const;

function fsTypeOf(font: Fontkit.Font): number {
  const flags = ((font as unknown as { 'OS/2'?: { fsType?: Record<string, boolean> } })['OS/2']?.fsType ??
    {}) as Record<string, boolean>;
  let value = 0;
  for (const [name, bit] of Object.entries(FS_TYPE_BITS)) if (flags[name]) value |= bit;
  return value;
}

/**
 * Restricted-licence fonts (bit 1) may not be embedded at all; "no subsetting" (bit 8) forbids what every PDF and
 * HTML5 export does (they embed subsets); "bitmap embedding only" (bit 9) forbids embedding the outlines. "Preview &
 * print" (bit 2) allows embedding in a read-only document, which is what an exported PDF or ad is.
 */
export function embeddableFsType(fsType: number): boolean {
  return (fsType & (FS_TYPE_BITS.noEmbedding | FS_TYPE_BITS.noSubsetting | FS_TYPE_BITS.bitmapOnly)) === 0;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g;

function cleanName(name: string | null | undefined): string {
  return (name ?? '')
    .replace(CONTROL, '')
    .replace(/["|,\\]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100);
}

function variantOf(weight: number, italic: boolean): string {
  return `${weight}${italic ? 'italic' : ''}`;
}

/** 1..1000 usWeightClass to the nearest of 100..900, as CSS and the catalogue spell weights. */
function roundWeight(weight: number): number {
  if (!Number.isFinite(weight) || weight <= 0) return 400;
  return Math.min(900, Math.max(100, Math.round(weight / 100) * 100));
}

interface Os2 {
  usWeightClass?: number;
  fsSelection?: { italic?: boolean; oblique?: boolean };
}

/**
 * Reads what a renderer reads, so that broken tables fail here: the glyph count against loca, the cmap, a sample of
 * glyph outlines and advances, and a shaping run through GSUB/GPOS.
 */
function checkTables(font: Fontkit.Font): void {
  const numGlyphs = font.numGlyphs;
  if (!Number.isInteger(numGlyphs) || numGlyphs < 1 || numGlyphs > 65_535) {
    throw new FontFileError(`claims ${numGlyphs} glyphs; a font has 1 to 65535`);
  }
  const tables = (font as unknown as { directory: { tables: Record<string, { length: number }> } }).directory.tables;
  const raw = font as unknown as Record<string, unknown>;
  // WOFF2 transforms glyf and loca (its directory holds transformed lengths); fontkit rebuilds them per glyph, and
  // the glyph sample below reads them.
  if (tables.glyf && font.type !== 'WOFF2') {
    const loca = raw.loca as { offsets?: number[] } | undefined;
    const offsets = loca?.offsets ?? [];
    if (offsets.length < numGlyphs + 1) {
      throw new FontFileError(
        `claims ${numGlyphs} glyphs but its loca table locates ${Math.max(0, offsets.length - 1)}`,
      );
    }
    const glyfLength = tables.glyf.length;
    if (offsets[numGlyphs]! > glyfLength + 4 && tables.glyf.length > 0) {
      throw new FontFileError('its loca table points past the end of its glyf table');
    }
  } else if (!tables.glyf && !tables['CFF '] && !tables.CFF2) {
    throw new FontFileError('has no outlines (neither a glyf nor a CFF table)');
  }
  if (!tables.cmap) throw new FontFileError('has no cmap table (no characters map to glyphs)');
  const characters = font.characterSet;
  if (characters.length === 0) throw new FontFileError('maps no Unicode character to a glyph');
  // Spread over the repertoire: the first characters, and every nth one after.
  const step = Math.max(1, Math.floor(characters.length / 48));
  for (let i = 0; i < characters.length; i += step) {
    const glyph = font.glyphForCodePoint(characters[i]!);
    if (!Number.isFinite(glyph.advanceWidth)) throw new FontFileError(`glyph ${glyph.id} has no valid advance`);
    // An empty glyph (a space) has an infinite box; one with an outline must have a finite one.
    if (glyph.path.commands.length > 0) {
      const box = glyph.bbox;
      if (![box.minX, box.minY, box.maxX, box.maxY].every(Number.isFinite)) {
        throw new FontFileError(`glyph ${glyph.id} has an invalid outline`);
      }
    }
  }
  font.layout('Hamburgefonstiv 0123 AV To');
}

function facesOfFont(
  font: Fontkit.Font,
  bytes: Buffer,
  storedFormat: ParsedFace['storedFormat'],
  fileName: string,
): ParsedFace[] {
  try {
    checkTables(font);
  } catch (error) {
    if (error instanceof FontFileError) throw error;
    throw new FontFileError(`has malformed tables (${(error as Error).message})`);
  }
  const raw = font as unknown as { getName(key: string): string | null };
  const family = cleanName(raw.getName('preferredFamily') ?? font.familyName) || cleanName(fileName);
  if (!family) throw new FontFileError('has no family name in its name table');
  const os2 = (font as unknown as { 'OS/2'?: Os2 })['OS/2'] ?? {};
  const italic = Boolean(os2.fsSelection?.italic || os2.fsSelection?.oblique || font.italicAngle !== 0);
  const fsType = fsTypeOf(font);
  const base = {
    family,
    glyphCount: font.numGlyphs,
    postscriptName: cleanName(font.postscriptName) || null,
    fsType,
    embeddable: embeddableFsType(fsType),
    bytes,
    storedFormat,
  };
  const named = Object.entries(
    ((font as unknown as { namedVariations?: Record<string, Record<string, number>> }).namedVariations ?? {}) as Record<
      string,
      Record<string, number>
    >,
  );
  if (named.length === 0) {
    const weight = roundWeight(os2.usWeightClass ?? 400);
    return [
      { ...base, variant: variantOf(weight, italic), style: italic ? 'italic' : 'normal', weight, variation: null },
    ];
  }
  // Each named instance is a variant; two instances with the same weight and slant (a width axis) keep the first.
  const faces = new Map<string, ParsedFace>();
  for (const [name, coords] of named) {
    const weight = roundWeight(coords.wght ?? os2.usWeightClass ?? 400);
    const slanted = italic || coords.ital === 1 || (coords.slnt ?? 0) !== 0 || /italic|oblique/i.test(name);
    const variant = variantOf(weight, slanted);
    if (faces.has(variant)) continue;
    faces.set(variant, {
      ...base,
      variant,
      style: slanted ? 'italic' : 'normal',
      weight,
      variation: { ...coords },
    });
  }
  return [...faces.values()];
}

/**
 * A TrueType/OpenType collection's face as a standalone font file: its table directory rewritten with the tables
 * packed after it. Done by hand because neither fontkit nor HarfBuzz's subsetter (subset-font) writes a face of a
 * collection out whole, and Skia registers only the first face of a collection.
 */
function standaloneFace(collection: Buffer, font: Fontkit.Font): Buffer {
  const directory = (
    font as unknown as { directory: { tag: string; tables: Record<string, { offset: number; length: number }> } }
  ).directory;
  const tags = Object.keys(directory.tables).sort();
  const headerLength = 12 + tags.length * 16;
  let offset = headerLength;
  const placed = tags.map((tag) => {
    const table = directory.tables[tag]!;
    if (table.offset + table.length > collection.length) {
      throw new FontFileError(`table '${tag}' of a face lies past the end of the collection`);
    }
    const at = offset;
    offset += (table.length + 3) & ~3;
    return { tag, table, at };
  });
  const out = Buffer.alloc(offset);
  const version = tags.includes('CFF ') ? 0x4f54544f : 0x00010000;
  out.writeUInt32BE(version, 0);
  out.writeUInt16BE(tags.length, 4);
  const power = 2 ** Math.floor(Math.log2(Math.max(1, tags.length)));
  out.writeUInt16BE(power * 16, 6);
  out.writeUInt16BE(Math.log2(power), 8);
  out.writeUInt16BE(tags.length * 16 - power * 16, 10);
  placed.forEach(({ tag, table, at }, i) => {
    const record = 12 + i * 16;
    out.write(tag.padEnd(4, ' '), record, 'latin1');
    const data = collection.subarray(table.offset, table.offset + table.length);
    let sum = 0;
    const padded = Buffer.alloc((table.length + 3) & ~3);
    data.copy(padded);
    for (let j = 0; j < padded.length; j += 4) sum = (sum + padded.readUInt32BE(j)) >>> 0;
    out.writeUInt32BE(sum, record + 4);
    out.writeUInt32BE(at, record + 8);
    out.writeUInt32BE(table.length, record + 12);
    padded.copy(out, at);
  });
  return out;
}

/** Every face of a font file, checked; throws FontFileError with a reason a person can act on. */
export function parseFontFile(bytes: Buffer, fileName: string): ParsedFontFile {
  if (bytes.length > MAX_FONT_BYTES) {
    throw new FontFileError(`is ${(bytes.length / 1024 / 1024).toFixed(1)} MB; a font file may be at most 10 MB`);
  }
  const format = sniffFont(bytes);
  if (!format) {
    throw new FontFileError('is not a font file: TTF, OTF, WOFF, WOFF2 or a TrueType collection (TTC) is needed');
  }
  let parsed: Fontkit.Font | Fontkit.FontCollection;
  try {
    parsed = fontkit.create(bytes);
  } catch (error) {
    throw new FontFileError(`is a damaged ${format.toUpperCase()} file (${(error as Error).message})`);
  }
  if ('fonts' in parsed) {
    let fonts: Fontkit.Font[];
    try {
      fonts = parsed.fonts;
    } catch (error) {
      throw new FontFileError(`is a damaged font collection (${(error as Error).message})`);
    }
    if (fonts.length === 0) throw new FontFileError('is a font collection without faces');
    if (fonts.length > MAX_FACES) {
      throw new FontFileError(`is a collection of ${fonts.length} faces; at most ${MAX_FACES} are accepted`);
    }
    const faces = fonts.flatMap((font) => {
      const standalone = standaloneFace(bytes, font);
      const storedFormat = standalone.readUInt32BE(0) === 0x4f54544f ? 'otf' : 'ttf';
      return facesOfFont(fontkit.create(standalone) as Fontkit.Font, standalone, storedFormat, fileName);
    });
    return { format, faces };
  }
  const faces = facesOfFont(parsed, bytes, format as ParsedFace['storedFormat'], fileName);
  if (faces.length > MAX_FACES) {
    throw new FontFileError(`has ${faces.length} named instances; at most ${MAX_FACES} are accepted`);
  }
  return { format, faces };
}

/**
 * A variable font's named instance as a static font of its own: every axis pinned to the instance's value (the axes
 * it does not name, to their defaults), with every glyph kept. HarfBuzz's instancer (subset-font, i.e. hb-subset)
 * does it. Why a file per instance: Skia draws a registered variable font at its default instance, and its
 * registry, the PDF embedder and the HTML5 subsetter all work per file, so a static file is drawn, embedded and
 * subset with the instance's own outlines everywhere without any of them knowing about variations.
 */
async function instanceFile(bytes: Buffer, coordinates: Record<string, number>): Promise<Buffer> {
  const font = fontkit.create(bytes) as Fontkit.Font;
  const axes = (font as unknown as { variationAxes?: Record<string, { default: number; min: number; max: number }> })
    .variationAxes;
  const pinned: Record<string, number> = {};
  for (const [tag, axis] of Object.entries(axes ?? {})) {
    const value = coordinates[tag] ?? axis.default;
    pinned[tag] = Math.min(axis.max, Math.max(axis.min, value));
  }
  // Imported here, for variable fonts only: HarfBuzz and its WOFF codecs are most of what reading a font would load,
  // and every render thread (and `placard render`) imports this module for coverage (issue 21).
  const { default: subsetFont } = await import('subset-font');
  let instance: Buffer;
  try {
    instance = await subsetFont(bytes, '', { targetFormat: 'sfnt', keepAllGlyphs: true, variationAxes: pinned });
  } catch (error) {
    throw new FontFileError(`has a named instance that cannot be instantiated (${(error as Error).message})`);
  }
  // What the instancer wrote is read like an upload: a broken instance is refused here, never at a render.
  let parsed: Fontkit.Font;
  try {
    parsed = fontkit.create(instance) as Fontkit.Font;
    checkTables(parsed);
  } catch (error) {
    if (error instanceof FontFileError) throw error;
    throw new FontFileError(`has a named instance that cannot be instantiated (${(error as Error).message})`);
  }
  return instance;
}

/**
 * parseFontFile, then each named instance of a variable font written out as a static font (instanceFile); static
 * faces are returned as they are. Asynchronous because HarfBuzz (WebAssembly) does the instancing.
 */
export async function readFontFile(bytes: Buffer, fileName: string): Promise<ParsedFontFile> {
  const parsed = parseFontFile(bytes, fileName);
  const faces: ParsedFace[] = [];
  for (const face of parsed.faces) {
    if (!face.variation) {
      faces.push(face);
      continue;
    }
    const instance = await instanceFile(face.bytes, face.variation);
    faces.push({ ...face, bytes: instance, storedFormat: sniffFont(instance) === 'otf' ? 'otf' : 'ttf' });
  }
  return { format: parsed.format, faces };
}

/** The code points a font file maps to a glyph, as sorted [first, last] ranges (the renderer's fallback decisions). */
export function fontFileCoverage(bytes: Buffer): Array<[number, number]> {
  const parsed = fontkit.create(bytes);
  const font = 'fonts' in parsed ? parsed.fonts[0]! : parsed;
  const points = [...font.characterSet].sort((a, b) => a - b);
  const ranges: Array<[number, number]> = [];
  for (const point of points) {
    const last = ranges.at(-1);
    if (last && point <= last[1] + 1) last[1] = Math.max(last[1], point);
    else ranges.push([point, point]);
  }
  return ranges;
}
