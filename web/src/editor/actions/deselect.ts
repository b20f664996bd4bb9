import type { Action } from './types';

export const deselect: Action = {
  name: 'deselect',
  label: 'Deselect',
  keys: 'Escape',
  shortcut: (e) => e.key === 'Escape',
  enabled: (ctx) => ctx.selected !== null,
  perform: (ctx) => ctx.select(null),
};
