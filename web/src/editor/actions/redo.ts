import type { Action } from './types';
import { mod } from './types';

export const redo: Action = {
  name: 'redo',
  label: 'Redo',
  keys: 'Control+Shift+Z',
  shortcut: (e) => mod(e) && ((e.shiftKey && e.key.toLowerCase() === 'z') || e.key.toLowerCase() === 'y'),
  enabled: (ctx) => ctx.canRedo,
  perform: (ctx) => ctx.redo(),
};
