// Draws an svg element: its markup (inline or fetched), recoloured by SVGCOLORS before decoding, scaled into the box
// keeping its proportions and centred — what a browser does with an SVG's default preserveAspectRatio. Raster output
// decodes it with Skia at the device size; a PDF page gets its paths (svg-vector.ts), since Skia would embed a bitmap.
import { drawFitted } from '../../render/fit.js';
import { svgSource } from '../../render/media/image-source.js';
import { drawFittedSvg } from '../../render/media/svg-vector.js';
import type { DrawContext, ResolvedAssets } from '../../render/types.js';
import type { ElementMeasure } from '../element-kind.js';
import { measureFitted } from '../measure-image.js';
import type { SvgElement } from './schema.js';

export function imagesOfSvg(element: SvgElement): string[] {
  return [svgSource(element.src, element.colors)];
}

export function measureSvg(element: SvgElement, assets: ResolvedAssets): ElementMeasure {
  return measureFitted(svgSource(element.src, element.colors), assets, element, { fit: 'contain' });
}

export function drawSvg(element: SvgElement, dc: DrawContext): void {
  const image = dc.assets.image(svgSource(element.src, element.colors));
  if (!image) return;
  if (dc.output === 'pdf' && drawFittedSvg(dc.ctx, image, element.width, element.height, { fit: 'contain' })) return;
  drawFitted(dc.ctx, image, element.width, element.height, { fit: 'contain' });
}
