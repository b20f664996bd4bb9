// The rows of a batch (issue 22): CSV/TSV text or files, RSS/Atom product feeds (Google Merchant `g:` fields) and JSON
// rows, each turned into one RowTable — column names in file order and every row's values as strings, with the line
// where the row starts so that a message about a row points at the line a spreadsheet user sees. Pure: no I/O. Every
// error that concerns the whole input is thrown here as UNPROCESSABLE naming the request field, the line and the rule,
// so a batch is refused at submit time and nothing of it is stored.
//
// CSV syntax is csv-parse's (quoted fields, embedded newlines, BOM); this file adds only what it does not do: the
// delimiter sniffed from the header line, line numbers where a row starts (csv-parse counts a CR LF inside a quoted
// field as two lines, so its own line numbers drift after an embedded newline), and the limits.

import { isUtf8 } from 'node:buffer';
import { DOMParser, type Element as XmlElement, type Node as XmlNode } from '@xmldom/xmldom';
import { CsvError, parse } from 'csv-parse/sync';
import { AppError } from '../../errors.js';

export interface RowTable {
  /** Header names, trimmed, in file order, unique. */
  columns: string[];
  /** `line`: the 1-based line of the file where the row starts (for JSON rows, the 1-based position in the array). */
  rows: { line: number; values: Record<string, string> }[];
}

/** The documented limits of one batch; a larger job is several batches. */
export const BATCH_LIMITS = {
  maxRows: 100_000,
  maxFileBytes: 50 * 1024 * 1024,
  maxColumns: 500,
  /** As large as the largest change value (a CODE element's 64 KiB of HTML). */
  maxCellChars: 64 * 1024,
} as const satisfies { maxRows: number; maxFileBytes: number; maxColumns: number; maxCellChars: number };

const MAX_NAMES_LISTED = 50;
const MAX_LINES_LISTED = 10;

function unprocessable(message: string): AppError {
  return new AppError('UNPROCESSABLE', message);
}

/** `a, b, c` — at most MAX_NAMES_LISTED of them, so a 500-column file does not make a 10 KB message. */
export function listNames(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMES_LISTED).map((name) => JSON.stringify(name).slice(1, -1));
  return names.length > MAX_NAMES_LISTED ? `${shown.join(', ')} … (${names.length} in all)` : shown.join(', ');
}

export function listLines(lines: readonly number[]): string {
  const shown = lines.slice(0, MAX_LINES_LISTED).join(', ');
  return lines.length > MAX_LINES_LISTED ? `${shown} … (${lines.length} in all)` : shown;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LF = 0x0a;
const CR = 0x0d;

/** The bytes of the input without a UTF-8 byte order mark, refused when over the size limit or not UTF-8. */
function utf8Bytes(input: Buffer | string, field: string): Buffer {
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.length;
  if (size > BATCH_LIMITS.maxFileBytes)
    throw unprocessable(
      `${field}: the file has ${size} bytes, over the limit of ${BATCH_LIMITS.maxFileBytes} bytes (50 MiB); split it into several batches`,
    );
  let bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  if (bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
  if (!isUtf8(bytes)) {
    // A LF byte never occurs inside a multi-byte UTF-8 sequence, so the file can be checked line by line.
    let line = 1;
    let start = 0;
    for (;;) {
      const end = bytes.indexOf(LF, start);
      const slice = bytes.subarray(start, end === -1 ? bytes.length : end);
      if (!isUtf8(slice)) break;
      if (end === -1) break;
      line++;
      start = end + 1;
    }
    throw unprocessable(
      `${field}: line ${line}: the text is not valid UTF-8; save the file as UTF-8 (with or without BOM)`,
    );
  }
  return bytes;
}

/** Line number of each byte offset: 1 + the line breaks before it (LF, or CR in a file that has no LF at all). */
function lineCounter(bytes: Buffer): (offset: number) => number {
  const breakByte = bytes.includes(LF) ? LF : CR;
  const breaks: number[] = [];
  for (let at = bytes.indexOf(breakByte); at !== -1; at = bytes.indexOf(breakByte, at + 1)) breaks.push(at);
  return (offset) => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
}

type Delimiter = ',' | '\t' | ';';

/**
 * The delimiter that occurs most often, outside quotes, on the header (first non-blank) line; ties go to tab, then comma, then
 * semicolon (a tab rarely appears in a column name by accident). No delimiter at all: one column, comma.
 */
function sniffDelimiter(bytes: Buffer): Delimiter {
  let start = 0;
  while (start < bytes.length && (bytes[start] === LF || bytes[start] === CR)) start++;
  const end = bytes.indexOf(LF, start);
  const line = bytes.subarray(start, end === -1 ? Math.min(bytes.length, start + 64 * 1024) : end).toString('utf8');
  const counts: Record<Delimiter, number> = { '\t': 0, ',': 0, ';': 0 };
  let inQuotes = false;
  for (const char of line) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (char === '\t' || char === ',' || char === ';')) counts[char]++;
  }
  if (counts['\t'] > 0 && counts['\t'] >= counts[','] && counts['\t'] >= counts[';']) return '\t';
  if (counts[';'] > counts[',']) return ';';
  return ',';
}

function checkColumns(header: string[], field: string, line: number): string[] {
  const columns = header.map((name) => name.trim());
  if (columns.length > BATCH_LIMITS.maxColumns)
    throw unprocessable(
      `${field}: line ${line}: the header has ${columns.length} columns, over the limit of ${BATCH_LIMITS.maxColumns}`,
    );
  const seen = new Map<string, number>();
  columns.forEach((name, index) => {
    if (name === '')
      throw unprocessable(
        `${field}: line ${line}: column ${index + 1} of the header is empty; every column needs a name`,
      );
    const first = seen.get(name);
    if (first !== undefined)
      throw unprocessable(
        `${field}: line ${line}: the header names "${name}" twice (columns ${first + 1} and ${index + 1}); column names must be unique`,
      );
    seen.set(name, index);
  });
  return columns;
}

function checkCell(value: string, column: string, where: string): void {
  if (value.length > BATCH_LIMITS.maxCellChars)
    throw unprocessable(
      `${where}: column "${column}" has ${value.length} characters, over the limit of ${BATCH_LIMITS.maxCellChars}`,
    );
}

function tooManyRows(field: string): AppError {
  return unprocessable(
    `${field}: more than ${BATCH_LIMITS.maxRows} rows, over the limit of a batch; split the file into several batches`,
  );
}

/**
 * CSV or TSV text, UTF-8 with or without BOM; the first non-blank line is the header. Blank lines and rows whose
 * fields are all empty (the trailing `,,,` rows spreadsheets export) are skipped; values are kept as written
 * (not trimmed), header names are trimmed.
 */
export function parseDelimitedRows(
  input: Buffer | string,
  options: { field: string; delimiter?: Delimiter },
): RowTable {
  const { field } = options;
  const bytes = utf8Bytes(input, field);
  const lineOf = lineCounter(bytes);
  const delimiter = options.delimiter ?? sniffDelimiter(bytes);

  let columns: string[] | undefined;
  let headerLine = 1;
  const rows: RowTable['rows'] = [];
  // Where the record being parsed starts: where the previous one ended. Blank lines are records of their own (one
  // empty field) rather than skipped by csv-parse, so this stays exact.
  let recordStart = 0;
  try {
    parse(bytes, {
      delimiter,
      relax_column_count: true,
      encoding: 'utf8',
      on_record: (record: string[], context) => {
        const start = recordStart;
        recordStart = context.bytes;
        if (record.every((value) => value === '')) return null;
        const line = lineOf(start);
        if (!columns) {
          headerLine = line;
          columns = checkColumns(record, field, line);
          return null;
        }
        if (record.length !== columns.length)
          throw unprocessable(
            `${field}: line ${line}: expected ${columns.length} fields (as many as the header's columns), found ${record.length}`,
          );
        if (rows.length >= BATCH_LIMITS.maxRows) throw tooManyRows(field);
        const cols = columns;
        record.forEach((value, index) => {
          checkCell(value, cols[index], `${field}: line ${line}`);
        });
        rows.push({ line, values: Object.fromEntries(cols.map((name, index) => [name, record[index]])) });
        return null;
      },
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof CsvError) {
      const line = lineOf(recordStart);
      if (error.code === 'CSV_QUOTE_NOT_CLOSED')
        throw unprocessable(
          `${field}: line ${line}: a quoted field is never closed (a " opens it and the file ends before the closing ")`,
        );
      if (error.code === 'CSV_INVALID_CLOSING_QUOTE')
        throw unprocessable(
          `${field}: line ${line}: a quoted field has text after its closing quote; write a " inside quotes as ""`,
        );
      throw unprocessable(`${field}: line ${line}: ${error.message}`);
    }
    throw error;
  }
  if (!columns) throw unprocessable(`${field}: the file is empty; it needs a header line and at least one row`);
  if (rows.length === 0)
    throw unprocessable(`${field}: no rows under the header (line ${headerLine}); the file needs at least one row`);
  return { columns, rows };
}

// ---------------------------------------------------------------------------------------------------------------
// Feeds

const MERCHANT_NS = 'http://base.google.com/ns/1.0';

const ELEMENT_NODE = 1;

function childElements(node: XmlNode): XmlElement[] {
  const out: XmlElement[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling)
    if (child.nodeType === ELEMENT_NODE) out.push(child as XmlElement);
  return out;
}

/**
 * A column's name for an item's child element: a Google Merchant field (namespace http://base.google.com/ns/1.0,
 * usually prefixed `g:`) by its local name, so `g:price` is `price`; any other element by its name as written
 * (`title`, `dc:creator`).
 */
function columnName(element: XmlElement): string {
  return element.namespaceURI === MERCHANT_NS ? (element.localName ?? element.nodeName) : element.nodeName;
}

/** An element's value: its text, trimmed; an empty element with an `href` or `url` (Atom `<link href>`) gives that. */
function elementValue(element: XmlElement): string {
  const text = (element.textContent ?? '').trim();
  if (text !== '') return text;
  return element.getAttribute('href') ?? element.getAttribute('url') ?? '';
}

/**
 * The values of one item. Nested Merchant groups (`<g:shipping><g:country>`) become `shipping.country`. A repeated
 * element keeps its first value (`g:additional_image_link` repeats); when an item has both `title` and `g:title`, the
 * Merchant field wins. An Atom entry's `link` is the `rel="alternate"` one (or the one without `rel`).
 */
function itemValues(item: XmlElement): Map<string, string> {
  const values = new Map<string, string>();
  const merchant = new Set<string>();
  const visit = (element: XmlElement, prefix: string) => {
    for (const child of childElements(element)) {
      const name = prefix + columnName(child);
      const nested = childElements(child);
      if (nested.length > 0 && child.namespaceURI === MERCHANT_NS) {
        visit(child, `${name}.`);
        continue;
      }
      const isMerchant = child.namespaceURI === MERCHANT_NS;
      const rel = child.nodeName === 'link' ? child.getAttribute('rel') : null;
      const preferred = rel === null || rel === '' || rel === 'alternate';
      if (values.has(name)) {
        if (isMerchant && !merchant.has(name)) {
          values.set(name, elementValue(child));
          merchant.add(name);
        }
        continue;
      }
      if (!preferred) continue;
      values.set(name, elementValue(child));
      if (isMerchant) merchant.add(name);
    }
  };
  visit(item, '');
  return values;
}

/**
 * An RSS 2.0 (or RSS 1.0) feed's `<item>`s or an Atom feed's `<entry>`s, one row each; their child elements are the
 * columns (see itemValues), in the order they first appear; an item without a column has it empty. The XML parser
 * never fetches anything and expands no entity a DTD declares (an undeclared entity is an error), so hostile input
 * cannot reach the network or the file system, nor blow up in memory.
 */
export function parseFeedXml(input: Buffer | string, options: { field: string }): RowTable {
  const { field } = options;
  const text = utf8Bytes(input, field).toString('utf8');
  const problems: string[] = [];
  let document: ReturnType<DOMParser['parseFromString']>;
  try {
    document = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') problems.push(message);
      },
    }).parseFromString(text, 'text/xml');
  } catch (error) {
    throw unprocessable(`${field}: not XML: ${firstLine((error as Error).message)}`);
  }
  if (problems.length > 0) throw unprocessable(`${field}: not well-formed XML: ${firstLine(problems[0])}`);
  const root = document.documentElement;
  if (!root) throw unprocessable(`${field}: not XML: no root element`);
  const rootName = root.localName ?? root.nodeName;
  let items: XmlElement[];
  if (rootName === 'rss') {
    const channel = childElements(root).find((element) => element.nodeName === 'channel');
    items = channel ? childElements(channel).filter((element) => element.nodeName === 'item') : [];
  } else if (rootName === 'RDF') {
    items = childElements(root).filter((element) => (element.localName ?? element.nodeName) === 'item');
  } else if (rootName === 'feed') {
    items = childElements(root).filter((element) => (element.localName ?? element.nodeName) === 'entry');
  } else {
    throw unprocessable(
      `${field}: not a feed: the XML's root element is <${root.nodeName}>; a feed is RSS (<rss>) or Atom (<feed>)`,
    );
  }
  if (items.length === 0)
    throw unprocessable(
      `${field}: the feed has no ${rootName === 'feed' ? '<entry>' : '<item>'} elements; it needs at least one`,
    );
  if (items.length > BATCH_LIMITS.maxRows) throw tooManyRows(field);

  const columns: string[] = [];
  const known = new Set<string>();
  const parsed = items.map((item) => {
    const values = itemValues(item);
    const line = (item as XmlElement & { lineNumber?: number }).lineNumber ?? 1;
    for (const [name, value] of values) {
      checkCell(value, name, `${field}: line ${line}`);
      if (!known.has(name)) {
        known.add(name);
        columns.push(name);
        if (columns.length > BATCH_LIMITS.maxColumns)
          throw unprocessable(
            `${field}: the feed's items have more than ${BATCH_LIMITS.maxColumns} different fields, over the limit`,
          );
      }
    }
    return { line, values };
  });
  return {
    columns,
    rows: parsed.map(({ line, values }) => ({
      line,
      values: Object.fromEntries(columns.map((name) => [name, values.get(name) ?? ''])),
    })),
  };
}

function firstLine(message: string): string {
  return message.split('\n')[0].slice(0, 300);
}

// ---------------------------------------------------------------------------------------------------------------
// JSON rows

/**
 * Rows given as JSON objects: strings as they are, numbers as JavaScript writes them (`19.9`), booleans as
 * `true`/`false`, null as empty. Columns are the keys in the order they first appear; a row without a key has it
 * empty. A nested object or array is refused: a template cannot format it.
 */
export function rowsFromJson(rows: unknown[], options: { field: string }): RowTable {
  const { field } = options;
  if (rows.length === 0) throw unprocessable(`${field}: no rows; a batch needs at least one`);
  if (rows.length > BATCH_LIMITS.maxRows) throw tooManyRows(field);
  const columns: string[] = [];
  const known = new Set<string>();
  const parsed = rows.map((row, index) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row))
      throw unprocessable(`${field}[${index}]: a row must be an object of column names to values`);
    const values = new Map<string, string>();
    for (const [key, value] of Object.entries(row)) {
      const where = `${field}[${index}].${key}`;
      if (key.trim() === '') throw unprocessable(`${field}[${index}]: a column name is empty`);
      let text: string;
      if (value === null) text = '';
      else if (typeof value === 'string') text = value;
      else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
      else if (typeof value === 'boolean') text = String(value);
      else throw unprocessable(`${where}: nested values are not accepted; give a string, number, boolean or null`);
      if (text.length > BATCH_LIMITS.maxCellChars)
        throw unprocessable(`${where}: ${text.length} characters, over the limit of ${BATCH_LIMITS.maxCellChars}`);
      values.set(key, text);
      if (!known.has(key)) {
        known.add(key);
        columns.push(key);
        if (columns.length > BATCH_LIMITS.maxColumns)
          throw unprocessable(`${field}: the rows have more than ${BATCH_LIMITS.maxColumns} columns, over the limit`);
      }
    }
    return values;
  });
  return {
    columns,
    rows: parsed.map((values, index) => ({
      line: index + 1,
      values: Object.fromEntries(columns.map((name) => [name, values.get(name) ?? ''])),
    })),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Sniffing

const XML_TYPES = /^(?:application|text)\/(?:[\w.+-]+\+)?xml$/;

/**
 * What a fetched or uploaded body is: the first bytes decide against HTML and for XML feeds whatever the content type
 * says (servers label feeds text/html or text/plain, and error pages text/csv); then the content type; then the text
 * itself (a tab on the first line: TSV). null: neither — HTML, JSON, binary.
 */
export function sniffRowFormat(contentType: string | undefined, head: Buffer): 'csv' | 'tsv' | 'xml' | null {
  let bytes = head.subarray(0, 4096);
  if (bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
  const text = bytes.toString('utf8').trimStart();
  const lower = text.slice(0, 512).toLowerCase();
  if (lower.startsWith('<')) {
    if (/^<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/.test(lower)) return null;
    if (/^<\?xml|^<(?:rss|feed|rdf:rdf)[\s>]|^<!--/.test(lower)) {
      // An XHTML page starts with <?xml too.
      return /<html[\s>]/.test(lower) ? null : 'xml';
    }
  }
  if (bytes.includes(0) || text === '') return null;
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  // Declared CSV/TSV is taken at its word (a header may well start with "<" or "{"); the parser judges the rest.
  if (type === 'text/tab-separated-values') return 'tsv';
  if (type === 'text/csv' || type === 'application/csv') return 'csv';
  if (XML_TYPES.test(type) || type === 'text/html' || type === 'application/json') return null;
  if (text.startsWith('<') || text.startsWith('{') || text.startsWith('[')) return null;
  const firstLine = text.split('\n')[0];
  const tabs = firstLine.split('\t').length - 1;
  const others = Math.max(firstLine.split(',').length - 1, firstLine.split(';').length - 1);
  return tabs > 0 && tabs >= others ? 'tsv' : 'csv';
}
