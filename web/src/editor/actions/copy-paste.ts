// Copy and paste of the selected element (Ctrl+C / Ctrl+V). The copy is kept in localStorage, so it can be pasted
// into another size, another design or another tab of the studio; the browser's own clipboard is left alone (reading
// it needs a permission prompt, and a design element is not text a user would paste elsewhere).
import { addElement, type EditorElement, findElement, freeName } from '../document';
import { type Action, mod } from './types';

const KEY = 'placard:editor-clipboard';

function readCopy(): EditorElement | null {
  try {
    const raw = localStorage.getItem(KEY);
    const value = raw ? (JSON.parse(raw) as EditorElement) : null;
    return value && typeof value.name === 'string' && typeof value.type === 'string' ? value : null;
  } catch {
    return null;
  }
}

export const copyElement: Action = {
  name: 'copyElement',
  label: 'Copy',
  keys: 'Control+C',
  shortcut: (e) => mod(e) && !e.shiftKey && e.key.toLowerCase() === 'c',
  enabled: (ctx) => ctx.selected !== null,
  perform(ctx) {
    const element = ctx.selected ? findElement(ctx.doc, ctx.sizeIndex, ctx.selected) : undefined;
    if (element) localStorage.setItem(KEY, JSON.stringify(element));
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
    const copy = readCopy();
    if (!copy) return;
    const size = ctx.doc.sizes[ctx.sizeIndex];
    // A copy of "cta 2" is "cta 3", not "cta 2 2": the number a pasted name ends with is counted on.
    const name = freeName(ctx.doc, ctx.sizeIndex, copy.name.replace(/ \d+$/, ''));
    // Pasted beside the original when it is in this size, else at the same place, kept inside the size.
    const offset = findElement(ctx.doc, ctx.sizeIndex, copy.name) ? 10 : 0;
    const x = Math.max(0, Math.min(copy.x + offset, size.width - Math.min(copy.width, size.width)));
    const y = Math.max(0, Math.min(copy.y + offset, size.height - Math.min(copy.height, size.height)));
    ctx.change(addElement(ctx.doc, ctx.sizeIndex, { ...copy, name, x, y }));
    ctx.select(name);
  },
};
