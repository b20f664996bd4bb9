// A sound track (motion extension): MP4 exports mix it in from `start` seconds after its slide begins, at `volume`;
// every other format has nothing to draw for it. It has no box: its geometry fields exist (every element has them)
// and default to 0.
import { type Static, Type } from 'typebox';
import { commonFields, HttpUrl, STRICT } from '../common.js';

const { x, y, width, height, ...common } = commonFields('audio');

export const AudioElement = Type.Object(
  {
    ...common,
    x: Type.Optional(Type.With(x, { default: 0 })),
    y: Type.Optional(Type.With(y, { default: 0 })),
    width: Type.Optional(Type.With(width, { default: 0 })),
    height: Type.Optional(Type.With(height, { default: 0 })),
    src: Type.With(HttpUrl, { description: 'http(s) URL of an mp3, wav or ogg file of at most 10 MB and 5 minutes' }),
    start: Type.Optional(
      Type.Number({ minimum: 0, maximum: 300, default: 0, description: 'Seconds after the slide starts' }),
    ),
    volume: Type.Optional(Type.Number({ minimum: 0, maximum: 2, default: 1, description: '0..1; above 1 amplifies' })),
    loop: Type.Optional(Type.Boolean({ default: false, description: 'Play again until the video ends' })),
    trimStart: Type.Optional(
      Type.Number({ minimum: 0, maximum: 300, default: 0, description: 'Seconds skipped at the start of the file' }),
    ),
  },
  { ...STRICT, description: 'Audio element (MP4 exports only)' },
);
/** Stored documents have every default filled in, so the geometry is always there. */
export type AudioElement = Static<typeof AudioElement> & { x: number; y: number; width: number; height: number };
