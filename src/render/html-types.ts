// The contract between the HTML5 packager and the element kinds (the HTML twin of types.ts): a kind writes the markup
// of its box in local coordinates (0, 0, width, height) and asks the context for the files that markup refers to.
// The packager owns position, rotation, opacity and motion, exactly as the pipeline does for `draw`.
import type { SKRSContext2D } from '@napi-rs/canvas';
import type { TextLayout } from './text/text-layout.js';
import type { ResolvedAssets } from './types.js';

export interface HtmlContext {
  /** Decoded media of the size (the same assets `draw` gets), for kinds that re-encode pixels. */
  assets: ResolvedAssets;
  /** HTML-escapes text for element content and attribute values. */
  escape(text: string): string;
  /** Markup of a laid-out text in a box, line by line as the raster renderer breaks it (HTML spans or an SVG file). */
  text(layout: TextLayout, color: string, box: { width: number; height: number }): string;
  /**
   * An `<img>` filling the box whose pixels `draw` paints (in design px, on a transparent canvas), re-encoded at the
   * export quality, at 1x and/or 2x as the retina settings ask.
   */
  raster(width: number, height: number, draw: (ctx: SKRSContext2D) => void): Promise<string>;
  /** Adds a file to the package (name made unique and safe) and returns the name to reference it by. */
  addFile(stem: string, extension: string, bytes: Uint8Array): string;
  /** The bytes of a media URL, through the export's fetcher (same guards and limits as renders). */
  fetch(url: string, expect: 'image' | 'video'): Promise<{ bytes: Uint8Array; extension: string }>;
  /** Whether the package's network takes files of this extension and `<video>` elements. */
  allowsVideo(extension: string): boolean;
}
