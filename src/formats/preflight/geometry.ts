// How much of an element lies outside its size: the element's box, turned about its centre and scaled as the pipeline
// draws it, clipped to the size (Sutherland–Hodgman against the four edges; written here because it is twenty lines
// and no dependency does only this), its area compared with the box's.

export interface PlacedBox {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Degrees clockwise about the box's centre. */
  rotation: number;
  /** About the centre, as animations scale. */
  scale: number;
}

type Point = [number, number];

function corners(box: PlacedBox): Point[] {
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const rad = (box.rotation * Math.PI) / 180;
  const cos = Math.cos(rad) * box.scale;
  const sin = Math.sin(rad) * box.scale;
  return [
    [-box.width / 2, -box.height / 2],
    [box.width / 2, -box.height / 2],
    [box.width / 2, box.height / 2],
    [-box.width / 2, box.height / 2],
  ].map(([x, y]) => [cx + x * cos - y * sin, cy + x * sin + y * cos]);
}

function area(polygon: Point[]): number {
  let sum = 0;
  for (let i = 0; i < polygon.length; i++) {
    const [x1, y1] = polygon[i]!;
    const [x2, y2] = polygon[(i + 1) % polygon.length]!;
    sum += x1 * y2 - x2 * y1;
  }
  return Math.abs(sum) / 2;
}

/** Keeps the part of `polygon` where inside(p) holds, cutting edges where they cross the line. */
function clip(polygon: Point[], inside: (p: Point) => boolean, cross: (a: Point, b: Point) => Point): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < polygon.length; i++) {
    const current = polygon[i]!;
    const previous = polygon[(i + polygon.length - 1) % polygon.length]!;
    if (inside(current)) {
      if (!inside(previous)) out.push(cross(previous, current));
      out.push(current);
    } else if (inside(previous)) out.push(cross(previous, current));
  }
  return out;
}

const atX =
  (x: number) =>
  (a: Point, b: Point): Point => [x, a[1] + ((b[1] - a[1]) * (x - a[0])) / (b[0] - a[0])];
const atY =
  (y: number) =>
  (a: Point, b: Point): Point => [a[0] + ((b[0] - a[0]) * (y - a[1])) / (b[1] - a[1]), y];

/** 0 (inside) to 1 (entirely outside) of the box's area that lies outside (0, 0, width, height). */
export function fractionOutside(box: PlacedBox, frame: { width: number; height: number }): number {
  let polygon = corners(box);
  const total = area(polygon);
  if (total <= 0) return 0;
  polygon = clip(polygon, (p) => p[0] >= 0, atX(0));
  polygon = clip(polygon, (p) => p[0] <= frame.width, atX(frame.width));
  polygon = clip(polygon, (p) => p[1] >= 0, atY(0));
  polygon = clip(polygon, (p) => p[1] <= frame.height, atY(frame.height));
  const inside = polygon.length >= 3 ? area(polygon) : 0;
  return Math.min(1, Math.max(0, 1 - inside / total));
}
