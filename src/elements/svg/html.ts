// An SVG in an HTML5 package: a standalone .svg file shown by <img>, never inline markup (GAM refuses inline <svg>),
// recoloured by SVGCOLORS as the raster renderer recolours it, and fitted like it (contain, centred).
import type { HtmlContext } from '../../render/html-types.js';
import { isInlineMarkup } from '../../render/media/image-source.js';
import { recolorSvg } from '../../render/media/svg-colors.js';
import type { SvgElement } from './schema.js';

export async function svgToHtml(element: SvgElement, hc: HtmlContext): Promise<string> {
  let markup = isInlineMarkup(element.src)
    ? element.src
    : Buffer.from((await hc.fetch(element.src, 'image')).bytes).toString('utf8');
  if (element.colors?.length) markup = recolorSvg(markup, element.colors);
  const name = hc.addFile('graphic', 'svg', Buffer.from(markup, 'utf8'));
  return `<img src="${name}" alt="" style="position:absolute;inset:0;width:100%;height:100%;object-fit:contain">`;
}
