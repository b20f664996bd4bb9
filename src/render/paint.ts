// Paint values of documents (elements/common.ts `Paint`) as canvas fill styles: plain colours pass through (Skia parses
// hex, rgb(), rgba() and `transparent` as CSS does); `linear-gradient(...)` becomes a CanvasGradient laid out over the
// element's box exactly as CSS lays it out, so raster, PDF and the HTML5 packages agree. Used by shape and button.
import type { CanvasGradient, SKRSContext2D } from '@napi-rs/canvas';

export interface GradientStop {
  colour: string;
  /** 0..1 along the gradient line; absent when the document gave no position. */
  offset?: number;
}

export interface LinearGradient {
  /** CSS degrees: 0 points up, 90 right, 180 (the default) down. */
  angle: number;
  stops: GradientStop[];
}

const GRADIENT = /^\s*linear-gradient\(\s*([\s\S]*)\)\s*$/i;
const ANGLE = /^(-?\d+(?:\.\d+)?)deg$/i;
const STOP = /^(.*?)(?:\s+(-?\d+(?:\.\d+)?)%)?$/;

/** Splits on commas outside parentheses: `rgba(0, 0, 0, .5) 10%, #fff` → two stops. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** The gradient of a paint value, or null when the paint is a plain colour. */
export function parseLinearGradient(paint: string): LinearGradient | null {
  const body = GRADIENT.exec(paint)?.[1];
  if (body === undefined) return null;
  const parts = splitTopLevel(body);
  let angle = 180;
  const first = ANGLE.exec(parts[0]);
  if (first) {
    angle = Number(first[1]);
    parts.shift();
  }
  const stops = parts.map((part) => {
    const [, colour, percent] = STOP.exec(part) ?? [part, part];
    return percent === undefined ? { colour: colour.trim() } : { colour: colour.trim(), offset: Number(percent) / 100 };
  });
  return { angle, stops };
}

/**
 * Stop offsets as CSS fixes them up: the first defaults to 0 and the last to 1, positions between two known ones are
 * spread evenly, and a position smaller than an earlier one is raised to it. Canvas needs offsets in 0..1, so stops
 * outside that range are clamped (a rare case documents can express but that looks the same to the eye).
 */
export function resolveStopOffsets(stops: readonly GradientStop[]): number[] {
  const offsets: (number | undefined)[] = stops.map((s) => s.offset);
  if (offsets[0] === undefined) offsets[0] = 0;
  if (offsets[offsets.length - 1] === undefined) offsets[offsets.length - 1] = 1;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < offsets.length; i++) {
    const value = offsets[i];
    if (value !== undefined) {
      max = Math.max(max, value);
      offsets[i] = max;
    }
  }
  for (let i = 1; i < offsets.length; i++) {
    if (offsets[i] !== undefined) continue;
    let j = i;
    while (offsets[j] === undefined) j++;
    const from = offsets[i - 1] as number;
    const to = offsets[j] as number;
    for (let k = i; k < j; k++) offsets[k] = from + ((to - from) * (k - i + 1)) / (j - i + 1);
  }
  return offsets.map((o) => Math.min(1, Math.max(0, o as number)));
}

/**
 * The gradient line of CSS for a box: through the centre at `angle`, long enough that the corners reach the first and
 * last stops (|w sin a| + |h cos a|).
 */
export function gradientLine(angle: number, width: number, height: number): [number, number, number, number] {
  const rad = (angle * Math.PI) / 180;
  const dx = Math.sin(rad);
  const dy = -Math.cos(rad);
  const half = (Math.abs(width * dx) + Math.abs(height * dy)) / 2;
  const cx = width / 2;
  const cy = height / 2;
  return [cx - dx * half, cy - dy * half, cx + dx * half, cy + dy * half];
}

/** The fill style for `paint` over the box (0, 0, width, height) in the context's current coordinates. */
export function fillStyleOf(ctx: SKRSContext2D, paint: string, width: number, height: number): string | CanvasGradient {
  const gradient = parseLinearGradient(paint);
  if (!gradient) return paint;
  const [x0, y0, x1, y1] = gradientLine(gradient.angle, width, height);
  const style = ctx.createLinearGradient(x0, y0, x1, y1);
  const offsets = resolveStopOffsets(gradient.stops);
  gradient.stops.forEach((stop, i) => {
    style.addColorStop(offsets[i], stop.colour);
  });
  return style;
}
