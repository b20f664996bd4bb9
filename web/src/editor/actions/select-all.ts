import { elementsOf } from '../document';
import { type Action, mod } from './types';

export const selectAll: Action = {
  name: 'selectAll',
  label: 'Select all',
  keys: 'Control+A',
  shortcut: (e) => mod(e) && !e.shiftKey && e.key.toLowerCase() === 'a',
  enabled: (ctx) => elementsOf(ctx.doc, ctx.sizeIndex).length > 0,
  perform: (ctx) => ctx.select(elementsOf(ctx.doc, ctx.sizeIndex).map((e) => e.name)),
};
