// AVIF encoder: libaom inside libvips (`sharp`, already the PNG encoder), fed the raw premultiplied pixels once, as
// png.ts does (Skia has no AVIF encoder). Measured on this machine class with ~20 load average (so times are inflated,
// ratios less so), test/render/fixtures/gradient.png 300x250 at quality 50, medians of 5:
//   effort 0   3.34 kB    7.5 ms
//   effort 2   1.72 kB   85.7 ms   <- chosen
//   effort 4   1.39 kB  351.2 ms   (sharp's default)
// Effort 2 is 4x faster than the default for files 24% larger, still half the WEBP q90 of the same banner (3.1 kB).
import type { Canvas } from '@napi-rs/canvas';
import { loadSharp } from '../../render/media/load-sharp.js';

/** libaom's speed/size trade-off (0..9): see the measurements above. */
export const AVIF_EFFORT = 2;

/** Default quality (1..100) when the export gives none: sharp's own default. */
export const DEFAULT_AVIF_QUALITY = 50;

export async function encodeAvif(canvas: Canvas, quality = DEFAULT_AVIF_QUALITY): Promise<Buffer> {
  const pixels = canvas.data();
  const sharp = await loadSharp();
  return sharp(pixels, { raw: { width: canvas.width, height: canvas.height, channels: 4, premultiplied: true } })
    .avif({ quality, effort: AVIF_EFFORT })
    .toBuffer();
}
