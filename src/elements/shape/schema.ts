// A filled and/or stroked geometric shape (SPEC §5).
import { type Static, Type } from 'typebox';
import { commonFields, Paint, STRICT, Stroke } from '../common.js';

export const ShapeElement = Type.Object(
  {
    ...commonFields('shape'),
    shape: Type.Optional(Type.Enum(['rect', 'ellipse', 'line'], { default: 'rect' })),
    fill: Type.Optional(Type.With(Paint, { default: '#000000' })),
    stroke: Type.Optional(Stroke),
    cornerRadius: Type.Optional(Type.Number({ minimum: 0, maximum: 8000, default: 0, description: 'rect only' })),
  },
  { ...STRICT, description: 'Shape element' },
);
export type ShapeElement = Static<typeof ShapeElement>;
