// The selection: the names of the chosen elements of one size, in the order they were chosen (the last one is the
// "key" element a single-element panel shows). Pure, so the clicking rules are tested without a browser.
export type Selection = readonly string[];

export const EMPTY: Selection = [];

/**
 * The selection after a click on `name` (null: empty canvas). A plain click selects that element alone; with Shift,
 * Ctrl or Cmd (`additive`) it is added, or removed when already chosen. A plain click on empty canvas clears; an
 * additive one keeps what was chosen, so a slip of the pointer does not lose a careful selection.
 */
export function clickSelection(current: Selection, name: string | null, additive: boolean): Selection {
  if (name === null) return additive ? current : EMPTY;
  if (!additive) return current.length === 1 && current[0] === name ? current : [name];
  return current.includes(name) ? current.filter((n) => n !== name) : [...current, name];
}

/** Keeps only names that still exist (after an undo, a delete, a switch of size), in order; the same list if all do. */
export function keepExisting(current: Selection, names: readonly string[]): Selection {
  const present = new Set(names);
  const kept = current.filter((n) => present.has(n));
  return kept.length === current.length ? current : kept;
}

/** Whether a pointer or keyboard event asks to add to the selection rather than replace it. */
export const isAdditive = (event: { shiftKey: boolean; ctrlKey: boolean; metaKey: boolean }) =>
  event.shiftKey || event.ctrlKey || event.metaKey;
