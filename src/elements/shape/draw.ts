// Draws a shape in its box (0, 0, width, height): rect (with cornerRadius), ellipse or line, filled with a colour or a
// linear gradient, then stroked. The stroke is centred on the outline, as in SVG and CSS borders drawn by canvas.
// A line runs through the middle of the box from its left edge to its right edge (rotate the element for other
// angles); it is drawn with the stroke's colour and width when it has a stroke, else with the fill, as thick as the box.
import { fillStyleOf } from '../../render/paint.js';
import type { DrawContext } from '../../render/types.js';
import type { ShapeElement } from './schema.js';

function outline(element: ShapeElement, dc: DrawContext): void {
  const { ctx } = dc;
  const { width, height } = element;
  ctx.beginPath();
  if (element.shape === 'ellipse') {
    ctx.ellipse(width / 2, height / 2, width / 2, height / 2, 0, 0, Math.PI * 2);
  } else {
    const radius = Math.min(element.cornerRadius ?? 0, width / 2, height / 2);
    if (radius > 0) ctx.roundRect(0, 0, width, height, radius);
    else ctx.rect(0, 0, width, height);
  }
}

function drawLine(element: ShapeElement, dc: DrawContext): void {
  const { ctx } = dc;
  const stroke = element.stroke;
  const paint = stroke ? stroke.color : (element.fill ?? '#000000');
  const thickness = stroke ? (stroke.width ?? 1) : Math.max(1, element.height);
  if (thickness <= 0) return;
  ctx.beginPath();
  ctx.moveTo(0, element.height / 2);
  ctx.lineTo(element.width, element.height / 2);
  ctx.lineWidth = thickness;
  ctx.lineCap = 'butt';
  ctx.strokeStyle = fillStyleOf(ctx, paint, element.width, element.height);
  ctx.stroke();
}

export function drawShape(element: ShapeElement, dc: DrawContext): void {
  const { ctx } = dc;
  ctx.save();
  if (element.shape === 'line') drawLine(element, dc);
  else {
    outline(element, dc);
    ctx.fillStyle = fillStyleOf(ctx, element.fill ?? '#000000', element.width, element.height);
    ctx.fill();
    const stroke = element.stroke;
    if (stroke && (stroke.width ?? 1) > 0) {
      ctx.lineWidth = stroke.width ?? 1;
      ctx.strokeStyle = stroke.color;
      ctx.stroke();
    }
  }
  ctx.restore();
}
