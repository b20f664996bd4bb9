import { findElement, setProperties } from '../document';
import type { Action } from './types';

export const toggleVisibility: Action = {
  name: 'toggleVisibility',
  label: 'Show or hide',
  keys: 'Control+Shift+H',
  shortcut: (e) => (e.ctrlKey || e.metaKey) && e.shiftKey && e.key.toLowerCase() === 'h',
  enabled: (ctx) => ctx.selected !== null,
  perform(ctx) {
    const element = ctx.selected ? findElement(ctx.doc, ctx.sizeIndex, ctx.selected) : undefined;
    if (!element) return;
    ctx.change(setProperties(ctx.doc, ctx.sizeIndex, element.name, { visible: element.visible === false }));
  },
};
