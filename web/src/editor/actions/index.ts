// Every editor command, in toolbar order. Keyboard shortcuts are matched against this list, first match wins.
import { bringForward } from './bring-forward';
import { deleteElement } from './delete-element';
import { deselect } from './deselect';
import { duplicateElement } from './duplicate-element';
import { nudge } from './nudge';
import { redo } from './redo';
import { sendBackward } from './send-backward';
import { toggleVisibility } from './toggle-visibility';
import type { Action } from './types';
import { undo } from './undo';

export const ACTIONS: Action[] = [
  undo,
  redo,
  duplicateElement,
  deleteElement,
  bringForward,
  sendBackward,
  toggleVisibility,
  nudge,
  deselect,
];
export type { Action, ActionContext } from './types';
