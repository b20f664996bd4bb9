// Draws SVG markup as vector paths on a 2D context, for PDF pages: @napi-rs/canvas draws an SVG `Image` as a bitmap
// at the device size (113×113 px for a 150 px logo on a 72 dpi PDF page), so a logo printed from the PDF was blurred.
// canvg parses the SVG (with @xmldom/xmldom, as Node has no DOMParser) and issues ordinary path, fill, stroke,
// gradient and text calls on the context, which Skia's PDF backend writes as vector operators.
import { createRequire } from 'node:module';
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { DOMParser } from '@xmldom/xmldom';
import { type FitOptions, placeImage } from '../fit.js';

/** The part of canvg's API used here. Its ESM typings import their own files without extensions, which NodeNext
 * resolution rejects, so the CommonJS build is loaded and typed by hand. */
interface Canvg {
  start(options: Record<string, boolean>): void;
  stop(): void;
}
interface VectorLibraries {
  Canvg: { fromString(ctx: unknown, svg: string, options: Record<string, unknown>): Canvg };
  DOMParser: typeof DOMParser;
}

let libraries: VectorLibraries | null = null;

/**
 * canvg and its XML parser, required on the first SVG drawn as vectors: only PDF pages do, and loading the two at
 * import cost every cold `placard render` about 35 ms (issue 21). `require` keeps the first call synchronous, as the
 * drawing is, and spares the ES module loader's scan of their CommonJS files.
 */
function vectorLibraries(): VectorLibraries {
  if (!libraries) {
    const require = createRequire(import.meta.url);
    libraries = {
      Canvg: (require('canvg') as Pick<VectorLibraries, 'Canvg'>).Canvg,
      DOMParser: (require('@xmldom/xmldom') as Pick<VectorLibraries, 'DOMParser'>).DOMParser,
    };
  }
  return libraries;
}

/** The markup a decoded SVG image was made from (recoloured and sized), kept for vector output. */
const markupOfImage = new WeakMap<object, string>();

export function rememberSvgMarkup(image: object, markup: string): void {
  markupOfImage.set(image, markup);
}

export function svgMarkupOf(image: object): string | undefined {
  return markupOfImage.get(image);
}

/**
 * A PDF page's context has no `canvas` (there is no bitmap), which canvg reads for the viewport size; this one
 * answers the SVG's intrinsic size and forwards everything else to the page. Native methods need the real context
 * as `this`, hence the binding.
 */
function withCanvas(ctx: SKRSContext2D, width: number, height: number): SKRSContext2D {
  const canvas = { width, height };
  return new Proxy(ctx, {
    get(target, property) {
      if (property === 'canvas') return canvas;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(target, property, value) {
      return Reflect.set(target, property, value, target);
    },
  });
}

/**
 * Draws `markup` at its intrinsic size (its root's width and height, which withIntrinsicSize guarantees) at the
 * context's origin; the caller transforms the context to fit it into a box. Returns false when canvg cannot parse it
 * (the caller then draws the bitmap).
 */
export function drawSvgVectors(ctx: SKRSContext2D, markup: string, width: number, height: number): boolean {
  let svg: Canvg;
  try {
    const { Canvg, DOMParser } = vectorLibraries();
    svg = Canvg.fromString(withCanvas(ctx, width, height), markup, {
      DOMParser,
      // Nothing is fetched: an SVG source may not reference other files (sniff.ts), and an offscreen canvas for
      // masks, patterns and filters comes from the same library as the page.
      createCanvas: (w: number, h: number) => createCanvas(w, h),
      createImage: () => {
        throw new Error('SVG images may not load other files');
      },
      ignoreAnimation: true,
      ignoreMouse: true,
    });
  } catch {
    return false;
  }
  ctx.save();
  try {
    // Drawn synchronously: with nothing to load the document is ready, and start() renders its first frame at once.
    svg.start({ ignoreDimensions: true, ignoreClear: true, ignoreAnimation: true, ignoreMouse: true });
    svg.stop();
    return true;
  } catch {
    return false;
  } finally {
    ctx.restore();
  }
}

/**
 * On a PDF page, draws a decoded SVG image as vectors fitted into the box (0, 0, width, height) exactly as drawFitted
 * places its bitmap (object-fit, focal point, corner radius). False when the image is not an SVG or cannot be drawn
 * so: the caller then draws the bitmap.
 */
export function drawFittedSvg(
  ctx: SKRSContext2D,
  image: { width: number; height: number },
  width: number,
  height: number,
  options: FitOptions = {},
): boolean {
  const markup = svgMarkupOf(image);
  if (!markup || width <= 0 || height <= 0 || image.width <= 0 || image.height <= 0) return false;
  const p = placeImage(image.width, image.height, width, height, options);
  ctx.save();
  try {
    ctx.beginPath();
    const radius = Math.min(options.cornerRadius ?? 0, width / 2, height / 2);
    if (radius > 0) ctx.roundRect(0, 0, width, height, radius);
    else ctx.rect(p.dx, p.dy, p.dw, p.dh);
    ctx.clip();
    const scaleX = p.dw / p.sw;
    const scaleY = p.dh / p.sh;
    ctx.translate(p.dx - p.sx * scaleX, p.dy - p.sy * scaleY);
    ctx.scale(scaleX, scaleY);
    return drawSvgVectors(ctx, markup, image.width, image.height);
  } finally {
    ctx.restore();
  }
}
