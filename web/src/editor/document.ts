// The design document as the editor holds it: the API's JSON (validated by the server on save and on every canvas
// draw), with the few shapes the editor reads typed. Edits are pure functions returning a new document, so history is
// a list of documents that share everything they did not change.
export interface EditorElement {
  name: string;
  type: string;
  x: number;
  y: number;
  width: number;
  height: number;
  rotation?: number;
  visible?: boolean;
  [key: string]: unknown;
}
export interface EditorSize {
  name: string;
  width: number;
  height: number;
  hash?: string;
  backgroundColor?: string;
  slides: { elements: EditorElement[]; [key: string]: unknown }[];
  [key: string]: unknown;
}
export interface EditorDocument {
  name: string;
  sizes: EditorSize[];
  [key: string]: unknown;
}

/** Geometry belongs to one size; everything else (text, colours, fonts) is the element's in every size. */
export const GEOMETRY = new Set(['x', 'y', 'width', 'height', 'rotation']);

export function elementsOf(doc: EditorDocument, sizeIndex: number): EditorElement[] {
  return doc.sizes[sizeIndex]?.slides[0]?.elements ?? [];
}

export function findElement(doc: EditorDocument, sizeIndex: number, name: string): EditorElement | undefined {
  return elementsOf(doc, sizeIndex).find((e) => e.name === name);
}

function mapElements(
  doc: EditorDocument,
  pick: (sizeIndex: number) => boolean,
  fn: (elements: EditorElement[]) => EditorElement[],
): EditorDocument {
  return {
    ...doc,
    sizes: doc.sizes.map((size, i) =>
      pick(i) ? { ...size, slides: size.slides.map((slide) => ({ ...slide, elements: fn(slide.elements) })) } : size,
    ),
  };
}

/**
 * Sets properties of the element `name`: geometry in `sizeIndex` only, other properties in every size that has an
 * element of that name (a set's sizes share their copy and style, as the API's element changes do).
 */
export function setProperties(
  doc: EditorDocument,
  sizeIndex: number,
  name: string,
  patch: Record<string, unknown>,
): EditorDocument {
  const geometry: Record<string, unknown> = {};
  const shared: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) (GEOMETRY.has(key) ? geometry : shared)[key] = value;
  const apply = (p: Record<string, unknown>) => (elements: EditorElement[]) =>
    elements.map((e) => {
      if (e.name !== name) return e;
      const next = { ...e, ...p };
      for (const [key, value] of Object.entries(p)) if (value === undefined) delete next[key];
      return next;
    });
  let out = doc;
  if (Object.keys(geometry).length > 0) out = mapElements(out, (i) => i === sizeIndex, apply(geometry));
  if (Object.keys(shared).length > 0) out = mapElements(out, () => true, apply(shared));
  return out;
}

/**
 * Moves the elements `names` one step up (towards the viewer) or down in the drawing order of every size. Chosen
 * elements next to each other move as a block: one never jumps over another chosen one, and a block at the top (or
 * bottom) stays put.
 */
export function reorder(doc: EditorDocument, names: readonly string[], step: 1 | -1): EditorDocument {
  const chosen = new Set(names);
  let movedAny = false;
  const out = mapElements(
    doc,
    () => true,
    (elements) => {
      const next = [...elements];
      let moved = false;
      // Walk from the side being moved towards, so each chosen element finds its neighbour already settled.
      for (let k = 0; k < next.length; k++) {
        const i = step === 1 ? next.length - 1 - k : k;
        const j = i + step;
        if (j < 0 || j >= next.length || !chosen.has(next[i].name) || chosen.has(next[j].name)) continue;
        [next[i], next[j]] = [next[j], next[i]];
        moved = true;
      }
      movedAny ||= moved;
      return moved ? next : elements;
    },
  );
  // Nothing moved (already at the top): the same document, so the history gains no empty step.
  return movedAny ? out : doc;
}

export function removeElements(doc: EditorDocument, sizeIndex: number, names: readonly string[]): EditorDocument {
  const chosen = new Set(names);
  return mapElements(
    doc,
    (i) => i === sizeIndex,
    (elements) => elements.filter((e) => !chosen.has(e.name)),
  );
}

/** Geometry of several elements of one size in one change (a group drag, an align, a distribute). */
export function setGeometries(
  doc: EditorDocument,
  sizeIndex: number,
  patches: ReadonlyMap<string, Record<string, unknown>>,
): EditorDocument {
  if (patches.size === 0) return doc;
  return mapElements(
    doc,
    (i) => i === sizeIndex,
    (elements) => elements.map((e) => (patches.has(e.name) ? { ...e, ...patches.get(e.name) } : e)),
  );
}

/** A name not used by any element of the size: `base`, then `base 2`, `base 3`… */
export function freeName(doc: EditorDocument, sizeIndex: number, base: string): string {
  const used = new Set(elementsOf(doc, sizeIndex).map((e) => e.name));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base} ${n}`)) return `${base} ${n}`;
}

export function addElement(doc: EditorDocument, sizeIndex: number, element: EditorElement): EditorDocument {
  return mapElements(
    doc,
    (i) => i === sizeIndex,
    (elements) => [...elements, element],
  );
}
