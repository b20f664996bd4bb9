import { reorder } from '../document';
import type { Action } from './types';

export const sendBackward: Action = {
  name: 'sendBackward',
  label: 'Send backward',
  keys: 'Control+[',
  shortcut: (e) => (e.ctrlKey || e.metaKey) && e.key === '[',
  enabled: (ctx) => ctx.selected !== null,
  perform: (ctx) => ctx.selected && ctx.change(reorder(ctx.doc, ctx.selected, -1)),
};
