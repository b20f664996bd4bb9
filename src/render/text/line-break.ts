// Where a paragraph may break: after spaces, and inside a stretch without spaces where the Unicode line breaking
// algorithm (UAX #14, the `linebreak` package) allows it — between Chinese and Japanese characters and emoji, never
// before closing punctuation or small kana (class CJ resolved to NS, as CSS `line-break: strict`) nor after opening
// brackets, after hyphens and dashes, not inside numbers — plus the dictionary word boundaries of Thai, Lao, Khmer and
// Myanmar, which UAX #14 leaves to a dictionary (class SA; ICU's word segmenter, as Chromium). Korean keeps words whole
// (it has spaces). A paragraph becomes a list of atoms, words and spaces, each made of styled segments.
import LineBreaker from 'linebreak';

/** The style a markdown span gives its text. */
export interface RunStyle {
  bold: boolean;
  italic: boolean;
  link?: string;
}

export interface Segment {
  text: string;
  style: RunStyle;
}

/** A word (never broken unless it cannot fit a line) or a space (where a line may end). */
export interface Atom {
  kind: 'word' | 'space';
  segments: Segment[];
}

// Breakable spaces: not the no-break ones (U+00A0, U+2007 figure space, U+202F), which glue words together.
const SPACE = /[ \t\u1680\u2000-\u2006\u2008-\u200B\u205F\u3000]+/gu;
const SOUTHEAST_ASIAN = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/** Closing punctuation no dictionary break may put at a line's start (UAX #14 classes CL, CP, EX, IS, NS). */
const NO_LINE_START = /^[\p{Pe}\p{Pf}!?,.:;%]/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const words = new Intl.Segmenter(undefined, { granularity: 'word' });

/** The grapheme clusters of `text`: what a forced break may split between and letter spacing counts. */
export function graphemesOf(text: string): string[] {
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/** UAX #14 break opportunities of a paragraph (offsets a line may start at), without its end. */
function uax14Breaks(text: string): Set<number> {
  // Only between grapheme clusters: the breaker's data is older than some emoji and Indic cluster rules.
  const clusters = new Set(Array.from(graphemes.segment(text), (s) => s.index));
  const breaks = new Set<number>();
  const breaker = new LineBreaker(text);
  for (let next = breaker.nextBreak(); next; next = breaker.nextBreak()) {
    if (next.position < text.length && clusters.has(next.position)) breaks.add(next.position);
  }
  return breaks;
}

/** Offsets inside the stretch [start, end) of `text` (no spaces) where a line may break. */
function wordBreaks(text: string, start: number, end: number, uax14: Set<number>): number[] {
  const breaks: number[] = [];
  for (let at = start + 1; at < end; at++) if (uax14.has(at)) breaks.push(at - start);
  const stretch = text.slice(start, end);
  if (SOUTHEAST_ASIAN.test(stretch)) {
    for (const { index } of words.segment(stretch)) {
      if (index === 0) continue;
      const around = stretch.slice(Math.max(0, index - 1), index + 1);
      if (SOUTHEAST_ASIAN.test(around) && !NO_LINE_START.test(stretch.slice(index))) breaks.push(index);
    }
  }
  return [...new Set(breaks)].sort((a, b) => a - b);
}

/** The atoms of one paragraph (text without line breaks), in logical order, styles kept per segment. */
export function atomize(spans: Array<{ text: string } & RunStyle>): Atom[] {
  const text = spans.map((span) => span.text).join('');
  // [start, end, kind] pieces of the paragraph.
  const pieces: Array<[number, number, Atom['kind']]> = [];
  const uax14 = uax14Breaks(text);
  let cursor = 0;
  const addWords = (end: number) => {
    if (end <= cursor) return;
    let start = cursor;
    for (const cut of wordBreaks(text, cursor, end, uax14)) {
      pieces.push([start, cursor + cut, 'word']);
      start = cursor + cut;
    }
    pieces.push([start, end, 'word']);
  };
  for (const match of text.matchAll(SPACE)) {
    addWords(match.index);
    pieces.push([match.index, match.index + match[0].length, 'space']);
    cursor = match.index + match[0].length;
  }
  addWords(text.length);

  // Cut each piece at the span boundaries it crosses.
  const atoms: Atom[] = [];
  let spanIndex = 0;
  let spanStart = 0;
  for (const [start, end, kind] of pieces) {
    const segments: Segment[] = [];
    let at = start;
    while (at < end) {
      while (spanStart + spans[spanIndex]!.text.length <= at) spanStart += spans[spanIndex++]!.text.length;
      const span = spans[spanIndex]!;
      const stop = Math.min(end, spanStart + span.text.length);
      const piece = text.slice(at, stop);
      segments.push({
        text: kind === 'space' ? piece.replaceAll('\t', ' ') : piece,
        style: { bold: span.bold, italic: span.italic, ...(span.link ? { link: span.link } : {}) },
      });
      at = stop;
    }
    atoms.push({ kind, segments });
  }
  return atoms;
}
