// The code kind: CODE replaces the embed.

import { applyVisibility, type ElementKind, unsupportedChange } from '../element-kind.js';
import { drawCode, imagesOfCode, measureCode } from './draw.js';
import { codeToHtml } from './html.js';
import { CodeElement } from './schema.js';

export const codeKind: ElementKind<CodeElement> = {
  type: 'code',
  schema: CodeElement,
  acceptedChanges: ['CODE', 'VISIBILITY'],
  applyChange(element, change) {
    if (change.attribute === 'CODE') return { ...element, html: change.value };
    return applyVisibility(element, change) ?? unsupportedChange('code', change.attribute);
  },
  editableValue: (element) => element.html ?? '',
  imagesOf: imagesOfCode,
  measure: measureCode,
  draw: drawCode,
  toHtml: codeToHtml,
};
