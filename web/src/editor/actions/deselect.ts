import { type Action, someSelected } from './types';

export const deselect: Action = {
  name: 'deselect',
  label: 'Deselect',
  keys: 'Escape',
  shortcut: (e) => e.key === 'Escape',
  enabled: someSelected,
  perform: (ctx) => ctx.select([]),
};
