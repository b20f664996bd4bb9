// Where a paragraph may break: after spaces; between any two Chinese or Japanese characters (and emoji), except before
// closing punctuation or small kana and after opening brackets (kinsoku); at dictionary word boundaries of Thai, Lao,
// Khmer and Myanmar, which write no spaces (ICU's word segmenter); and after a hyphen inside a word. Korean keeps words
// whole (it has spaces). A paragraph becomes a list of atoms, words and spaces, each made of styled segments.

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
const IDEOGRAPHIC =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303F\u31F0-\u31FF\uFF00-\uFFEF\p{Extended_Pictographic}]/u;
const SOUTHEAST_ASIAN = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const NO_LINE_START = new Set(
  '、。，．・：；？！ー」』）〕］｝〉》】〙〗〟’”｠»ゝゞぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ々〻‐゠–〜…!?,.:;)]}%'.split(
    '',
  ),
);
const NO_LINE_END = new Set('「『（〔［｛〈《【〘〖〝‘“｟«([{'.split(''));
const HYPHEN = /[-\u2010\u2013]$/;
const ALPHANUMERIC = /^[\p{L}\p{N}]/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const words = new Intl.Segmenter(undefined, { granularity: 'word' });

/** The grapheme clusters of `text`: what a forced break may split between and letter spacing counts. */
export function graphemesOf(text: string): string[] {
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

function breakAllowed(before: string, after: string, previous: string | undefined): boolean {
  const last = before.at(-1)!;
  if (IDEOGRAPHIC.test(before) || IDEOGRAPHIC.test(after)) {
    return !NO_LINE_START.has(after[0]!) && !NO_LINE_END.has(last);
  }
  // "Spring-sale" may break after the hyphen, "-5" and "--" may not.
  return HYPHEN.test(before) && previous !== undefined && ALPHANUMERIC.test(previous) && ALPHANUMERIC.test(after);
}

/** Offsets inside a stretch without spaces where a line may break. */
function wordBreaks(stretch: string): number[] {
  const breaks: number[] = [];
  const clusters = graphemesOf(stretch);
  let offset = 0;
  for (let i = 0; i < clusters.length - 1; i++) {
    offset += clusters[i]!.length;
    if (breakAllowed(clusters[i]!, clusters[i + 1]!, clusters[i - 1])) breaks.push(offset);
  }
  if (SOUTHEAST_ASIAN.test(stretch)) {
    for (const { index } of words.segment(stretch)) {
      if (index === 0) continue;
      const around = stretch.slice(Math.max(0, index - 1), index + 1);
      if (SOUTHEAST_ASIAN.test(around) && !NO_LINE_START.has(stretch[index]!)) breaks.push(index);
    }
  }
  return [...new Set(breaks)].sort((a, b) => a - b);
}

/** The atoms of one paragraph (text without line breaks), in logical order, styles kept per segment. */
export function atomize(spans: Array<{ text: string } & RunStyle>): Atom[] {
  const text = spans.map((span) => span.text).join('');
  // [start, end, kind] pieces of the paragraph.
  const pieces: Array<[number, number, Atom['kind']]> = [];
  let cursor = 0;
  const addWords = (end: number) => {
    if (end <= cursor) return;
    let start = cursor;
    for (const cut of wordBreaks(text.slice(cursor, end))) {
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
