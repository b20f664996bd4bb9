// Draws a text element in its box: the layout of render/text-layout.ts with the element's font, painted in its colour.
// `measureText` is the same layout without the painting, for preflight.
import { layoutWithFonts, paintTextLayout, textBoxOf } from '../../render/text/text-paint.js';
import type { DrawContext } from '../../render/types.js';
import type { ElementMeasure } from '../element-kind.js';
import { fontOfStyled } from '../text-style.js';
import type { TextElement } from './schema.js';

function textInput(element: TextElement) {
  return textBoxOf(
    element,
    { text: element.text ?? '', markdown: element.markdown ?? false, width: element.width, height: element.height },
    { align: 'start', verticalAlign: 'top', fontSize: 16 },
  );
}

export function drawText(element: TextElement, dc: DrawContext): void {
  const layout = layoutWithFonts(textInput(element), fontOfStyled(element));
  paintTextLayout(dc.ctx, layout, element.color ?? '#000000', element);
}

export function measureText(element: TextElement): ElementMeasure {
  const input = textInput(element);
  const font = fontOfStyled(element);
  return {
    texts: [
      {
        box: { x: 0, y: 0, width: element.width, height: element.height },
        input,
        layout: layoutWithFonts(input, font),
        font,
        color: element.color ?? '#000000',
      },
    ],
    images: [],
  };
}
