// Embed code (SPEC §5): HTML5 exports run it in a sandboxed iframe; stills and video draw `poster` or nothing.
import { type Static, Type } from 'typebox';
import { commonFields, HttpUrl, STRICT } from '../common.js';

export const MAX_CODE_BYTES = 64 * 1024;

export const CodeElement = Type.Object(
  {
    ...commonFields('code'),
    html: Type.Optional(
      Type.String({ maxLength: MAX_CODE_BYTES, default: '', description: 'HTML fragment, at most 64 KiB' }),
    ),
    poster: Type.Optional(
      Type.With(HttpUrl, { description: 'Image drawn in raster and video exports in place of the embed' }),
    ),
  },
  { ...STRICT, description: 'Code (embed) element' },
);
export type CodeElement = Static<typeof CodeElement>;
