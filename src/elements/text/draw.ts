// Draws a text element in its box: the layout of render/text-layout.ts with the element's font, painted in its colour.
import { layoutWithFonts, paintTextLayout, textBoxOf } from '../../render/text/text-paint.js';
import type { DrawContext } from '../../render/types.js';
import { fontOfStyled } from '../text-style.js';
import type { TextElement } from './schema.js';

export function drawText(element: TextElement, dc: DrawContext): void {
  const box = textBoxOf(
    element,
    { text: element.text ?? '', markdown: element.markdown ?? false, width: element.width, height: element.height },
    { align: 'start', verticalAlign: 'top', fontSize: 16 },
  );
  const layout = layoutWithFonts(box, fontOfStyled(element));
  paintTextLayout(dc.ctx, layout, element.color ?? '#000000', element);
}
