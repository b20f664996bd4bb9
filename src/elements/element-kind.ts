// The ElementKind contract: everything the service knows about one element type, assembled in elements/<type>/index.ts
// and looked up only through registry.ts. The element-changes validator, the elements endpoint, the renderer and the
// HTML5 packager all ask a kind instead of branching on `element.type`.
import type { TObject } from 'typebox';
import type { HtmlContext } from '../render/html-types.js';
import type { DrawContext } from '../render/types.js';
import type { BaseElement } from './common.js';

/** The element-change attributes of SPEC §5; the HTTP schemas take their enum from here. */
export const CHANGE_ATTRIBUTES = [
  'LABEL',
  'SOURCE',
  'CODE',
  'VISIBILITY',
  'FONTVARIANT',
  'TEXTMARKDOWN',
  'TEXTCOLOR',
  'BGCOLOR',
  'SVGCOLORS',
  'LINEHEIGHT',
  'LETTERSPACING',
  'FONTFAMILY',
] as const;
export type ChangeAttribute = (typeof CHANGE_ATTRIBUTES)[number];

/**
 * A change whose value has passed its attribute's rule (domain/changes.ts) and is typed: a kind applies it without
 * checking anything again. FONTFAMILY carries the variant to use in the new family (the element's own when the
 * family has it, else the nearest one), so a kind never needs the font catalogue.
 */
export type ParsedChange =
  | { attribute: 'LABEL' | 'TEXTMARKDOWN' | 'SOURCE' | 'CODE' | 'FONTVARIANT'; value: string }
  | { attribute: 'TEXTCOLOR' | 'BGCOLOR'; value: string }
  | { attribute: 'VISIBILITY'; value: boolean }
  | { attribute: 'FONTFAMILY'; value: string; variant: string }
  | { attribute: 'SVGCOLORS'; value: string[] }
  | { attribute: 'LINEHEIGHT' | 'LETTERSPACING'; value: number };

/** Looks font families up (the catalogue, or the catalogue plus a team's brand-kit fonts). */
export interface FontLookup {
  /** The family's own spelling and its variants, matching `name` case-insensitively; undefined when unknown. */
  family(name: string): { fontFamily: string; variants: readonly string[] } | undefined;
}

/** The font an element draws its text with. */
export interface FontRef {
  fontFamily: string;
  fontVariant: string;
}

export interface ElementKind<E extends BaseElement = BaseElement> {
  readonly type: E['type'];
  /** The TypeBox schema of one element of this type (additionalProperties: false). */
  readonly schema: TObject;
  /** The change attributes this type accepts (SPEC §5 table); anything else is ATTRIBUTE_NOT_APPLICABLE. */
  readonly acceptedChanges: readonly ChangeAttribute[];
  /** A copy of the element with one accepted, already validated change applied. Never mutates `element`. */
  applyChange(element: E, change: ParsedChange): E;
  /** What GET /v1/templates/{hash}/elements shows as `value`: the text, label, source or embed code, or null. */
  editableValue(element: E): string | null;
  /** The font of a type that draws text (text, button); absent for the others. */
  fontOf?(element: E): FontRef;
  /** The image sources (URLs or inline SVG markup) the element draws; the pipeline resolves them before drawing. */
  imagesOf?(element: E): string[];
  /** Draws the element in local coordinates (see DrawContext). Optional until each kind's renderer lands. */
  draw?(element: E, dc: DrawContext): void;
  /**
   * The markup of the element's box in an HTML5 package, in local coordinates like `draw` (the packager positions,
   * rotates, fades and animates the box). Files the markup refers to are added through the context.
   */
  toHtml?(element: E, hc: HtmlContext): string | Promise<string>;
}

/** Raised when a kind is asked to apply a change it does not accept: a bug in the caller, never a user error. */
export function unsupportedChange(type: string, attribute: ChangeAttribute): never {
  throw new Error(`${type} elements do not accept ${attribute}; domain/changes.ts should have refused it`);
}

/** VISIBILITY means the same on every type. */
export function applyVisibility<E extends BaseElement>(element: E, change: ParsedChange): E | undefined {
  return change.attribute === 'VISIBILITY' ? { ...element, visible: change.value } : undefined;
}
