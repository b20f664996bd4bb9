// PNG encoder: libvips (`sharp`) fed the raw pixels, zlib level 3 with adaptive row filtering. Measured on this machine
// class (2 cores, Node 20, medians of 5, other work running) on the bench banner (photo, SVGs, text, gradients):
//                         300x250          1080x1920
//   Skia encode('png')    18.2 ms   64 kB  320 ms   733 kB
//   sharp l1, no filter    3.6 ms  115 kB   29 ms  1988 kB
//   sharp l3, no filter    4.6 ms   86 kB   49 ms  1376 kB
//   sharp l3, adaptive     7.2 ms   69 kB  103 ms   833 kB   <- chosen
//   sharp l6, adaptive    10.6 ms   66 kB  171 ms   755 kB
// Without row filtering photographic content comes out up to 2.7x Skia's size, which ad networks' weight limits
// punish; level 3 with filtering is ~3x faster than Skia for files ~10% larger, and level 6 buys 5% more for +70% time.
// (On flat graphics alone, level 3 without filtering was already smaller than Skia: 646 vs 669 kB at 1080x1920.)
import type { Canvas } from '@napi-rs/canvas';
import { loadSharp } from '../../render/media/load-sharp.js';

/** zlib level and row filtering: see the measurements above. */
export const PNG_COMPRESSION_LEVEL = 3;
export const PNG_ADAPTIVE_FILTERING = true;

/**
 * Raw RGBA pixels to PNG. canvas.data() gives Skia's buffer as it is, with premultiplied alpha; sharp divides it out
 * (`premultiplied: true`), which getImageData would otherwise do at the cost of another copy of the frame.
 */
export async function encodePngPixels(pixels: Uint8Array, width: number, height: number): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(pixels, { raw: { width, height, channels: 4, premultiplied: true } })
    .png({ compressionLevel: PNG_COMPRESSION_LEVEL, adaptiveFiltering: PNG_ADAPTIVE_FILTERING })
    .toBuffer();
}

/** The canvas as PNG; its pixels are read once. */
export function encodePng(canvas: Canvas): Promise<Buffer> {
  // The pixels are read now, before anything awaits: the caller may hand the canvas back once this returns.
  return encodePngPixels(canvas.data(), canvas.width, canvas.height);
}
