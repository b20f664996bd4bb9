import { removeElement } from '../document';
import type { Action } from './types';

export const deleteElement: Action = {
  name: 'deleteElement',
  label: 'Delete element',
  keys: 'Delete',
  shortcut: (e) => e.key === 'Delete' || e.key === 'Backspace',
  enabled: (ctx) => ctx.selected !== null,
  perform(ctx) {
    if (!ctx.selected) return;
    ctx.change(removeElement(ctx.doc, ctx.sizeIndex, ctx.selected));
    ctx.select(null);
  },
};
