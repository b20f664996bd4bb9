// The "well-formed HTML fragment" rule of CODE changes (SPEC §5). Deliberately a tag-balance check, not an HTML parser:
// every tag that is not void is closed, in order, comments and raw-text elements (script, style, textarea, title) are
// terminated, and nothing looks like a broken tag. HTML's optional end tags (<p>, <li> …) must be written out: an embed
// that relies on them is ambiguous to the sandboxed iframe too.

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);

const ATTRIBUTE = `\\s+[^\\s"'>/=]+(?:\\s*=\\s*(?:"[^"]*"|'[^']*'|[^\\s"'=<>\`]+))?`;
// Sticky (y) regexes match at lastIndex only, so the scan never copies the rest of the fragment.
const START_TAG = new RegExp(`<([a-zA-Z][^\\s/>]*)((?:${ATTRIBUTE})*)\\s*(/?)>`, 'y');
const END_TAG = /<\/([a-zA-Z][^\s/>]*)\s*>/y;
const BROKEN_TAG = /<\/?[a-zA-Z]/y;

function matchAt(regex: RegExp, text: string, index: number): RegExpExecArray | null {
  regex.lastIndex = index;
  return regex.exec(text);
}

function lineAt(html: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (html.charCodeAt(i) === 10) line++;
  return line;
}

/** Why `html` is not a well-formed fragment, or null when it is. */
export function htmlFragmentProblem(html: string): string | null {
  const open: { name: string; at: number }[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      if (end === -1) return `the comment at line ${lineAt(html, lt)} is never closed with -->`;
      i = end + 3;
      continue;
    }
    if (html.startsWith('<!', lt) || html.startsWith('<?', lt)) {
      const end = html.indexOf('>', lt);
      if (end === -1) return `the declaration at line ${lineAt(html, lt)} is never closed with >`;
      i = end + 1;
      continue;
    }
    const end = matchAt(END_TAG, html, lt);
    if (end) {
      const name = end[1].toLowerCase();
      const top = open.pop();
      if (!top) return `</${name}> at line ${lineAt(html, lt)} closes nothing`;
      if (top.name !== name) {
        return `</${name}> at line ${lineAt(html, lt)} does not close <${top.name}> (opened at line ${lineAt(html, top.at)})`;
      }
      i = lt + end[0].length;
      continue;
    }
    const start = matchAt(START_TAG, html, lt);
    if (start) {
      const name = start[1].toLowerCase();
      i = lt + start[0].length;
      if (VOID.has(name) || start[3] === '/') continue;
      if (RAW_TEXT.has(name)) {
        const close = new RegExp(`</${name}\\s*>`, 'gi');
        close.lastIndex = i;
        const found = close.exec(html);
        if (!found) return `<${name}> at line ${lineAt(html, lt)} is never closed`;
        i = found.index + found[0].length;
        continue;
      }
      open.push({ name, at: lt });
      continue;
    }
    // `<` followed by a letter or `/` that is no valid tag is a broken tag; anything else (`a < b`) is text.
    if (matchAt(BROKEN_TAG, html, lt)) {
      return `the tag at line ${lineAt(html, lt)} is malformed: ${JSON.stringify(html.slice(lt, lt + 40))}`;
    }
    i = lt + 1;
  }
  const unclosed = open.pop();
  return unclosed ? `<${unclosed.name}> opened at line ${lineAt(html, unclosed.at)} is never closed` : null;
}
