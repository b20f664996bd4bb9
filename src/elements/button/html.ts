// A button in an HTML5 package: its shape as CSS, its label laid out as the raster renderer lays it out.
import type { HtmlContext } from '../../render/html-types.js';
import { layoutWithFonts, textBoxOf } from '../../render/text/text-paint.js';
import { strokeBox } from '../shape/html.js';
import { fontOfStyled } from '../text-style.js';
import { labelBox } from './draw.js';
import type { ButtonElement } from './schema.js';

export function buttonToHtml(element: ButtonElement, hc: HtmlContext): string {
  const { width, height } = element;
  const radius = Math.min(element.cornerRadius ?? 0, width / 2, height / 2);
  const stroke = element.stroke && (element.stroke.width ?? 1) > 0 ? element.stroke : undefined;
  const strokeWidth = stroke ? (stroke.width ?? 1) : 0;
  let html = `<div style="position:absolute;inset:0;background:${hc.escape(element.fill ?? '#000000')};border-radius:${radius}px"></div>`;
  if (stroke) html += strokeBox(width - strokeWidth, height - strokeWidth, stroke, `${radius + strokeWidth / 2}px`);
  const inner = labelBox(element);
  const box = textBoxOf(
    element,
    { text: element.label ?? '', markdown: false, width: inner.width, height: inner.height },
    { align: 'center', verticalAlign: 'middle', fontSize: 14 },
  );
  const label = hc.text(layoutWithFonts(box, fontOfStyled(element)), element.color ?? '#000000', inner);
  return `${html}<div style="position:absolute;left:${inner.x}px;top:${inner.y}px;width:${inner.width}px;height:${inner.height}px">${label}</div>`;
}
