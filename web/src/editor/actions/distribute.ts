// Distribute three or more selected elements so the gaps between their boxes are equal; the outermost stay put.
import { type Axis, distribute as distributeBoxes } from '../arrange';
import { setGeometries } from '../document';
import { type Action, selectedElements } from './types';

function distribute(axis: Axis): Action {
  return {
    name: `distribute-${axis}`,
    label: axis === 'horizontal' ? 'Distribute horizontally' : 'Distribute vertically',
    enabled: (ctx) => ctx.selected.length >= 3,
    perform(ctx) {
      ctx.change(setGeometries(ctx.doc, ctx.sizeIndex, distributeBoxes(selectedElements(ctx), axis)));
    },
  };
}

export const DISTRIBUTE_ACTIONS: Action[] = [distribute('horizontal'), distribute('vertical')];
