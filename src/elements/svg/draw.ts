// Draws an svg element: its markup (inline or fetched), recoloured by SVGCOLORS before decoding, scaled into the box
// keeping its proportions and centred — what a browser does with an SVG's default preserveAspectRatio. Raster output
// decodes it with Skia at the device size; a PDF page gets its paths (svg-vector.ts), since Skia would embed a bitmap.
import { drawFitted, placeImage } from '../../render/fit.js';
import { svgSource } from '../../render/media/image-source.js';
import { drawSvgVectors, svgMarkupOf } from '../../render/media/svg-vector.js';
import type { DrawContext } from '../../render/types.js';
import type { SvgElement } from './schema.js';

export function imagesOfSvg(element: SvgElement): string[] {
  return [svgSource(element.src, element.colors)];
}

export function drawSvg(element: SvgElement, dc: DrawContext): void {
  const image = dc.assets.image(svgSource(element.src, element.colors));
  if (!image) return;
  const markup = dc.output === 'pdf' ? svgMarkupOf(image) : undefined;
  if (markup && element.width > 0 && element.height > 0 && image.width > 0 && image.height > 0) {
    const p = placeImage(image.width, image.height, element.width, element.height, { fit: 'contain' });
    dc.ctx.save();
    dc.ctx.translate(p.dx, p.dy);
    dc.ctx.scale(p.dw / image.width, p.dh / image.height);
    const drawn = drawSvgVectors(dc.ctx, markup, image.width, image.height);
    dc.ctx.restore();
    if (drawn) return;
  }
  drawFitted(dc.ctx, image, element.width, element.height, { fit: 'contain' });
}
