// A block of text (SPEC §5): plain or with the small markdown subset of TEXTMARKDOWN, laid out in its box.
import { type Static, Type } from 'typebox';
import { commonFields, STRICT } from '../common.js';
import { MAX_TEXT_LENGTH, textStyleFields } from '../text-style.js';

export const TextElement = Type.Object(
  {
    ...commonFields('text'),
    text: Type.Optional(
      Type.String({
        maxLength: MAX_TEXT_LENGTH,
        default: '',
        description: 'Up to 10,000 characters; \\n breaks lines',
      }),
    ),
    markdown: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Interpret `[text](url)`, `*italic*`, `**bold**` and `***bold italic***`; nothing else',
      }),
    ),
    ...textStyleFields({ align: 'start', verticalAlign: 'top', fontSize: 16 }),
  },
  { ...STRICT, description: 'Text element' },
);
export type TextElement = Static<typeof TextElement>;
