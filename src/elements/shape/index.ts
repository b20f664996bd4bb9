// The shape kind: BGCOLOR replaces its fill (a gradient fill becomes a plain colour).

import { applyVisibility, type ElementKind, unsupportedChange } from '../element-kind.js';
import { drawShape } from './draw.js';
import { shapeToHtml } from './html.js';
import { ShapeElement } from './schema.js';

export const shapeKind: ElementKind<ShapeElement> = {
  type: 'shape',
  schema: ShapeElement,
  acceptedChanges: ['BGCOLOR', 'VISIBILITY'],
  applyChange(element, change) {
    if (change.attribute === 'BGCOLOR') return { ...element, fill: change.value };
    return applyVisibility(element, change) ?? unsupportedChange('shape', change.attribute);
  },
  editableValue: () => null,
  draw: drawShape,
  toHtml: shapeToHtml,
};
