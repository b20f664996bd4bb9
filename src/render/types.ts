// The contract between the render pipeline and the element kinds. One drawing path serves every output: a kind draws
// into a CanvasRenderingContext2D that belongs either to a raster canvas or to a PDF page.
import type { Canvas, Image, SKRSContext2D } from '@napi-rs/canvas';

/** Decoded media, resolved before drawing (in parallel, deduplicated, cached per thread). */
export interface ResolvedAssets {
  /** The decoded image of a source (an http(s) URL, or inline SVG markup); undefined when it could not be resolved. */
  image(src: string): Image | undefined;
  /** Whether the image of a source was drawn from vectors (SVG), which stay sharp at any size. Default: false. */
  vector?(src: string): boolean;
}

export interface DrawContext {
  /**
   * The context to draw into. The pipeline has already translated it to the element's top-left corner, rotated it
   * around the element's centre and applied its opacity, each moved by the element's animations at `time`
   * (domain/timeline.ts; a blur is set as `ctx.filter`): a kind draws in local coordinates, in the box
   * (0, 0, element.width, element.height), and restores whatever state it changes.
   */
  ctx: SKRSContext2D;
  assets: ResolvedAssets;
  /** Seconds since the slide started; stills draw the final state (Number.POSITIVE_INFINITY). */
  time: number;
  /**
   * Animated renders: the frame a video element shows at `time` (render/animation.ts), undefined to show the still
   * frame (stills, the final frame, or no ffmpeg here).
   */
  videoFrame?: (element: { type: 'video'; name: string }) => Canvas | undefined;
  /** PDF keeps text as text and images at full resolution; raster may take shortcuts that only pixels see. */
  output: 'raster' | 'pdf';
}
