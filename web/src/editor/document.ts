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

/** Moves the element `name` one step up (towards the viewer) or down in the drawing order of every size. */
export function reorder(doc: EditorDocument, name: string, step: 1 | -1): EditorDocument {
  return mapElements(
    doc,
    () => true,
    (elements) => {
      const i = elements.findIndex((e) => e.name === name);
      const j = i + step;
      if (i < 0 || j < 0 || j >= elements.length) return elements;
      const next = [...elements];
      [next[i], next[j]] = [next[j], next[i]];
      return next;
    },
  );
}

export function removeElement(doc: EditorDocument, sizeIndex: number, name: string): EditorDocument {
  return mapElements(
    doc,
    (i) => i === sizeIndex,
    (elements) => elements.filter((e) => e.name !== name),
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
