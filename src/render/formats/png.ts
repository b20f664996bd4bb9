// PNG encoder. Measured on this machine class (2 cores, Node 20) on a gradient-and-shapes banner, median of 8:
//   300x250:   Skia encode('png') 6.6–11.5 ms, 32.6 kB;  sharp level 3 2.0 ms, 34.9 kB (level 1: 1.6 ms, 49.9 kB)
//   1080x1920: Skia encode('png') 557–591 ms, 669 kB;    sharp level 3 32 ms, 646 kB (level 1: 19 ms, 1.3 MB;
//              level 6: 58 ms, 434 kB) — reading the pixels back (canvas.data(), ~28 ms) included in sharp's figures.
// So libvips (`sharp`) fed the raw RGBA, zlib level 3 without adaptive filtering: ~17× faster than Skia at 1080x1920
// and no larger. Level 1 would halve the time again but doubles the file; level 6 shrinks it a third for twice the time.
import type { Canvas } from '@napi-rs/canvas';
import sharp from 'sharp';

/** zlib level: see the measurements above. */
export const PNG_COMPRESSION_LEVEL = 3;

/**
 * Raw RGBA pixels to PNG. canvas.data() gives Skia's buffer as it is, with premultiplied alpha; sharp divides it out
 * (`premultiplied: true`), which getImageData would otherwise do at the cost of another copy of the frame.
 */
export function encodePngPixels(pixels: Uint8Array, width: number, height: number): Promise<Buffer> {
  return sharp(pixels, { raw: { width, height, channels: 4, premultiplied: true } })
    .png({ compressionLevel: PNG_COMPRESSION_LEVEL, adaptiveFiltering: false })
    .toBuffer();
}

/** The canvas as PNG; its pixels are read once. */
export function encodePng(canvas: Canvas): Promise<Buffer> {
  return encodePngPixels(canvas.data(), canvas.width, canvas.height);
}
