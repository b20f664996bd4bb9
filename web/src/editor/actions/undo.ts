import type { Action } from './types';
import { mod } from './types';

export const undo: Action = {
  name: 'undo',
  label: 'Undo',
  keys: 'Control+Z',
  shortcut: (e) => mod(e) && !e.shiftKey && e.key.toLowerCase() === 'z',
  enabled: (ctx) => ctx.canUndo,
  perform: (ctx) => ctx.undo(),
};
