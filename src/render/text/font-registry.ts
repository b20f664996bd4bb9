// Registers the catalogue's font files with Skia lazily, once per thread, and builds the font stack a piece of text is
// drawn with. Each subset file gets its own alias (`Inter|700italic|latin-ext`): Skia picks one face per family name
// and weight/style, so subsets sharing one name would hide each other, and one face per alias makes the chosen face
// independent of what else happens to be registered. The stack lists the element family's subsets first, then only
// the Noto fallback files whose unicode ranges hold a character the family lacks; Skia falls back per glyph along the
// comma-separated list. Only what a text needs is registered: CJK files cost ~50 ms each and the colour emoji ~275 ms.
import { GlobalFonts } from '@napi-rs/canvas';
import { covers, type Ranges, woffCoverage } from './font-coverage.js';
import { DEFAULT_FONT } from './font-ref.js';
import { fallbackFamilies, fontFamily, fontFile, fontFiles, threadFileCoverage } from './fonts.js';

/** The pieces of a CSS font shorthand, without the size: `${style} ${weight} ${size}px ${families}`. */
export interface FontStack {
  /** The weight of the element family's chosen face, so that Skia never synthesises bold on top of a real face. */
  weight: number;
  /** `italic` also when the family has no italic face: Skia then slants the upright face (a synthetic italic). */
  style: 'normal' | 'italic';
  /** Registered aliases, family subsets first, then the fallbacks the text needs. */
  families: string[];
}

/** A face of a family, as chosen for a requested variant. */
export interface ResolvedFace {
  fontFamily: string;
  /** An existing variant of the family, e.g. `700` or `400italic`. */
  variant: string;
  weight: number;
  /** True when italic was asked for and the family has no italic face: the slant is synthetic. */
  syntheticItalic: boolean;
}

interface SubsetFile {
  alias: string;
  path: string;
  family: string;
  variant: string;
  subset: string;
}

const registered = new Set<string>();
const stats = { files: 0, milliseconds: 0 };

/** How many files this thread registered and the time that took (the first also loads Skia's font manager). */
export function registrationStats(): { files: number; milliseconds: number } {
  return { ...stats };
}

function register(file: SubsetFile): void {
  if (registered.has(file.path)) return;
  const started = performance.now();
  // Another thread of the process may already have registered it: Skia's collection is shared by the process.
  if (!GlobalFonts.has(file.alias) && !GlobalFonts.registerFromPath(file.path, file.alias)) {
    throw new Error(`Skia could not register the font file ${file.path}`);
  }
  registered.add(file.path);
  stats.files += 1;
  stats.milliseconds += performance.now() - started;
}

function parseVariant(variant: string): { weight: number; italic: boolean } {
  const weight = Number.parseInt(variant, 10);
  return { weight: Number.isFinite(weight) ? weight : 400, italic: variant.endsWith('italic') };
}

/** CSS font matching for weights (CSS Fonts 4 §5.2): the face Skia itself would pick among `weights`. */
export function nearestWeight(desired: number, weights: number[]): number {
  if (weights.includes(desired)) return desired;
  const below = weights.filter((w) => w < desired).sort((a, b) => b - a);
  const above = weights.filter((w) => w > desired).sort((a, b) => a - b);
  if (desired >= 400 && desired <= 500) {
    const upTo500 = above.filter((w) => w <= 500);
    const beyond = above.filter((w) => w > 500);
    return [...upTo500, ...below, ...beyond][0]!;
  }
  return (desired < 400 ? [...below, ...above] : [...above, ...below])[0]!;
}

/**
 * The face of `family` used for `variant`: the nearest weight among faces of the asked style; when italic is asked
 * and the family has none, the nearest upright face, slanted by Skia. An unknown family draws with the default font.
 */
export function resolveFace(family: string, variant: string): ResolvedFace {
  const found = fontFamily(family) ?? fontFamily(DEFAULT_FONT.fontFamily)!;
  const { weight, italic } = parseVariant(variant);
  const ofStyle = found.variants.filter((v) => v.endsWith('italic') === italic);
  const candidates = ofStyle.length > 0 ? ofStyle : found.variants.filter((v) => !v.endsWith('italic'));
  const chosen = nearestWeight(
    weight,
    candidates.map((v) => parseVariant(v).weight),
  );
  const chosenItalic = italic && ofStyle.length > 0;
  return {
    fontFamily: found.fontFamily,
    variant: chosenItalic ? `${chosen}italic` : String(chosen),
    weight: chosen,
    syntheticItalic: italic && !chosenItalic,
  };
}

const subsetCache = new Map<string, SubsetFile[]>();
const coverageCache = new Map<string, Ranges>();

/** The exact coverage of one subset file, read once per thread from the cmap of its .woff twin (undefined: none). */
function coverageOf(file: SubsetFile): Ranges | undefined {
  const woff = fontFile(file.family, file.variant, file.subset, 'woff');
  if (!woff) return brandCoverage(file.path);
  let ranges = coverageCache.get(woff);
  if (!ranges) {
    ranges = woffCoverage(woff);
    coverageCache.set(woff, ranges);
  }
  return ranges;
}

/** A brand font's coverage (fonts.ts thread families), read once per thread. */
function brandCoverage(path: string): Ranges | undefined {
  let ranges = coverageCache.get(path);
  if (!ranges) {
    ranges = threadFileCoverage(path);
    if (ranges) coverageCache.set(path, ranges);
  }
  return ranges;
}

/** The files of one face, latin first. */
function subsetFiles(family: string, variant: string): SubsetFile[] {
  const key = `${family}|${variant}`;
  let files = subsetCache.get(key);
  if (!files) {
    files = fontFiles(family, variant).map((file) => ({
      alias: `${family}|${variant}|${file.subset}`,
      path: file.path,
      family,
      variant,
      subset: file.subset,
    }));
    subsetCache.set(key, files);
  }
  return files;
}

function codePointsOf(text: string): Set<number> {
  const points = new Set<number>();
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    // Controls are never drawn; they must not pull in a fallback.
    if (codePoint >= 0x20 && codePoint !== 0x7f) points.add(codePoint);
  }
  return points;
}

/** Which file of a stack draws which characters of a text, and what no file of the chain can draw. */
export interface StackPlan {
  face: ResolvedFace;
  files: SubsetFile[];
  /** Per family of the chain (the element's, then fallbacks), the code points its files draw. */
  drawnBy: Map<string, number[]>;
  /** Code points no font of the chain maps: they draw as the missing-glyph box (.notdef). */
  missing: number[];
}

/**
 * The files a text needs, in the order Skia tries them: the element family's subsets, then only the fallback files
 * that hold a character still missing. Without `text`, every subset of the family and of every fallback.
 */
function planStack(family: string, variant: string, text?: string): StackPlan {
  const face = resolveFace(family, variant);
  const wanted = parseVariant(variant);
  const uncovered = text === undefined ? undefined : codePointsOf(text);
  const chosen: SubsetFile[] = [];
  const drawnBy = new Map<string, number[]>();
  const take = (files: SubsetFile[], always: SubsetFile | undefined) => {
    for (const file of files) {
      if (!uncovered) {
        chosen.push(file);
        continue;
      }
      const ranges = coverageOf(file);
      const hits = ranges ? [...uncovered].filter((codePoint) => covers(ranges, codePoint)) : [...uncovered];
      if (hits.length === 0 && file !== always) continue;
      chosen.push(file);
      // Skia takes a glyph from the first listed font that has it, so later fonts only matter for what is still missing.
      for (const codePoint of hits) uncovered.delete(codePoint);
      if (hits.length > 0) drawnBy.set(file.family, [...(drawnBy.get(file.family) ?? []), ...hits]);
    }
  };
  const own = subsetFiles(face.fontFamily, face.variant);
  take(own, own[0]);
  for (const fallback of fallbackFamilies()) {
    if (uncovered?.size === 0) break;
    if (fallback === face.fontFamily) continue;
    const weights = fontFamily(fallback)!
      .variants.filter((v) => !v.endsWith('italic'))
      .map(Number);
    take(subsetFiles(fallback, String(nearestWeight(wanted.weight, weights))), undefined);
  }
  return { face, files: chosen, drawnBy, missing: uncovered ? [...uncovered].sort((a, b) => a - b) : [] };
}

/**
 * The font stack for `text` drawn in `variant` of `family`, with every file it lists registered. Without `text`, every
 * subset of the family and of every fallback is listed (and registered). The family's first subset (latin for Latin
 * families) is always listed: it carries the line metrics and the ellipsis.
 */
export function fontStack(family: string, variant: string, text?: string): FontStack {
  const plan = planStack(family, variant, text);
  for (const file of plan.files) register(file);
  return {
    weight: plan.face.weight,
    style: parseVariant(variant).italic ? 'italic' : 'normal',
    families: plan.files.map((file) => file.alias),
  };
}

// Format and invisible characters (joiners, variation selectors, bidi marks) are never drawn as glyphs of their own.
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}]/u;

/**
 * The characters of `text` that neither `variant` of `family` nor any fallback maps, each once, in order of first
 * appearance. Skia would draw these with whatever font of the host machine has them, so callers replace them with
 * MISSING_GLYPH: output never depends on the fonts installed where Placard runs.
 */
export function missingCharacters(family: string, variant: string, text: string): string[] {
  const face = resolveFace(family, variant);
  const wanted = parseVariant(variant);
  const missing = new Map<number, string>();
  for (const char of text) {
    if (!IGNORABLE.test(char)) missing.set(char.codePointAt(0)!, char);
  }
  const strike = (files: SubsetFile[]) => {
    for (const file of files) {
      if (missing.size === 0) return;
      const ranges = coverageOf(file);
      if (!ranges) continue;
      for (const codePoint of [...missing.keys()]) if (covers(ranges, codePoint)) missing.delete(codePoint);
    }
  };
  strike(subsetFiles(face.fontFamily, face.variant));
  for (const fallback of fallbackFamilies()) {
    const weights = fontFamily(fallback)!
      .variants.filter((v) => !v.endsWith('italic'))
      .map(Number);
    strike(subsetFiles(fallback, String(nearestWeight(wanted.weight, weights))));
  }
  return [...missing.values()];
}

/**
 * What a character no Placard font has is drawn as: U+FDD0, a noncharacter, which no font maps, so Skia draws the
 * missing-glyph box (.notdef) of the element's font instead of searching the host's fonts for the real character.
 */
export const MISSING_GLYPH = '\uFDD0';

/** `text` with every character that no Placard font has (see missingCharacters) replaced by MISSING_GLYPH. */
export function withBundledGlyphs(family: string, variant: string, text: string): string {
  const missing = new Set(missingCharacters(family, variant, text));
  if (missing.size === 0) return text;
  return Array.from(text, (char) => (missing.has(char) ? MISSING_GLYPH : char)).join('');
}

/**
 * How the chain of `family` draws `text` (preflight): the same plan `fontStack` registers, without registering it.
 * `drawnBy` names the family (the element's own, or a fallback) that draws each code point; `missing` lists the code
 * points that draw as the missing-glyph box. Whitespace and default-ignorable characters (joiners, variation
 * selectors) are not drawn and never count as missing.
 */
export function glyphCoverage(family: string, variant: string, text: string): GlyphCoverage {
  const key = `${family}\u0000${variant}\u0000${text}`;
  let coverage = coverages.get(key);
  if (coverage) {
    coverages.delete(key);
  } else {
    coverage = computeCoverage(family, variant, text);
    if (coverages.size >= COVERAGE_CACHE_SIZE) coverages.delete(coverages.keys().next().value!);
  }
  coverages.set(key, coverage);
  return coverage;
}

export interface GlyphCoverage {
  fontFamily: string;
  drawnBy: Map<string, number[]>;
  missing: number[];
}

// Preflight asks for the same texts variant after variant (only the changed ones are new): per thread, least recently
// used first out.
const COVERAGE_CACHE_SIZE = 1024;
const coverages = new Map<string, GlyphCoverage>();

function computeCoverage(family: string, variant: string, text: string): GlyphCoverage {
  const plan = planStack(family, variant, text);
  const drawn = (codePoint: number) => !INVISIBLE.test(String.fromCodePoint(codePoint));
  const drawnBy = new Map<string, number[]>();
  for (const [name, points] of plan.drawnBy) {
    const visible = points.filter(drawn);
    if (visible.length > 0) drawnBy.set(name, visible);
  }
  return { fontFamily: plan.face.fontFamily, drawnBy, missing: plan.missing.filter(drawn) };
}

const INVISIBLE = /^[\s\p{Default_Ignorable_Code_Point}]$/u;

/** The CSS font shorthand for a stack at `size` px, as ctx.font takes it. */
export function cssFont(stack: FontStack, size: number): string {
  const families = stack.families.map((alias) => `"${alias}"`).join(', ');
  const px = Math.round(size * 1000) / 1000;
  return `${stack.style === 'italic' ? 'italic ' : ''}${stack.weight} ${px}px ${families}`;
}
