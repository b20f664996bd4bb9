// The ElementKind contract: everything the service knows about one element type, assembled in elements/<type>/index.ts
// and looked up only through registry.ts. The element-changes validator, the elements endpoint, the renderer and the
// HTML5 packager all ask a kind instead of branching on `element.type`.
import type { TObject } from 'typebox';
import type { Placement } from '../render/fit.js';
import type { HtmlContext } from '../render/html-types.js';
import type { FontLookup, FontRef } from '../render/text/font-ref.js';
import type { TextBox, TextLayout } from '../render/text/text-layout.js';
import type { DrawContext, ResolvedAssets } from '../render/types.js';
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

export type { FontLookup, FontRef };

/** A block of text an element draws, laid out by the same code and with the same inputs as its `draw`. */
export interface MeasuredText {
  /** Where the text's box sits in the element's local coordinates (a button's label is inset). */
  box: { x: number; y: number; width: number; height: number };
  /** The layout input: the text, its size, its rules (autoFit, minFontSize, overflow). */
  input: TextBox;
  layout: TextLayout;
  font: FontRef;
  /** The colour the glyphs are painted in. */
  color: string;
}

/** An image an element draws, placed in its box by the same code as its `draw`. */
export interface MeasuredImage {
  /** The asset key (ResolvedAssets.image) of the image. */
  source: string;
  /** The media URL behind it (for messages and SOURCE checks); null for inline SVG markup. */
  url: string | null;
  /** Vector images (SVG) stay sharp at any size: they are never low-resolution. */
  vector: boolean;
  /** The image's own pixels. */
  width: number;
  height: number;
  /** The source rectangle drawn and where it lands in the element's box (render/fit.ts). */
  placement: Placement;
}

/** What the element would draw, measured without drawing (preflight): its text blocks and its images. */
export interface ElementMeasure {
  texts: MeasuredText[];
  images: MeasuredImage[];
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
  /**
   * The text and images `draw` would paint, from the same layout and placement code, without painting (preflight).
   * `assets` holds the images resolved for the frame; an image that did not resolve is left out. Absent: nothing to
   * measure (shapes).
   */
  measure?(element: E, assets: ResolvedAssets): ElementMeasure;
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
