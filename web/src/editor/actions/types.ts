// An editor command (STYLE §13): its name, its shortcut and what it does to the document. Menus, shortcuts and
// panels all read the same list (index.ts).
import { type EditorDocument, type EditorElement, findElement } from '../document';

export interface ActionContext {
  doc: EditorDocument;
  sizeIndex: number;
  /** The chosen elements of the size, in the order they were chosen; empty when none is. */
  selected: readonly string[];
  canUndo: boolean;
  canRedo: boolean;
  change(next: EditorDocument): void;
  undo(): void;
  redo(): void;
  select(names: readonly string[]): void;
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

export const someSelected = (ctx: ActionContext) => ctx.selected.length > 0;

/** The chosen elements that exist in the size being edited, in the order they were chosen. */
export function selectedElements(ctx: ActionContext): EditorElement[] {
  return ctx.selected.flatMap((name) => {
    const element = findElement(ctx.doc, ctx.sizeIndex, name);
    return element ? [element] : [];
  });
}
