import { removeElements } from '../document';
import { type Action, someSelected } from './types';

export const deleteElement: Action = {
  name: 'deleteElement',
  label: 'Delete element',
  keys: 'Delete',
  shortcut: (e) => e.key === 'Delete' || e.key === 'Backspace',
  enabled: someSelected,
  perform(ctx) {
    ctx.change(removeElements(ctx.doc, ctx.sizeIndex, ctx.selected));
    ctx.select([]);
  },
};
