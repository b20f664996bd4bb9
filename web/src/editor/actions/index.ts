// Every editor command, in toolbar order. Keyboard shortcuts are matched against this list, first match wins.
import { ALIGN_ACTIONS } from './align';
import { bringForward } from './bring-forward';
import { copyElement, pasteElement } from './copy-paste';
import { deleteElement } from './delete-element';
import { deselect } from './deselect';
import { DISTRIBUTE_ACTIONS } from './distribute';
import { duplicateElement } from './duplicate-element';
import { nudge } from './nudge';
import { redo } from './redo';
import { selectAll } from './select-all';
import { sendBackward } from './send-backward';
import { toggleVisibility } from './toggle-visibility';
import type { Action } from './types';
import { undo } from './undo';

export const ACTIONS: Action[] = [
  undo,
  redo,
  copyElement,
  pasteElement,
  duplicateElement,
  deleteElement,
  bringForward,
  sendBackward,
  toggleVisibility,
  ...ALIGN_ACTIONS,
  ...DISTRIBUTE_ACTIONS,
  selectAll,
  nudge,
  deselect,
];
export type { Action, ActionContext } from './types';
