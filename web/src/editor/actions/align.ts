// Align the selected element to its size: left, centre, right, top, middle, bottom (its box, before rotation).
import { findElement, setProperties } from '../document';
import type { Action } from './types';

type Edge = 'left' | 'center' | 'right' | 'top' | 'middle' | 'bottom';

const LABELS: Record<Edge, string> = {
  left: 'Align left',
  center: 'Align centre',
  right: 'Align right',
  top: 'Align top',
  middle: 'Align middle',
  bottom: 'Align bottom',
};

function align(edge: Edge): Action {
  return {
    name: `align-${edge}`,
    label: LABELS[edge],
    enabled: (ctx) => ctx.selected !== null,
    perform(ctx) {
      const element = ctx.selected ? findElement(ctx.doc, ctx.sizeIndex, ctx.selected) : undefined;
      if (!element) return;
      const size = ctx.doc.sizes[ctx.sizeIndex];
      const patch: Record<string, number> = {};
      if (edge === 'left') patch.x = 0;
      if (edge === 'center') patch.x = Math.round((size.width - element.width) / 2);
      if (edge === 'right') patch.x = size.width - element.width;
      if (edge === 'top') patch.y = 0;
      if (edge === 'middle') patch.y = Math.round((size.height - element.height) / 2);
      if (edge === 'bottom') patch.y = size.height - element.height;
      ctx.change(setProperties(ctx.doc, ctx.sizeIndex, element.name, patch));
    },
  };
}

export const ALIGN_ACTIONS: Action[] = (['left', 'center', 'right', 'top', 'middle', 'bottom'] as const).map(align);
