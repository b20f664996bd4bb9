// Copy and paste of the selected elements (Ctrl+C / Ctrl+V). The copy is kept in localStorage, so it can be pasted
// into another size, another design or another tab of the studio; the browser's own clipboard is left alone (reading
// it needs a permission prompt, and a design element is not text a user would paste elsewhere).
import { addElement, type EditorElement, findElement, freeName } from '../document';
import { type Action, mod, selectedElements, someSelected } from './types';

const KEY = 'placard:editor-clipboard';

const isElement = (value: unknown): value is EditorElement =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as EditorElement).name === 'string' &&
  typeof (value as EditorElement).type === 'string';

/** The copied elements; a single element is what a studio from before multi-select kept. */
function readCopy(): EditorElement[] {
  try {
    const raw = localStorage.getItem(KEY);
    const value: unknown = raw ? JSON.parse(raw) : null;
    const list = Array.isArray(value) ? value : [value];
    return list.every(isElement) ? list : [];
  } catch {
    return [];
  }
}

export const copyElement: Action = {
  name: 'copyElement',
  label: 'Copy',
  keys: 'Control+C',
  shortcut: (e) => mod(e) && !e.shiftKey && e.key.toLowerCase() === 'c',
  enabled: someSelected,
  perform(ctx) {
    const elements = selectedElements(ctx);
    if (elements.length > 0) localStorage.setItem(KEY, JSON.stringify(elements));
  },
};

export const pasteElement: Action = {
  name: 'pasteElement',
  label: 'Paste',
  keys: 'Control+V',
  shortcut: (e) => mod(e) && !e.shiftKey && e.key.toLowerCase() === 'v',
  // Always offered: a copy made in another tab does not re-render this one.
  enabled: () => true,
  perform(ctx) {
    const copies = readCopy();
    if (copies.length === 0) return;
    const size = ctx.doc.sizes[ctx.sizeIndex];
    let doc = ctx.doc;
    const pasted: string[] = [];
    for (const copy of copies) {
      // A copy of "cta 2" is "cta 3", not "cta 2 2": the number a pasted name ends with is counted on.
      const name = freeName(doc, ctx.sizeIndex, copy.name.replace(/ \d+$/, ''));
      // Pasted beside the original when it is in this size, else at the same place, kept inside the size.
      const offset = findElement(ctx.doc, ctx.sizeIndex, copy.name) ? 10 : 0;
      const x = Math.max(0, Math.min(copy.x + offset, size.width - Math.min(copy.width, size.width)));
      const y = Math.max(0, Math.min(copy.y + offset, size.height - Math.min(copy.height, size.height)));
      doc = addElement(doc, ctx.sizeIndex, { ...copy, name, x, y });
      pasted.push(name);
    }
    ctx.change(doc);
    ctx.select(pasted);
  },
};
