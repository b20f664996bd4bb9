// A shape with a label (SPEC §5): the fill and corners of a shape, the text style of a text element.
import { type Static, Type } from 'typebox';
import { commonFields, Paint, STRICT, Stroke } from '../common.js';
import { MAX_TEXT_LENGTH, textStyleFields } from '../text-style.js';

export const ButtonElement = Type.Object(
  {
    ...commonFields('button'),
    label: Type.Optional(Type.String({ maxLength: MAX_TEXT_LENGTH, default: '' })),
    fill: Type.Optional(Type.With(Paint, { default: '#000000' })),
    stroke: Type.Optional(Stroke),
    cornerRadius: Type.Optional(Type.Number({ minimum: 0, maximum: 8000, default: 0 })),
    ...textStyleFields({ align: 'center', verticalAlign: 'middle', fontSize: 14 }),
  },
  { ...STRICT, description: 'Button element: a shape with a label; `link` is where a click goes' },
);
export type ButtonElement = Static<typeof ButtonElement>;
