// A shape in an HTML5 package: a box with CSS background and border-radius. The stroke is a second box grown by half
// the stroke width on every side, because canvas strokes are centred on the outline and CSS borders lie inside it.
import type { HtmlContext } from '../../render/html-types.js';
import type { ShapeElement } from './schema.js';

export function strokeBox(width: number, height: number, stroke: { color: string; width?: number }, radius: string) {
  const w = stroke.width ?? 1;
  if (w <= 0) return '';
  return `<div style="position:absolute;left:${-w / 2}px;top:${-w / 2}px;width:${width}px;height:${height}px;border:${w}px solid ${stroke.color};border-radius:${radius};box-sizing:content-box"></div>`;
}

export function shapeToHtml(element: ShapeElement, hc: HtmlContext): string {
  const { width, height } = element;
  if (element.shape === 'line') {
    const paint = element.stroke ? element.stroke.color : (element.fill ?? '#000000');
    const thickness = element.stroke ? (element.stroke.width ?? 1) : Math.max(1, height);
    if (thickness <= 0) return '';
    return `<div style="position:absolute;left:0;top:${height / 2 - thickness / 2}px;width:${width}px;height:${thickness}px;background:${hc.escape(paint)}"></div>`;
  }
  const radius =
    element.shape === 'ellipse' ? '50%' : `${Math.min(element.cornerRadius ?? 0, width / 2, height / 2)}px`;
  const fill = `<div style="position:absolute;inset:0;background:${hc.escape(element.fill ?? '#000000')};border-radius:${radius}"></div>`;
  const strokeRadius =
    element.shape === 'ellipse'
      ? '50%'
      : `${Math.min(element.cornerRadius ?? 0, width / 2, height / 2) + (element.stroke?.width ?? 1) / 2}px`;
  return (
    fill +
    (element.stroke
      ? strokeBox(
          width - (element.stroke.width ?? 1),
          height - (element.stroke.width ?? 1),
          element.stroke,
          strokeRadius,
        )
      : '')
  );
}
