// Text layout for text and button elements: markdown runs, line breaking, alignment, autoFit, ellipsis and
// right-to-left paragraphs. Pure given a TextMeasurer (fonts and widths come from outside), so every decision is
// testable on layout data without drawing; text-paint.ts draws the result.
//
// Trimming, as a designer expects it: leading and trailing blank lines are dropped (a label pasted with a final newline
// does not move up when centred); blank lines between paragraphs stay; spaces at the end of every line are dropped
// (they would shift centred and right-aligned text); spaces typed at the start of a paragraph stay (an indent), those
// at the start of a wrapped line do not (the break consumed them); spaces inside a line are kept as typed.
import { bidiLevels, type Direction, firstStrong, visualOrder } from './bidi.js';
import { type Atom, atomize, graphemesOf, type RunStyle, type Segment } from './line-break.js';
import { parseMarkdown, plainSpans, type StyledSpan } from './markdown-runs.js';

export type { RunStyle } from './line-break.js';

/** The text fields of an element and the box it lays out in (local coordinates, the box is 0,0,width,height). */
export interface TextBox {
  text: string;
  /** Interpret the TEXTMARKDOWN subset; default false (asterisks are literal). */
  markdown?: boolean;
  width: number;
  height: number;
  fontSize: number;
  /** Multiple of the font size; default 1.2. */
  lineHeight?: number;
  /** px added after every grapheme; default 0. */
  letterSpacing?: number;
  /**
   * Default start. left, right and center are physical, as CSS text-align; start and end follow the paragraph's
   * direction (start is left in a left-to-right paragraph, right in a right-to-left one). Justify ends a paragraph at
   * its start.
   */
  align?: 'left' | 'center' | 'right' | 'justify' | 'start' | 'end';
  /** Default top. */
  verticalAlign?: 'top' | 'middle' | 'bottom';
  /** Default none. */
  textTransform?: 'none' | 'uppercase' | 'lowercase' | 'capitalize';
  /** Default none. */
  autoFit?: 'none' | 'shrink';
  /** The floor of autoFit shrink; default 6. */
  minFontSize?: number;
  /** Default visible. */
  overflow?: 'visible' | 'hidden' | 'ellipsis';
}

/** What layout needs to know about fonts. */
export interface TextMeasurer {
  /** The CSS font (ctx.font) of a run style at `size` px. */
  font(style: Pick<RunStyle, 'bold' | 'italic'>, size: number): string;
  /** The advance width of `text` in `font`, without letter spacing. */
  measure(text: string, font: string): number;
  /** Ascent and descent of `font` in px; default 0.8 and 0.2 of the size. */
  metrics?(font: string, size: number): { ascent: number; descent: number };
  /**
   * How far the ink of `text` in `font` reaches above and below its baseline (accents, Devanagari marks, emoji can
   * pass the font's ascent). autoFit shrink fits on it when the measurer has it.
   */
  ink?(text: string, font: string): { ascent: number; descent: number };
}

/** One stretch of a line drawn with one fillText call. */
export interface LaidRun {
  text: string;
  /** Left edge of the run, in box coordinates. */
  x: number;
  width: number;
  font: string;
  style: RunStyle;
  /** What to set ctx.direction to: Skia then orders and shapes the run's glyphs. */
  direction: Direction;
}

export interface LaidLine {
  /** Top of the line box. */
  top: number;
  baseline: number;
  /** Left edge of the line's ink box (its runs in visual order start here). */
  x: number;
  /** Width of the runs, without the letter spacing after the last grapheme. */
  width: number;
  direction: Direction;
  runs: LaidRun[];
}

export interface TextLayout {
  /** The size used: the element's, or what autoFit shrink chose. */
  fontSize: number;
  /** Height of one line box in px. */
  lineHeight: number;
  letterSpacing: number;
  lines: LaidLine[];
  /** Height of all lines (before ellipsis drops any). */
  contentHeight: number;
  /** The laid-out text does not fit the box (after autoFit and ellipsis). */
  overflows: boolean;
  /** Lines were dropped and the last one ends with an ellipsis. */
  truncated: boolean;
  /** overflow hidden or ellipsis: the painter clips to the box. */
  clip: boolean;
}

export const ELLIPSIS = '…';
/** Resolution of autoFit's search, in px. */
export const AUTOFIT_STEP = 0.25;
/**
 * Sizes autoFit tries per pass (strict, then with words broken), the two ends included (issue 14: the work of a fit is
 * bounded, whatever the sizes asked). A bisection over the widest grid the schema allows (fontSize 2000 down to
 * 0.25 px: 8 000 steps) needs 13 probes besides its ends, so the bound only stops the search in theory; it is the
 * documented ceiling of the work.
 */
export const AUTOFIT_MAX_PROBES = 16;
/**
 * Characters one element lays out at most: the schema caps `text` and `label` at 10 000 (MAX_TEXT_LENGTH); a case
 * transform can lengthen a text (ß → SS), and text that did not come through the schema (the CLI) is not capped.
 * Characters past this are not laid out. One fit therefore measures at most 2 × AUTOFIT_MAX_PROBES × this many
 * characters (memoised per word and size, so usually far fewer).
 */
export const MAX_LAID_OUT_CHARACTERS = 20_000;
const EPSILON = 1e-6;

interface Paragraph {
  atoms: Atom[];
  direction: Direction;
}

interface Item {
  kind: Atom['kind'];
  segments: Segment[];
  /** Per segment, letter spacing included. */
  widths: number[];
  width: number;
}

interface RawLine {
  items: Item[];
  paragraph: number;
  /** The last line of its paragraph (justify leaves it alone). */
  last: boolean;
  /** Ends inside a word that could not fit a line. */
  forced: boolean;
}

/** `text` in the given textTransform. capitalize upper-cases the first letter of every word, as CSS does. */
export function applyTextTransform(text: string, mode: TextBox['textTransform'] = 'none', afterWord = false): string {
  if (mode === 'uppercase') return text.toUpperCase();
  if (mode === 'lowercase') return text.toLowerCase();
  if (mode !== 'capitalize') return text;
  let out = '';
  let inWord = afterWord;
  for (const char of text) {
    out += !inWord && /\p{L}/u.test(char) ? char.toUpperCase() : char;
    // \u2019: the typographic apostrophe (’), escaped so that the CLI bundle stays ASCII (scripts/bundle-cli.mjs).
    inWord = /[\p{L}\p{N}\p{M}'\u2019]/u.test(char);
  }
  return out;
}

function transformSpans(spans: StyledSpan[], mode: TextBox['textTransform']): StyledSpan[] {
  if (!mode || mode === 'none') return spans;
  let previous = '';
  return spans.map((span) => {
    const text = applyTextTransform(span.text, mode, /[\p{L}\p{N}\p{M}'\u2019]$/u.test(previous));
    previous = span.text;
    return { ...span, text };
  });
}

/** Splits spans at line breaks, drops leading and trailing blank paragraphs, and gives each its direction. */
function paragraphsOf(spans: StyledSpan[]): Paragraph[] {
  const split: StyledSpan[][] = [[]];
  for (const span of spans) {
    span.text.split('\n').forEach((part, i) => {
      if (i > 0) split.push([]);
      if (part) split.at(-1)!.push({ ...span, text: part });
    });
  }
  const blank = (p: StyledSpan[]) => p.every((span) => /^\s*$/u.test(span.text));
  while (split.length > 0 && blank(split[0]!)) split.shift();
  while (split.length > 0 && blank(split.at(-1)!)) split.pop();
  // A paragraph without strong characters (digits, emoji) follows the one before it, or the text's first strong one.
  const whole = spans.map((span) => span.text).join('');
  let direction: Direction = firstStrong(whole) ?? 'ltr';
  return split.map((spansOfParagraph) => {
    direction = firstStrong(spansOfParagraph.map((s) => s.text).join('')) ?? direction;
    return { atoms: atomize(spansOfParagraph), direction };
  });
}

/** Measurements for one layout, memoised (autoFit measures the same words at several sizes). */
class Ruler {
  private readonly cache = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  private readonly inks = new Map<string, { ascent: number; descent: number }>();
  constructor(
    private readonly measurer: TextMeasurer,
    readonly letterSpacing: number,
  ) {}

  font(style: RunStyle, size: number): string {
    return this.measurer.font({ bold: style.bold, italic: style.italic }, size);
  }

  /** Width of `text` in `style` at `size`, letter spacing included (Skia adds it after every grapheme). */
  width(text: string, style: RunStyle, size: number): number {
    const font = this.font(style, size);
    const key = `${font}\u0000${text}`;
    let width = this.cache.get(key);
    if (width === undefined) {
      width = this.measurer.measure(text, font);
      this.cache.set(key, width);
    }
    return width + this.letterSpacing * this.graphemeCount(text);
  }

  /** The ink extent of `text` above and below the baseline, or undefined when the measurer cannot tell. */
  ink(text: string, style: RunStyle, size: number): { ascent: number; descent: number } | undefined {
    if (!this.measurer.ink) return undefined;
    const font = this.font(style, size);
    const key = `${font}\u0000${text}`;
    let ink = this.inks.get(key);
    if (!ink) {
      ink = this.measurer.ink(text, font);
      this.inks.set(key, ink);
    }
    return ink;
  }

  /** Ascent and descent of the regular face at `size`, which place the baseline in the line box. */
  metrics(size: number): { ascent: number; descent: number } {
    const regular = this.font({ bold: false, italic: false }, size);
    return this.measurer.metrics?.(regular, size) ?? { ascent: 0.8 * size, descent: 0.2 * size };
  }

  graphemeCount(text: string): number {
    let count = this.counts.get(text);
    if (count === undefined) {
      count = graphemesOf(text).length;
      this.counts.set(text, count);
    }
    return count;
  }

  item(kind: Atom['kind'], segments: Segment[], size: number): Item {
    const widths = segments.map((segment) => this.width(segment.text, segment.style, size));
    return { kind, segments, widths, width: widths.reduce((sum, w) => sum + w, 0) };
  }
}

/** The graphemes of a word with their styles, to break it where it cannot fit. */
function styledGraphemes(segments: Segment[]): Segment[] {
  return segments.flatMap((segment) => graphemesOf(segment.text).map((text) => ({ text, style: segment.style })));
}

function joinSegments(pieces: Segment[]): Segment[] {
  const joined: Segment[] = [];
  for (const piece of pieces) {
    const last = joined.at(-1);
    if (last && sameStyle(last.style, piece.style)) last.text += piece.text;
    else joined.push({ text: piece.text, style: piece.style });
  }
  return joined;
}

function sameStyle(a: RunStyle, b: RunStyle): boolean {
  return a.bold === b.bold && a.italic === b.italic && a.link === b.link;
}

/** Cuts a word wider than a line into pieces that fit, each as long as it can be (at least one grapheme). */
function breakWord(word: Item, maxWidth: number, size: number, ruler: Ruler): Item[] {
  const clusters = styledGraphemes(word.segments);
  const pieces: Item[] = [];
  let start = 0;
  while (start < clusters.length) {
    // The longest prefix that fits, by binary search on the grapheme count.
    let lo = 1;
    let hi = clusters.length - start;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      const piece = ruler.item('word', joinSegments(clusters.slice(start, start + mid)), size);
      if (piece.width <= maxWidth + EPSILON) lo = mid;
      else hi = mid - 1;
    }
    pieces.push(ruler.item('word', joinSegments(clusters.slice(start, start + lo)), size));
    start += lo;
  }
  return pieces;
}

/** Greedy line breaking of every paragraph at `size`. */
function breakLines(paragraphs: Paragraph[], maxWidth: number, size: number, ruler: Ruler): RawLine[] {
  const lines: RawLine[] = [];
  paragraphs.forEach((paragraph, index) => {
    let items: Item[] = [];
    let width = 0;
    let hasWord = false;
    let pending: Item[] = [];
    const finish = (forced: boolean) => {
      lines.push({ items, paragraph: index, last: false, forced });
      items = [];
      width = 0;
      hasWord = false;
    };
    for (const atom of paragraph.atoms) {
      const item = ruler.item(atom.kind, atom.segments, size);
      if (atom.kind === 'space') {
        pending.push(item);
        continue;
      }
      let spaces = pending.reduce((sum, space) => sum + space.width, 0);
      if (hasWord && width + spaces + item.width > maxWidth + EPSILON) {
        finish(false);
        pending = [];
        spaces = 0;
      }
      if (!hasWord && spaces + item.width > maxWidth + EPSILON) {
        // An indent that no longer fits in front of the word goes.
        pending = [];
        spaces = 0;
      }
      if (!hasWord && item.width > maxWidth + EPSILON) {
        const pieces = breakWord(item, maxWidth, size, ruler);
        for (const piece of pieces.slice(0, -1)) {
          items.push(piece);
          finish(true);
        }
        const rest = pieces.at(-1)!;
        items.push(rest);
        width = rest.width;
        hasWord = true;
        continue;
      }
      items.push(...pending, item);
      width += spaces + item.width;
      hasWord = true;
      pending = [];
    }
    // Spaces still pending end the paragraph: trailing spaces are dropped.
    finish(false);
    lines.at(-1)!.last = true;
  });
  return lines;
}

function visibleWidth(items: Item[], letterSpacing: number): number {
  const width = items.reduce((sum, item) => sum + item.width, 0);
  // The spacing Skia adds after the last grapheme is not ink: alignment ignores it, so centred text stays centred.
  return items.length > 0 ? width - letterSpacing : 0;
}

/** Drops graphemes from the end of `line` until it and an ellipsis fit, then appends the ellipsis. */
function addEllipsis(line: RawLine, maxWidth: number, size: number, ruler: Ruler): void {
  const lastWord = [...line.items].reverse().find((item) => item.kind === 'word');
  const style: RunStyle = {
    bold: lastWord?.segments.at(-1)?.style.bold ?? false,
    italic: lastWord?.segments.at(-1)?.style.italic ?? false,
  };
  const ellipsis = ruler.item('word', [{ text: ELLIPSIS, style }], size);
  const items = [...line.items];
  const total = () => items.reduce((sum, item) => sum + item.width, 0);
  const trimSpaces = () => {
    while (items.at(-1)?.kind === 'space') items.pop();
  };
  trimSpaces();
  while (items.length > 0 && total() + ellipsis.width > maxWidth + EPSILON) {
    const last = items.pop()!;
    const clusters = styledGraphemes(last.segments);
    if (clusters.length > 1) items.push(ruler.item('word', joinSegments(clusters.slice(0, -1)), size));
    trimSpaces();
  }
  items.push(ellipsis);
  line.items = items;
}

interface Piece {
  segment: Segment;
  width: number;
  kind: Atom['kind'];
  /** Justification added after this piece (the first piece of a space gets it). */
  stretch: number;
  level: number;
}

/** The physical alignment of `align` in a paragraph of `direction`; justify's last lines go to the start. */
export function physicalAlign(align: NonNullable<TextBox['align']>, direction: Direction): 'left' | 'center' | 'right' {
  if (align === 'left' || align === 'right' || align === 'center') return align;
  const start = direction === 'rtl' ? 'right' : 'left';
  if (align === 'end') return start === 'left' ? 'right' : 'left';
  return start;
}

/**
 * The pieces of a line cut where the UAX #9 embedding level changes (bidi-js resolves the levels of the line's text in
 * its paragraph's direction), so that a word mixing directions, e.g. "(2025)" or "Placard!" at the end of an Arabic
 * sentence, is drawn as runs of one direction each, in the order Chromium gives them.
 */
function levelPieces(line: RawLine, direction: Direction, stretch: number, size: number, ruler: Ruler): Piece[] {
  const logical = line.items.flatMap((item) =>
    item.segments.map((segment, i) => ({ segment, width: item.widths[i]!, kind: item.kind })),
  );
  const levels = bidiLevels(logical.map((piece) => piece.segment.text).join(''), direction);
  const pieces: Piece[] = [];
  let offset = 0;
  for (const piece of logical) {
    const text = piece.segment.text;
    let start = 0;
    const cuts: Array<[number, number]> = [];
    for (let i = 1; i <= text.length; i++) {
      if (i === text.length || levels[offset + i] !== levels[offset + start]) {
        cuts.push([start, i]);
        start = i;
      }
    }
    cuts.forEach(([from, to], k) => {
      const part = text.slice(from, to);
      pieces.push({
        segment: { text: part, style: piece.segment.style },
        width: cuts.length === 1 ? piece.width : ruler.width(part, piece.segment.style, size),
        kind: piece.kind,
        stretch: piece.kind === 'space' && k === 0 ? stretch : 0,
        level: levels[offset + from] ?? (direction === 'rtl' ? 1 : 0),
      });
    });
    offset += text.length;
  }
  return pieces;
}

/** Positions one line: alignment, justification, bidi order, and runs merged where style and direction agree. */
function placeLine(
  line: RawLine,
  direction: Direction,
  box: { width: number; align: NonNullable<TextBox['align']> },
  size: number,
  ruler: Ruler,
): Omit<LaidLine, 'top' | 'baseline'> {
  const ink = visibleWidth(line.items, ruler.letterSpacing);
  const spaces = line.items.filter((item) => item.kind === 'space').length;
  const justify = box.align === 'justify' && !line.last && !line.forced && spaces > 0;
  const stretch = justify ? (box.width - ink) / spaces : 0;
  const pieces = levelPieces(line, direction, stretch, size, ruler);
  const align = physicalAlign(box.align, direction);
  // Cut pieces may measure a little differently from the whole words (kerning across the cut): use their sum.
  const inkWidth = justify
    ? box.width
    : pieces.reduce((sum, piece) => sum + piece.width, 0) - (pieces.length > 0 ? ruler.letterSpacing : 0);
  const x = align === 'left' || justify ? 0 : align === 'right' ? box.width - inkWidth : (box.width - inkWidth) / 2;

  const levels = pieces.map((piece) => piece.level);
  const order = visualOrder(levels);
  const runs: LaidRun[] = [];
  let previous: { index: number; level: number } | undefined;
  let cursor = x;
  for (const index of order) {
    const piece = pieces[index]!;
    const level = levels[index]!;
    const width = piece.width + piece.stretch;
    const run = runs.at(-1);
    // Merge with the run on the left when it is the logically adjacent piece of the same style and level.
    const adjacent = previous && previous.level === level && Math.abs(previous.index - index) === 1;
    if (run && adjacent && !justify && sameStyle(run.style, piece.segment.style)) {
      run.text = level % 2 === 1 ? piece.segment.text + run.text : run.text + piece.segment.text;
      run.width += width;
    } else {
      runs.push({
        text: piece.segment.text,
        x: cursor,
        width,
        font: ruler.font(piece.segment.style, size),
        style: piece.segment.style,
        direction: level % 2 === 1 ? 'rtl' : 'ltr',
      });
    }
    previous = { index, level };
    cursor += width;
  }
  return { x, width: inkWidth, direction, runs };
}

/**
 * The top and bottom of the ink of `lines` at `size`, relative to the top of the first line box, or undefined when the
 * measurer does not measure ink. With a tight line height, ascenders, marks and emoji reach past the line boxes.
 */
function inkExtent(
  lines: RawLine[],
  size: number,
  lineHeight: number,
  ruler: Ruler,
): { top: number; bottom: number } | undefined {
  const { ascent, descent } = ruler.metrics(size);
  let top = Number.POSITIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (const [i, line] of lines.entries()) {
    const baseline = i * lineHeight + (lineHeight - (ascent + descent)) / 2 + ascent;
    for (const item of line.items) {
      if (item.kind === 'space') continue;
      for (const segment of item.segments) {
        const ink = ruler.ink(segment.text, segment.style, size);
        if (!ink) return undefined;
        top = Math.min(top, baseline - ink.ascent);
        bottom = Math.max(bottom, baseline + ink.descent);
      }
    }
  }
  return Number.isFinite(top) ? { top, bottom } : undefined;
}

/** Does the text fit at `size`? Strict also refuses words broken across lines. */
function fitsAt(paragraphs: Paragraph[], box: TextBox, size: number, ruler: Ruler, strict: boolean): boolean {
  const lines = breakLines(paragraphs, box.width, size, ruler);
  const height = lines.length * size * (box.lineHeight ?? 1.2);
  if (height > box.height + EPSILON) return false;
  const ink = inkExtent(lines, size, size * (box.lineHeight ?? 1.2), ruler);
  if (ink && ink.bottom - ink.top > box.height + EPSILON) return false;
  if (strict && lines.some((line) => line.forced)) return false;
  return lines.every((line) => visibleWidth(line.items, ruler.letterSpacing) <= box.width + EPSILON);
}

/**
 * autoFit shrink: the largest size on a grid of AUTOFIT_STEP from minFontSize up to fontSize at which the text fits,
 * by binary search. It prefers sizes that keep words whole; failing that, sizes that fit with words broken; failing
 * both, minFontSize (and `overflow` decides what shows). Every size returned, except minFontSize, fits.
 */
function shrinkToFit(paragraphs: Paragraph[], box: TextBox, ruler: Ruler): number {
  const max = box.fontSize;
  const min = Math.min(box.minFontSize ?? 6, max);
  const steps = Math.floor((max - min) / AUTOFIT_STEP + EPSILON);
  const sizeAt = (k: number) => min + k * AUTOFIT_STEP;
  for (const strict of [true, false]) {
    if (fitsAt(paragraphs, box, max, ruler, strict)) return max;
    if (!fitsAt(paragraphs, box, min, ruler, strict)) continue;
    // Invariant: sizeAt(lo) fits, sizes above sizeAt(hi) do not.
    let lo = 0;
    let hi = steps;
    for (let probes = 2; lo < hi && probes < AUTOFIT_MAX_PROBES; probes++) {
      const mid = (lo + hi + 1) >> 1;
      if (fitsAt(paragraphs, box, sizeAt(mid), ruler, strict)) lo = mid;
      else hi = mid - 1;
    }
    return sizeAt(lo);
  }
  return min;
}

/** The spans cut after `max` UTF-16 units (never inside a surrogate pair): see MAX_LAID_OUT_CHARACTERS. */
function capSpans<S extends { text: string }>(spans: S[], max: number): S[] {
  let left = max;
  const kept: S[] = [];
  for (const span of spans) {
    if (left <= 0) break;
    if (span.text.length <= left) {
      kept.push(span);
      left -= span.text.length;
      continue;
    }
    let end = left;
    const code = span.text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
    kept.push({ ...span, text: span.text.slice(0, end) });
    left = 0;
  }
  return kept;
}

/** Lays out `box.text` in its box. */
export function layoutText(box: TextBox, measurer: TextMeasurer): TextLayout {
  const source = box.text.replace(/\r\n?/g, '\n');
  const spans = capSpans(
    transformSpans(box.markdown ? parseMarkdown(source) : plainSpans(source), box.textTransform),
    MAX_LAID_OUT_CHARACTERS,
  );
  const paragraphs = paragraphsOf(spans);
  const ruler = new Ruler(measurer, box.letterSpacing ?? 0);
  const fontSize = box.autoFit === 'shrink' ? shrinkToFit(paragraphs, box, ruler) : box.fontSize;
  const lineHeight = fontSize * (box.lineHeight ?? 1.2);
  const lines = breakLines(paragraphs, box.width, fontSize, ruler);
  const contentHeight = lines.length * lineHeight;

  let shown = lines;
  let truncated = false;
  if (box.overflow === 'ellipsis' && contentHeight > box.height + EPSILON) {
    const fit = Math.max(1, Math.floor((box.height + EPSILON) / lineHeight));
    if (fit < lines.length) {
      shown = lines.slice(0, fit);
      addEllipsis(shown.at(-1)!, box.width, fontSize, ruler);
      truncated = true;
    }
  }

  const regular = ruler.font({ bold: false, italic: false }, fontSize);
  const { ascent, descent } = measurer.metrics?.(regular, fontSize) ?? {
    ascent: 0.8 * fontSize,
    descent: 0.2 * fontSize,
  };
  const shownHeight = shown.length * lineHeight;
  const verticalAlign = box.verticalAlign ?? 'top';
  let blockTop =
    verticalAlign === 'top'
      ? 0
      : verticalAlign === 'bottom'
        ? box.height - shownHeight
        : (box.height - shownHeight) / 2;
  if (box.autoFit === 'shrink') {
    // autoFit chose a size whose ink is no taller than the box: move the lines so the ink is inside it too (the top
    // wins when even minFontSize is too tall).
    const ink = inkExtent(shown, fontSize, lineHeight, ruler);
    if (ink) {
      if (blockTop + ink.bottom > box.height) blockTop = box.height - ink.bottom;
      if (blockTop + ink.top < 0) blockTop = -ink.top;
    }
  }
  const laid = shown.map((line, i): LaidLine => {
    const top = blockTop + i * lineHeight;
    const placed = placeLine(
      line,
      paragraphs[line.paragraph]!.direction,
      { width: box.width, align: box.align ?? 'start' },
      fontSize,
      ruler,
    );
    return { top, baseline: top + (lineHeight - (ascent + descent)) / 2 + ascent, ...placed };
  });
  const overflows =
    shownHeight > box.height + EPSILON || laid.some((line) => line.width > box.width + EPSILON && line.runs.length > 0);
  return {
    fontSize,
    lineHeight,
    letterSpacing: ruler.letterSpacing,
    lines: laid,
    contentHeight,
    overflows,
    truncated,
    clip: box.overflow === 'hidden' || box.overflow === 'ellipsis',
  };
}
