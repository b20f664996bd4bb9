// The text style fields shared by the two types that draw text (text and button), and the changes that touch them.
// The defaults differ by type (a button centres its label), so the fields come from a factory.
import { Type } from 'typebox';
import { DEFAULT_FONT } from '../render/text/font-ref.js';
import { Colour } from './common.js';
import type { FontRef, ParsedChange } from './element-kind.js';

/** LABEL and TEXTMARKDOWN values, and the text of text and button elements: at most this many characters. */
export const MAX_TEXT_LENGTH = 10_000;

/** "400", "700italic": a weight from 100 to 900 in steps of 100, optionally italic. */
export const FONT_VARIANT = /^[1-9]00(?:italic)?$/;

export { DEFAULT_FONT };

export interface TextStyleDefaults {
  align: 'left' | 'center' | 'right' | 'justify' | 'start' | 'end';
  verticalAlign: 'top' | 'middle' | 'bottom';
  fontSize: number;
}

export function textStyleFields(defaults: TextStyleDefaults) {
  return {
    fontFamily: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, default: DEFAULT_FONT.fontFamily, description: 'Default Inter' }),
    ),
    fontVariant: Type.Optional(
      Type.String({
        pattern: FONT_VARIANT.source,
        default: DEFAULT_FONT.fontVariant,
        'x-rule': 'must be a weight 100..900 in steps of 100, optionally followed by italic (400, 700italic)',
        description: 'Weight, optionally italic: 400, 700italic; default 400',
      }),
    ),
    fontSize: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 2000, default: defaults.fontSize })),
    color: Type.Optional(Type.With(Colour, { default: '#000000' })),
    align: Type.Optional(
      Type.Enum(['left', 'center', 'right', 'justify', 'start', 'end'], {
        default: defaults.align,
        description: 'left, center, right are physical (CSS text-align); start and end follow the paragraph direction',
      }),
    ),
    verticalAlign: Type.Optional(Type.Enum(['top', 'middle', 'bottom'], { default: defaults.verticalAlign })),
    lineHeight: Type.Optional(
      Type.Number({ minimum: 0.5, maximum: 5, default: 1.2, description: 'Multiple of the font size; default 1.2' }),
    ),
    letterSpacing: Type.Optional(
      Type.Number({ minimum: -50, maximum: 200, default: 0, description: 'px, may be negative; default 0' }),
    ),
    textTransform: Type.Optional(Type.Enum(['none', 'uppercase', 'lowercase', 'capitalize'], { default: 'none' })),
    autoFit: Type.Optional(
      Type.Enum(['none', 'shrink'], {
        default: 'none',
        description: 'shrink: reduce the font size until the text fits the box, down to minFontSize',
      }),
    ),
    minFontSize: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 2000, default: 6, description: 'Floor of autoFit; default 6' }),
    ),
    overflow: Type.Optional(Type.Enum(['visible', 'hidden', 'ellipsis'], { default: 'visible' })),
  };
}

interface Styled {
  fontFamily?: string;
  fontVariant?: string;
  color?: string;
  letterSpacing?: number;
  lineHeight?: number;
}

export function fontOfStyled(element: Styled): FontRef {
  return {
    fontFamily: element.fontFamily ?? DEFAULT_FONT.fontFamily,
    fontVariant: element.fontVariant ?? DEFAULT_FONT.fontVariant,
  };
}

/** The text style changes; undefined when `change` is not one of them. */
export function applyTextStyleChange<E extends Styled>(element: E, change: ParsedChange): E | undefined {
  switch (change.attribute) {
    case 'FONTFAMILY':
      return { ...element, fontFamily: change.value, fontVariant: change.variant };
    case 'FONTVARIANT':
      return { ...element, fontVariant: change.value };
    case 'TEXTCOLOR':
      return { ...element, color: change.value };
    case 'LETTERSPACING':
      return { ...element, letterSpacing: change.value };
    case 'LINEHEIGHT':
      return { ...element, lineHeight: change.value };
    default:
      return undefined;
  }
}
