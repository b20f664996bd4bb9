// Fields and value rules every element type shares (SPEC §5): geometry, visibility, the click-through link and the
// animations. Each type's schema spreads `commonFields(type)` so the common part is declared once. Fields with a
// default are optional in the published schema; the document validator fills them in, so stored documents are complete.
import { type Static, Type } from 'typebox';

/** `#RGB` or `#RRGGBB`: the only colour form element changes accept (TEXTCOLOR, BGCOLOR, SVGCOLORS). */
export const HEX_COLOUR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

const HEX_ANY = '#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})';
const BYTE = '\\s*\\d{1,3}%?\\s*';
const ALPHA = '\\s*(?:0|1|0?\\.\\d+|1\\.0+|\\d{1,3}%)\\s*';
const RGBA = `rgba?\\(${BYTE},${BYTE},${BYTE}(?:,${ALPHA})?\\)`;
const COLOUR_SOURCE = `(?:${HEX_ANY}|${RGBA}|transparent)`;
const STOP = `${COLOUR_SOURCE}(?:\\s+-?\\d+(?:\\.\\d+)?%)?`;
const GRADIENT = `linear-gradient\\(\\s*(?:-?\\d+(?:\\.\\d+)?deg\\s*,\\s*)?${STOP}(?:\\s*,\\s*${STOP})+\\s*\\)`;

/** A colour as a document stores it: hex (3, 4, 6 or 8 digits), rgb()/rgba() or `transparent`. */
export const Colour = Type.String({
  pattern: `^${COLOUR_SOURCE}$`,
  maxLength: 100,
  'x-rule': 'must be a colour: #RGB, #RGBA, #RRGGBB, #RRGGBBAA, rgb(r, g, b), rgba(r, g, b, a) or transparent',
  description: 'Colour: hex (#RGB, #RGBA, #RRGGBB, #RRGGBBAA), rgb()/rgba() or `transparent`',
});

/** What a shape or button is filled with: a colour, or a CSS-style linear gradient of two or more stops. */
export const Paint = Type.String({
  pattern: `^(?:${COLOUR_SOURCE}|${GRADIENT})$`,
  maxLength: 1000,
  'x-rule': 'must be a colour (hex, rgb(), rgba(), transparent) or linear-gradient(<angle>deg, <colour> <stop>%, …)',
  description: 'A colour, or `linear-gradient(90deg, #F59E0B 0%, #EF4444 100%)` (angle optional, 2 or more stops)',
});

/** http(s) only: links and sources end up in ads and fetches, where other schemes are unsafe or meaningless. */
export const HttpUrl = Type.String({
  pattern: '^https?://[^\\s/?#]+[^\\s]*$',
  maxLength: 2048,
  'x-rule': 'must be an http:// or https:// URL',
  description: 'Absolute http(s) URL',
});

export const EASINGS = ['linear', 'easeIn', 'easeOut', 'easeInOut'] as const;

// cubic-bezier x values must stay in 0..1 (as in CSS) so that time stays monotonic; y values may overshoot.
const UNIT = '\\s*(?:0|1|0?\\.\\d+|1\\.0+|0\\.)\\s*';
const ANY_NUMBER = '\\s*-?(?:\\d+(?:\\.\\d+)?|\\.\\d+)\\s*';

export const Easing = Type.String({
  pattern: `^(?:${EASINGS.join('|')}|cubic-bezier\\(${UNIT},${ANY_NUMBER},${UNIT},${ANY_NUMBER}\\))$`,
  default: 'easeOut',
  'x-rule': 'must be linear, easeIn, easeOut, easeInOut or cubic-bezier(x1, y1, x2, y2) with x1 and x2 in 0..1',
  description: 'linear | easeIn | easeOut | easeInOut | cubic-bezier(x1, y1, x2, y2); default easeOut',
});

export const Animation = Type.Object(
  {
    effect: Type.Enum(['fade', 'slide', 'zoom', 'rotate', 'blur']),
    direction: Type.Optional(
      Type.Enum(['in', 'out'], { default: 'in', description: 'in: appear; out: disappear. Default in' }),
    ),
    from: Type.Optional(
      Type.Enum(['left', 'right', 'top', 'bottom'], { description: 'Where a slide comes from or goes to' }),
    ),
    start: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 300,
        default: 0,
        description: 'Seconds from the start of the slide; default 0',
      }),
    ),
    duration: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 300, default: 0.5, description: 'Seconds; default 0.5' }),
    ),
    easing: Type.Optional(Easing),
  },
  { additionalProperties: false },
);
export type Animation = Static<typeof Animation>;

/** The outline of a shape or button. */
export const Stroke = Type.Object(
  {
    color: Colour,
    width: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, default: 1, description: 'px; default 1' })),
  },
  { additionalProperties: false },
);

/** The largest coordinate an element may have: twice the largest design side, so elements can bleed off-canvas. */
const COORD = 16_000;

/**
 * The fields every element has. `name` is the key of element changes; it is unique within a size and shared by the
 * same element across the sizes of a set (checked by domain/design.schema.ts, which sees the whole document).
 */
export function commonFields<T extends string>(type: T) {
  return {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Unique within the size; the key of changes' }),
    type: Type.Literal(type),
    x: Type.Number({ minimum: -COORD, maximum: COORD, description: 'Left edge in px from the left of the size' }),
    y: Type.Number({ minimum: -COORD, maximum: COORD, description: 'Top edge in px from the top of the size' }),
    width: Type.Number({ minimum: 0, maximum: COORD }),
    height: Type.Number({ minimum: 0, maximum: COORD }),
    rotation: Type.Optional(
      Type.Number({ minimum: -360, maximum: 360, default: 0, description: 'Degrees clockwise; default 0' }),
    ),
    opacity: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 1, description: '0..1; default 1' })),
    visible: Type.Optional(Type.Boolean({ default: true })),
    link: Type.Optional(Type.With(HttpUrl, { description: 'Click-through URL (the gotoUrl of the element)' })),
    animations: Type.Optional(Type.Array(Animation, { maxItems: 20, default: [] })),
  };
}

/** The common part of any element, whatever its type: what code that does not care about the type may read. */
export const BaseElement = Type.Object({ ...commonFields('element'), type: Type.String() });
export type BaseElement = Static<typeof BaseElement>;

/** Every field not listed is refused, so that a typo in a document is an error and not a silently ignored field. */
export const STRICT = { additionalProperties: false } as const;
