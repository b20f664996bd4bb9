import { reorder } from '../document';
import { type Action, someSelected } from './types';

export const sendBackward: Action = {
  name: 'sendBackward',
  label: 'Send backward',
  keys: 'Control+[',
  shortcut: (e) => (e.ctrlKey || e.metaKey) && e.key === '[',
  enabled: someSelected,
  perform: (ctx) => ctx.change(reorder(ctx.doc, ctx.selected, -1)),
};
