// Raster, PDF and video exports cannot run embed code (SPEC §5): they draw the element's `poster` image covering its
// box when it has one, and leave the box empty otherwise.
import { drawFitted } from '../../render/fit.js';
import type { DrawContext } from '../../render/types.js';
import type { CodeElement } from './schema.js';

export function imagesOfCode(element: CodeElement): string[] {
  return element.poster ? [element.poster] : [];
}

export function drawCode(element: CodeElement, dc: DrawContext): void {
  const image = element.poster ? dc.assets.image(element.poster) : undefined;
  if (!image) return;
  drawFitted(dc.ctx, image, element.width, element.height, { fit: 'cover' });
}
