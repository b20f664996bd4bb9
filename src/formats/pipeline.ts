// The still-frame pipeline, in stages (ARCHITECTURE render/, STYLE 9): resolve assets → draw → encode. Resolving
// fetches and decodes every image the frame's visible elements ask for, in parallel and once each (image-cache.ts);
// drawing is synchronous and pure over (document, assets, time); encoding reads the pixels once. Layout of text is the
// text kinds' own business inside `draw`. Renderer code never touches a database or HTTP request: the same functions
// run in worker threads, the CLI and golden-image tests.
import type { Canvas, SKRSContext2D } from '@napi-rs/canvas';
import type { DesignDocument, DesignSize, Slide } from '../domain/design.schema.js';
import { motionAt, slideAt } from '../domain/timeline.js';
import type { BaseElement } from '../elements/common.js';
import { kindOfElement } from '../elements/registry.js';
import { AppError } from '../errors.js';
import { type CanvasPool, canvasPool } from '../render/canvas-pool.js';
import { type AssetFetcher, createAssetFetcher } from '../render/media/assets.js';
import { imageCacheFor } from '../render/media/image-cache.js';
import type { DrawContext, ResolvedAssets } from '../render/types.js';
import { encodeJpg } from './raster/jpg.js';
import { encodePng } from './raster/png.js';
import { encodeWebp } from './raster/webp.js';

/** SPEC §9: scale × side ≤ 16,000 px. */
export const MAX_OUTPUT_SIDE = 16_000;

export type RasterFormat = 'png' | 'jpg' | 'webp';

export interface FrameOptions {
  /** Seconds since the slide started. Default: the final state (Number.POSITIVE_INFINITY). */
  time?: number;
  /** Output pixels per design pixel. Default 1. */
  scale?: number;
  /** Default 'raster'. */
  output?: DrawContext['output'];
  /** Fetches media. Default: this thread's fetcher (setRenderFetcher), else one that refuses private addresses. */
  fetcher?: AssetFetcher;
  /**
   * Draw elements whose source was rejected as if they had no image, instead of failing with SOURCE_REJECTED.
   * Default false: exports must fail the creative (SPEC §5); thumbnails draw what they can.
   */
  skipRejectedSources?: boolean;
  /** Animated renders: the current frame of each video element (DrawContext.videoFrame). */
  videoFrame?: DrawContext['videoFrame'];
  /**
   * Preflight's measuring pass: called instead of drawing each element, with the context already placed for it and a
   * function that draws an element (this one, or a variant of it) there. Default: the element is drawn.
   */
  inspect?: (element: BaseElement, ctx: SKRSContext2D, draw: (variant: BaseElement) => void) => void;
}

export interface RenderedFrame {
  /** A pooled canvas of round(width × scale) × round(height × scale) pixels holding the frame. */
  canvas: Canvas;
  /** Gives the canvas back to this thread's pool; call it once the pixels have been encoded or copied. */
  release(): void;
}

let threadFetcher: AssetFetcher | undefined;

/** Sets the fetcher renders on this thread use by default (the worker sets one built from the service's config). */
export function setRenderFetcher(fetcher: AssetFetcher): void {
  threadFetcher = fetcher;
}

/** The fetcher renders on this thread use when given none. */
export function renderFetcher(): AssetFetcher {
  threadFetcher ??= createAssetFetcher({ allowPrivateUrls: false });
  return threadFetcher;
}

/** The fetcher of a render: the one given, else this thread's (the HTML5 packager fetches SVG and video files too). */
export function fetcherOf(options: Pick<FrameOptions, 'fetcher'>): AssetFetcher {
  threadFetcher ??= createAssetFetcher({ allowPrivateUrls: false });
  return options.fetcher ?? threadFetcher;
}

/** The size and slide addressed, or a RangeError (callers pass indexes they took from the same document). */
export function frameOf(document: DesignDocument, sizeIndex: number, slideIndex: number): [DesignSize, Slide] {
  const size = document.sizes[sizeIndex];
  if (!size) throw new RangeError(`size ${sizeIndex} does not exist; the document has ${document.sizes.length}`);
  const slide = size.slides[slideIndex];
  if (!slide) throw new RangeError(`slide ${slideIndex} does not exist; size ${sizeIndex} has ${size.slides.length}`);
  return [size, slide];
}

/** Pixel dimensions of a size at a scale; VALIDATION_FAILED when the scale breaks the SPEC §9 output limit. */
export function outputDimensions(size: Pick<DesignSize, 'width' | 'height'>, scale = 1) {
  if (!(scale > 0) || !Number.isFinite(scale)) {
    throw new AppError('VALIDATION_FAILED', `scale must be a number greater than 0, received ${scale}`);
  }
  const side = Math.max(size.width, size.height) * scale;
  if (side > MAX_OUTPUT_SIDE) {
    throw new AppError(
      'VALIDATION_FAILED',
      `scale ${scale} makes a ${size.width}x${size.height} size ${Math.round(side)} px on its longest side; scale × side may be at most ${MAX_OUTPUT_SIDE} px`,
    );
  }
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) };
}

function drawn(slide: Slide): BaseElement[] {
  return (slide.elements as BaseElement[]).filter((element) => element.visible !== false);
}

/** Every image source the visible elements of a slide draw. Hidden elements fetch nothing and so cannot fail. */
export function imageSourcesOf(slide: Slide): string[] {
  return drawn(slide).flatMap((element) => kindOfElement(element).imagesOf?.(element) ?? []);
}

/** Stage 1: fetches and decodes the frame's images (through this thread's cache). SOURCE_REJECTED names a bad URL. */
export function resolveAssets(
  document: DesignDocument,
  sizeIndex: number,
  slideIndex: number,
  options: Pick<FrameOptions, 'fetcher' | 'skipRejectedSources'> = {},
): Promise<ResolvedAssets> {
  const [, slide] = frameOf(document, sizeIndex, slideIndex);
  return imageCacheFor(fetcherOf(options)).resolve(imageSourcesOf(slide), {
    skipRejected: options.skipRejectedSources === true,
  });
}

/**
 * Stage 2: draws the frame into `ctx`, whose origin is the frame's top-left corner: the background, then each visible
 * element in order (the first at the back) in its own coordinates — translated to (x, y), rotated by `rotation`
 * degrees clockwise around its centre, with its opacity — all scaled by `scale`. A kind without `draw` is skipped.
 *
 * Animations (domain/timeline.ts) move each element at `time`: the motion's scale and turn apply around the element's
 * centre after its own rotation, its translation in frame px, its opacity multiplies the element's, and its blur goes
 * through `ctx.filter`. Stills draw the default time, +Infinity: the final state, where every `in` animation has
 * finished and every `out` animation is done — so an element with an `out` fade or zoom is not drawn at all in a
 * PNG/JPG/WEBP/PDF export, one with an `out` slide is off the frame, and one with an `out` blur is drawn blurred.
 */
export function drawFrame(
  ctx: SKRSContext2D,
  size: DesignSize,
  slide: Slide,
  assets: ResolvedAssets,
  options: Pick<FrameOptions, 'time' | 'scale' | 'output' | 'videoFrame' | 'inspect'> = {},
): void {
  const dc: DrawContext = {
    ctx,
    assets,
    videoFrame: options.videoFrame,
    time: options.time ?? Number.POSITIVE_INFINITY,
    output: options.output ?? 'raster',
  };
  ctx.save();
  ctx.scale(options.scale ?? 1, options.scale ?? 1);
  // Skia's filter lengths are device pixels, whatever the transform (as in browsers): blur is given in design px, so
  // it is multiplied by the device pixels per design px of the frame (scale, and the px → pt of a PDF page).
  const frame = ctx.getTransform();
  const devicePerPx = Math.sqrt(Math.abs(frame.a * frame.d - frame.b * frame.c));
  ctx.fillStyle = size.backgroundColor ?? '#FFFFFF';
  ctx.fillRect(0, 0, size.width, size.height);
  for (const element of drawn(slide)) {
    const kind = kindOfElement(element);
    if (!kind.draw) continue;
    const motion = motionAt(element, dc.time, size);
    const opacity = (element.opacity ?? 1) * motion.opacity;
    if (opacity <= 0 || motion.scale === 0) continue;
    ctx.save();
    ctx.translate(element.x + motion.translateX, element.y + motion.translateY);
    // A whole number of turns is no turn: skipping it keeps the pixels of a finished rotate-out those of no rotation.
    const rotation = ((element.rotation ?? 0) + motion.rotate) % 360;
    if (rotation !== 0 || motion.scale !== 1) {
      const cx = element.width / 2;
      const cy = element.height / 2;
      ctx.translate(cx, cy);
      if (rotation !== 0) ctx.rotate((rotation * Math.PI) / 180);
      if (motion.scale !== 1) ctx.scale(motion.scale, motion.scale);
      ctx.translate(-cx, -cy);
    }
    ctx.globalAlpha *= opacity;
    if (motion.blur > 0) ctx.filter = `blur(${motion.blur * devicePerPx}px)`;
    if (options.inspect) options.inspect(element, ctx, (variant) => kind.draw?.(variant, dc));
    else kind.draw(element, dc);
    ctx.restore();
  }
  ctx.restore();
}

/** Draws into the given context (a PDF page), resolving the assets first. */
export async function renderFrame(
  document: DesignDocument,
  sizeIndex: number,
  slideIndex: number,
  options: FrameOptions & { ctx: SKRSContext2D },
): Promise<undefined>;
/** Draws into a canvas of this thread's pool; the caller encodes it and then calls `release`. */
export async function renderFrame(
  document: DesignDocument,
  sizeIndex: number,
  slideIndex: number,
  options?: FrameOptions & { ctx?: undefined },
): Promise<RenderedFrame>;
export async function renderFrame(
  document: DesignDocument,
  sizeIndex: number,
  slideIndex: number,
  options: FrameOptions & { ctx?: SKRSContext2D } = {},
): Promise<RenderedFrame | undefined> {
  const [size, slide] = frameOf(document, sizeIndex, slideIndex);
  const { width, height } = outputDimensions(size, options.scale);
  const assets = await resolveAssets(document, sizeIndex, slideIndex, options);
  if (options.ctx) {
    drawFrame(options.ctx, size, slide, assets, options);
    return undefined;
  }
  const pool: CanvasPool = canvasPool;
  const canvas = pool.acquire(width, height);
  try {
    drawFrame(canvas.getContext('2d'), size, slide, assets, options);
  } catch (error) {
    pool.release(canvas);
    throw error;
  }
  let released = false;
  return {
    canvas,
    release() {
      if (released) return;
      released = true;
      pool.release(canvas);
    },
  };
}

/**
 * The frame at global time `t` (seconds since the size's first slide started; domain/timeline.ts `slideAt`): the
 * slide playing then, at its local time. t ≥ the size's duration, or FINAL_FRAME (+Infinity), is the final state of
 * the last slide, the same pixels as `renderFrame` of that slide.
 */
export async function renderFrameAt(
  document: DesignDocument,
  sizeIndex: number,
  t: number,
  options: Omit<FrameOptions, 'time'> = {},
): Promise<RenderedFrame> {
  const [size] = frameOf(document, sizeIndex, 0);
  const { slideIndex, localTime } = slideAt(size, t);
  return renderFrame(document, sizeIndex, slideIndex, { ...options, time: localTime, ctx: undefined });
}

export interface EncodeOptions {
  format: RasterFormat;
  /** 1..100 for jpg and webp; ignored by png. Default 90. */
  quality?: number;
}

/** Stage 3: the canvas in a raster format. */
export function encodeFrame(canvas: Canvas, { format, quality }: EncodeOptions): Promise<Buffer> {
  if (format === 'png') return encodePng(canvas);
  if (format === 'jpg') return encodeJpg(canvas, quality);
  return encodeWebp(canvas, quality);
}

/** All three stages: one slide of one size as a PNG, JPG or WEBP file. */
export async function renderImage(
  document: DesignDocument,
  sizeIndex: number,
  slideIndex: number,
  options: FrameOptions & EncodeOptions,
): Promise<Buffer> {
  const frame = await renderFrame(document, sizeIndex, slideIndex, { ...options, ctx: undefined });
  try {
    return await encodeFrame(frame.canvas, options);
  } finally {
    frame.release();
  }
}
