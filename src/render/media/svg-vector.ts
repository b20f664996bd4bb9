// Draws SVG markup as vector paths on a 2D context, for PDF pages: @napi-rs/canvas draws an SVG `Image` as a bitmap
// at the device size (113×113 px for a 150 px logo on a 72 dpi PDF page), so a logo printed from the PDF was blurred.
// canvg parses the SVG (with @xmldom/xmldom, as Node has no DOMParser) and issues ordinary path, fill, stroke,
// gradient and text calls on the context, which Skia's PDF backend writes as vector operators.
import { createRequire } from 'node:module';
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { DOMParser } from '@xmldom/xmldom';

/** The part of canvg's API used here. Its ESM typings import their own files without extensions, which NodeNext
 * resolution rejects, so the CommonJS build is loaded and typed by hand. */
interface Canvg {
  start(options: Record<string, boolean>): void;
  stop(): void;
}
const { Canvg } = createRequire(import.meta.url)('canvg') as {
  Canvg: { fromString(ctx: unknown, svg: string, options: Record<string, unknown>): Canvg };
};

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
