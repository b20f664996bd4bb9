// An editor command (STYLE §13): its name, its shortcut and what it does to the document. Menus, shortcuts and
// panels all read the same list (index.ts).
import type { EditorDocument } from '../document';

export interface ActionContext {
  doc: EditorDocument;
  sizeIndex: number;
  selected: string | null;
  canUndo: boolean;
  canRedo: boolean;
  change(next: EditorDocument): void;
  undo(): void;
  redo(): void;
  select(name: string | null): void;
}

export interface Action {
  name: string;
  /** The accessible name of its button. */
  label: string;
  /** Shown in the button's title and aria-keyshortcuts. */
  keys?: string;
  shortcut?(event: KeyboardEvent): boolean;
  enabled(ctx: ActionContext): boolean;
  perform(ctx: ActionContext, event?: KeyboardEvent): void;
}

export const mod = (event: KeyboardEvent) => event.ctrlKey || event.metaKey;
