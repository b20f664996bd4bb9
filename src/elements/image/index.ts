// The image kind: its source can be swapped (SOURCE); fetching and checking the media is the asset stage's job.

import { applyVisibility, type ElementKind, unsupportedChange } from '../element-kind.js';
import { drawImage, imagesOfImage, measureImage } from './draw.js';
import { imageToHtml } from './html.js';
import { ImageElement } from './schema.js';

export const imageKind: ElementKind<ImageElement> = {
  type: 'image',
  schema: ImageElement,
  acceptedChanges: ['SOURCE', 'VISIBILITY'],
  applyChange(element, change) {
    if (change.attribute === 'SOURCE') return { ...element, src: change.value };
    return applyVisibility(element, change) ?? unsupportedChange('image', change.attribute);
  },
  editableValue: (element) => element.src,
  imagesOf: imagesOfImage,
  measure: measureImage,
  draw: drawImage,
  toHtml: imageToHtml,
};
