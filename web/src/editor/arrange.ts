// Align and distribute as pure geometry on boxes (before rotation, as the document stores them): the actions turn
// the answer into one change of the document. Positions are whole pixels, as the document keeps them.
export interface Box {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Edge = 'left' | 'center' | 'right' | 'top' | 'middle' | 'bottom';
export type Axis = 'horizontal' | 'vertical';

export interface Bounds {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export function boundsOf(boxes: readonly Box[]): Bounds {
  return {
    left: Math.min(...boxes.map((b) => b.x)),
    top: Math.min(...boxes.map((b) => b.y)),
    right: Math.max(...boxes.map((b) => b.x + b.width)),
    bottom: Math.max(...boxes.map((b) => b.y + b.height)),
  };
}

/** The position each box takes when its `edge` is aligned to that edge of `to` (only the axis the edge is on). */
export function align(boxes: readonly Box[], edge: Edge, to: Bounds): Map<string, { x?: number; y?: number }> {
  const out = new Map<string, { x?: number; y?: number }>();
  for (const b of boxes) {
    if (edge === 'left') out.set(b.name, { x: to.left });
    if (edge === 'center') out.set(b.name, { x: Math.round((to.left + to.right - b.width) / 2) });
    if (edge === 'right') out.set(b.name, { x: to.right - b.width });
    if (edge === 'top') out.set(b.name, { y: to.top });
    if (edge === 'middle') out.set(b.name, { y: Math.round((to.top + to.bottom - b.height) / 2) });
    if (edge === 'bottom') out.set(b.name, { y: to.bottom - b.height });
  }
  return out;
}

/**
 * Equal gaps between the boxes along `axis`: they are ordered by their centres, the first and the last stay where they
 * are, and the others are placed so every gap between neighbours is the same (negative when they cannot fit without
 * overlapping; rounding to whole pixels makes gaps differ by at most 1 px). Fewer than three boxes: nothing to do.
 */
export function distribute(boxes: readonly Box[], axis: Axis): Map<string, { x?: number; y?: number }> {
  const out = new Map<string, { x?: number; y?: number }>();
  if (boxes.length < 3) return out;
  const start = (b: Box) => (axis === 'horizontal' ? b.x : b.y);
  const extent = (b: Box) => (axis === 'horizontal' ? b.width : b.height);
  // Ties keep the given order, so a distribute run twice gives the same answer.
  const ordered = boxes
    .map((b, i) => ({ b, i }))
    .sort((p, q) => start(p.b) + extent(p.b) / 2 - (start(q.b) + extent(q.b) / 2) || p.i - q.i)
    .map((p) => p.b);
  const first = ordered[0];
  const last = ordered[ordered.length - 1];
  const span = start(last) + extent(last) - start(first);
  const occupied = ordered.reduce((sum, b) => sum + extent(b), 0);
  const gap = (span - occupied) / (ordered.length - 1);
  let edge = start(first);
  for (let i = 1; i < ordered.length - 1; i++) {
    edge += extent(ordered[i - 1]) + gap;
    const b = ordered[i];
    out.set(b.name, axis === 'horizontal' ? { x: Math.round(edge) } : { y: Math.round(edge) });
  }
  return out;
}
