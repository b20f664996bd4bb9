// Raster, PDF and video exports cannot run embed code (SPEC §5): they draw the element's `poster` image covering its
// box when it has one, and leave the box empty otherwise.
import { drawFitted } from '../../render/fit.js';
import type { DrawContext, ResolvedAssets } from '../../render/types.js';
import type { ElementMeasure } from '../element-kind.js';
import { measureFitted } from '../measure-image.js';
import type { CodeElement } from './schema.js';

export function imagesOfCode(element: CodeElement): string[] {
  return element.poster ? [element.poster] : [];
}

export function measureCode(element: CodeElement, assets: ResolvedAssets): ElementMeasure {
  return element.poster ? measureFitted(element.poster, assets, element, { fit: 'cover' }) : { texts: [], images: [] };
}

export function drawCode(element: CodeElement, dc: DrawContext): void {
  const image = element.poster ? dc.assets.image(element.poster) : undefined;
  if (!image) return;
  drawFitted(dc.ctx, image, element.width, element.height, { fit: 'cover' });
}
