// The font catalogue (SPEC §5 "Fonts"): the families shipped with the service as @fontsource npm packages, so nothing
// is downloaded at run time. The packages are the only list kept here; each family's name, scripts and variants are
// read from the installed package (metadata.json, unicode.json and the file names in files/), so upgrading a package
// upgrades the catalogue. Read once per process (or worker thread) on first use.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FontLookup } from './font-ref.js';

/** Popular families, offered to designers (at least 20, SPEC §5). */
const FAMILY_PACKAGES = [
  'inter',
  'roboto',
  'open-sans',
  'lato',
  'montserrat',
  'poppins',
  'oswald',
  'raleway',
  'nunito',
  'playfair-display',
  'merriweather',
  'source-sans-3',
  'pt-sans',
  'noto-sans',
  'noto-serif',
  'work-sans',
  'rubik',
  'dm-sans',
  'bebas-neue',
  'fira-sans',
  'barlow',
  'quicksand',
  'archivo',
  'anton',
  'lora',
] as const;

/**
 * Fallbacks, in the order a renderer should try them for a character the element's font lacks: between them no
 * character of any script draws as a missing-glyph box. Noto Sans (above) covers Latin, Cyrillic, Greek and
 * Devanagari; these add Japanese, Simplified Chinese, Korean, Arabic, Hebrew, Devanagari, Thai and colour emoji.
 */
const FALLBACK_PACKAGES = [
  'noto-sans-jp',
  'noto-sans-sc',
  'noto-sans-kr',
  'noto-sans-arabic',
  'noto-sans-hebrew',
  'noto-sans-devanagari',
  'noto-sans-thai',
  'noto-color-emoji',
] as const;

export type FontFormat = 'woff2' | 'woff';

/** One file of a variant: a subset of the family's characters (`latin`, `latin-ext`, or a numbered CJK slice). */
export interface FontFile {
  subset: string;
  path: string;
  /** The CSS unicode-range of the subset, e.g. `U+0000-00FF,U+0131`. */
  unicodeRange?: string;
}

export interface CatalogueFamily {
  fontFamily: string;
  /** `100` … `900`, each followed by its `italic` when the family has one, lightest first. */
  variants: string[];
  /** The scripts (Fontsource subsets) the family covers: latin, cyrillic, japanese, emoji … */
  scripts: string[];
}

interface Family extends CatalogueFamily {
  /** The package id, e.g. noto-sans-jp. */
  id: string;
  /** variant → subset → format → absolute path. */
  files: Map<string, Map<string, Partial<Record<FontFormat, string>>>>;
  unicode: Record<string, string>;
}

const require = createRequire(import.meta.url);

// files/<id>-<subset>-<weight>-<style>.<format>; the subset may itself contain dashes (latin-ext) or be a number.
const FILE_NAME = /^(.+)-(\d{3})-(normal|italic)\.(woff2|woff)$/;

function variantKey(weight: string, style: string): string {
  return style === 'italic' ? `${weight}italic` : weight;
}

function compareVariants(a: string, b: string): number {
  return Number.parseInt(a, 10) - Number.parseInt(b, 10) || a.length - b.length;
}

/** Named subsets first (latin first of all), then numbered slices in order. */
function compareSubsets(a: string, b: string): number {
  const na = /^\d+$/.test(a);
  const nb = /^\d+$/.test(b);
  if (na !== nb) return na ? 1 : -1;
  if (na) return Number(a) - Number(b);
  if (a === 'latin' || b === 'latin') return a === 'latin' ? -1 : 1;
  return a.localeCompare(b);
}

function readFamily(id: string): Family {
  const dir = path.dirname(require.resolve(`@fontsource/${id}/package.json`));
  const metadata = JSON.parse(fs.readFileSync(path.join(dir, 'metadata.json'), 'utf8')) as {
    family: string;
    subsets: string[];
  };
  const unicodePath = path.join(dir, 'unicode.json');
  const unicode = fs.existsSync(unicodePath)
    ? (JSON.parse(fs.readFileSync(unicodePath, 'utf8')) as Record<string, string>)
    : {};
  const files: Family['files'] = new Map();
  const prefix = `${id}-`;
  for (const name of fs.readdirSync(path.join(dir, 'files'))) {
    if (!name.startsWith(prefix)) continue;
    const match = FILE_NAME.exec(name.slice(prefix.length));
    if (!match) continue;
    const [, subset, weight, style, format] = match;
    const variant = variantKey(weight, style);
    const subsets = files.get(variant) ?? new Map();
    const formats = subsets.get(subset) ?? {};
    formats[format as FontFormat] = path.join(dir, 'files', name);
    subsets.set(subset, formats);
    files.set(variant, subsets);
  }
  if (files.size === 0) throw new Error(`@fontsource/${id} has no font files in ${dir}/files`);
  return {
    id,
    fontFamily: metadata.family,
    variants: [...files.keys()].sort(compareVariants),
    scripts: [...metadata.subsets],
    files,
    unicode,
  };
}

let families: Map<string, Family> | undefined;

/** lower-cased family name → family, read from the packages on first use. */
function load(): Map<string, Family> {
  families ??= new Map(
    [...FAMILY_PACKAGES, ...FALLBACK_PACKAGES].map((id) => {
      const family = readFamily(id);
      return [family.fontFamily.toLowerCase(), family];
    }),
  );
  return families;
}

function find(name: string): Family | undefined {
  const key = name.trim().toLowerCase();
  return load().get(key) ?? threadFamilies.get(key);
}

// Team brand fonts (brand-fonts.ts): families this thread was given by render jobs, under internal names that are
// unique per team. They are found like the catalogue's but never listed by fontCatalogue(). Their one "subset" is the
// whole file, listed under every format key: Skia and the HTML5 subsetter read TTF, OTF, WOFF and WOFF2 alike.
const threadFamilies = new Map<string, Family>();
const threadCoverage = new Map<string, () => Array<[number, number]>>();

export interface ThreadFamily {
  fontFamily: string;
  faces: Array<{ variant: string; path: string; coverage: () => Array<[number, number]> }>;
}

export function addThreadFamily(family: ThreadFamily): void {
  const files: Family['files'] = new Map();
  for (const face of family.faces) {
    files.set(face.variant, new Map([['brand', { woff2: face.path }]]));
    threadCoverage.set(face.path, face.coverage);
  }
  threadFamilies.set(family.fontFamily.toLowerCase(), {
    id: family.fontFamily,
    fontFamily: family.fontFamily,
    variants: [...files.keys()].sort(compareVariants),
    scripts: [],
    files,
    unicode: {},
  });
}

export function hasThreadFamily(name: string): boolean {
  return threadFamilies.has(name.toLowerCase());
}

/** The code points a brand font file covers (read on first use), or undefined for a catalogue file. */
export function threadFileCoverage(path: string): Array<[number, number]> | undefined {
  return threadCoverage.get(path)?.();
}

/** Every family of the catalogue (popular ones and fallbacks), by name. */
export function fontCatalogue(): CatalogueFamily[] {
  return [...load().values()]
    .map(({ fontFamily, variants, scripts }) => ({ fontFamily, variants: [...variants], scripts: [...scripts] }))
    .sort((a, b) => a.fontFamily.localeCompare(b.fontFamily));
}

/** The family named `name` (case-insensitively), or undefined. */
export function fontFamily(name: string): CatalogueFamily | undefined {
  const family = find(name);
  return family && { fontFamily: family.fontFamily, variants: [...family.variants], scripts: [...family.scripts] };
}

/** The catalogue as element changes see it (FONTFAMILY and FONTVARIANT checks). */
export const catalogueFonts: FontLookup = {
  family(name) {
    const family = find(name);
    return family && { fontFamily: family.fontFamily, variants: family.variants };
  },
};

/** The fallback families, in the order to try them after the element's own font. */
export function fallbackFamilies(): string[] {
  const byId = new Map([...load().values()].map((family) => [family.id, family.fontFamily]));
  return FALLBACK_PACKAGES.map((id) => byId.get(id)!);
}

/**
 * Every file of one variant of a family, one per subset (latin first), or [] when it has no such variant. Large
 * scripts (japanese, korean, chinese-simplified, emoji) ship twice: as one file for the whole script and as about a
 * hundred numbered slices with narrow unicode ranges that browsers download on demand. A renderer wants the whole
 * files (the default); the HTML5 packager may want `slices: true`, which lists the slices instead of the whole file.
 */
export function fontFiles(
  family: string,
  variant: string,
  options: { format?: FontFormat; slices?: boolean } = {},
): FontFile[] {
  const { format = 'woff2', slices = false } = options;
  const found = find(family);
  const subsets = found?.files.get(variant);
  if (!found || !subsets) return [];
  const sliced = [...subsets.keys()].some((subset) => /^\d+$/.test(subset));
  const wholeScripts = new Set(found.scripts.filter((script) => !found.unicode[script]));
  return [...subsets.entries()]
    .filter(([subset, formats]) => {
      if (!formats[format]) return false;
      const isSlice = /^\d+$/.test(subset);
      if (!sliced) return true;
      return slices ? !wholeScripts.has(subset) : !isSlice;
    })
    .sort(([a], [b]) => compareSubsets(a, b))
    .map(([subset, formats]) => ({
      subset,
      path: formats[format]!,
      unicodeRange: found.unicode[subset] ?? found.unicode[`[${subset}]`],
    }));
}

/** The absolute path of one file: family (any case), variant (`700italic`), subset (`latin`, `japanese`, `0`), format. */
export function fontFile(
  family: string,
  variant: string,
  subset: string,
  format: FontFormat = 'woff2',
): string | undefined {
  return find(family)?.files.get(variant)?.get(subset)?.[format];
}
