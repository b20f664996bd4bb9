import { addElement, findElement, freeName } from '../document';
import type { Action } from './types';

export const duplicateElement: Action = {
  name: 'duplicateElement',
  label: 'Duplicate element',
  keys: 'Control+D',
  shortcut: (e) => (e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'd',
  enabled: (ctx) => ctx.selected !== null,
  perform(ctx) {
    const element = ctx.selected ? findElement(ctx.doc, ctx.sizeIndex, ctx.selected) : undefined;
    if (!element) return;
    const name = freeName(ctx.doc, ctx.sizeIndex, `${element.name} copy`);
    ctx.change(addElement(ctx.doc, ctx.sizeIndex, { ...element, name, x: element.x + 10, y: element.y + 10 }));
    ctx.select(name);
  },
};
