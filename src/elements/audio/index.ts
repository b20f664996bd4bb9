// The audio kind: its source can be swapped (SOURCE) and it can be silenced (VISIBILITY); it draws nothing.
import { applyVisibility, type ElementKind, unsupportedChange } from '../element-kind.js';
import { AudioElement } from './schema.js';

export const audioKind: ElementKind<AudioElement> = {
  type: 'audio',
  schema: AudioElement,
  acceptedChanges: ['SOURCE', 'VISIBILITY'],
  applyChange(element, change) {
    if (change.attribute === 'SOURCE') return { ...element, src: change.value };
    return applyVisibility(element, change) ?? unsupportedChange('audio', change.attribute);
  },
  editableValue: (element) => element.src,
};
