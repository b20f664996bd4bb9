// The video kind: its source can be swapped (SOURCE).

import { applyVisibility, type ElementKind, unsupportedChange } from '../element-kind.js';
import { drawVideo, imagesOfVideo, measureVideo } from './draw.js';
import { videoToHtml } from './html.js';
import { VideoElement } from './schema.js';

export const videoKind: ElementKind<VideoElement> = {
  type: 'video',
  schema: VideoElement,
  acceptedChanges: ['SOURCE', 'VISIBILITY'],
  applyChange(element, change) {
    if (change.attribute === 'SOURCE') return { ...element, src: change.value };
    return applyVisibility(element, change) ?? unsupportedChange('video', change.attribute);
  },
  editableValue: (element) => element.src,
  imagesOf: imagesOfVideo,
  measure: measureVideo,
  draw: drawVideo,
  toHtml: videoToHtml,
};
