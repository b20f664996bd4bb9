// The button kind: label, colours, font and letter spacing can change (not line height: a label is one line).

import { applyVisibility, type ElementKind, unsupportedChange } from '../element-kind.js';
import { applyTextStyleChange, fontOfStyled } from '../text-style.js';
import { drawButton, measureButton } from './draw.js';
import { buttonToHtml } from './html.js';
import { ButtonElement } from './schema.js';

export const buttonKind: ElementKind<ButtonElement> = {
  type: 'button',
  schema: ButtonElement,
  acceptedChanges: ['LABEL', 'VISIBILITY', 'FONTVARIANT', 'FONTFAMILY', 'TEXTCOLOR', 'BGCOLOR', 'LETTERSPACING'],
  applyChange(element, change) {
    if (change.attribute === 'LABEL') return { ...element, label: change.value };
    if (change.attribute === 'BGCOLOR') return { ...element, fill: change.value };
    return (
      applyVisibility(element, change) ??
      applyTextStyleChange(element, change) ??
      unsupportedChange('button', change.attribute)
    );
  },
  editableValue: (element) => element.label ?? '',
  fontOf: fontOfStyled,
  measure: measureButton,
  draw: drawButton,
  toHtml: buttonToHtml,
};
