// The query of a render URL (docs/render-urls.md) as settings and element changes, and back. `headline=Hello` changes
// the element's main attribute (LABEL for text and buttons, SOURCE for media: the first of the two its kind accepts),
// `cta.BGCOLOR=#10B981` any attribute; `s`, `exp`, `scale`, `quality`, `slide` and `version` are settings (an element
// with one of those names is changed with the `name.ATTRIBUTE` form). Every problem is a 400 naming the parameter: a
// link is not a JSON body, and the person who pasted it needs to know which part of it to fix.
import { applyChanges, type ElementChangesInput } from '../domain/changes.js';
import type { DesignDocument } from '../domain/design.schema.js';
import { CHANGE_ATTRIBUTES, type ChangeAttribute, type FontLookup } from '../elements/element-kind.js';
import { kindOfElement, type Layer } from '../elements/registry.js';
import { AppError, type ErrorDetail } from '../errors.js';

/** Query parameters that are settings, never element names. */
export const RESERVED_PARAMS = ['s', 'exp', 'scale', 'quality', 'slide', 'version'] as const;
const RESERVED: ReadonlySet<string> = new Set(RESERVED_PARAMS);

/** The attributes an element name alone stands for, in order of preference. */
const MAIN_ATTRIBUTES: readonly ChangeAttribute[] = ['LABEL', 'SOURCE'];

const ATTRIBUTE_SUFFIX = new RegExp(`^(.+)\\.(${CHANGE_ATTRIBUTES.join('|')})$`);

const MAX_PARAMS = 200;
const MAX_QUERY_LENGTH = 16 * 1024;

/** A 400 naming a query parameter, as the API names query fields elsewhere (`limit (query): …`). */
export function queryError(param: string, message: string, more: ErrorDetail[] = []): AppError {
  const pointer = `/${param.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  return new AppError('VALIDATION_FAILED', `${param} (query): ${message}`, {
    details: [{ path: pointer, in: 'querystring', message }, ...more],
  });
}

/** The decoded parameters of a raw query string, in the order given; a name given twice is refused (which wins?). */
export function parseQuery(raw: string): Map<string, string> {
  if (raw.length > MAX_QUERY_LENGTH) {
    throw new AppError(
      'VALIDATION_FAILED',
      `the query string is ${raw.length} characters; at most ${MAX_QUERY_LENGTH}`,
    );
  }
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(raw)) {
    if (params.has(name)) throw queryError(name, 'is given more than once; give each parameter once');
    params.set(name, value);
    if (params.size > MAX_PARAMS) {
      throw new AppError('VALIDATION_FAILED', `the query has more than ${MAX_PARAMS} parameters`);
    }
  }
  return params;
}

export interface RenderUrlSettings {
  scale: number;
  /** JPG, WEBP, AVIF; ignored by PNG (SPEC §6: a setting that does not apply is ignored). */
  quality: number | null;
  slide: number;
  /** A design version id: the link then shows that version for ever. */
  version: string | null;
  /** Expiry, Unix seconds. */
  exp: number | null;
}

const DECIMAL = /^(?:\d+(?:\.\d+)?|\.\d+)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The settings of a render URL; syntax only (the scale budget depends on the size and is checked with it). */
export function settingsOf(params: ReadonlyMap<string, string>): RenderUrlSettings {
  const settings: RenderUrlSettings = { scale: 1, quality: null, slide: 0, version: null, exp: null };
  const scale = params.get('scale');
  if (scale !== undefined) {
    const n = Number(scale);
    if (!DECIMAL.test(scale) || !(n > 0) || n > 16) {
      throw queryError('scale', `needs a number greater than 0 and at most 16, received ${JSON.stringify(scale)}`);
    }
    settings.scale = n;
  }
  const quality = params.get('quality');
  if (quality !== undefined) {
    const n = Number(quality);
    if (!/^\d{1,3}$/.test(quality) || n < 1 || n > 100) {
      throw queryError('quality', `needs a whole number from 1 to 100, received ${JSON.stringify(quality)}`);
    }
    settings.quality = n;
  }
  const slide = params.get('slide');
  if (slide !== undefined) {
    if (!/^\d{1,3}$/.test(slide)) {
      throw queryError('slide', `needs the number of a slide, counting from 0, received ${JSON.stringify(slide)}`);
    }
    settings.slide = Number(slide);
  }
  const version = params.get('version');
  if (version !== undefined) {
    if (!UUID.test(version)) {
      throw queryError(
        'version',
        `needs the id of a design version (GET /v1/designVersion), received ${JSON.stringify(version)}`,
      );
    }
    settings.version = version;
  }
  const exp = params.get('exp');
  if (exp !== undefined) {
    if (!/^\d{1,12}$/.test(exp)) {
      throw queryError('exp', `needs the expiry as Unix seconds, received ${JSON.stringify(exp)}`);
    }
    settings.exp = Number(exp);
  }
  return settings;
}

/** The element changes of a query: every parameter that is not a setting. */
export function changeParams(params: ReadonlyMap<string, string>): Array<[string, string]> {
  return [...params].filter(([name]) => !RESERVED.has(name)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function firstElementNamed(doc: DesignDocument, name: string): Layer | undefined {
  for (const size of doc.sizes) {
    for (const slide of size.slides) {
      const found = slide.elements.find((element) => element.name === name);
      if (found) return found;
    }
  }
  return undefined;
}

function elementNames(doc: DesignDocument): string[] {
  const names = new Set<string>();
  for (const size of doc.sizes) for (const slide of size.slides) for (const e of slide.elements) names.add(e.name);
  return [...names].sort((a, b) => a.localeCompare(b));
}

/** The element and attribute a parameter names. */
function target(doc: DesignDocument, param: string): { element: string; attribute: ChangeAttribute } {
  const suffixed = ATTRIBUTE_SUFFIX.exec(param);
  const name = suffixed ? suffixed[1] : param;
  const element = firstElementNamed(doc, name);
  if (!element) {
    const names = elementNames(doc);
    const listed = names.slice(0, 50).join(', ') + (names.length > 50 ? ` and ${names.length - 50} more` : '');
    const attribute = /^(.+)\.([A-Za-z]+)$/.exec(param);
    if (attribute && firstElementNamed(doc, attribute[1])) {
      throw queryError(param, `${attribute[2]} is not a change attribute; use one of ${CHANGE_ATTRIBUTES.join(', ')}`);
    }
    throw queryError(
      param,
      `no size of the design has an element named ${JSON.stringify(name)}; ${names.length ? `valid names: ${listed}` : 'the design has no elements'} (settings: ${RESERVED_PARAMS.join(', ')})`,
    );
  }
  const accepted = kindOfElement(element).acceptedChanges;
  if (suffixed) return { element: name, attribute: suffixed[2] as ChangeAttribute };
  const main = MAIN_ATTRIBUTES.find((attribute) => accepted.includes(attribute));
  if (!main) {
    throw queryError(
      param,
      `${element.type} element ${JSON.stringify(name)} has no main attribute to change by its name alone; name the attribute, one of ${accepted.map((a) => `${name}.${a}`).join(', ')}`,
    );
  }
  return { element: name, attribute: main };
}

export interface QueryChanges {
  /** One entry per parameter, in parameter order. */
  entries: ElementChangesInput[];
  /** The parameter of each entry (to name it in errors). */
  params: string[];
  /** SOURCE values with their parameter, to check against the private-address rule before any render. */
  sources: Array<{ param: string; url: string }>;
}

/** The element changes the parameters name; refuses unknown elements, attributes and contradictory pairs. */
export function changesOfParams(doc: DesignDocument, params: ReadonlyArray<readonly [string, string]>): QueryChanges {
  const out: QueryChanges = { entries: [], params: [], sources: [] };
  const text = new Map<string, string>();
  for (const [param, value] of params) {
    const { element, attribute } = target(doc, param);
    if (attribute === 'LABEL' || attribute === 'TEXTMARKDOWN') {
      const other = text.get(element);
      if (other)
        throw queryError(param, `${other} and ${param} both set the text of ${JSON.stringify(element)}; give one`);
      text.set(element, param);
    }
    out.entries.push({ elementName: element, changes: [{ attribute, value }] });
    out.params.push(param);
    if (attribute === 'SOURCE') out.sources.push({ param, url: value });
  }
  return out;
}

/** The document with the query's changes applied; the 422s of applyChanges become 400s naming the parameter. */
export function applyQueryChanges(doc: DesignDocument, changes: QueryChanges, fonts: FontLookup): DesignDocument {
  try {
    return applyChanges(doc, changes.entries, undefined, fonts);
  } catch (error) {
    if (!(error instanceof AppError) || !error.details?.length) throw error;
    const index = (path: string) => Number(/^\/elementsChanges\/(\d+)/.exec(path)?.[1] ?? -1);
    const [first, ...rest] = error.details.map((detail) => ({
      param: changes.params[index(detail.path)] ?? '(query)',
      // The element and attribute are the parameter's own words; the value rule is what the person needs.
      message: detail.message,
    }));
    throw queryError(
      first.param,
      first.message,
      rest.map((d) => ({ path: `/${d.param}`, in: 'querystring', message: d.message })),
    );
  }
}

/**
 * The query parameters of `elementsChanges` (POST /v1/renderUrls): the short form where it reads back the same, the
 * `name.ATTRIBUTE` form otherwise. A later change of the same element and attribute replaces an earlier one, and LABEL
 * and TEXTMARKDOWN replace each other, as they do when export-with-changes applies them in order.
 */
export function paramsOfChanges(
  doc: DesignDocument,
  elementsChanges: readonly ElementChangesInput[],
): Array<[string, string]> {
  const params = new Map<string, string>();
  for (const entry of elementsChanges) {
    const element = firstElementNamed(doc, entry.elementName);
    const accepted = element ? kindOfElement(element).acceptedChanges : [];
    const main = MAIN_ATTRIBUTES.find((attribute) => accepted.includes(attribute));
    for (const { attribute, value } of entry.changes) {
      const name = entry.elementName;
      const short = attribute === main && !RESERVED.has(name) && !ATTRIBUTE_SUFFIX.test(name);
      const key = short ? name : `${name}.${attribute}`;
      if (attribute === 'LABEL' || attribute === 'TEXTMARKDOWN') {
        const other = attribute === 'LABEL' ? 'TEXTMARKDOWN' : 'LABEL';
        params.delete(
          other === main && !RESERVED.has(name) && !ATTRIBUTE_SUFFIX.test(name) ? name : `${name}.${other}`,
        );
      }
      params.delete(key);
      params.set(key, value);
    }
  }
  return [...params];
}
