// Preflight (issue 20): what a variant's files would get wrong, found before they are made and cheaply. Every finding
// comes from the renderer's own code, never from a second estimate: text from the kinds' `measure` (the same layout,
// autoFit and ellipsis as `draw`), glyphs from the font chain the text is drawn with (font-registry.ts glyphCoverage),
// images from the asset stage and the fit the kinds draw with, geometry from the timeline's final state, and contrast
// from pixels the pipeline really draws (drawFrame with an `inspect` hook). Stills show the final state, so that is
// what is checked. Nothing here writes a file or touches a database.
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { DesignDocument, DesignSize, Slide } from '../../domain/design.schema.js';
import { motionAt } from '../../domain/timeline.js';
import type { BaseElement } from '../../elements/common.js';
import type { ElementMeasure, MeasuredText } from '../../elements/element-kind.js';
import { kindOfElement } from '../../elements/registry.js';
import { AppError } from '../../errors.js';
import { canvasPool } from '../../render/canvas-pool.js';
import type { AssetFetcher } from '../../render/media/assets.js';
import { imageCacheFor } from '../../render/media/image-cache.js';
import { glyphCoverage } from '../../render/text/font-registry.js';
import { applyTextTransform } from '../../render/text/text-layout.js';
import type { ResolvedAssets } from '../../render/types.js';
import { drawFrame, imageSourcesOf } from '../pipeline.js';
import { contrastRatio, type Rgb, relativeLuminance, toHex } from './colour.js';
import {
  codePointLabel,
  FINDING_CATALOGUE,
  type Finding,
  type FindingCode,
  type PreflightSummary,
  summarise,
} from './finding.js';
import { fractionOutside } from './geometry.js';

/** Output pixels below which shrunk text stops being readable (9 px at scale 1; 4.5 design px at scale 2). */
export const READABLE_FLOOR_PX = 9;
/** An image drawn at more output pixels per pixel of its own than this looks blurred. */
export const MAX_UPSCALE = 1.5;
/** WCAG 2 AA. */
export const CONTRAST_AA = 4.5;
export const CONTRAST_AA_LARGE = 3;
/** More than this fraction of an element's area outside its size is "mostly outside". */
export const OUTSIDE_FRACTION = 0.5;

export interface PreflightOptions {
  /** Fetches media; through the guarded fetcher (a short timeout and a cache are the caller's choice). */
  fetcher: AssetFetcher;
  /** Output pixels per design pixel (exportSettings.scale); default 1. */
  scale?: number;
  /** The sizes to check (indexes); default all. */
  sizes?: readonly number[];
  /** The slides to check per size; default all. */
  slides?: readonly number[];
  /** The size hashes findings name (the template's, for a changed copy); default the document's own. */
  sizeHashes?: readonly string[];
  /** Checks an output format adds per size (HTML5 weight); they run after the element checks. */
  formatChecks?: (
    document: DesignDocument,
    sizeIndex: number,
    about: Pick<Finding, 'sizeHash' | 'sizeName'>,
  ) => Promise<Finding[]> | Finding[];
}

export interface PreflightReport {
  findings: Finding[];
  summary: PreflightSummary;
}

// The fetcher's own wording (render/media/assets.ts, render/url-guard.ts) for a source that could not be downloaded,
// as opposed to one that was downloaded and refused. Tested one by one in test/formats/preflight/sources.test.ts.
const UNREACHABLE =
  /: (?:(?:redirects to [^ ]+ which )?cannot be fetched|took longer than|answered HTTP|redirects more than|redirects to an invalid URL)/;

/** SOURCE_UNREACHABLE or SOURCE_REJECTED for an error of the asset stage. */
export function sourceFindingCode(error: AppError): 'SOURCE_UNREACHABLE' | 'SOURCE_REJECTED' {
  return UNREACHABLE.test(error.message) ? 'SOURCE_UNREACHABLE' : 'SOURCE_REJECTED';
}

interface SlideAssets {
  assets: ResolvedAssets;
  failures: Map<string, AppError>;
}

/** Resolves each source on its own through the renderer's image cache, so one bad source does not hide the others. */
async function resolveEach(fetcher: AssetFetcher, sources: readonly string[]): Promise<SlideAssets> {
  const cache = imageCacheFor(fetcher);
  const failures = new Map<string, AppError>();
  const resolved = new Map<string, ResolvedAssets>();
  await Promise.all(
    [...new Set(sources)].map(async (source) => {
      try {
        resolved.set(source, await cache.resolve([source]));
      } catch (error) {
        if (error instanceof AppError && error.code === 'SOURCE_REJECTED') failures.set(source, error);
        else throw error;
      }
    }),
  );
  return {
    assets: {
      image: (src) => resolved.get(src)?.image(src),
      vector: (src) => resolved.get(src)?.vector?.(src) ?? false,
    },
    failures,
  };
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The findings of one size (every slide, or those asked for). */
export async function preflightSize(
  document: DesignDocument,
  sizeIndex: number,
  options: PreflightOptions,
): Promise<Finding[]> {
  const size = document.sizes[sizeIndex];
  if (!size) throw new RangeError(`size ${sizeIndex} does not exist; the document has ${document.sizes.length}`);
  const about = { sizeHash: options.sizeHashes?.[sizeIndex] ?? size.hash ?? '', sizeName: size.name };
  const scale = options.scale ?? 1;
  const findings: Finding[] = [];
  const slides = options.slides ?? size.slides.map((_, i) => i);
  for (const slideNumber of slides) {
    const slide = size.slides[slideNumber];
    if (!slide) continue;
    const { assets, failures } = await resolveEach(options.fetcher, imageSourcesOf(slide));
    const add = (code: FindingCode, element: BaseElement | null, message: string, details: Record<string, unknown>) =>
      findings.push({
        code,
        severity: FINDING_CATALOGUE[code].severity,
        ...about,
        elementName: element?.name ?? null,
        slideNumber,
        message: `${about.sizeName} (${size.width}x${size.height})${element ? `, ${element.name}` : ''}: ${message}`,
        details,
      });
    const measured = new Map<BaseElement, ElementMeasure>();
    for (const element of slide.elements as BaseElement[]) {
      if (element.visible === false) continue;
      const motion = motionAt(element, Number.POSITIVE_INFINITY, size);
      if ((element.opacity ?? 1) * motion.opacity <= 0 || motion.scale === 0) continue;
      const kind = kindOfElement(element);
      checkSources(element, kind.imagesOf?.(element) ?? [], failures, add);
      checkGeometry(element, size, motion, add);
      const measure = kind.measure?.(element, assets);
      if (!measure) continue;
      measured.set(element, measure);
      for (const text of measure.texts) checkText(element, text, scale, add);
      checkImages(element, measure, motion.scale, scale, add);
    }
    checkContrast(size, slide, assets, measured, add);
  }
  if (options.formatChecks) findings.push(...(await options.formatChecks(document, sizeIndex, about)));
  return findings;
}

/** Every size asked for, in document order; errors first within nothing — callers sort if they wish. */
export async function preflightDocument(document: DesignDocument, options: PreflightOptions): Promise<PreflightReport> {
  const sizes = options.sizes ?? document.sizes.map((_, i) => i);
  const findings: Finding[] = [];
  for (const sizeIndex of sizes) findings.push(...(await preflightSize(document, sizeIndex, options)));
  return { findings, summary: summarise(findings) };
}

type Add = (code: FindingCode, element: BaseElement | null, message: string, details: Record<string, unknown>) => void;

function checkSources(element: BaseElement, sources: string[], failures: Map<string, AppError>, add: Add): void {
  for (const source of sources) {
    const error = failures.get(source);
    if (!error) continue;
    add(sourceFindingCode(error), element, error.message, { source: error.message.split(': ')[0] });
  }
}

function checkGeometry(element: BaseElement, size: DesignSize, motion: ReturnType<typeof motionAt>, add: Add): void {
  if (element.width <= 0 || element.height <= 0) return;
  const outside = fractionOutside(
    {
      x: element.x + motion.translateX,
      y: element.y + motion.translateY,
      width: element.width,
      height: element.height,
      rotation: (element.rotation ?? 0) + motion.rotate,
      scale: motion.scale,
    },
    size,
  );
  if (outside <= OUTSIDE_FRACTION) return;
  const percent = Math.round(outside * 100);
  add(
    'OUTSIDE_CANVAS',
    element,
    outside >= 1
      ? `the element lies entirely outside the ${size.width}x${size.height} size; move it in or hide it`
      : `${percent}% of the element lies outside the ${size.width}x${size.height} size; move it in or make it smaller`,
    { fractionOutside: round(outside, 3), x: element.x, y: element.y, width: element.width, height: element.height },
  );
}

function describeCodePoints(points: number[]): string {
  const shown = points.slice(0, 8).map((p) => `${String.fromCodePoint(p)} (${codePointLabel(p)})`);
  return `${shown.join(', ')}${points.length > 8 ? ` and ${points.length - 8} more` : ''}`;
}

function checkText(element: BaseElement, text: MeasuredText, scale: number, add: Add): void {
  const { input, layout, box } = text;
  if (layout.lines.length === 0) return;
  const shrinking = input.autoFit === 'shrink';
  const minFontSize = Math.min(input.minFontSize ?? 6, input.fontSize);
  const sizes = {
    fontSize: round(layout.fontSize),
    requestedFontSize: input.fontSize,
    boxWidth: round(box.width),
    boxHeight: round(box.height),
  };
  if (layout.overflows) {
    const fitting = Math.max(0, Math.floor((box.height + 1e-6) / layout.lineHeight));
    const shownHeight = layout.lines.length * layout.lineHeight;
    const overflowPx = Math.max(0, shownHeight - box.height);
    const widest = Math.max(...layout.lines.map((line) => line.width));
    const overflowLines = Math.max(0, layout.lines.length - fitting);
    const widthOverflowPx = Math.max(0, widest - box.width);
    const what =
      overflowLines > 0
        ? `${overflowLines} of its ${layout.lines.length} lines (${round(overflowPx, 1)} px) do not fit the ${round(box.height, 1)} px high box`
        : `its widest line is ${round(widthOverflowPx, 1)} px wider than the ${round(box.width, 1)} px box`;
    const fix = shrinking
      ? `it does not fit even at minFontSize ${minFontSize} px; shorten it, enlarge the box or lower minFontSize`
      : 'shorten it, enlarge the box, or set autoFit "shrink" or overflow "ellipsis"';
    add(
      'TEXT_OVERFLOW',
      element,
      `the text overflows its box${layout.clip ? ' and is cut off' : ''}: ${what}; ${fix}`,
      {
        ...sizes,
        lines: layout.lines.length,
        fittingLines: fitting,
        overflowLines,
        overflowPx: round(overflowPx),
        widestLinePx: round(widest),
        widthOverflowPx: round(widthOverflowPx),
        clipped: layout.clip,
      },
    );
  }
  if (shrinking && layout.fontSize < input.fontSize) {
    const floor = READABLE_FLOOR_PX / scale;
    const belowMin = layout.fontSize <= minFontSize && layout.overflows;
    if (belowMin || layout.fontSize < floor - 1e-6) {
      add(
        'TEXT_SHRUNK',
        element,
        belowMin
          ? `autoFit shrank the text from ${input.fontSize} px to its minFontSize ${minFontSize} px and it still does not fit; it would have to be smaller still`
          : `autoFit shrank the text from ${input.fontSize} px to ${round(layout.fontSize)} px, ${round(layout.fontSize * scale)} output px: below the readable floor of ${READABLE_FLOOR_PX} px; shorten the text or enlarge the box`,
        {
          ...sizes,
          minFontSize,
          outputFontSizePx: round(layout.fontSize * scale),
          readableFloorPx: READABLE_FLOOR_PX,
          reason: belowMin ? 'minFontSize' : 'readableFloor',
        },
      );
    }
  }
  if (layout.truncated) {
    const totalLines = Math.round(layout.contentHeight / layout.lineHeight);
    add(
      'TEXT_TRUNCATED',
      element,
      `the ellipsis cut the text: ${layout.lines.length} of its ${totalLines} lines are shown`,
      { ...sizes, shownLines: layout.lines.length, totalLines },
    );
  }
  // The characters drawn are those of the transformed text; the font chain is the one fontStack builds for it.
  const coverage = glyphCoverage(
    text.font.fontFamily,
    text.font.fontVariant,
    applyTextTransform(input.text, input.textTransform),
  );
  if (coverage.missing.length > 0) {
    add(
      'MISSING_GLYPHS',
      element,
      `no font of its chain (${coverage.fontFamily}, then the Noto fallbacks) can draw ${describeCodePoints(coverage.missing)}: they draw as empty boxes`,
      {
        fontFamily: coverage.fontFamily,
        codePoints: coverage.missing.map(codePointLabel),
        characters: coverage.missing.map((p) => String.fromCodePoint(p)),
      },
    );
  }
  const fallbacks = [...coverage.drawnBy].filter(([family]) => family !== coverage.fontFamily);
  if (fallbacks.length > 0) {
    add(
      'FONT_FALLBACK',
      element,
      `${coverage.fontFamily} lacks ${fallbacks
        .map(([family, points]) => `${describeCodePoints(points)}, drawn with ${family}`)
        .join('; ')}`,
      {
        fontFamily: coverage.fontFamily,
        fallbacks: fallbacks.map(([family, points]) => ({
          fontFamily: family,
          codePoints: points.map(codePointLabel),
        })),
      },
    );
  }
}

function checkImages(element: BaseElement, measure: ElementMeasure, motionScale: number, scale: number, add: Add) {
  for (const image of measure.images) {
    if (image.vector) continue;
    const { placement: p } = image;
    // Output pixels per pixel of the image along each axis (fill may stretch one more than the other).
    const upscale = Math.max(p.dw / p.sw, p.dh / p.sh) * scale * motionScale;
    if (!(upscale > MAX_UPSCALE)) continue;
    const drawnWidth = p.dw * scale * motionScale;
    const drawnHeight = p.dh * scale * motionScale;
    add(
      'LOW_RESOLUTION_IMAGE',
      element,
      `the ${image.width}x${image.height} image is drawn at ${round(upscale)}× its own pixels (${Math.round(p.sw)}x${Math.round(p.sh)} of its pixels fill ${Math.round(drawnWidth)}x${Math.round(drawnHeight)} output px); it needs at least ${Math.ceil((p.sw * upscale) / MAX_UPSCALE)}x${Math.ceil((p.sh * upscale) / MAX_UPSCALE)} pixels`,
      {
        source: image.url ?? 'inline SVG markup',
        imageWidth: image.width,
        imageHeight: image.height,
        usedWidth: round(p.sw),
        usedHeight: round(p.sh),
        drawnWidthPx: round(drawnWidth),
        drawnHeightPx: round(drawnHeight),
        scale,
        upscale: round(upscale, 3),
        effectivePixelsPerOutputPixel: round(1 / upscale, 3),
      },
    );
  }
}

/** The device-pixel rectangle (clamped to the canvas) that covers a box of local coordinates under `ctx`'s transform. */
function deviceRect(
  ctx: SKRSContext2D,
  box: { x: number; y: number; width: number; height: number },
  canvas: { width: number; height: number },
): { x: number; y: number; width: number; height: number } | null {
  const m = ctx.getTransform();
  const corners = [
    [box.x, box.y],
    [box.x + box.width, box.y],
    [box.x, box.y + box.height],
    [box.x + box.width, box.y + box.height],
  ].map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  const x0 = Math.max(0, Math.floor(Math.min(...corners.map((c) => c[0]))));
  const y0 = Math.max(0, Math.floor(Math.min(...corners.map((c) => c[1]))));
  const x1 = Math.min(canvas.width, Math.ceil(Math.max(...corners.map((c) => c[0]))));
  const y1 = Math.min(canvas.height, Math.ceil(Math.max(...corners.map((c) => c[1]))));
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

/** A copy of a text-drawing element with another text colour, or with no text (LABEL ''), through its kind. */
function variantOf(element: BaseElement, change: { attribute: 'TEXTCOLOR' | 'LABEL'; value: string }): BaseElement {
  return kindOfElement(element).applyChange(element, change);
}

interface ContrastResult {
  ratio: number;
  text: string;
  background: string;
  pixels: number;
}

// The contrast of a text element depends only on the size's background, the elements below it that overlap its box,
// and itself: a variant that changes one headline measures that headline again and nothing else. Per thread, least
// recently used first out.
const CONTRAST_CACHE_SIZE = 1024;
const contrasts = new Map<string, ContrastResult | null>();

/**
 * What is drawn under a text element's text box when its text is left out, by the same key less the text: the one
 * flat colour there and the opacity the text is drawn at, or null when the background is not flat. A variant that
 * only changes a headline's words (the common case) then measures its contrast on a flat background without drawing
 * anything: the flat path needs only the background colour, the text colour and the opacity. Per thread, least
 * recently used first out.
 */
const backgrounds = new Map<string, { flat: Rgb; alpha: number } | null>();

/** Least recently used first out: `key` becomes the newest entry of `cache`, which keeps at most `limit` entries. */
function remember<V>(cache: Map<string, V>, key: string, value: V, limit = CONTRAST_CACHE_SIZE): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > limit) cache.delete(cache.keys().next().value!);
}

/** The final-state box of an element in frame coordinates, turned and scaled (axis-aligned, blur added). */
function frameBox(element: BaseElement, size: DesignSize) {
  const motion = motionAt(element, Number.POSITIVE_INFINITY, size);
  const rad = (((element.rotation ?? 0) + motion.rotate) * Math.PI) / 180;
  const w = element.width * motion.scale;
  const h = element.height * motion.scale;
  const halfW = (Math.abs(w * Math.cos(rad)) + Math.abs(h * Math.sin(rad))) / 2 + motion.blur * 2;
  const halfH = (Math.abs(w * Math.sin(rad)) + Math.abs(h * Math.cos(rad))) / 2 + motion.blur * 2;
  const cx = element.x + motion.translateX + element.width / 2;
  const cy = element.y + motion.translateY + element.height / 2;
  return { x0: cx - halfW, y0: cy - halfH, x1: cx + halfW, y1: cy + halfH };
}

/**
 * Contrast from drawn pixels. For each element that draws text, the size's background and the elements below it that
 * overlap it are drawn as a still draws them (drawFrame, scale 1); at the element, the pixels of its text box are read
 * with the element drawn four ways: without its text (the background under the glyphs, a button's own fill included),
 * with its text in black and in white (their difference is each pixel's glyph coverage, whatever the text's own
 * colour), and as it is (the text colour as drawn, opacity included).
 */
function checkContrast(
  size: DesignSize,
  slide: Slide,
  assets: ResolvedAssets,
  measured: Map<BaseElement, ElementMeasure>,
  add: Add,
): void {
  const drawnElements = (slide.elements as BaseElement[]).filter((e) => e.visible !== false);
  const boxes = new Map(drawnElements.map((e) => [e, frameBox(e, size)]));
  let canvas: ReturnType<typeof canvasPool.acquire> | undefined;
  try {
    drawnElements.forEach((element, index) => {
      const measure = measured.get(element);
      const text = measure?.texts[0];
      if (!text || text.layout.lines.length === 0 || !text.input.text.trim()) return;
      const own = boxes.get(element)!;
      const below = drawnElements.slice(0, index).filter((e) => {
        const b = boxes.get(e)!;
        return b.x0 < own.x1 && b.x1 > own.x0 && b.y0 < own.y1 && b.y1 > own.y0;
      });
      const key = JSON.stringify([size.width, size.height, size.backgroundColor, below, element]);
      let result = contrasts.get(key);
      if (result !== undefined) {
        remember(contrasts, key, result);
      } else {
        // The text box is part of the key: a text's box may depend on its words (a button sized to its label).
        const backgroundKey = JSON.stringify([
          size.width,
          size.height,
          size.backgroundColor,
          below,
          variantOf(element, { attribute: 'LABEL', value: '' }),
          text.box,
        ]);
        const known = backgrounds.get(backgroundKey);
        if (known) {
          result = flatContrast(known.flat, text.color, known.alpha);
          remember(backgrounds, backgroundKey, known);
        } else {
          canvas ??= canvasPool.acquire(Math.max(1, Math.round(size.width)), Math.max(1, Math.round(size.height)));
          const measuredContrast = measureContrast(
            canvas,
            size,
            { ...slide, elements: [...below, element] as Slide['elements'] },
            assets,
            element,
            text,
          );
          result = measuredContrast.result;
          remember(backgrounds, backgroundKey, measuredContrast.background);
        }
        remember(contrasts, key, result);
      }
      if (!result) return;
      const bold = Number.parseInt(text.font.fontVariant, 10) >= 700;
      const large = text.layout.fontSize >= 24 || (bold && text.layout.fontSize >= 18.66);
      const required = large ? CONTRAST_AA_LARGE : CONTRAST_AA;
      if (result.ratio >= required) return;
      add(
        'LOW_CONTRAST',
        element,
        `the text (${result.text}) on what is drawn behind it (${result.background} on average) has a contrast of ${round(result.ratio)}:1; WCAG AA asks for ${required}:1 for ${large ? 'large' : 'normal'} text`,
        {
          ratio: round(result.ratio),
          required,
          large,
          fontSize: round(text.layout.fontSize),
          textColor: result.text,
          backgroundColor: result.background,
          glyphPixels: result.pixels,
        },
      );
    });
  } finally {
    if (canvas) canvasPool.release(canvas);
  }
}

/** Draws `slide` (the element last) and measures the element's text against what is under it. */
function measureContrast(
  canvas: { width: number; height: number; getContext(kind: '2d'): SKRSContext2D },
  size: DesignSize,
  slide: Slide,
  assets: ResolvedAssets,
  target: BaseElement,
  text: MeasuredText,
): { result: ContrastResult | null; background: { flat: Rgb; alpha: number } | null } {
  let result: ContrastResult | null = null;
  let flatBackground: { flat: Rgb; alpha: number } | null = null;
  // Only the pixels under the element are read: clipping the frame to its box spares Skia the rest of the canvas.
  const ctx2d = canvas.getContext('2d');
  const box = frameBox(target, size);
  ctx2d.save();
  ctx2d.beginPath();
  ctx2d.rect(
    Math.floor(box.x0) - 1,
    Math.floor(box.y0) - 1,
    Math.ceil(box.x1 - box.x0) + 3,
    Math.ceil(box.y1 - box.y0) + 3,
  );
  ctx2d.clip();
  try {
    drawInto(ctx2d);
  } finally {
    ctx2d.restore();
  }
  return { result, background: flatBackground };

  function drawInto(context: SKRSContext2D): void {
    drawFrame(context, size, slide, assets, {
      inspect(element, ctx, draw) {
        const rect = element === target ? deviceRect(ctx, text.box, canvas) : null;
        if (!rect) {
          draw(element);
          return;
        }
        const read = () => ctx.getImageData(rect.x, rect.y, rect.width, rect.height).data;
        const before = ctx.getImageData(rect.x, rect.y, rect.width, rect.height);
        const drawn = (variant: BaseElement) => {
          draw(variant);
          const pixels = read();
          ctx.putImageData(before, rect.x, rect.y);
          return pixels;
        };
        const background = drawn(variantOf(element, { attribute: 'LABEL', value: '' }));
        const flat = uniformColour(background);
        if (flat) {
          // Text on one flat colour (most banners): every glyph pixel has that background, so the text colour as drawn
          // is the element's colour at the context's opacity over it; no need to find the glyphs.
          result = flatContrast(flat, text.color, ctx.globalAlpha);
          flatBackground = { flat, alpha: ctx.globalAlpha };
          draw(element);
          return;
        }
        const black = drawn(variantOf(element, { attribute: 'TEXTCOLOR', value: '#000000' }));
        const white = drawn(variantOf(element, { attribute: 'TEXTCOLOR', value: '#FFFFFF' }));
        draw(element);
        result = contrastOf(background, black, white, read());
      },
    });
  }
}

/** The one colour of a region, when every pixel has it (within 2 levels per channel); null otherwise. */
function uniformColour(pixels: Uint8ClampedArray): Rgb | null {
  const [r, g, b] = [pixels[0]!, pixels[1]!, pixels[2]!];
  for (let o = 4; o < pixels.length; o += 4) {
    if (Math.abs(pixels[o]! - r) > 2 || Math.abs(pixels[o + 1]! - g) > 2 || Math.abs(pixels[o + 2]! - b) > 2)
      return null;
  }
  return [r, g, b];
}

let swatch: SKRSContext2D | undefined;

/** `color` at `alpha` over `background`, composited by Skia as the text would be, against that background. */
function flatContrast(background: Rgb, color: string, alpha: number): ContrastResult {
  swatch ??= createCanvas(1, 1).getContext('2d');
  swatch.globalAlpha = 1;
  swatch.fillStyle = toHex(background);
  swatch.fillRect(0, 0, 1, 1);
  swatch.globalAlpha = alpha;
  swatch.fillStyle = color;
  swatch.fillRect(0, 0, 1, 1);
  const [r, g, b] = swatch.getImageData(0, 0, 1, 1).data;
  const text: Rgb = [r!, g!, b!];
  return {
    ratio: contrastRatio(relativeLuminance(text), relativeLuminance(background)),
    text: toHex(text),
    background: toHex(background),
    pixels: 0,
  };
}

/** The contrast of the drawn text with the background under it, or null when the text covers no pixel. */
function contrastOf(
  background: Uint8ClampedArray,
  black: Uint8ClampedArray,
  white: Uint8ClampedArray,
  actual: Uint8ClampedArray,
): ContrastResult | null {
  let maxCoverage = 0;
  const coverage = new Float32Array(background.length / 4);
  for (let i = 0; i < coverage.length; i++) {
    const o = i * 4;
    const c = (white[o]! - black[o]! + white[o + 1]! - black[o + 1]! + white[o + 2]! - black[o + 2]!) / (3 * 255);
    coverage[i] = c;
    if (c > maxCoverage) maxCoverage = c;
  }
  if (maxCoverage < 0.05) return null;
  // Background: every glyph pixel, weighted by its coverage. Text: the pixels the glyphs cover most (their cores).
  let bgWeight = 0;
  let bgLuminance = 0;
  const bg: Rgb = [0, 0, 0];
  const fg: Rgb = [0, 0, 0];
  let fgCount = 0;
  let pixels = 0;
  for (let i = 0; i < coverage.length; i++) {
    const c = coverage[i]!;
    if (c < 0.05) continue;
    pixels += 1;
    const o = i * 4;
    const pixel: Rgb = [background[o]!, background[o + 1]!, background[o + 2]!];
    bgWeight += c;
    bgLuminance += c * relativeLuminance(pixel);
    for (let k = 0; k < 3; k++) bg[k]! += c * pixel[k]!;
    if (c >= 0.9 * maxCoverage) {
      for (let k = 0; k < 3; k++) fg[k]! += actual[o + k]!;
      fgCount += 1;
    }
  }
  const text: Rgb = [fg[0] / fgCount, fg[1] / fgCount, fg[2] / fgCount];
  const meanBg: Rgb = [bg[0] / bgWeight, bg[1] / bgWeight, bg[2] / bgWeight];
  return {
    ratio: contrastRatio(relativeLuminance(text), bgLuminance / bgWeight),
    text: toHex(text),
    background: toHex(meanBg),
    pixels,
  };
}
