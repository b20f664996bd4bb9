// A video clip (SPEC §5 extension): MP4 and HTML5 exports play it; stills show its first frame after trimStart.
import { type Static, Type } from 'typebox';
import { commonFields, HttpUrl, STRICT } from '../common.js';

export const VideoElement = Type.Object(
  {
    ...commonFields('video'),
    src: Type.With(HttpUrl, {
      description: 'http(s) URL of an mp4, mov, avi, webm or mkv file of at most 100 MB and 5 minutes',
    }),
    fit: Type.Optional(Type.Enum(['cover', 'contain', 'fill'], { default: 'cover' })),
    muted: Type.Optional(
      Type.Boolean({ default: true, description: 'Default true: browsers autoplay only muted video' }),
    ),
    loop: Type.Optional(Type.Boolean({ default: false })),
    trimStart: Type.Optional(
      Type.Number({ minimum: 0, maximum: 300, default: 0, description: 'Seconds skipped at the start' }),
    ),
  },
  { ...STRICT, description: 'Video element' },
);
export type VideoElement = Static<typeof VideoElement>;
