// AVIF encoder: libaom inside libvips (`sharp`, already the PNG encoder), fed the raw premultiplied pixels once, as
// png.ts does. Skia has no AVIF encoder, and writing one by hand would be folly.
import type { Canvas } from '@napi-rs/canvas';
import sharp from 'sharp';

/** Default quality (1..100) when the export gives none: sharp's own default, about what JPG reaches at 90. */
export const DEFAULT_AVIF_QUALITY = 50;

export function encodeAvif(canvas: Canvas, quality = DEFAULT_AVIF_QUALITY): Promise<Buffer> {
  return sharp(canvas.data(), { raw: { width: canvas.width, height: canvas.height, channels: 4, premultiplied: true } })
    .avif({ quality })
    .toBuffer();
}
