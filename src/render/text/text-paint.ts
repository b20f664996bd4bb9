// Text on a canvas: a TextMeasurer backed by Skia and the font registry, a per-thread cache of layouts (an animated
// export draws the same text in hundreds of frames; autoFit's search runs once), and the painter of a TextLayout.
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { FontRef } from './font-ref.js';
import { cssFont, fontStack, withBundledGlyphs } from './font-registry.js';
import { graphemesOf } from './line-break.js';
import { applyTextTransform, layoutText, type TextBox, type TextLayout, type TextMeasurer } from './text-layout.js';

// Measuring happens on a scratch context, never on the one being drawn into (its state belongs to the pipeline).
let scratch: SKRSContext2D | undefined;
function scratchContext(): SKRSContext2D {
  scratch ??= createCanvas(1, 1).getContext('2d');
  return scratch;
}

function variantOf(base: string, style: { bold: boolean; italic: boolean }): string {
  const weight = Number.parseInt(base, 10) || 400;
  // Bold means 700, or stays heavier when the element already is; the registry takes the nearest weight it has.
  const wanted = style.bold ? Math.max(weight, 700) : weight;
  return `${wanted}${style.italic || base.endsWith('italic') ? 'italic' : ''}`;
}

// Widths of runs by font and text, per thread. Layout measures each word of a text at every size autoFit tries, and
// variants of a design share most of their words: a width Skia has measured once is the same number every time, so
// the renderer and preflight get the same layouts, only sooner. Least recently used first out.
const WIDTH_CACHE_SIZE = 50_000;
const widths = new Map<string, number>();
/** The ink extents of runs (actualBoundingBox), cached the same way. */
const inks = new Map<string, { ascent: number; descent: number }>();

function cachedWidth(css: string, run: string, measure: () => number): number {
  const key = `${css}\u0000${run}`;
  let width = widths.get(key);
  if (width === undefined) {
    width = measure();
    if (widths.size >= WIDTH_CACHE_SIZE) widths.delete(widths.keys().next().value!);
  } else {
    widths.delete(key);
  }
  widths.set(key, width);
  return width;
}

/**
 * A measurer drawing with `font`; `text` decides which fallback fonts are needed (and registered). It must hold every
 * character the layout may draw: the transformed text, and the ellipsis (the family's first subset always has it).
 */
export function canvasMeasurer(font: FontRef, text: string): TextMeasurer {
  const stacks = new Map<string, ReturnType<typeof fontStack>>();
  const ctx = scratchContext();
  const setFont = (css: string) => {
    if (ctx.font !== css) ctx.font = css;
  };
  return {
    font(style, size) {
      const variant = variantOf(font.fontVariant, style);
      let stack = stacks.get(variant);
      if (!stack) {
        stack = fontStack(font.fontFamily, variant, text);
        stacks.set(variant, stack);
      }
      return cssFont(stack, size);
    },
    measure(run, css) {
      return cachedWidth(css, run, () => {
        setFont(css);
        ctx.letterSpacing = '0px';
        return ctx.measureText(run).width;
      });
    },
    metrics(css) {
      setFont(css);
      const metrics = ctx.measureText('');
      return { ascent: metrics.fontBoundingBoxAscent, descent: metrics.fontBoundingBoxDescent };
    },
    ink(run, css) {
      const key = `${css}\u0000${run}`;
      let extent = inks.get(key);
      if (extent === undefined) {
        setFont(css);
        ctx.letterSpacing = '0px';
        const metrics = ctx.measureText(run);
        extent = { ascent: metrics.actualBoundingBoxAscent, descent: metrics.actualBoundingBoxDescent };
        if (inks.size >= WIDTH_CACHE_SIZE) inks.delete(inks.keys().next().value!);
      } else {
        inks.delete(key);
      }
      inks.set(key, extent);
      // A copy: callers own what they are given.
      return { ...extent };
    },
  };
}

const LAYOUT_CACHE_SIZE = 256;
const layouts = new Map<string, TextLayout>();

/** The text style fields of text and button elements (elements/text-style.ts), all optional as in the schema. */
export interface StyledText {
  fontFamily?: string;
  fontVariant?: string;
  fontSize?: number;
  lineHeight?: number;
  letterSpacing?: number;
  align?: TextBox['align'];
  verticalAlign?: TextBox['verticalAlign'];
  textTransform?: TextBox['textTransform'];
  autoFit?: TextBox['autoFit'];
  minFontSize?: number;
  overflow?: TextBox['overflow'];
}

/** The layout input of a styled element's text in a box, with the kind's own defaults for what the element omits. */
export function textBoxOf(
  element: StyledText,
  content: { text: string; markdown: boolean; width: number; height: number },
  defaults: Pick<TextBox, 'align' | 'verticalAlign' | 'fontSize'>,
): TextBox {
  return {
    ...content,
    fontSize: element.fontSize ?? defaults.fontSize,
    lineHeight: element.lineHeight ?? 1.2,
    letterSpacing: element.letterSpacing ?? 0,
    align: element.align ?? defaults.align,
    verticalAlign: element.verticalAlign ?? defaults.verticalAlign,
    textTransform: element.textTransform ?? 'none',
    autoFit: element.autoFit ?? 'none',
    minFontSize: element.minFontSize ?? 6,
    overflow: element.overflow ?? 'visible',
  };
}

/** The layout of `box` in `font`, computed once per thread for identical inputs (least recently used evicted). */
export function layoutWithFonts(box: TextBox, font: FontRef): TextLayout {
  const key = JSON.stringify([box, font.fontFamily, font.fontVariant]);
  const cached = layouts.get(key);
  if (cached) {
    layouts.delete(key);
    layouts.set(key, cached);
    return cached;
  }
  // Characters no Placard font has become missing-glyph boxes here, so that no path (raster, PDF, HTML5) draws them
  // with a font of the host machine.
  const bundled = { ...box, text: withBundledGlyphs(font.fontFamily, font.fontVariant, box.text) };
  const text = applyTextTransform(bundled.text, box.textTransform);
  const result = layoutText(bundled, canvasMeasurer(font, text));
  layouts.set(key, result);
  if (layouts.size > LAYOUT_CACHE_SIZE) layouts.delete(layouts.keys().next().value!);
  return result;
}

/**
 * The font size of the markers that frame every run drawn into a PDF page (see pdf.ts): a space at 0.25 px, which
 * Skia writes as its own text object `/Fn .375 Tf … <gid> Tj` and which has no ink. The PDF encoder replaces the pair
 * with a marked-content span whose ActualText is the run's source text, so copying and searching the PDF gives what the
 * user typed (ligatures, Arabic joins, Devanagari conjuncts and Thai marks map to glyphs a ToUnicode table cannot
 * express). The size is exact in binary, so Skia writes it without rounding.
 */
export const ACTUAL_TEXT_MARKER_PX = 0.25;

const actualTexts = new WeakMap<object, string[]>();

/**
 * From now on, every text run painted into `ctx` (a PDF page) is framed by two markers and its text is appended to
 * the returned list, in drawing order.
 */
export function recordActualText(ctx: object): string[] {
  const texts: string[] = [];
  actualTexts.set(ctx, texts);
  return texts;
}

/**
 * Draws a layout in the box (0, 0, width, height) of `ctx` with `color`; links are underlined in that colour. Restores
 * every piece of context state it changes.
 */
export function paintTextLayout(
  ctx: SKRSContext2D,
  layout: TextLayout,
  color: string,
  box: { width: number; height: number },
): void {
  if (layout.lines.length === 0) return;
  ctx.save();
  if (layout.clip) {
    ctx.beginPath();
    ctx.rect(0, 0, box.width, box.height);
    ctx.clip();
  }
  ctx.fillStyle = color;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
  ctx.letterSpacing = `${layout.letterSpacing}px`;
  const thickness = Math.max(1, layout.fontSize / 14);
  for (const line of layout.lines) {
    for (const run of line.runs) {
      if (run.style.link) {
        // Below the baseline, clear of most descenders' joins; it stops at the last glyph, not after its spacing.
        const width = run.width - Math.max(0, layout.letterSpacing);
        ctx.fillRect(run.x, line.baseline + layout.fontSize * 0.12, width, thickness);
      }
      if (!run.text.trim()) continue;
      const record = actualTexts.get(ctx);
      const marker = record && run.font.replace(/ [\d.]+px /, ` ${ACTUAL_TEXT_MARKER_PX}px `);
      if (marker) {
        ctx.font = marker;
        ctx.fillText(' ', run.x, line.baseline);
      }
      ctx.font = run.font;
      ctx.direction = run.direction;
      ctx.fillText(run.text, run.x, line.baseline);
      if (marker) {
        ctx.font = marker;
        ctx.fillText(' ', run.x, line.baseline);
        // Readers place an ActualText's characters left to right across the span and then apply the bidi algorithm
        // to the line, as for any glyphs; a right-to-left run therefore gives its text in visual order (graphemes
        // reversed), which they turn back into the typed order.
        record.push(run.direction === 'rtl' ? graphemesOf(run.text).reverse().join('') : run.text);
      }
    }
  }
  ctx.restore();
}
