// The markdown subset of TEXTMARKDOWN (SPEC §5): `*italic*`, `**bold**`, `***bold italic***` and `[text](url)`; nothing
// else is interpreted (no escapes, no underscores, no headings), so every other character draws as typed. Emphasis
// follows CommonMark's delimiter-run rules in small: a run of `*` opens when followed by a non-space, closes when
// preceded by one, pairs with the nearest opener, and stars left unpaired stay literal asterisks.

/** A stretch of text drawn with one style. */
export interface StyledSpan {
  text: string;
  bold: boolean;
  italic: boolean;
  /** The target of a `[text](url)` link: drawn underlined in the text colour. */
  link?: string;
}

interface TextToken {
  kind: 'text';
  text: string;
}
interface LinkToken {
  kind: 'link';
  url: string;
  spans: StyledSpan[];
}
interface DelimiterToken {
  kind: 'delimiter';
  /** Stars not yet paired. */
  count: number;
  readonly original: number;
  canOpen: boolean;
  canClose: boolean;
  /** Emphasis opened here, innermost first (1 = italic, 2 = bold). */
  opens: number[];
  /** Emphasis closed here, innermost first. */
  closes: number[];
}
type Token = TextToken | LinkToken | DelimiterToken;

// [label](url): a label without brackets or line breaks, a URL without spaces or parentheses.
const LINK = /\[([^\][\n]+)\]\(([^()\s]+)\)/y;
const SPACE = /\s/u;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let text = '';
  const flush = () => {
    if (text) tokens.push({ kind: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < source.length) {
    const char = source[i]!;
    if (char === '[') {
      LINK.lastIndex = i;
      const match = LINK.exec(source);
      if (match) {
        flush();
        tokens.push({ kind: 'link', url: match[2]!, spans: parseMarkdown(match[1]!) });
        i = LINK.lastIndex;
        continue;
      }
    }
    if (char === '*') {
      let end = i;
      while (source[end] === '*') end++;
      const before = source[i - 1];
      const after = source[end];
      flush();
      const count = end - i;
      tokens.push({
        kind: 'delimiter',
        count,
        original: count,
        canOpen: after !== undefined && !SPACE.test(after),
        canClose: before !== undefined && !SPACE.test(before),
        opens: [],
        closes: [],
      });
      i = end;
      continue;
    }
    text += char;
    i++;
  }
  flush();
  return tokens;
}

/** Pairs closers with openers (CommonMark "process emphasis", without the optimisations a 10,000-char text needs not). */
function pairEmphasis(tokens: Token[]): void {
  const stack: DelimiterToken[] = [];
  for (const token of tokens) {
    if (token.kind !== 'delimiter') continue;
    while (token.canClose && token.count > 0) {
      let index = stack.length - 1;
      for (; index >= 0; index--) {
        const opener = stack[index]!;
        if (opener.count === 0) continue;
        // The "rule of 3": `*foo**bar*` must not pair the single star with the double one.
        const either = (opener.canOpen && opener.canClose) || (token.canOpen && token.canClose);
        const sum = opener.original + token.original;
        if (either && sum % 3 === 0 && (opener.original % 3 !== 0 || token.original % 3 !== 0)) continue;
        break;
      }
      if (index < 0) break;
      const opener = stack[index]!;
      const used = opener.count >= 2 && token.count >= 2 ? 2 : 1;
      opener.count -= used;
      token.count -= used;
      opener.opens.push(used);
      token.closes.push(used);
      // Delimiters between a pair can no longer pair with anything outside it.
      stack.length = opener.count > 0 ? index + 1 : index;
    }
    if (token.canOpen && token.count > 0) stack.push(token);
  }
}

/** Spans of `source` read as TEXTMARKDOWN, adjacent spans of one style merged. */
export function parseMarkdown(source: string): StyledSpan[] {
  const tokens = tokenize(source);
  pairEmphasis(tokens);
  const spans: StyledSpan[] = [];
  let bold = 0;
  let italic = 0;
  const emit = (span: StyledSpan) => {
    if (!span.text) return;
    const last = spans.at(-1);
    if (last && last.bold === span.bold && last.italic === span.italic && last.link === span.link)
      last.text += span.text;
    else spans.push({ ...span });
  };
  const plain = (text: string) => emit({ text, bold: bold > 0, italic: italic > 0 });
  const toggle = (kind: number, delta: number) => {
    if (kind === 2) bold += delta;
    else italic += delta;
  };
  for (const token of tokens) {
    if (token.kind === 'text') plain(token.text);
    else if (token.kind === 'link') {
      for (const span of token.spans) {
        emit({ text: span.text, bold: span.bold || bold > 0, italic: span.italic || italic > 0, link: token.url });
      }
    } else {
      // A closer's pairs take its stars from the left (next to the text before it), an opener's from the right; the
      // stars left over draw as asterisks between the two, that is outside every pair they belong to.
      for (const n of token.closes) toggle(n, -1);
      plain('*'.repeat(token.count));
      for (const n of [...token.opens].reverse()) toggle(n, 1);
    }
  }
  return spans;
}

/** The text as one plain span: what a text with `markdown: false` draws (asterisks stay asterisks). */
export function plainSpans(text: string): StyledSpan[] {
  return text ? [{ text, bold: false, italic: false }] : [];
}
