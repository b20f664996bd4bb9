// A raster image from a URL, fitted into its box (SPEC §5).
import { type Static, Type } from 'typebox';
import { commonFields, HttpUrl, STRICT } from '../common.js';

export const ImageElement = Type.Object(
  {
    ...commonFields('image'),
    src: Type.With(HttpUrl, {
      description: 'http(s) URL of a jpg, png, gif, svg or webp image of at most 20 MB (a GIF 1 MB) and 50 megapixels',
    }),
    fit: Type.Optional(
      Type.Enum(['cover', 'contain', 'fill'], {
        default: 'cover',
        description: 'cover crops around the focal point, contain letterboxes, fill stretches; default cover',
      }),
    ),
    focalX: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.5, description: '0 left .. 1 right' })),
    focalY: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.5, description: '0 top .. 1 bottom' })),
    cornerRadius: Type.Optional(Type.Number({ minimum: 0, maximum: 8000, default: 0 })),
  },
  { ...STRICT, description: 'Image element' },
);
export type ImageElement = Static<typeof ImageElement>;
