// The local draft: every change is written to localStorage, so nothing typed is lost when the tab closes or the network
// drops. Opening the design again offers it back when it differs from what the server holds.
import type { EditorDocument } from './document';

export interface Draft {
  doc: EditorDocument;
  /** The revision the draft was made from. */
  revision: number;
  at: string;
}

const keyOf = (hash: string) => `placard:draft:${hash}`;

export function readDraft(hash: string): Draft | null {
  try {
    const raw = localStorage.getItem(keyOf(hash));
    return raw ? (JSON.parse(raw) as Draft) : null;
  } catch {
    return null;
  }
}

export function writeDraft(hash: string, draft: Draft) {
  try {
    localStorage.setItem(keyOf(hash), JSON.stringify(draft));
  } catch {
    // Storage full or disabled: the editor still works; only the safety net is missing.
  }
}

export function clearDraft(hash: string) {
  localStorage.removeItem(keyOf(hash));
}
