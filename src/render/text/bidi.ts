// Just enough of the Unicode bidirectional algorithm (UAX #9) to order the words of one line: a paragraph takes the
// direction of its first strong character (rule P2), words are classed by theirs, numbers and neutrals are resolved
// (W7, N1, N2), and runs are reversed by level (L2). Inside a word Skia shapes and orders the glyphs itself when the
// word is drawn with ctx.direction set from its level, so Arabic joins and a trailing "!" lands on the correct side.

export type Direction = 'ltr' | 'rtl';

/** The bidi class of a word, as far as ordering whole words goes. */
export type WordClass = 'L' | 'R' | 'EN' | 'N';

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

/** How one word takes part in ordering: by its first strong character, else as a number, else as a neutral. */
export function classify(word: string): WordClass {
  const strong = firstStrong(word);
  if (strong) return strong === 'rtl' ? 'R' : 'L';
  return DIGIT.test(word) ? 'EN' : 'N';
}

/**
 * The embedding level of each word of a line in a paragraph of direction `paragraph`: even levels draw left to
 * right, odd ones right to left.
 */
export function resolveLevels(classes: WordClass[], paragraph: Direction): number[] {
  const base = paragraph === 'rtl' ? 1 : 0;
  const sos: WordClass = base ? 'R' : 'L';
  // W7: a number after left-to-right text (or at the start of an LTR paragraph) is left-to-right text.
  let previous = sos;
  const resolved = classes.map((cls) => {
    if (cls === 'L' || cls === 'R') previous = cls;
    return cls === 'EN' && previous === 'L' ? 'L' : cls;
  });
  // N1/N2: neutrals between two of one direction take it (numbers count as R), others the paragraph's.
  const strongSide = (cls: WordClass | undefined): 'L' | 'R' | undefined =>
    cls === undefined ? undefined : cls === 'N' ? undefined : cls === 'L' ? 'L' : 'R';
  for (let i = 0; i < resolved.length; i++) {
    if (resolved[i] !== 'N') continue;
    let end = i;
    while (resolved[end] === 'N') end++;
    const before = strongSide(resolved[i - 1]) ?? sos;
    const after = strongSide(resolved[end]) ?? sos;
    const direction: WordClass = before === after ? before : sos;
    for (let k = i; k < end; k++) resolved[k] = direction;
    i = end - 1;
  }
  // I1/I2: levels.
  return resolved.map((cls) => {
    if (cls === 'R') return 1;
    if (cls === 'EN') return 2;
    return base ? 2 : 0;
  });
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
