// The text kind: accepts the label, markdown, font and spacing changes of SPEC §5.

import { applyVisibility, type ElementKind, unsupportedChange } from '../element-kind.js';
import { applyTextStyleChange, fontOfStyled } from '../text-style.js';
import { drawText, measureText } from './draw.js';
import { textToHtml } from './html.js';
import { TextElement } from './schema.js';

export const textKind: ElementKind<TextElement> = {
  type: 'text',
  schema: TextElement,
  acceptedChanges: [
    'LABEL',
    'TEXTMARKDOWN',
    'VISIBILITY',
    'FONTVARIANT',
    'FONTFAMILY',
    'TEXTCOLOR',
    'LINEHEIGHT',
    'LETTERSPACING',
  ],
  applyChange(element, change) {
    // LABEL is plain text: asterisks in it must stay asterisks, so it switches markdown off; TEXTMARKDOWN switches it on.
    if (change.attribute === 'LABEL') return { ...element, text: change.value, markdown: false };
    if (change.attribute === 'TEXTMARKDOWN') return { ...element, text: change.value, markdown: true };
    return (
      applyVisibility(element, change) ??
      applyTextStyleChange(element, change) ??
      unsupportedChange('text', change.attribute)
    );
  },
  editableValue: (element) => element.text ?? '',
  fontOf: fontOfStyled,
  measure: measureText,
  draw: drawText,
  toHtml: textToHtml,
};
