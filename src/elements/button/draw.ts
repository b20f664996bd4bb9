// Draws a button: a rounded rectangle filled with a colour or gradient and optionally stroked (centred on the outline,
// as shapes are), then its label laid out like a text element's. The label box is the button inset by the stroke width
// all round, and sideways by half the corner radius too, so a label never runs over the border or into a round end.
import { fillStyleOf } from '../../render/paint.js';
import { layoutWithFonts, paintTextLayout, textBoxOf } from '../../render/text/text-paint.js';
import type { DrawContext } from '../../render/types.js';
import type { ElementMeasure } from '../element-kind.js';
import { fontOfStyled } from '../text-style.js';
import type { ButtonElement } from './schema.js';

/** The label's box inside a button of this size, corner radius and stroke width. */
export function labelBox(element: Pick<ButtonElement, 'width' | 'height' | 'cornerRadius' | 'stroke'>) {
  const { width, height } = element;
  const stroke = element.stroke ? (element.stroke.width ?? 1) : 0;
  const radius = Math.min(element.cornerRadius ?? 0, width / 2, height / 2);
  const x = Math.min(width / 2, stroke + radius / 2);
  const y = Math.min(height / 2, stroke);
  return { x, y, width: width - 2 * x, height: height - 2 * y };
}

export function drawButton(element: ButtonElement, dc: DrawContext): void {
  const { ctx } = dc;
  const { width, height } = element;
  ctx.save();
  const radius = Math.min(element.cornerRadius ?? 0, width / 2, height / 2);
  ctx.beginPath();
  if (radius > 0) ctx.roundRect(0, 0, width, height, radius);
  else ctx.rect(0, 0, width, height);
  ctx.fillStyle = fillStyleOf(ctx, element.fill ?? '#000000', width, height);
  ctx.fill();
  const stroke = element.stroke;
  if (stroke && (stroke.width ?? 1) > 0) {
    ctx.lineWidth = stroke.width ?? 1;
    ctx.strokeStyle = stroke.color;
    ctx.stroke();
  }
  const inner = labelBox(element);
  ctx.translate(inner.x, inner.y);
  paintTextLayout(ctx, layoutWithFonts(labelInput(element), fontOfStyled(element)), element.color ?? '#000000', inner);
  ctx.restore();
}

function labelInput(element: ButtonElement) {
  const inner = labelBox(element);
  return textBoxOf(
    element,
    { text: element.label ?? '', markdown: false, width: inner.width, height: inner.height },
    { align: 'center', verticalAlign: 'middle', fontSize: 14 },
  );
}

/** The label as `drawButton` lays it out, for preflight. */
export function measureButton(element: ButtonElement): ElementMeasure {
  const input = labelInput(element);
  const font = fontOfStyled(element);
  return {
    texts: [
      {
        box: labelBox(element),
        input,
        layout: layoutWithFonts(input, font),
        font,
        color: element.color ?? '#000000',
      },
    ],
    images: [],
  };
}
