// The part of gifenc 1.x that render/formats/gif.ts uses (the package ships no types). Its CommonJS bundle is made by
// esbuild, whose exports Node's ESM loader cannot detect by name, so the module is imported as one default object.
declare module 'gifenc' {
  /** Colours as [r, g, b] (or [r, g, b, a] with the rgba4444 format), 256 at most. */
  export type GifencPalette = number[][];

  export type GifencFormat = 'rgb565' | 'rgb444' | 'rgba4444';

  export interface GifencFrameOptions {
    /** Required on the first frame (it becomes the global colour table); a local colour table on later frames. */
    palette?: GifencPalette;
    /** Milliseconds; gifenc writes round(delay / 10) centiseconds. */
    delay?: number;
    /** Read on the first frame only: -1 writes no NETSCAPE2.0 block (play once), 0 loops forever, n repeats n times. */
    repeat?: number;
    transparent?: boolean;
    transparentIndex?: number;
    /** Disposal method 0..7; -1 (default) means 0, or 2 when `transparent`. */
    dispose?: number;
  }

  export interface GifencStream {
    writeFrame(index: Uint8Array, width: number, height: number, options?: GifencFrameOptions): void;
    /** Writes the trailer byte. */
    finish(): void;
    /** A copy of the bytes written so far. */
    bytes(): Uint8Array;
    /** A view of the bytes written so far (no copy). */
    bytesView(): Uint8Array;
  }

  export interface Gifenc {
    GIFEncoder(options?: { auto?: boolean; initialCapacity?: number }): GifencStream;
    /**
     * A palette of at most `maxColors` colours. Reads `rgba.buffer` whole as 32-bit pixels: pass an array that owns
     * its buffer (byteOffset 0, byteLength a multiple of 4).
     */
    quantize(
      rgba: Uint8Array | Uint8ClampedArray,
      maxColors: number,
      options?: { format?: GifencFormat; oneBitAlpha?: boolean | number; clearAlpha?: boolean },
    ): GifencPalette;
    /** Nearest palette index of every pixel; the same buffer caveat as `quantize`. */
    applyPalette(rgba: Uint8Array | Uint8ClampedArray, palette: GifencPalette, format?: GifencFormat): Uint8Array;
  }

  const gifenc: Gifenc;
  export default gifenc;
}
