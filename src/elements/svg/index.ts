// The svg kind: SVGCOLORS recolours it.

import { applyVisibility, type ElementKind, unsupportedChange } from '../element-kind.js';
import { drawSvg, imagesOfSvg, measureSvg } from './draw.js';
import { svgToHtml } from './html.js';
import { SvgElement } from './schema.js';

export const svgKind: ElementKind<SvgElement> = {
  type: 'svg',
  schema: SvgElement,
  acceptedChanges: ['SVGCOLORS', 'VISIBILITY'],
  applyChange(element, change) {
    if (change.attribute === 'SVGCOLORS') return { ...element, colors: change.value };
    return applyVisibility(element, change) ?? unsupportedChange('svg', change.attribute);
  },
  editableValue: (element) => element.src,
  imagesOf: imagesOfSvg,
  measure: measureSvg,
  draw: drawSvg,
  toHtml: svgToHtml,
};
