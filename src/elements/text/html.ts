// A text element in an HTML5 package: the same layout the raster renderer draws, written line by line.
import type { HtmlContext } from '../../render/html-types.js';
import { layoutWithFonts, textBoxOf } from '../../render/text/text-paint.js';
import { fontOfStyled } from '../text-style.js';
import type { TextElement } from './schema.js';

export function textToHtml(element: TextElement, hc: HtmlContext): string {
  const box = textBoxOf(
    element,
    { text: element.text ?? '', markdown: element.markdown ?? false, width: element.width, height: element.height },
    { align: 'start', verticalAlign: 'top', fontSize: 16 },
  );
  return hc.text(layoutWithFonts(box, fontOfStyled(element)), element.color ?? '#000000', element);
}
