// Arrow keys move the selection 1 px (10 px with Shift), in its size only.
import { findElement, setProperties } from '../document';
import type { Action } from './types';

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
  enabled: (ctx) => ctx.selected !== null,
  perform(ctx, event) {
    const element = ctx.selected ? findElement(ctx.doc, ctx.sizeIndex, ctx.selected) : undefined;
    const step = event ? STEPS[event.key] : undefined;
    if (!element || !step) return;
    const by = event?.shiftKey ? 10 : 1;
    ctx.change(
      setProperties(ctx.doc, ctx.sizeIndex, element.name, { x: element.x + step[0] * by, y: element.y + step[1] * by }),
    );
  },
};
