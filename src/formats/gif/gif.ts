// GIF encoder: frames arrive as RGBA pixels already drawn (nothing here draws); gifenc quantises and LZW-encodes them
// in JavaScript, which measured faster and smaller than @napi-rs/canvas's GifEncoder (ARCHITECTURE, and the figures
// below). Frames are taken as opaque: alpha is ignored, so pixels the caller left transparent come out black.
//
// Measured on 45 frames of 300x250 at 15 fps, medians of 5 (2 cores, Node 20). "banner": a moving disc and text over a
// two-stop gradient; "photo-like": a three-hue gradient whose every pixel changes in every frame (the worst case).
//                                      banner              photo-like
//   @napi-rs/canvas GifEncoder q10      410 ms  1128 kB     780 ms   857 kB   (NeuQuant; mean error 13.4 of 255)
//   highQuality: a 256-colour palette   175 ms   693 kB    2340 ms  1215 kB   (dithered; error 7.7)
//     per frame, ordered dithering
//   optimized: one 128-colour palette,   85 ms    52 kB     220 ms   530 kB   (error 12.7)
//     unchanged pixels transparent
//   static: one frame as highQuality      6 ms    15 kB      51 ms    27 kB
// highQuality spends ~20 ms a photo-like frame quantising, ~20 ms mapping with dithering and a few ms in LZW.
// Every preset merges consecutive identical frames into one (their delays added): a viewer cannot tell the difference.
import { createRequire } from 'node:module';
import type { GifencFrameOptions, GifencPalette } from 'gifenc';

// Required, not imported: gifenc is CommonJS built by esbuild, which flags itself __esModule without a default export.
// A default import works under Node's ESM loader (module.exports) but is undefined where the module is compiled to
// CommonJS (the render threads under tsx), which broke GIF renders there. Required on the first GIF, not when the
// module loads: `placard render` of a JPG loads this module through the format registry (issue 21: cold start).
type Gifenc = typeof import('gifenc').default;
let loaded: Gifenc | undefined;
const gifenc = (): Gifenc => {
  loaded ??= createRequire(import.meta.url)('gifenc') as Gifenc;
  return loaded;
};

export interface GifFrame {
  /** width × height × 4 bytes, RGBA, opaque. The encoder copies what it keeps: the caller may reuse the buffer. */
  rgba: Uint8Array;
  /** How long the frame shows. */
  delayMs: number;
}

export type GifPreset = 'highQuality' | 'optimized' | 'static';

export interface GifOptions {
  width: number;
  height: number;
  /**
   * highQuality: a palette per frame and dithering (pass ≥ 15 fps); optimized: one smaller palette and frame
   * differencing; static: exactly one frame.
   */
  preset: GifPreset;
  /** How many times the animation plays: 0 = forever, 1 = once, n = n times. Ignored by `static`. */
  loop: number;
}

/** Colours per palette of each preset. optimized keeps one of its 128 entries for the transparent "unchanged" index. */
export const GIF_PRESET_COLOURS: Readonly<Record<GifPreset, number>> = {
  highQuality: 256,
  optimized: 128,
  static: 256,
};

/**
 * Browsers show frames with a delay under 2 centiseconds for 100 ms instead (Chrome, Firefox, Safari), so a shorter
 * delay would slow the animation down rather than speed it up.
 */
export const GIF_MIN_DELAY_CS = 2;

/**
 * optimized builds its one palette from the distinct frames seen before this many bytes of them are buffered (all of a
 * banner's frames: 300x250 is 0.3 MB a frame); later frames are mapped to that palette without adding to it.
 */
export const GIF_PALETTE_SAMPLE_BYTES = 64 * 1024 * 1024;

/** The palette of a sample is quantised from at most this many pixels, taken evenly from the sampled frames. */
const SAMPLE_PIXELS = 1 << 21;

const MAX_DIMENSION = 65_535;

/**
 * Encodes frames to a GIF. Resolves the file's bytes; rejects with a RangeError on a frame whose size does not match,
 * on no frames at all, or when `static` is given more than one frame.
 */
export async function encodeGif(
  frames: AsyncIterable<GifFrame> | Iterable<GifFrame>,
  options: GifOptions,
): Promise<Buffer> {
  const { width, height, preset } = options;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`GIF width and height must be whole numbers ≥ 1, received ${width}x${height}`);
  }
  if (width > MAX_DIMENSION || height > MAX_DIMENSION) {
    throw new RangeError(`GIF sides are at most ${MAX_DIMENSION} px, received ${width}x${height}`);
  }
  const still = preset === 'static';
  const writer = new GifWriter(width, height, still ? -1 : netscapeRepeat(options.loop), still);
  const check = frameChecker(width, height);
  if (preset === 'optimized') await encodeOptimized(frames, writer, check);
  else await encodePerFramePalettes(frames, writer, check, still);
  return writer.finish();
}

/**
 * gifenc's `repeat` for a play count: the NETSCAPE2.0 block's count is the number of repetitions after the first play,
 * with 0 meaning forever; playing once means writing no block at all (gifenc: -1).
 */
function netscapeRepeat(loop: number): number {
  if (!Number.isInteger(loop) || loop < 0 || loop > 65_536) {
    throw new RangeError(`GIF loop must be 0 (forever) or a play count from 1 to 65536, received ${loop}`);
  }
  if (loop === 0) return 0;
  return loop === 1 ? -1 : loop - 1;
}

function frameChecker(width: number, height: number) {
  const bytes = width * height * 4;
  let n = 0;
  return (frame: GifFrame) => {
    if (frame.rgba.length !== bytes) {
      throw new RangeError(
        `GIF frame ${n}: expected ${bytes} bytes of RGBA for ${width}x${height}, received ${frame.rgba.length}`,
      );
    }
    if (!Number.isFinite(frame.delayMs) || frame.delayMs < 0) {
      throw new RangeError(`GIF frame ${n}: delayMs must be a number ≥ 0, received ${frame.delayMs}`);
    }
    n++;
  };
}

/** highQuality and static: each distinct frame gets its own 256-colour palette and is dithered against it. */
async function encodePerFramePalettes(
  frames: AsyncIterable<GifFrame> | Iterable<GifFrame>,
  writer: GifWriter,
  check: (frame: GifFrame) => void,
  single: boolean,
): Promise<void> {
  let previous: Uint8Array | undefined;
  let count = 0;
  for await (const frame of frames) {
    check(frame);
    count++;
    if (single && count > 1) throw new RangeError('the static GIF preset takes exactly one frame (the final state)');
    if (previous && sameBytes(previous, frame.rgba)) {
      writer.extend(frame.delayMs);
      continue;
    }
    // gifenc reads `rgba.buffer` whole, so it gets a copy that owns its buffer; the copy also outlives the caller's.
    previous = new Uint8Array(frame.rgba);
    const palette = paletteOf(previous, GIF_PRESET_COLOURS.highQuality);
    const index = new PaletteMapper(palette).map(previous, writer.width, true);
    writer.push(index, { palette }, frame.delayMs);
  }
  if (count === 0) throw new RangeError('a GIF needs at least one frame');
}

/**
 * optimized: one global palette, and every pixel whose palette index did not change since the frame before is written
 * as the transparent index. With disposal method 1 ("do not dispose") the previous frame stays on screen under the
 * transparent pixels, and LZW turns the long runs of that one index into a few codes. A frame left with no changed
 * pixel is dropped and its delay given to the frame before.
 */
async function encodeOptimized(
  frames: AsyncIterable<GifFrame> | Iterable<GifFrame>,
  writer: GifWriter,
  check: (frame: GifFrame) => void,
): Promise<void> {
  const sample: { rgba: Uint8Array; delayMs: number }[] = [];
  let sampled = 0;
  let previous: Uint8Array | undefined;
  let encode: ((rgba: Uint8Array, delayMs: number) => void) | undefined;

  const start = () => {
    const palette = paletteOf(samplePixels(sample.map((f) => f.rgba)), GIF_PRESET_COLOURS.optimized - 1);
    const transparent = palette.length;
    const mapper = new PaletteMapper(palette);
    let shown: Uint8Array | undefined;
    encode = (rgba, delayMs) => {
      const index = mapper.map(rgba, writer.width, false);
      if (!shown) {
        shown = index.slice();
        writer.push(index, { palette: [...palette, [0, 0, 0]], dispose: 1 }, delayMs);
        return;
      }
      let changed = 0;
      for (let i = 0; i < index.length; i++) {
        if (index[i] === shown[i]) index[i] = transparent;
        else {
          shown[i] = index[i];
          changed++;
        }
      }
      if (changed === 0) writer.extend(delayMs);
      else writer.push(index, { transparent: true, transparentIndex: transparent, dispose: 1 }, delayMs);
    };
    for (const f of sample) encode(f.rgba, f.delayMs);
    sample.length = 0;
  };

  for await (const frame of frames) {
    check(frame);
    if (previous && sameBytes(previous, frame.rgba)) {
      if (encode) writer.extend(frame.delayMs);
      else sample[sample.length - 1].delayMs += frame.delayMs;
      continue;
    }
    previous = new Uint8Array(frame.rgba);
    if (encode) {
      encode(previous, frame.delayMs);
      continue;
    }
    sample.push({ rgba: previous, delayMs: frame.delayMs });
    sampled += previous.length;
    if (sampled >= GIF_PALETTE_SAMPLE_BYTES) start();
  }
  if (!previous) throw new RangeError('a GIF needs at least one frame');
  if (!encode) start();
}

/** The pixels of up to 16 evenly spaced frames, thinned to SAMPLE_PIXELS, in one buffer of its own for quantize. */
function samplePixels(frames: Uint8Array[]): Uint8Array {
  const step = Math.max(1, Math.ceil(frames.length / 16));
  const chosen = frames.filter((_, i) => i % step === 0 || i === frames.length - 1);
  if (chosen.length === 1 && chosen[0].length / 4 <= SAMPLE_PIXELS) return chosen[0];
  const total = chosen.reduce((sum, f) => sum + f.length / 4, 0);
  const stride = Math.ceil(total / SAMPLE_PIXELS) * 4;
  const out = new Uint8Array(chosen.reduce((sum, f) => sum + Math.ceil(f.length / stride), 0) * 4);
  let o = 0;
  for (const f of chosen) {
    for (let p = 0; p < f.length; p += stride) {
      out[o++] = f[p];
      out[o++] = f[p + 1];
      out[o++] = f[p + 2];
      out[o++] = 255;
    }
  }
  return out;
}

/**
 * gifenc's quantiser (pairwise nearest neighbour) merges histogram bins in time that grows with the square of the bins
 * in use. Flat graphics fill a few hundred RGB565 bins and quantise in ~15 ms per 300x250 frame; a photo or a
 * three-hue gradient fills ~11,000 and took 330 ms. Above 4,096 bins the histogram is built on RGB444 (4,096 bins at
 * most): 24 ms for the same error (7.1 of 255 either way), because a palette colour is the mean of the pixels in its
 * bins, not the bin's corner. On flat graphics RGB565 stays: its finer bins keep close brand colours apart.
 */
function paletteOf(rgba: Uint8Array, colours: number): GifencPalette {
  const seen = new Uint8Array(65_536);
  let bins = 0;
  for (let p = 0; p < rgba.length && bins <= 4096; p += 4) {
    const key = ((rgba[p] >> 3) << 11) | ((rgba[p + 1] >> 2) << 5) | (rgba[p + 2] >> 3);
    if (seen[key] === 0) {
      seen[key] = 1;
      bins++;
    }
  }
  return gifenc().quantize(rgba, colours, { format: bins > 4096 ? 'rgb444' : 'rgb565' });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

// Ordered dithering, not error diffusion (Floyd–Steinberg): an ordered pattern depends only on a pixel's position and
// colour, so a region that does not change between frames gets the same indexes in every frame. Error diffusion
// carries each pixel's error to its neighbours, so one changed pixel reshuffles the dots of everything after it: the
// still background of an animation shimmers ("crawls"), and the noise also costs LZW more bytes than a fixed pattern.
// Colours that the palette holds almost exactly (flat fills, text) are not dithered at all and stay clean. Each channel
// reads the 4x4 matrix in another order, so the dots move a colour off the grey axis too: on a three-hue gradient
// this cut the error of 4x4-block averages from 5.0 (no dithering) and 4.3 (one pattern for all channels) to 3.9, out
// of 255, at a spread of 24 (32: 3.7 but visibly noisier; 16: 4.3).
const BAYER_4X4 = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5];
/** Peak-to-peak amplitude of the dither offset per channel, in 0..255 units. */
const DITHER_SPREAD = 24;
/** Squared RGB distance under which a colour counts as in the palette and is not dithered. */
const EXACT_DISTANCE_SQ = 3 * 3 * 3;
const DITHER_OFFSETS = BAYER_4X4.map((v) => Math.round(((v + 0.5) / 16 - 0.5) * DITHER_SPREAD));

/** Nearest palette colour, cached per RGB565 bucket as gifenc's own applyPalette does. */
class PaletteMapper {
  private readonly colours: Uint8Array;
  private readonly cacheIndex = new Int16Array(65_536).fill(-1);
  private readonly cacheDistance = new Int32Array(65_536);

  constructor(palette: GifencPalette) {
    this.colours = Uint8Array.from(palette.flatMap((c) => [c[0], c[1], c[2]]));
  }

  /** The index of every pixel; `dither` adds the ordered pattern to colours the palette lacks. */
  map(rgba: Uint8Array, width: number, dither: boolean): Uint8Array {
    const out = new Uint8Array(rgba.length / 4);
    for (let i = 0, p = 0; i < out.length; i++, p += 4) {
      const r = rgba[p];
      const g = rgba[p + 1];
      const b = rgba[p + 2];
      const key = ((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3);
      let index = this.cacheIndex[key];
      if (index < 0) index = this.lookup(key, r, g, b);
      if (dither && this.cacheDistance[key] > EXACT_DISTANCE_SQ) {
        const x = i % width;
        const y = (i - x) / width;
        const cell = ((y & 3) << 2) | (x & 3);
        const rd = clampByte(r + DITHER_OFFSETS[cell]);
        const gd = clampByte(g + DITHER_OFFSETS[15 - cell]);
        const bd = clampByte(b + DITHER_OFFSETS[(cell + 10) & 15]);
        const dkey = ((rd >> 3) << 11) | ((gd >> 2) << 5) | (bd >> 3);
        index = this.cacheIndex[dkey];
        if (index < 0) index = this.lookup(dkey, rd, gd, bd);
      }
      out[i] = index;
    }
    return out;
  }

  private lookup(key: number, r: number, g: number, b: number): number {
    const c = this.colours;
    let best = 0;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (let j = 0, q = 0; q < c.length; j++, q += 3) {
      const dr = c[q] - r;
      let d = dr * dr;
      if (d >= bestDistance) continue;
      const dg = c[q + 1] - g;
      d += dg * dg;
      if (d >= bestDistance) continue;
      const db = c[q + 2] - b;
      d += db * db;
      if (d < bestDistance) {
        bestDistance = d;
        best = j;
        if (d === 0) break;
      }
    }
    this.cacheIndex[key] = best;
    this.cacheDistance[key] = bestDistance;
    return best;
  }
}

function clampByte(v: number): number {
  return Math.max(0, Math.min(255, v));
}

/**
 * Writes frames one behind the caller, so that the delays of merged frames can still be added to the last one.
 * Delays are rounded on the running total, not per frame: 15 fps (66.7 ms) alternates 7 and 6 centiseconds and the
 * GIF lasts as long as the frames say instead of drifting 5% slow.
 */
class GifWriter {
  private readonly stream = gifenc().GIFEncoder();
  private pending: { index: Uint8Array; options: GifencFrameOptions; delayMs: number } | undefined;
  private written = 0;
  private elapsedMs = 0;
  private elapsedCs = 0;

  constructor(
    readonly width: number,
    readonly height: number,
    private readonly repeat: number,
    /** A still has one frame and no delay. */
    private readonly still: boolean,
  ) {}

  push(index: Uint8Array, options: GifencFrameOptions, delayMs: number): void {
    this.flush();
    this.pending = { index, options, delayMs };
  }

  /** Shows the pending frame for longer (a merged duplicate). */
  extend(delayMs: number): void {
    if (this.pending) this.pending.delayMs += delayMs;
  }

  finish(): Buffer {
    this.flush();
    this.stream.finish();
    const view = this.stream.bytesView();
    return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  }

  private flush(): void {
    const frame = this.pending;
    if (!frame) return;
    this.pending = undefined;
    this.elapsedMs += frame.delayMs;
    const end = Math.round(this.elapsedMs / 10);
    const cs = this.still ? 0 : Math.min(65_535, Math.max(GIF_MIN_DELAY_CS, end - this.elapsedCs));
    this.elapsedCs += cs;
    this.stream.writeFrame(frame.index, this.width, this.height, {
      ...frame.options,
      delay: cs * 10,
      ...(this.written === 0 ? { repeat: this.repeat } : {}),
    });
    this.written++;
  }
}
