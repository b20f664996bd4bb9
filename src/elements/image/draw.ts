// Draws an image element: its decoded source fitted into the box (render/fit.ts), an SVG source as vectors on a PDF
// page. A source the asset stage could not resolve never reaches here — that fails the render with SOURCE_REJECTED —
// so a missing image only means a kind asked for something the pipeline was not told about, and nothing is drawn.
import { drawFitted } from '../../render/fit.js';
import { drawFittedSvg } from '../../render/media/svg-vector.js';
import type { DrawContext, ResolvedAssets } from '../../render/types.js';
import type { ElementMeasure } from '../element-kind.js';
import { measureFitted } from '../measure-image.js';
import type { ImageElement } from './schema.js';

export function imagesOfImage(element: ImageElement): string[] {
  return [element.src];
}

export function measureImage(element: ImageElement, assets: ResolvedAssets): ElementMeasure {
  return measureFitted(element.src, assets, element, element);
}

export function drawImage(element: ImageElement, dc: DrawContext): void {
  const image = dc.assets.image(element.src);
  if (!image) return;
  // An SVG file stays vector on a PDF page (Skia would embed a device-size bitmap).
  if (dc.output === 'pdf' && drawFittedSvg(dc.ctx, image, element.width, element.height, element)) return;
  drawFitted(dc.ctx, image, element.width, element.height, element);
}
