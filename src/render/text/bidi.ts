// The Unicode bidirectional algorithm (UAX #9) for laid-out lines: a paragraph takes the direction of its first strong
// character (rule P2), bidi-js resolves the embedding level of every character of a line, and runs of one level are
// reversed by level (L2). Inside a run Skia shapes and orders the glyphs itself when it is drawn with ctx.direction
// set from its level, so Arabic joins.

import bidiModule, { type Bidi } from 'bidi-js';

export type Direction = 'ltr' | 'rtl';

// bidi-js is a UMD bundle: under Node's ESM loader its default import is the factory itself, while its typings
// describe an ES module whose default export is the factory.
const bidiFactory = bidiModule as unknown as () => Bidi;
let bidi: Bidi | undefined;

/**
 * The UAX #9 embedding level of every UTF-16 code unit of `text`, a line of a paragraph of direction `paragraph`
 * (even: left to right, odd: right to left). bidi-js implements the whole algorithm (weak and neutral types,
 * brackets, isolates), as Chromium does.
 */
export function bidiLevels(text: string, paragraph: Direction): Uint8Array {
  bidi ??= bidiFactory();
  return bidi.getEmbeddingLevels(text, paragraph).levels;
}

// Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, their presentation forms, and the RTL supplementary blocks.
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;
const LETTER = /[\p{L}\p{Mc}]/u;
const DIGIT = /\p{Nd}/u;

function strongOf(char: string): Direction | undefined {
  if (RTL.test(char)) return DIGIT.test(char) ? undefined : 'rtl';
  return LETTER.test(char) ? 'ltr' : undefined;
}

/** The direction of the first strong character of `text`, or undefined when it has none (digits, punctuation). */
export function firstStrong(text: string): Direction | undefined {
  for (const char of text) {
    const direction = strongOf(char);
    if (direction) return direction;
  }
  return undefined;
}

/** The visual order (left to right) of items at `levels` (L2: reverse runs from the highest level down to 1). */
export function visualOrder(levels: number[]): number[] {
  const order = levels.map((_, i) => i);
  // Reversing down to 1 rather than to the lowest odd level present is equivalent: the extra passes pair up and cancel.
  const highest = Math.max(0, ...levels);
  for (let level = highest; level >= 1; level--) {
    let i = 0;
    while (i < order.length) {
      if (levels[order[i]!]! < level) {
        i++;
        continue;
      }
      let end = i;
      while (end < order.length && levels[order[end]!]! >= level) end++;
      order.splice(i, end - i, ...order.slice(i, end).reverse());
      i = end;
    }
  }
  return order;
}
