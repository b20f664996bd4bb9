// Arrow keys move the selection 1 px (10 px with Shift), in its size only.
import { setGeometries } from '../document';
import { type Action, selectedElements, someSelected } from './types';

const STEPS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};

export const nudge: Action = {
  name: 'nudge',
  label: 'Nudge',
  keys: 'ArrowLeft ArrowRight ArrowUp ArrowDown',
  shortcut: (e) => e.key in STEPS,
  enabled: someSelected,
  perform(ctx, event) {
    const step = event ? STEPS[event.key] : undefined;
    if (!step) return;
    const by = event?.shiftKey ? 10 : 1;
    const patches = new Map(
      selectedElements(ctx).map((e) => [e.name, { x: e.x + step[0] * by, y: e.y + step[1] * by }] as const),
    );
    ctx.change(setGeometries(ctx.doc, ctx.sizeIndex, patches));
  },
};
