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

export type Gesture = 'translating' | 'resizing' | 'rotating';

/** What a gesture has changed so far, by element name: one element, or every element of a group. */
export type Patches = Record<string, Partial<Geometry>>;

export type PointerState = { kind: 'idle' } | { kind: Gesture; names: string[]; patches: Patches };

export type PointerEvent =
  | { type: 'start'; kind: Gesture; names: string[] }
  | { type: 'move'; patches: Patches }
  | { type: 'end' };

/**
 * The next state, and the change to commit when a gesture ends with something changed. A group gesture is one
 * gesture: it commits every element it moved at once, so one undo takes the whole group back.
 */
export function pointerStep(state: PointerState, event: PointerEvent): { state: PointerState; commit?: Patches } {
  switch (event.type) {
    case 'start':
      return { state: { kind: event.kind, names: event.names, patches: {} } };
    case 'move': {
      if (state.kind === 'idle') return { state };
      const patches = { ...state.patches };
      // Only the gesture's own elements: a late event for another target must not move it.
      for (const [name, patch] of Object.entries(event.patches)) {
        if (state.names.includes(name)) patches[name] = { ...patches[name], ...patch };
      }
      return { state: { ...state, patches } };
    }
    case 'end':
      if (state.kind === 'idle') return { state };
      return {
        state: { kind: 'idle' },
        commit: Object.keys(state.patches).length > 0 ? state.patches : undefined,
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
