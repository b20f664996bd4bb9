// Places an image in an element's box as CSS object-fit does: `fill` stretches it, `contain` letterboxes it centred,
// `cover` fills the box and crops, keeping the focal point (focalX, focalY in 0..1 of the image) as close to the
// same relative place in the box as the crop allows — so (0.5, 0.5) is object-position: center and (0, 0) keeps the
// top-left corner. An optional corner radius clips the box. Used by image, code posters and video frames.
import type { Canvas, Image, SKRSContext2D } from '@napi-rs/canvas';

export type Fit = 'cover' | 'contain' | 'fill';

export interface FitOptions {
  fit?: Fit;
  focalX?: number;
  focalY?: number;
  cornerRadius?: number;
}

/** Source rectangle (in image pixels) and destination rectangle (in the box) of a fitted image. */
export interface Placement {
  sx: number;
  sy: number;
  sw: number;
  sh: number;
  dx: number;
  dy: number;
  dw: number;
  dh: number;
}

export function placeImage(
  imageWidth: number,
  imageHeight: number,
  boxWidth: number,
  boxHeight: number,
  options: FitOptions = {},
): Placement {
  const full = { sx: 0, sy: 0, sw: imageWidth, sh: imageHeight };
  const fit = options.fit ?? 'cover';
  if (fit === 'fill') return { ...full, dx: 0, dy: 0, dw: boxWidth, dh: boxHeight };
  if (fit === 'contain') {
    const scale = Math.min(boxWidth / imageWidth, boxHeight / imageHeight);
    const dw = imageWidth * scale;
    const dh = imageHeight * scale;
    return { ...full, dx: (boxWidth - dw) / 2, dy: (boxHeight - dh) / 2, dw, dh };
  }
  const scale = Math.max(boxWidth / imageWidth, boxHeight / imageHeight);
  const sw = boxWidth / scale;
  const sh = boxHeight / scale;
  // The crop's offset along each axis is the slack times the focal fraction, as object-position percentages work.
  const sx = (imageWidth - sw) * (options.focalX ?? 0.5);
  const sy = (imageHeight - sh) * (options.focalY ?? 0.5);
  return { sx, sy, sw, sh, dx: 0, dy: 0, dw: boxWidth, dh: boxHeight };
}

/** Draws `image` fitted into the box (0, 0, width, height); restores the context's state. */
export function drawFitted(
  ctx: SKRSContext2D,
  image: Image | Canvas,
  width: number,
  height: number,
  options: FitOptions = {},
): void {
  if (width <= 0 || height <= 0 || image.width <= 0 || image.height <= 0) return;
  const p = placeImage(image.width, image.height, width, height, options);
  ctx.save();
  const radius = Math.min(options.cornerRadius ?? 0, width / 2, height / 2);
  if (radius > 0) {
    ctx.beginPath();
    ctx.roundRect(0, 0, width, height, radius);
    ctx.clip();
  }
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(image, p.sx, p.sy, p.sw, p.sh, p.dx, p.dy, p.dw, p.dh);
  ctx.restore();
}
