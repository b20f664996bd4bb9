// An image in an HTML5 package: the source fitted into the box exactly as the raster renderer fits it (focal point,
// corner radius), re-encoded at the export quality; the package never references the original URL.
import { drawFitted } from '../../render/fit.js';
import type { HtmlContext } from '../../render/html-types.js';
import type { ImageElement } from './schema.js';

export async function imageToHtml(element: ImageElement, hc: HtmlContext): Promise<string> {
  const image = hc.assets.image(element.src);
  if (!image) return '';
  return hc.raster(element.width, element.height, (ctx) =>
    drawFitted(ctx, image, element.width, element.height, element),
  );
}
