// Align the selection: one element to its size, several to the bounds of the selection (left, centre, right, top,
// middle, bottom; boxes before rotation).
import { align as alignBoxes, boundsOf, type Edge } from '../arrange';
import { setGeometries } from '../document';
import { type Action, selectedElements, someSelected } from './types';

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
    enabled: someSelected,
    perform(ctx) {
      const boxes = selectedElements(ctx);
      if (boxes.length === 0) return;
      const size = ctx.doc.sizes[ctx.sizeIndex];
      const to = boxes.length > 1 ? boundsOf(boxes) : { left: 0, top: 0, right: size.width, bottom: size.height };
      ctx.change(setGeometries(ctx.doc, ctx.sizeIndex, alignBoxes(boxes, edge, to)));
    },
  };
}

export const ALIGN_ACTIONS: Action[] = (['left', 'center', 'right', 'top', 'middle', 'bottom'] as const).map(align);
