// Show or hide the selection: if any chosen element is shown, all are hidden; only when all are hidden are they shown.
import { setProperties } from '../document';
import { type Action, selectedElements, someSelected } from './types';

export const toggleVisibility: Action = {
  name: 'toggleVisibility',
  label: 'Show or hide',
  keys: 'Control+Shift+H',
  shortcut: (e) => (e.ctrlKey || e.metaKey) && e.shiftKey && e.key.toLowerCase() === 'h',
  enabled: someSelected,
  perform(ctx) {
    const elements = selectedElements(ctx);
    if (elements.length === 0) return;
    const visible = elements.every((e) => e.visible === false);
    let doc = ctx.doc;
    for (const element of elements) doc = setProperties(doc, ctx.sizeIndex, element.name, { visible });
    ctx.change(doc);
  },
};
