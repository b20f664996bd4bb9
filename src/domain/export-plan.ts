// Which files an export (or `placard render`) makes and what they are called (SPEC §5, §6): per-slide formats make one
// file per slide of each size, the others one file per size; names are `<name>-<W>x<H>[-<slide + 1>].<ext>`, safe on
// every OS. Pure, shared by the export service and the CLI so that both name files the same way.
import type { DesignDocument, DesignSize } from './design.schema.js';
import { sizeDuration } from './timeline.js';

/** What the plan needs of an output format (formats/output-format.ts): its files and their extension. */
export interface FileShape {
  files: 'perSlide' | 'perSize';
  extension: string;
}

const UTF8_NAME_BYTES = 200;

/**
 * A design name as the start of a file name on every OS: no path separators, no characters Windows refuses
 * (`<>:"/\|?*`, control characters), no leading or trailing dots and spaces, at most 200 UTF-8 bytes. Reserved
 * Windows names (CON, NUL …) need no care: the `-WxH` that always follows makes them ordinary names.
 */
/**
 * Windows device names are reserved with any extension (`CON`, `nul.zip`, `COM1.txt`): a file by that name cannot be
 * saved there. They get a leading underscore, as reserved characters become underscores. (\u00b9\u00b2\u00b3: the
 * superscript digits ¹²³ Windows also reserves, escaped so that the CLI bundle stays ASCII: scripts/bundle-cli.mjs.)
 */
export function notWindowsDevice(name: string): string {
  return /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\s*\.|\s*$)/i.test(name)
    ? `_${name}`
    : name;
}

/**
 * Stems made, by design name: an export names its files and its zip from the same few names, and making a stem
 * (normalising, three patterns, a byte count per character) was a measurable part of accepting one (issue 21).
 */
const stems = new Map<string, string>();
const STEMS_KEPT = 1000;

export function safeFileStem(name: string): string {
  let stem = stems.get(name);
  if (stem === undefined) {
    stem = makeFileStem(name);
    if (stems.size >= STEMS_KEPT) stems.clear();
    stems.set(name, stem);
  }
  return stem;
}

function makeFileStem(name: string): string {
  const cleaned = name
    .normalize('NFC')
    .replace(/[\p{Cc}<>:"/\\|?*]/gu, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  let out = '';
  let bytes = 0;
  for (const char of cleaned) {
    bytes += Buffer.byteLength(char);
    if (bytes > UTF8_NAME_BYTES) break;
    out += char;
  }
  return notWindowsDevice(out || 'design');
}

/** `<design name>-<width>x<height>[-<slide + 1>].<ext>` (SPEC §6); `slide` only when the size has several. */
export function exportFileName(
  designName: string,
  size: { width: number; height: number },
  slide: number | undefined,
  ext: string,
): string {
  return `${safeFileStem(designName)}-${size.width}x${size.height}${slide === undefined ? '' : `-${slide + 1}`}.${ext}`;
}

export interface PlannedFile {
  sizeIndex: number;
  /** The slide a per-slide file shows; undefined for a file of the whole size. */
  slide?: number;
  /** The slide number the file carries (SPEC §5: counts from 0): null unless the size has several slides. */
  slideNumber: number | null;
  name: string;
}

/** The files of `format` for the chosen sizes (indexes into the document), in document order. */
export function planFiles(
  document: DesignDocument,
  fileStem: string,
  sizes: readonly number[],
  format: FileShape,
): PlannedFile[] {
  const files: PlannedFile[] = [];
  const taken = new Map<string, number>();
  for (const sizeIndex of sizes) {
    const size = document.sizes[sizeIndex];
    const slides = format.files === 'perSlide' ? size.slides.map((_, i) => i) : [undefined];
    for (const slide of slides) {
      const numbered = slide !== undefined && size.slides.length > 1 ? slide : undefined;
      let name = exportFileName(fileStem, size, numbered, format.extension);
      // Two sizes of one set may share their dimensions: the later one gets " (2)", as a browser names a second
      // download, rather than overwriting the first or a "-2" that would read as a slide number.
      const seen = taken.get(name) ?? 0;
      taken.set(name, seen + 1);
      if (seen) name = name.replace(/(\.[a-z0-9]+)$/, ` (${seen + 1})$1`);
      files.push({ sizeIndex, slide, slideNumber: numbered ?? null, name });
    }
  }
  return files;
}

/** SPEC §9: an animated export (MP4, animated GIF) lasts at most 5 minutes. */
export const MAX_ANIMATED_SECONDS = 300;

/** Why a size cannot be played as `format`, or null: the API and `placard render` refuse it with this sentence. */
export function animatedDurationProblem(
  size: Pick<DesignSize, 'width' | 'height' | 'slides'>,
  format: string,
): string | null {
  const seconds = sizeDuration(size);
  if (seconds <= MAX_ANIMATED_SECONDS) return null;
  return `type: ${format} plays the slides of ${size.width}x${size.height} for ${seconds} s, longer than the ${MAX_ANIMATED_SECONDS} s (5 minutes) an animated export may last (SPEC §9); shorten its slides' durations`;
}
