// A vector graphic, inline or from a URL (SPEC §5). `colors` is where SVGCOLORS lands: the source stays as it is
// (it may be a URL nobody has fetched yet) and the renderer maps its distinct colours, in order of first appearance,
// to these.
import { type Static, Type } from 'typebox';
import { commonFields, STRICT } from '../common.js';

export const MAX_SVG_COLORS = 256;

export const SvgElement = Type.Object(
  {
    ...commonFields('svg'),
    src: Type.String({
      minLength: 1,
      maxLength: 512 * 1024,
      pattern: '^(?:https?://\\S+|\\s*<[\\s\\S]*>\\s*)$',
      'x-rule': 'must be inline SVG markup (<svg …>…</svg>) or an http(s) URL',
      description: 'Inline SVG markup or the http(s) URL of an .svg file',
    }),
    colors: Type.Optional(
      Type.Array(
        Type.String({
          pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$',
          'x-rule': 'must be a hex colour such as #FFF or #FFFFFF',
        }),
        {
          maxItems: MAX_SVG_COLORS,
          description: "Replacements for the SVG's distinct colours in order of first appearance (set by SVGCOLORS)",
        },
      ),
    ),
  },
  { ...STRICT, description: 'SVG element' },
);
export type SvgElement = Static<typeof SvgElement>;
