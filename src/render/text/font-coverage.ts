// The code points a font file really maps, read from its cmap table. Fontsource's unicode ranges describe the slices
// browsers download, not the whole-script files a renderer registers: Noto Sans SC's slices claim some Devanagari,
// Thai and Hangul code points that its whole `chinese-simplified` file lacks. Deciding which fallback a text needs from
// those ranges would leave such characters as missing-glyph boxes. Each .woff2 ships with a .woff twin (WOFF 1.0), whose
// tables are zlib-compressed one by one, so only the small cmap table is read and inflated (no Brotli, no glyph data).
import fs from 'node:fs';
import zlib from 'node:zlib';

/** Sorted, non-overlapping, merged [first, last] code point pairs. */
export type Ranges = Array<[number, number]>;

function readAt(fd: number, offset: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = fs.readSync(fd, buffer, 0, length, offset);
  if (read !== length) throw new Error(`short read at ${offset}`);
  return buffer;
}

/** The raw cmap table of a WOFF 1.0 file. */
function woffCmap(path: string): Buffer {
  const fd = fs.openSync(path, 'r');
  try {
    const header = readAt(fd, 0, 44);
    if (header.toString('latin1', 0, 4) !== 'wOFF') throw new Error(`${path} is not a WOFF 1.0 file`);
    const numTables = header.readUInt16BE(12);
    const directory = readAt(fd, 44, numTables * 20);
    for (let i = 0; i < numTables; i++) {
      const entry = directory.subarray(i * 20, i * 20 + 20);
      if (entry.toString('latin1', 0, 4) !== 'cmap') continue;
      const offset = entry.readUInt32BE(4);
      const compLength = entry.readUInt32BE(8);
      const origLength = entry.readUInt32BE(12);
      const data = readAt(fd, offset, compLength);
      return compLength < origLength ? zlib.inflateSync(data) : data;
    }
    throw new Error(`${path} has no cmap table`);
  } finally {
    fs.closeSync(fd);
  }
}

export function mergeRanges(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: Ranges = [];
  for (const [first, last] of sorted) {
    const previous = merged.at(-1);
    if (previous && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else merged.push([first, last]);
  }
  return merged;
}

function format12(cmap: Buffer, at: number): Ranges {
  const groups = cmap.readUInt32BE(at + 12);
  const ranges: Ranges = [];
  for (let i = 0; i < groups; i++) {
    const group = at + 16 + i * 12;
    let first = cmap.readUInt32BE(group);
    const last = cmap.readUInt32BE(group + 4);
    if (cmap.readUInt32BE(group + 8) === 0) first += 1; // mapped to .notdef: not a glyph
    if (first <= last) ranges.push([first, last]);
  }
  return ranges;
}

function format4(cmap: Buffer, at: number): Ranges {
  const segments = cmap.readUInt16BE(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  const ranges: Ranges = [];
  for (let s = 0; s < segments; s++) {
    const end = cmap.readUInt16BE(ends + s * 2);
    const start = cmap.readUInt16BE(starts + s * 2);
    const delta = cmap.readUInt16BE(deltas + s * 2);
    const rangeOffsetAt = rangeOffsets + s * 2;
    const rangeOffset = cmap.readUInt16BE(rangeOffsetAt);
    for (let c = start; c <= end && c !== 0xffff; c++) {
      let glyph: number;
      if (rangeOffset === 0) glyph = (c + delta) & 0xffff;
      else {
        const glyphAt = rangeOffsetAt + rangeOffset + (c - start) * 2;
        glyph = glyphAt + 2 <= cmap.length ? cmap.readUInt16BE(glyphAt) : 0;
        if (glyph !== 0) glyph = (glyph + delta) & 0xffff;
      }
      if (glyph !== 0) ranges.push([c, c]);
    }
  }
  return ranges;
}

/** The code points `path` (a .woff file) maps to a glyph; prefers the full-repertoire format 12 subtable. */
export function woffCoverage(path: string): Ranges {
  const cmap = woffCmap(path);
  const count = cmap.readUInt16BE(2);
  let best: { format: number; at: number } | undefined;
  for (let i = 0; i < count; i++) {
    const record = 4 + i * 8;
    const platform = cmap.readUInt16BE(record);
    const encoding = cmap.readUInt16BE(record + 2);
    const at = cmap.readUInt32BE(record + 4);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = cmap.readUInt16BE(at);
    if (format === 12 && best?.format !== 12) best = { format, at };
    else if (format === 4 && !best) best = { format, at };
  }
  if (!best) throw new Error(`${path} has no Unicode cmap subtable of format 4 or 12`);
  return mergeRanges(best.format === 12 ? format12(cmap, best.at) : format4(cmap, best.at));
}

/** Whether `codePoint` is in `ranges` (binary search). */
export function covers(ranges: Ranges, codePoint: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = ranges[mid]!;
    if (codePoint < first) hi = mid - 1;
    else if (codePoint > last) lo = mid + 1;
    else return true;
  }
  return false;
}
