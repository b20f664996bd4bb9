// Colour emoji of an HTML5 package, as images drawn by the raster renderer from the same font. Fontsource's Noto Color
// Emoji keeps its colour glyphs in an OpenType `SVG ` table (no COLR/CPAL, CBDT/CBLC or sbix), which Chromium does not
// draw, and whose glyf outlines are empty: a package that only carries the font shows no emoji in Chromium whatever
// the subsetter keeps. So each emoji grapheme stays in its text run (invisible, so the run keeps its advances and
// copy-paste) and an image of it, drawn by Skia with the run's font as in the PNG export, sits over it.
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { covers, type Ranges, woffCoverage } from '../../render/text/font-coverage.js';
import { fontFile } from '../../render/text/fonts.js';
import type { LaidRun } from '../../render/text/text-layout.js';

// The `v` flag's RGI_Emoji matches whole emoji sequences (skin tones, ZWJ families, flags, keycaps); built at run
// time because TypeScript checks regex literal flags against the compile target.
const EMOJI_PATTERN = '^\\p{RGI_Emoji}$';
const EMOJI = new RegExp(EMOJI_PATTERN, 'v');
const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const EMOJI_FAMILY = 'Noto Color Emoji';
const coverage = new Map<string, Ranges>();

/** Whether Skia draws the grapheme with the colour emoji font: the first face of the run's list mapping it. */
function drawnByEmojiFont(font: string, grapheme: string): boolean {
  const codePoint = grapheme.codePointAt(0)!;
  for (const [, alias] of font.matchAll(/"([^"]+)"/g)) {
    const [family, variant, subset] = alias!.split('|');
    const path = family && variant && subset ? fontFile(family, variant, subset, 'woff') : undefined;
    if (!path) continue;
    let ranges = coverage.get(path);
    if (!ranges) {
      ranges = woffCoverage(path);
      coverage.set(path, ranges);
    }
    if (covers(ranges, codePoint)) return family === EMOJI_FAMILY;
  }
  return false;
}

/**
 * A grapheme drawn as a colour emoji in `font` (a run's canvas font): an RGI emoji sequence, or a pictograph without
 * its emoji variation selector (`❤`) that no face before the emoji font maps.
 */
export const isEmoji = (font: string, grapheme: string) =>
  EMOJI.test(grapheme) || (PICTOGRAPH.test(grapheme) && drawnByEmojiFont(font, grapheme));

export function graphemesOf(text: string): string[] {
  return [...GRAPHEMES.segment(text)].map((s) => s.segment);
}

/** One emoji of a run: its image's box relative to the run's left edge and baseline, and the image's src. */
export interface EmojiImage {
  left: number;
  top: number;
  width: number;
  height: number;
  src: string;
}

export class EmojiPainter {
  private readonly measureCtx: SKRSContext2D = createCanvas(1, 1).getContext('2d');
  private readonly cache = new Map<string, { src: string; width: number; ascent: number; descent: number }>();

  /**
   * @param scale device pixels per CSS pixel of the images (the package's highest scale).
   * @param store keeps an image's PNG and returns its src (a file of the zip, or a data: URL inside an SVG).
   */
  constructor(
    private readonly scale: number,
    private readonly store: (png: Buffer) => string,
  ) {}

  /** The emoji of a laid-out run, placed where Skia draws them in the PNG. */
  images(run: LaidRun, letterSpacing: number): EmojiImage[] {
    const parts = graphemesOf(run.text);
    if (!parts.some((part) => isEmoji(run.font, part))) return [];
    this.measureCtx.font = run.font;
    const out: EmojiImage[] = [];
    let prefix = '';
    parts.forEach((grapheme, index) => {
      if (isEmoji(run.font, grapheme)) {
        const advance = this.measureCtx.measureText(prefix).width + letterSpacing * index;
        const image = this.image(run.font, grapheme);
        // A right-to-left run is drawn from its right edge, its graphemes in reverse.
        const left = run.direction === 'rtl' ? run.width - advance - image.width : advance;
        out.push({
          left: left - 1,
          top: -image.ascent,
          width: image.width + 2,
          height: image.ascent + image.descent,
          src: image.src,
        });
      }
      prefix += grapheme;
    });
    return out;
  }

  private image(font: string, grapheme: string) {
    const key = `${font}\n${grapheme}`;
    let image = this.cache.get(key);
    if (!image) {
      this.measureCtx.font = font;
      const metrics = this.measureCtx.measureText(grapheme);
      const ascent = Math.ceil(Math.max(metrics.actualBoundingBoxAscent, 0)) + 1;
      const descent = Math.ceil(Math.max(metrics.actualBoundingBoxDescent, 0)) + 1;
      const width = Math.ceil(metrics.width);
      const canvas = createCanvas(
        Math.max(1, Math.ceil((width + 2) * this.scale)),
        Math.max(1, Math.ceil((ascent + descent) * this.scale)),
      );
      const ctx = canvas.getContext('2d');
      ctx.scale(this.scale, this.scale);
      ctx.font = font;
      ctx.fillText(grapheme, 1, ascent);
      image = { src: this.store(canvas.toBuffer('image/png')), width, ascent, descent };
      this.cache.set(key, image);
    }
    return image;
  }
}
