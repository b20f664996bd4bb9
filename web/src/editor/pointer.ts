// Pointer interaction as explicit states (STYLE §14): idle → translating / resizing / rotating → idle. Moveable draws
// the handles and reports the gesture; this machine holds what the gesture has changed so far, and hands the document
// one change when the gesture ends (so undo takes back a whole drag, not each pixel of it).
export interface Geometry {
  x: number;
  y: number;
  width: number;
  height: number;
  rotation: number;
}

export type PointerState =
  | { kind: 'idle' }
  | { kind: 'translating' | 'resizing' | 'rotating'; name: string; patch: Partial<Geometry> };

export type PointerEvent =
  | { type: 'start'; kind: 'translating' | 'resizing' | 'rotating'; name: string }
  | { type: 'move'; patch: Partial<Geometry> }
  | { type: 'end' };

/** The next state, and the change to commit when a gesture ends with something changed. */
export function pointerStep(
  state: PointerState,
  event: PointerEvent,
): { state: PointerState; commit?: { name: string; patch: Partial<Geometry> } } {
  switch (event.type) {
    case 'start':
      return { state: { kind: event.kind, name: event.name, patch: {} } };
    case 'move':
      if (state.kind === 'idle') return { state };
      return { state: { ...state, patch: { ...state.patch, ...event.patch } } };
    case 'end':
      if (state.kind === 'idle') return { state };
      return {
        state: { kind: 'idle' },
        commit: Object.keys(state.patch).length > 0 ? { name: state.name, patch: state.patch } : undefined,
      };
  }
}

/** Rounds what a gesture produced to what the document stores: whole pixels, rotation in (-360, 360) to 0.1°. */
export function rounded(patch: Partial<Geometry>): Partial<Geometry> {
  const out: Partial<Geometry> = {};
  for (const key of ['x', 'y', 'width', 'height'] as const) {
    const value = patch[key];
    if (value !== undefined) out[key] = Math.max(key === 'width' || key === 'height' ? 1 : -1e6, Math.round(value));
  }
  if (patch.rotation !== undefined) out.rotation = Math.round((patch.rotation % 360) * 10) / 10;
  return out;
}
