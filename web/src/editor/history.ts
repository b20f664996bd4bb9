// Undo history: the document is the single truth, and history is the list of documents before and after each change
// (structural sharing keeps that cheap). `saved` is the document the server holds at `revision`.
export interface HistoryState<D> {
  past: D[];
  present: D;
  future: D[];
  /** Consecutive changes with the same key (typing in one field) make one step of history. */
  lastKey?: string;
}

export type HistoryEvent<D> =
  | { type: 'change'; next: D; key?: string }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'reset'; present: D };

const LIMIT = 200;

export function historyReducer<D>(state: HistoryState<D>, event: HistoryEvent<D>): HistoryState<D> {
  switch (event.type) {
    case 'change':
      if (event.next === state.present) return state;
      if (event.key !== undefined && event.key === state.lastKey && state.future.length === 0) {
        return { ...state, present: event.next };
      }
      return {
        past: [...state.past, state.present].slice(-LIMIT),
        present: event.next,
        future: [],
        lastKey: event.key,
      };
    case 'undo': {
      const previous = state.past.at(-1);
      if (previous === undefined) return state;
      return { past: state.past.slice(0, -1), present: previous, future: [state.present, ...state.future] };
    }
    case 'redo': {
      const [next, ...rest] = state.future;
      if (next === undefined) return state;
      return { past: [...state.past, state.present], present: next, future: rest };
    }
    case 'reset':
      return { past: [], present: event.present, future: [] };
  }
}
