// Text layout on layout data, with a deterministic measurer: every grapheme is half the font size wide (bold 1.2 times
// that), so expected positions can be worked out by hand. Real fonts are covered by text-draw and scripts tests.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { visualOrder } from '../../../src/render/text/bidi.js';
import { atomize } from '../../../src/render/text/line-break.js';
import { parseMarkdown } from '../../../src/render/text/markdown-runs.js';
import {
  AUTOFIT_MAX_PROBES,
  AUTOFIT_STEP,
  applyTextTransform,
  ELLIPSIS,
  layoutText,
  MAX_LAID_OUT_CHARACTERS,
  type TextBox,
  type TextLayout,
  type TextMeasurer,
} from '../../../src/render/text/text-layout.js';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const measurer: TextMeasurer = {
  font: (style, size) => `${style.italic ? 'italic ' : ''}${style.bold ? 700 : 400} ${size}px Test`,
  measure(text, font) {
    const size = Number(/([\d.]+)px/.exec(font)![1]);
    const count = [...graphemes.segment(text)].length;
    return count * size * 0.5 * (font.includes(' 700 ') || font.startsWith('700') ? 1.2 : 1);
  },
};

function layout(box: Partial<TextBox> & { text: string }): TextLayout {
  return layoutText({ width: 100, height: 100, fontSize: 10, ...box }, measurer);
}

/** The text of each line in visual order. */
function texts(result: TextLayout): string[] {
  return result.lines.map((line) => line.runs.map((run) => run.text).join(''));
}

const close = (actual: number, expected: number, message?: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-6, `${message ?? ''} ${actual} ≠ ${expected}`);

describe('line breaking', () => {
  test('breaks on words, never past the box width', () => {
    // 5 px per character: 20 characters per 100 px line.
    const result = layout({ text: 'Hello world this is a test of wrapping' });
    assert.deepEqual(texts(result), ['Hello world this is', 'a test of wrapping']);
    assert.ok(result.lines.every((line) => line.width <= 100));
    assert.equal(result.overflows, false);
  });

  test('keeps explicit line breaks and the blank lines between paragraphs', () => {
    assert.deepEqual(texts(layout({ text: 'one\ntwo\n\nthree' })), ['one', 'two', '', 'three']);
    assert.deepEqual(texts(layout({ text: 'one\r\ntwo' })), ['one', 'two']);
  });

  test('a word longer than a line moves to its own line, then breaks by characters', () => {
    const result = layout({ text: 'a Supercalifragilisticexpialidocious b' });
    assert.deepEqual(texts(result), ['a', 'Supercalifragilistic', 'expialidocious b']);
    assert.equal(result.lines[1]!.width, 100);
  });

  test('Chinese and Japanese break between characters but never before closing punctuation', () => {
    // 9 characters per 50 px line: the tenth, 。, may not start a line, so 。 pulls す down with it.
    const result = layout({ text: '日本語のテキストです。改行されます。', width: 50 });
    assert.deepEqual(texts(result), ['日本語のテキストで', 'す。改行されます。']);
  });

  test('Thai breaks at dictionary word boundaries; Latin hyphenated words after the hyphen', () => {
    const thai = atomize([{ text: 'ภาษาไทยง่ายนิดเดียว', bold: false, italic: false }]);
    assert.ok(thai.length >= 3, `${thai.length} atoms`);
    assert.equal(thai.map((atom) => atom.segments[0]!.text).join(''), 'ภาษาไทยง่ายนิดเดียว');
    const hyphen = atomize([{ text: 'Spring-sale -5', bold: false, italic: false }]);
    assert.deepEqual(
      hyphen.map((atom) => atom.segments[0]!.text),
      ['Spring-', 'sale', ' ', '-5'],
    );
  });
});

describe('trimming', () => {
  test('drops leading and trailing blank lines and trailing spaces, keeps an indent and inner spaces', () => {
    const result = layout({ text: '\n  \n  Hello  there  \n\n \n', align: 'right' });
    assert.deepEqual(texts(result), ['  Hello  there']);
    // Right-aligned on the last visible character, not on the dropped spaces.
    close(result.lines[0]!.x + result.lines[0]!.width, 100);
    assert.deepEqual(texts(layout({ text: ' \n\n' })), []);
  });

  test('a wrapped line does not start with the space it broke at', () => {
    assert.deepEqual(texts(layout({ text: 'aaaaaaaaaa   bbbbbbbbbb', width: 60 })), ['aaaaaaaaaa', 'bbbbbbbbbb']);
  });
});

describe('alignment', () => {
  const text = 'aaaa bbbb cccc dddd eeee';
  test('left, center and right place each line in the box', () => {
    const left = layout({ text, align: 'left' }).lines;
    const center = layout({ text, align: 'center' }).lines;
    const right = layout({ text, align: 'right' }).lines;
    // Line 1 "aaaa bbbb cccc dddd" is 95 px, line 2 "eeee" 20 px.
    assert.deepEqual(
      left.map((line) => line.x),
      [0, 0],
    );
    assert.deepEqual(
      center.map((line) => line.x),
      [2.5, 40],
    );
    assert.deepEqual(
      right.map((line) => line.x),
      [5, 80],
    );
    assert.equal(right[1]!.runs[0]!.x, 80);
  });

  test('justify stretches inter-word spaces except on the last line of a paragraph', () => {
    const result = layout({ text: `${text}\nffff gggg`, align: 'justify' });
    const [first, last, lastOfSecond] = result.lines;
    // 5 extra px over 3 spaces.
    const words = first!.runs.filter((run) => run.text.trim());
    assert.deepEqual(
      words.map((run) => run.text),
      ['aaaa', 'bbbb', 'cccc', 'dddd'],
    );
    close(words[1]!.x - (words[0]!.x + words[0]!.width), 5 + 5 / 3);
    close(words.at(-1)!.x + words.at(-1)!.width, 100);
    assert.equal(last!.x, 0);
    assert.equal(last!.width, 20);
    assert.equal(lastOfSecond!.x, 0);
    assert.equal(texts(result)[2], 'ffff gggg');
  });

  test('vertical align puts the block at the top, middle or bottom', () => {
    // Two lines of 12 px (lineHeight 1.2 × 10 px).
    const top = layout({ text, verticalAlign: 'top' });
    const middle = layout({ text, verticalAlign: 'middle' });
    const bottom = layout({ text, verticalAlign: 'bottom' });
    assert.equal(top.lines[0]!.top, 0);
    assert.equal(middle.lines[0]!.top, (100 - 24) / 2);
    assert.equal(bottom.lines[0]!.top, 100 - 24);
  });

  test('line height is a multiple of the font size; the baseline sits in the middle of the line box', () => {
    const result = layout({ text: 'a\nb\nc', lineHeight: 2 });
    assert.deepEqual(
      result.lines.map((line) => line.top),
      [0, 20, 40],
    );
    // Ascent 8 + descent 2 = 10 px of glyphs in a 20 px line box: 5 px half-leading above, baseline at 5 + 8.
    assert.equal(result.lines[0]!.baseline, 13);
    assert.equal(result.contentHeight, 60);
  });
});

describe('letter spacing and transforms', () => {
  test('letter spacing adds after every grapheme; alignment ignores the spacing after the last one', () => {
    const plain = layout({ text: 'abcd', align: 'center' }).lines[0]!;
    const spaced = layout({ text: 'abcd', align: 'center', letterSpacing: 4 }).lines[0]!;
    assert.equal(plain.width, 20);
    assert.equal(spaced.width, 20 + 3 * 4);
    assert.equal(spaced.runs[0]!.width, 20 + 4 * 4);
    assert.equal(spaced.x, (100 - 32) / 2);
    // Letter spacing makes words wrap sooner.
    assert.deepEqual(texts(layout({ text: 'aaaa bbbb cccc', letterSpacing: 3 })), ['aaaa bbbb', 'cccc']);
    // Negative spacing packs them tighter.
    assert.equal(layout({ text: 'abcd', letterSpacing: -1 }).lines[0]!.width, 20 - 3);
  });

  test('uppercase, lowercase and capitalize', () => {
    assert.deepEqual(texts(layout({ text: 'Hello World', textTransform: 'uppercase' })), ['HELLO WORLD']);
    assert.deepEqual(texts(layout({ text: 'Hello World', textTransform: 'lowercase' })), ['hello world']);
    assert.equal(applyTextTransform("don't stop l'été 2x", 'capitalize'), "Don't Stop L'été 2x");
    // capitalize follows words across markdown runs: "**he**llo" is one word.
    const result = layout({ text: '**he**llo *wor*ld', markdown: true, textTransform: 'capitalize' });
    assert.deepEqual(texts(result), ['Hello World']);
  });
});

describe('markdown', () => {
  test('runs carry their faces: bold, italic, both, and links', () => {
    assert.deepEqual(parseMarkdown('a **b** *c* ***d*** [e](https://x.test/p)'), [
      { text: 'a ', bold: false, italic: false },
      { text: 'b', bold: true, italic: false },
      { text: ' ', bold: false, italic: false },
      { text: 'c', bold: false, italic: true },
      { text: ' ', bold: false, italic: false },
      { text: 'd', bold: true, italic: true },
      { text: ' ', bold: false, italic: false },
      { text: 'e', bold: false, italic: false, link: 'https://x.test/p' },
    ]);
    const runs = layout({ text: 'a **b** *c* ***d*** [e](https://x.test/p)', markdown: true }).lines[0]!.runs;
    const fontOf = (text: string) => runs.find((run) => run.text === text)!.font;
    assert.equal(fontOf('b'), '700 10px Test');
    assert.equal(fontOf('c'), 'italic 400 10px Test');
    assert.equal(fontOf('d'), 'italic 700 10px Test');
    assert.equal(runs.find((run) => run.text === 'e')!.style.link, 'https://x.test/p');
    // Bold is wider: runs are placed by their own widths.
    const b = runs.find((run) => run.text === 'b')!;
    assert.equal(b.width, 6);
  });

  test('nesting, unpaired stars and nothing else interpreted', () => {
    const styles = (source: string) =>
      parseMarkdown(source).map((s) => `${s.bold ? 'B' : ''}${s.italic ? 'I' : ''}${s.link ? 'L' : ''}[${s.text}]`);
    assert.deepEqual(styles('**bold *both* bold**'), ['B[bold ]', 'BI[both]', 'B[ bold]']);
    assert.deepEqual(styles('***bold** italic*'), ['BI[bold]', 'I[ italic]']);
    assert.deepEqual(styles('2 * 3 * 4 and **open'), ['[2 * 3 * 4 and **open]']);
    assert.deepEqual(styles('# _not_ `code` \\*'), ['[# _not_ `code` \\*]']);
    assert.deepEqual(styles('**[Shop now](https://x.test)**'), ['BL[Shop now]']);
  });

  test('with markdown off asterisks and brackets are literal', () => {
    assert.deepEqual(texts(layout({ text: '**Sale** [x](https://y)', width: 200 })), ['**Sale** [x](https://y)']);
  });

  test('emphasis may span a line break', () => {
    const result = layout({ text: '**one\ntwo**', markdown: true });
    assert.deepEqual(
      result.lines.map((line) => line.runs[0]!.style.bold),
      [true, true],
    );
  });
});

describe('autoFit shrink', () => {
  const long = 'one two three four five six seven eight nine ten eleven twelve';

  test('keeps the font size when the text fits', () => {
    assert.equal(layout({ text: 'short', autoFit: 'shrink' }).fontSize, 10);
  });

  test('chooses the largest size on the grid that fits', () => {
    const box = { text: long, height: 30, autoFit: 'shrink' as const, minFontSize: 4 };
    const chosen = layout(box).fontSize;
    assert.ok(chosen < 10 && chosen >= 4);
    assert.equal((chosen - 4) % AUTOFIT_STEP, 0);
    const at = (fontSize: number) => layout({ ...box, autoFit: 'none', fontSize });
    assert.ok(at(chosen).contentHeight <= 30);
    assert.ok(at(chosen + AUTOFIT_STEP).contentHeight > 30, 'one step larger overflows');
  });

  test('prefers a size at which no word is broken', () => {
    // "Extraordinary" (13 graphemes) fits 100 px from 15.25 px down; two lines of 1.2 × size fit 40 px below 16.6 px.
    const result = layout({ text: 'Extraordinary deal', height: 40, fontSize: 40, autoFit: 'shrink' });
    assert.equal(result.fontSize, 15.25);
    assert.deepEqual(texts(result), ['Extraordinary', 'deal']);
  });

  test('never overflows the box unless even minFontSize does', () => {
    const words = ['a', 'bb', 'sale', 'summer', 'Extraordinary', '50%', 'off', 'everything', 'now'];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let i = 0; i < 150; i++) {
      const count = 1 + Math.floor(random() * 25);
      const text = Array.from({ length: count }, () => words[Math.floor(random() * words.length)]).join(
        random() < 0.1 ? '\n' : ' ',
      );
      const width = 20 + random() * 300;
      const height = 10 + random() * 200;
      const fontSize = 8 + random() * 60;
      const result = layoutText({ text, width, height, fontSize, autoFit: 'shrink', minFontSize: 6 }, measurer);
      if (result.fontSize === 6) continue;
      assert.ok(result.contentHeight <= height + 1e-6, `${text} in ${width}x${height}: ${result.fontSize}`);
      assert.ok(result.lines.every((line) => line.width <= width + 1e-6));
      assert.equal(result.overflows, false);
    }
  });

  test('at minFontSize the overflow rule applies', () => {
    const result = layout({
      text: long,
      height: 12,
      fontSize: 10,
      minFontSize: 9,
      autoFit: 'shrink',
      overflow: 'ellipsis',
    });
    assert.equal(result.fontSize, 9);
    assert.equal(result.truncated, true);
    assert.equal(result.lines.length, 1);
  });
});

describe('overflow', () => {
  const long = 'one two three four five six seven eight nine ten eleven twelve';

  test('ellipsis keeps the lines that fit and ends the last one with …', () => {
    const result = layout({ text: long, height: 30, overflow: 'ellipsis' });
    assert.equal(result.truncated, true);
    assert.equal(result.clip, true);
    assert.equal(result.lines.length, 2);
    const last = texts(result)[1]!;
    assert.ok(last.endsWith(ELLIPSIS), last);
    assert.equal(last, 'five six seven eigh…');
    assert.ok(result.lines.every((line) => line.width <= 100));
  });

  test('ellipsis drops the spaces before it', () => {
    const result = layout({ text: 'aaaa bbbb cccc ddd eeee ffff', width: 95, height: 12, overflow: 'ellipsis' });
    assert.deepEqual(texts(result), ['aaaa bbbb cccc ddd…']);
  });

  test('hidden clips without changing the text; visible overflows', () => {
    const hidden = layout({ text: long, height: 30, overflow: 'hidden' });
    assert.equal(hidden.clip, true);
    assert.equal(hidden.truncated, false);
    assert.equal(hidden.lines.length, 4);
    assert.equal(hidden.overflows, true);
    assert.equal(layout({ text: long, height: 30 }).clip, false);
  });
});

describe('right-to-left', () => {
  test('a paragraph takes the direction of its first strong character', () => {
    const result = layout({ text: 'שלום עולם\n123 hello\n«مرحبا»' });
    assert.deepEqual(
      result.lines.map((line) => line.direction),
      ['rtl', 'ltr', 'rtl'],
    );
  });

  test('left and right are physical in a right-to-left paragraph; start and end follow its direction', () => {
    const result = layout({ text: 'مرحبا بالعالم', align: 'right' });
    const line = result.lines[0]!;
    // 13 graphemes × 5 px, flush right.
    assert.equal(line.x, 100 - 65);
    assert.equal(line.runs.length, 1);
    assert.equal(line.runs[0]!.direction, 'rtl');
    assert.equal(line.runs[0]!.text, 'مرحبا بالعالم');
    assert.equal(layout({ text: 'مرحبا', align: 'left' }).lines[0]!.x, 0);
    assert.equal(layout({ text: 'مرحبا', align: 'start' }).lines[0]!.x, 75);
    assert.equal(layout({ text: 'مرحبا', align: 'end' }).lines[0]!.x, 0);
    assert.equal(layout({ text: 'مرحبا' }).lines[0]!.x, 75, 'the default is start');
    assert.equal(layout({ text: 'hello', align: 'end' }).lines[0]!.x, 75);
    assert.equal(layout({ text: 'hello', align: 'start' }).lines[0]!.x, 0);
  });

  test('every line of a wrapped right-to-left paragraph aligned right ends at the right edge', () => {
    const result = layout({ text: 'שלום עולם זה טקסט ארוך מאוד שנשבר לשורות', align: 'right', width: 60 });
    assert.ok(result.lines.length >= 3);
    for (const line of result.lines) close(line.x + line.width, 60, 'line end');
  });

  test('a justified right-to-left paragraph ends its last line at the start (right)', () => {
    const result = layout({ text: 'שלום עולם זה טקסט ארוך', align: 'justify', width: 60 });
    const last = result.lines.at(-1)!;
    close(last.x + last.width, 60, 'last line end');
    assert.equal(result.lines[0]!.width, 60);
  });

  test('UAX #9: punctuation at the end of an RTL sentence and a bracketed number take their places', () => {
    // "!" after a Latin brand name at the end of an Arabic sentence belongs to the Arabic (it is drawn leftmost).
    const line = layout({ text: 'تسوق الآن من Placard!', width: 300 }).lines[0]!;
    const visual = line.runs.map((run) => `${run.direction}:${run.text}`);
    assert.deepEqual(visual.slice(0, 2), ['rtl:!', 'ltr:Placard']);
    // A run keeps its logical text: Skia draws it right to left.
    assert.equal(visual.slice(2).join(''), 'rtl:تسوق الآن من ');
    // Brackets around a number in Hebrew: the number stays left to right between them.
    const hebrew = layout({ text: 'מבצע (2025) עכשיו', width: 300 }).lines[0]!;
    assert.ok(
      hebrew.runs.some((run) => run.direction === 'ltr' && run.text === '2025'),
      JSON.stringify(hebrew.runs),
    );
  });

  test('words are ordered right to left; numbers and Latin inside keep their own order', () => {
    const line = layout({ text: 'مرحبا 123 abc def عالم', width: 200 }).lines[0]!;
    const visual = line.runs.map((run) => `${run.direction}:${run.text.trim()}`).filter((run) => !run.endsWith(':'));
    assert.deepEqual(visual, ['rtl:عالم', 'ltr:abc def', 'ltr:123', 'rtl:مرحبا']);
    // Runs tile the line from its left edge.
    let x = line.x;
    for (const run of line.runs) {
      close(run.x, x);
      x += run.width;
    }
  });

  test('an Arabic word inside a Latin paragraph stays one right-to-left run', () => {
    const line = layout({ text: 'Hello مرحبا بالعالم world', width: 200 }).lines[0]!;
    assert.deepEqual(
      line.runs.map((run) => run.direction),
      ['ltr', 'rtl', 'ltr'],
    );
    assert.equal(line.runs[1]!.text.trim(), 'مرحبا بالعالم');
  });

  test('visual order reverses runs by level', () => {
    assert.deepEqual(visualOrder([0, 1, 1, 0]), [0, 2, 1, 3]);
    assert.deepEqual(visualOrder([1, 2, 2, 1]), [3, 1, 2, 0]);
  });
});

describe('the work of a layout is bounded (issue 14)', () => {
  /** The measurer above, recording the sizes it was asked about and every text it measured. */
  function recording() {
    const sizes = new Set<number>();
    const measured: string[] = [];
    const recorder: TextMeasurer = {
      font: measurer.font,
      measure(text, font) {
        sizes.add(Number(/([\d.]+)px/.exec(font)![1]));
        measured.push(text);
        return measurer.measure(text, font);
      },
    };
    return { recorder, sizes, measured };
  }

  test('characters past MAX_LAID_OUT_CHARACTERS are neither measured nor laid out', () => {
    const { recorder, measured } = recording();
    const text = `${'ab '.repeat(Math.ceil(MAX_LAID_OUT_CHARACTERS / 3))}ZZZZ tail`;
    const result = layoutText({ text, width: 300, height: 250, fontSize: 10 }, recorder);
    assert.ok(!measured.some((piece) => piece.includes('Z')), 'the text past the bound was measured');
    assert.ok(!texts(result).join('').includes('Z'));
    assert.ok(texts(result).join('').length > 0);
  });

  test('autoFit probes at most AUTOFIT_MAX_PROBES sizes per pass over 10 000 characters down to 1 px', () => {
    const { recorder, sizes } = recording();
    const text = Array.from({ length: 2000 }, (_, i) => `w${i % 97}rd`)
      .join(' ')
      .slice(0, 10_000);
    const result = layoutText(
      { text, width: 300, height: 12, fontSize: 2000, autoFit: 'shrink', minFontSize: 1 },
      recorder,
    );
    // Two passes (whole words, then broken words) of at most AUTOFIT_MAX_PROBES sizes each.
    assert.ok(sizes.size <= 2 * AUTOFIT_MAX_PROBES, `${sizes.size} sizes measured`);
    assert.ok(result.fontSize >= 1 && result.fontSize < 2000);
  });
});
