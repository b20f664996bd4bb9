import { addElement, freeName } from '../document';
import { type Action, selectedElements, someSelected } from './types';

export const duplicateElement: Action = {
  name: 'duplicateElement',
  label: 'Duplicate element',
  keys: 'Control+D',
  shortcut: (e) => (e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'd',
  enabled: someSelected,
  perform(ctx) {
    let doc = ctx.doc;
    const copies: string[] = [];
    for (const element of selectedElements(ctx)) {
      const name = freeName(doc, ctx.sizeIndex, `${element.name} copy`);
      doc = addElement(doc, ctx.sizeIndex, { ...element, name, x: element.x + 10, y: element.y + 10 });
      copies.push(name);
    }
    if (copies.length === 0) return;
    ctx.change(doc);
    ctx.select(copies);
  },
};
