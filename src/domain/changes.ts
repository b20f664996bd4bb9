// Element changes (SPEC §5 "Element changes"): validate and apply `elementsChanges` and `generalChanges` to a design
// document. Pure: the input document is never mutated; `applyChanges` returns a new one. Changes run in request order,
// element by element, on every size that has an element of that name, so a FONTVARIANT after a FONTFAMILY is checked
// against the new family. Which attributes a type accepts and how a change lands on an element is the element kind's
// business (elements/registry.ts); the value rules of each attribute, which do not depend on the type, are here.

import { htmlFragmentProblem } from '../elements/code/html-fragment.js';
import { MAX_CODE_BYTES } from '../elements/code/schema.js';
import { HEX_COLOUR } from '../elements/common.js';
import {
  CHANGE_ATTRIBUTES,
  type ChangeAttribute,
  type FontLookup,
  type ParsedChange,
} from '../elements/element-kind.js';
import { kindOfElement, type Layer } from '../elements/registry.js';
import { MAX_SVG_COLORS } from '../elements/svg/schema.js';
import { FONT_VARIANT, MAX_TEXT_LENGTH } from '../elements/text-style.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { rewriteShareLink } from '../render/media/share-links.js';
import type { DesignDocument } from './design.schema.js';
import { pointerToPath } from './json-pointer.js';

/** One entry of `elementsChanges`, as the request carries it (values are always strings). */
export interface ElementChangesInput {
  elementName: string;
  changes: readonly { attribute: string; value: string }[];
}

export interface GeneralChangesInput {
  backgroundColor?: string;
}

/** The fonts a change may name: the catalogue (render/fonts.ts), plus a team's brand kit fonts when it has some. */
export type { FontLookup };

interface Problem {
  code: ErrorCode;
  path: string;
  message: string;
}

/** Where one element sits in the document. */
interface Location {
  size: number;
  slide: number;
  element: number;
}

const URL_MAX = 2048;
const MAX_NAMES_LISTED = 50;
const MAX_DETAILS = 20;

function received(value: string): string {
  const text = JSON.stringify(value);
  return `received ${text.length > 60 ? `${text.slice(0, 57)}..."` : text}`;
}

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

function numberIn(value: string, min: number, max: number): number | undefined {
  if (!DECIMAL.test(value.trim())) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

/** Accepts the Google Fonts spellings many clients use as well: regular = 400, italic = 400italic, bold = 700. */
const VARIANT_ALIASES: Record<string, string> = { regular: '400', italic: '400italic', bold: '700' };

function variantOf(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  const canonical = VARIANT_ALIASES[v] ?? v;
  return FONT_VARIANT.test(canonical) ? canonical : undefined;
}

/** Splits a SVGCOLORS value: a JSON array of strings, or a comma-separated list. */
function colourList(value: string): { colours: string[] } | { problem: string } {
  let items: unknown[];
  if (value.trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (!Array.isArray(parsed)) return { problem: 'the value is not a JSON array' };
      items = parsed;
    } catch {
      return { problem: 'the value starts with [ but is not valid JSON' };
    }
  } else items = value.split(',').map((item) => item.trim());
  if (items.length === 0 || (items.length === 1 && items[0] === '')) return { problem: 'the list is empty' };
  if (items.length > MAX_SVG_COLORS)
    return { problem: `the list has ${items.length} colours, at most ${MAX_SVG_COLORS}` };
  const bad = items.findIndex((item) => typeof item !== 'string' || !HEX_COLOUR.test(item.trim()));
  if (bad !== -1) return { problem: `item ${bad} is ${JSON.stringify(items[bad])}` };
  return { colours: items.map((item) => (item as string).trim()) };
}

const TEXT_RULE = `at most ${MAX_TEXT_LENGTH.toLocaleString('en-US')} characters`;
const HEX_RULE = 'a hex colour #RGB or #RRGGBB such as #FFF or #FFFFFF';

/**
 * The value rule of each attribute that does not depend on the element (SPEC §5 table): the parsed value, or the
 * sentence that explains what was expected. FONTVARIANT and FONTFAMILY are checked against fonts afterwards.
 */
function parseValue(attribute: ChangeAttribute, value: string): { change: ParsedChange } | { rule: string } {
  switch (attribute) {
    case 'LABEL':
    case 'TEXTMARKDOWN': {
      const length = [...value].length;
      if (length > MAX_TEXT_LENGTH) {
        return { rule: `${attribute} needs ${TEXT_RULE}, received ${length.toLocaleString('en-US')} characters` };
      }
      return { change: { attribute, value } };
    }
    case 'SOURCE': {
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {}
      const ok =
        url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname && value === value.trim();
      if (!ok || value.length > URL_MAX) {
        return {
          rule: `SOURCE needs a public http(s) URL of a media file (at most ${URL_MAX} characters), ${received(value)}`,
        };
      }
      // A Google Drive, Dropbox or OneDrive share link opens a web page; its direct-download form is the file (SPEC §5).
      return { change: { attribute, value: rewriteShareLink(value) } };
    }
    case 'CODE': {
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes > MAX_CODE_BYTES) {
        return { rule: `CODE needs at most 64 KiB (${MAX_CODE_BYTES} bytes) of HTML, received ${bytes} bytes` };
      }
      const problem = htmlFragmentProblem(value);
      if (problem) return { rule: `CODE needs a well-formed HTML fragment (every tag closed, in order): ${problem}` };
      return { change: { attribute, value } };
    }
    case 'VISIBILITY': {
      const v = value.trim().toLowerCase();
      if (v !== 'true' && v !== 'false') return { rule: `VISIBILITY needs true or false, ${received(value)}` };
      return { change: { attribute, value: v === 'true' } };
    }
    case 'TEXTCOLOR':
    case 'BGCOLOR':
      if (!HEX_COLOUR.test(value)) return { rule: `${attribute} needs ${HEX_RULE}, ${received(value)}` };
      return { change: { attribute, value } };
    case 'SVGCOLORS': {
      const list = colourList(value);
      if ('problem' in list) {
        return {
          rule: `SVGCOLORS needs a JSON array or a comma-separated list of 1 to ${MAX_SVG_COLORS} hex colours (#RGB or #RRGGBB), such as ["#FFF","#0F172A"] or #FFF,#0F172A: ${list.problem}`,
        };
      }
      return { change: { attribute, value: list.colours } };
    }
    case 'LINEHEIGHT': {
      const n = numberIn(value, 0.5, 5);
      if (n === undefined)
        return { rule: `LINEHEIGHT needs a number from 0.5 to 5 (times the font size), ${received(value)}` };
      return { change: { attribute, value: n } };
    }
    case 'LETTERSPACING': {
      const n = numberIn(value, -50, 200);
      if (n === undefined) return { rule: `LETTERSPACING needs a number of px from -50 to 200, ${received(value)}` };
      return { change: { attribute, value: n } };
    }
    case 'FONTVARIANT': {
      const variant = variantOf(value);
      if (!variant) {
        return {
          rule: `FONTVARIANT needs a weight from 100 to 900 in steps of 100, optionally followed by italic (400, 700italic), ${received(value)}`,
        };
      }
      return { change: { attribute, value: variant } };
    }
    case 'FONTFAMILY':
      if (!value.trim()) return { rule: `FONTFAMILY needs the name of a font family, ${received(value)}` };
      return { change: { attribute, value: value.trim(), variant: '' } };
  }
}

/**
 * The variant of `variants` a browser would pick for `wanted` (CSS font matching): the same style if the family has
 * it; then, for a weight below 400, lighter weights first (nearest first) and then heavier; above 500, heavier first
 * and then lighter; for 400 and 500, up to 500 first, then lighter, then heavier.
 */
export function nearestVariant(wanted: string, variants: readonly string[]): string {
  const parse = (v: string) => ({ weight: Number.parseInt(v, 10), italic: v.endsWith('italic') });
  const target = parse(wanted);
  const t = target.weight;
  const rank = (w: number): [number, number] => {
    if (t < 400) return w <= t ? [0, t - w] : [1, w - t];
    if (t > 500) return w >= t ? [0, w - t] : [1, t - w];
    if (w >= t && w <= 500) return [0, w - t];
    return w < t ? [1, t - w] : [2, w - t];
  };
  const sameStyle = variants.filter((v) => parse(v).italic === target.italic);
  const pool = sameStyle.length ? sameStyle : variants;
  return [...pool].sort((a, b) => {
    const [ga, da] = rank(parse(a).weight);
    const [gb, db] = rank(parse(b).weight);
    return ga - gb || da - db;
  })[0];
}

function elementAt(doc: DesignDocument, at: Location): Layer {
  return doc.sizes[at.size].slides[at.slide].elements[at.element];
}

function setElementAt(doc: DesignDocument, at: Location, element: Layer): void {
  doc.sizes[at.size].slides[at.slide].elements[at.element] = element;
}

function sizeLabel(doc: DesignDocument, size: number): string {
  const s = doc.sizes[size];
  return `size '${s.name}' ${s.width}x${s.height} (sizes[${size}])`;
}

/** name → every place it occurs (one per size at most, since names are unique within a size). */
function locate(doc: DesignDocument): Map<string, Location[]> {
  const byName = new Map<string, Location[]>();
  doc.sizes.forEach((size, s) => {
    size.slides.forEach((slide, sl) => {
      slide.elements.forEach((element, e) => {
        const list = byName.get(element.name) ?? [];
        list.push({ size: s, slide: sl, element: e });
        byName.set(element.name, list);
      });
    });
  });
  return byName;
}

function unknownElementMessage(name: string, byName: Map<string, Location[]>): string {
  const names = [...byName.keys()].sort((a, b) => a.localeCompare(b));
  const listed = names.slice(0, MAX_NAMES_LISTED).join(', ');
  const more = names.length > MAX_NAMES_LISTED ? ` and ${names.length - MAX_NAMES_LISTED} more` : '';
  return names.length
    ? `no size of the design has an element named ${JSON.stringify(name)}; valid names: ${listed}${more}`
    : `no size of the design has an element named ${JSON.stringify(name)}; the design has no elements`;
}

/** Runs every change on a copy of `document`, collecting problems instead of stopping at the first one. */
function run(
  document: DesignDocument,
  elementsChanges: readonly ElementChangesInput[],
  generalChanges: GeneralChangesInput | undefined,
  fonts: FontLookup,
): { document: DesignDocument; problems: Problem[] } {
  const doc = structuredClone(document);
  const byName = locate(doc);
  const problems: Problem[] = [];

  elementsChanges.forEach((entry, i) => {
    const locations = byName.get(entry.elementName);
    if (!locations) {
      problems.push({
        code: 'UNKNOWN_ELEMENT',
        path: `/elementsChanges/${i}/elementName`,
        message: unknownElementMessage(entry.elementName, byName),
      });
      return;
    }
    entry.changes.forEach((input, j) => {
      const at = `/elementsChanges/${i}/changes/${j}`;
      const first = elementAt(doc, locations[0]);
      const kind = kindOfElement(first);
      if (!(CHANGE_ATTRIBUTES as readonly string[]).includes(input.attribute)) {
        problems.push({
          code: 'VALIDATION_FAILED',
          path: `${at}/attribute`,
          message: `must be one of ${CHANGE_ATTRIBUTES.join(', ')}, ${received(input.attribute)}`,
        });
        return;
      }
      const attribute = input.attribute as ChangeAttribute;
      if (!kind.acceptedChanges.includes(attribute)) {
        problems.push({
          code: 'ATTRIBUTE_NOT_APPLICABLE',
          path: `${at}/attribute`,
          message: `${first.type} element ${JSON.stringify(first.name)} does not accept ${attribute}; it accepts ${kind.acceptedChanges.join(', ')}`,
        });
        return;
      }
      const parsed = parseValue(attribute, input.value);
      if ('rule' in parsed) {
        problems.push({ code: 'INVALID_ELEMENT_CHANGE', path: `${at}/value`, message: parsed.rule });
        return;
      }
      let change = parsed.change;
      if (change.attribute === 'FONTFAMILY') {
        const family = fonts.family(change.value);
        if (!family) {
          problems.push({
            code: 'FONT_VARIANT_UNAVAILABLE',
            path: `${at}/value`,
            message: `FONTFAMILY needs a family of the font catalogue (GET /v1/fonts) or of the project's brand kit, ${received(input.value)}`,
          });
          return;
        }
        change = { ...change, value: family.fontFamily };
      }
      // Font checks depend on each element's own font, which may differ between sizes: check every size first, so
      // that a change that cannot land everywhere lands nowhere.
      const perLocation: ParsedChange[] = [];
      for (const location of locations) {
        const element = elementAt(doc, location);
        const font = kindOfElement(element).fontOf?.(element);
        if (change.attribute === 'FONTFAMILY' && font) {
          const family = fonts.family(change.value)!;
          perLocation.push({ ...change, variant: nearestVariant(font.fontVariant, family.variants) });
          continue;
        }
        if (change.attribute === 'FONTVARIANT' && font) {
          const family = fonts.family(font.fontFamily);
          if (!family?.variants.includes(change.value)) {
            const available = family
              ? `${family.fontFamily} has ${family.variants.join(', ')}`
              : `its family ${JSON.stringify(font.fontFamily)} is not in the font catalogue`;
            problems.push({
              code: 'FONT_VARIANT_UNAVAILABLE',
              path: `${at}/value`,
              message: `FONTVARIANT ${JSON.stringify(change.value)} is not available for element ${JSON.stringify(element.name)} in ${sizeLabel(doc, location.size)}: ${available} (GET /v1/templates/fontVariants)`,
            });
            return;
          }
        }
        perLocation.push(change);
      }
      locations.forEach((location, k) => {
        const element = elementAt(doc, location);
        setElementAt(doc, location, kindOfElement(element).applyChange(element, perLocation[k]) as Layer);
      });
    });
  });

  const background = generalChanges?.backgroundColor;
  if (background !== undefined) {
    if (!HEX_COLOUR.test(background)) {
      problems.push({
        code: 'VALIDATION_FAILED',
        path: '/generalChanges/backgroundColor',
        message: `must be ${HEX_RULE}, ${received(background)}`,
      });
    } else for (const size of doc.sizes) size.backgroundColor = background;
  }
  return { document: doc, problems };
}

/** The AppError for a list of problems: the code of the first, with every problem of that code as details. */
function toError(problems: Problem[]): AppError {
  const { code } = problems[0];
  const same = problems.filter((p) => p.code === code).slice(0, MAX_DETAILS);
  const details: ErrorDetail[] = same.map((p) => ({ path: p.path, in: 'body', message: p.message }));
  const more = same.length > 1 ? ` (and ${same.length - 1} more problem(s), see details)` : '';
  return new AppError(code, `${pointerToPath(same[0].path)}: ${same[0].message}${more}`, { details });
}

/**
 * Checks every change against the document and the fonts; throws the AppError of the first problem (in request
 * order) with every problem of the same code as details: UNKNOWN_ELEMENT, ATTRIBUTE_NOT_APPLICABLE,
 * INVALID_ELEMENT_CHANGE, FONT_VARIANT_UNAVAILABLE (all 422), or VALIDATION_FAILED for what the request schema
 * normally catches first.
 */
export function validateChanges(
  document: DesignDocument,
  elementsChanges: readonly ElementChangesInput[],
  generalChanges: GeneralChangesInput | undefined,
  fonts: FontLookup,
): void {
  const { problems } = run(document, elementsChanges, generalChanges, fonts);
  if (problems.length) throw toError(problems);
}

/** The document with every change applied (after the same checks as validateChanges). `document` is not touched. */
export function applyChanges(
  document: DesignDocument,
  elementsChanges: readonly ElementChangesInput[],
  generalChanges: GeneralChangesInput | undefined,
  fonts: FontLookup,
): DesignDocument {
  const result = run(document, elementsChanges, generalChanges, fonts);
  if (result.problems.length) throw toError(result.problems);
  return result.document;
}
