// A batch's mapping (issue 22): each entry says which element attribute a row changes and how its value is made from
// the row — a template such as `{title} – {price|currency:EUR:de-DE}`. compileMapping checks every template once, at
// submit time, against the columns the rows have (an unknown column or formatter refuses the whole batch, naming the
// mapping entry); changesFor then makes one row's element changes, and a value a formatter cannot take is that row's
// error alone (RowValueError), never the batch's. Numbers, prices and dates are formatted by Intl (ICU), so every
// locale Node knows is right without a table of our own.
//
// Template syntax: `{column}` inserts the value; `{column|formatter:arg:arg}` formats it (formatters chain:
// `{name|lower|upper}`); `{{` and `}}` are literal braces. An empty value stays empty through every formatter.

import { createHash } from 'node:crypto';
import { AppError } from '../../errors.js';
import { canonicalJson } from '../canonical.js';
import { listLines, listNames, type RowTable } from './rows.js';

export interface MappingEntry {
  elementName: string;
  attribute: string;
  value: string;
}

export interface ElementChange {
  elementName: string;
  attribute: string;
  value: string;
}

export interface CompiledMapping {
  /** The columns the templates reference, in the order they are first referenced. */
  columns: string[];
  /** One row's element changes, in mapping order. Throws RowValueError for a value a formatter cannot take. */
  changesFor(values: Record<string, string>): ElementChange[];
}

/** A row's value does not fit its template (a price that is not a number, a VISIBILITY that is not yes/no). */
export class RowValueError extends Error {
  /** The column whose value was refused; undefined when the rule concerns the whole rendered value. */
  readonly column: string | undefined;
  readonly elementName: string;
  readonly attribute: string;

  constructor(message: string, where: { column: string | undefined; elementName: string; attribute: string }) {
    super(message);
    this.name = 'RowValueError';
    this.column = where.column;
    this.elementName = where.elementName;
    this.attribute = where.attribute;
  }
}

/** A formatter's refusal of one value; changesFor turns it into a RowValueError naming the column and the element. */
class ValueRule extends Error {}

type Format = (value: string) => string;

interface FormatterSpec {
  usage: string;
  make(args: string[], fail: (rule: string) => never): Format;
}

const DEFAULT_LOCALE = 'en-US';

function received(value: string): string {
  const text = JSON.stringify(value);
  return `received ${text.length > 60 ? `${text.slice(0, 57)}..."` : text}`;
}

/** A BCP 47 tag that ICU has data for; anything else would silently fall back to another locale. */
function locale(tag: string | undefined, fail: (rule: string) => never): string {
  if (tag === undefined || tag === '') return DEFAULT_LOCALE;
  let canonical: string;
  try {
    [canonical] = Intl.getCanonicalLocales(tag);
  } catch {
    return fail(`"${tag}" is not a locale tag (write one like de-DE, fr-FR, en-US)`);
  }
  if (Intl.NumberFormat.supportedLocalesOf([canonical]).length === 0)
    return fail(`the locale "${tag}" is not one this server has data for`);
  return canonical;
}

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

function decimal(value: string, rule: string): number {
  const text = value.trim();
  if (!DECIMAL.test(text)) throw new ValueRule(`${rule}, ${received(value)}`);
  return Number(text);
}

// A price as a Merchant feed writes it ("19.99 EUR"), or as a spreadsheet does ("19.99", "EUR 19.99").
const PRICE = /^(?:([A-Za-z]{3})\s*)?([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:\s*([A-Za-z]{3}))?$/;

// An ISO 8601 date, or date and time with an optional offset; a time without an offset is UTC.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function isoDate(value: string): Date | undefined {
  const match = ISO_DATE.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0', offset] = match;
  const millis = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, Math.floor(Number(`0.${frac}`) * 1000));
  const check = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
  // Date.UTC rolls 2026-02-30 over to March: refuse a day, hour or minute that does not exist.
  if (
    check.getUTCFullYear() !== +y ||
    check.getUTCMonth() !== +mo - 1 ||
    check.getUTCDate() !== +d ||
    check.getUTCHours() !== +h ||
    check.getUTCMinutes() !== +mi ||
    check.getUTCSeconds() !== +s
  )
    return undefined;
  let shift = 0;
  if (offset && offset !== 'Z') {
    const digits = offset.replace(':', '');
    const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
    shift = (digits[0] === '-' ? -1 : 1) * minutes * 60_000;
  }
  return new Date(millis - shift);
}

const DATE_STYLES = ['full', 'long', 'medium', 'short'] as const;

const FORMATTERS: Record<string, FormatterSpec> = {
  number: {
    usage: 'number:<fraction digits 0–20>:<locale>, e.g. {price|number:2:de-DE}',
    make([digits, tag], fail) {
      const options: Intl.NumberFormatOptions = {};
      if (digits !== undefined && digits !== '') {
        if (!/^\d{1,2}$/.test(digits) || Number(digits) > 20)
          fail(`the fraction digits must be a whole number from 0 to 20, ${received(digits)}`);
        options.minimumFractionDigits = Number(digits);
        options.maximumFractionDigits = Number(digits);
      }
      const format = new Intl.NumberFormat(locale(tag, fail), options);
      return (value) => format.format(decimal(value, 'number needs a decimal number like 1234.5'));
    },
  },
  currency: {
    usage:
      'currency:<ISO 4217 code>:<locale>, e.g. {price|currency:EUR:de-DE}; the code may be left out when the values carry one ("19.99 EUR")',
    make([code, tag], fail) {
      const fixed = code === undefined || code === '' ? undefined : code.toUpperCase();
      if (fixed !== undefined && !/^[A-Z]{3}$/.test(fixed))
        fail(`the currency must be a three-letter ISO 4217 code like EUR or USD, ${received(code ?? '')}`);
      const where = locale(tag, fail);
      const formats = new Map<string, Intl.NumberFormat>();
      const formatFor = (currency: string) => {
        let format = formats.get(currency);
        if (!format) {
          format = new Intl.NumberFormat(where, { style: 'currency', currency });
          formats.set(currency, format);
        }
        return format;
      };
      if (fixed) formatFor(fixed);
      return (value) => {
        const match = PRICE.exec(value.trim());
        const rule = `currency needs an amount like 19.99, optionally with its code ("19.99 ${fixed ?? 'EUR'}")`;
        if (!match || (match[1] && match[3])) throw new ValueRule(`${rule}, ${received(value)}`);
        const given = (match[1] ?? match[3])?.toUpperCase();
        if (fixed && given && given !== fixed)
          throw new ValueRule(`the amount is in ${given} but the template formats ${fixed}, ${received(value)}`);
        const currency = fixed ?? given;
        if (!currency)
          throw new ValueRule(
            `the amount has no currency code and the template names none (write {column|currency:EUR}), ${received(value)}`,
          );
        return formatFor(currency).format(Number(match[2]));
      };
    },
  },
  date: {
    usage: 'date:<full|long|medium|short>:<locale>:<IANA time zone, default UTC>, e.g. {day|date:medium:fr-FR}',
    make([style = 'medium', tag, timeZone], fail) {
      const dateStyle = (style === '' ? 'medium' : style) as (typeof DATE_STYLES)[number];
      if (!DATE_STYLES.includes(dateStyle))
        fail(`the style must be one of ${DATE_STYLES.join(', ')}, ${received(style)}`);
      const where = locale(tag, fail);
      let format: Intl.DateTimeFormat;
      try {
        format = new Intl.DateTimeFormat(where, { dateStyle, timeZone: timeZone || 'UTC' });
      } catch {
        return fail(`"${timeZone}" is not an IANA time zone (write one like Europe/Berlin)`);
      }
      return (value) => {
        const date = isoDate(value);
        if (!date)
          throw new ValueRule(`date needs an ISO 8601 date like 2026-11-25 or 2026-11-25T14:30Z, ${received(value)}`);
        return format.format(date);
      };
    },
  },
  upper: {
    usage: 'upper:<locale>, e.g. {city|upper} or {city|upper:tr-TR}',
    make([tag], fail) {
      const where = tag ? locale(tag, fail) : undefined;
      return (value) => (where ? value.toLocaleUpperCase(where) : value.toUpperCase());
    },
  },
  lower: {
    usage: 'lower:<locale>, e.g. {city|lower} or {city|lower:tr-TR}',
    make([tag], fail) {
      const where = tag ? locale(tag, fail) : undefined;
      return (value) => (where ? value.toLocaleLowerCase(where) : value.toLowerCase());
    },
  },
};

export const FORMATTER_NAMES = Object.keys(FORMATTERS);

interface Placeholder {
  column: string;
  formats: Format[];
}

type Part = string | Placeholder;

/** The parts of one template; `fail` throws the mapping entry's UNPROCESSABLE. */
function parseTemplate(template: string, columns: ReadonlySet<string>, fail: (message: string) => never): Part[] {
  const parts: Part[] = [];
  let literal = '';
  let at = 0;
  while (at < template.length) {
    const char = template[at];
    if ((char === '{' || char === '}') && template[at + 1] === char) {
      literal += char;
      at += 2;
      continue;
    }
    if (char === '}') fail(`a "}" at character ${at + 1} closes nothing; write "}}" for a literal brace`);
    if (char !== '{') {
      literal += char;
      at++;
      continue;
    }
    const close = template.indexOf('}', at + 1);
    const open = template.indexOf('{', at + 1);
    if (close === -1 || (open !== -1 && open < close))
      fail(`the "{" at character ${at + 1} is never closed; write "{{" for a literal brace`);
    if (literal) parts.push(literal);
    literal = '';
    parts.push(placeholder(template.slice(at + 1, close), columns, fail));
    at = close + 1;
  }
  if (literal) parts.push(literal);
  return parts;
}

function placeholder(text: string, columns: ReadonlySet<string>, fail: (message: string) => never): Placeholder {
  const [name, ...specs] = text.split('|');
  const column = name.trim();
  if (column === '') fail(`"{${text}}" names no column; write {column} or {column|formatter}`);
  if (!columns.has(column)) fail(`unknown column "${column}"; the columns are: ${listNames([...columns])}`);
  const formats = specs.map((spec) => {
    const [formatterName, ...args] = spec.split(':').map((part) => part.trim());
    const formatter = Object.hasOwn(FORMATTERS, formatterName) ? FORMATTERS[formatterName] : undefined;
    if (!formatter)
      fail(`unknown formatter "${formatterName}" in "{${text}}"; the formatters are: ${FORMATTER_NAMES.join(', ')}`);
    return formatter.make(args, (rule) =>
      fail(`formatter ${formatterName} in "{${text}}": ${rule}; usage: ${formatter.usage}`),
    );
  });
  return { column, formats };
}

const VISIBILITY_WORDS: Record<string, 'true' | 'false'> = {
  true: 'true',
  yes: 'true',
  y: 'true',
  '1': 'true',
  on: 'true',
  false: 'false',
  no: 'false',
  n: 'false',
  '0': 'false',
  off: 'false',
};

/**
 * Checks every template of the mapping against the rows' columns; `field` names the mapping in messages
 * (`mapping[2].value: unknown column "prize"; the columns are: …`).
 */
export function compileMapping(
  mapping: MappingEntry[],
  columns: string[],
  options: { field: string },
): CompiledMapping {
  const known = new Set(columns);
  const referenced: string[] = [];
  const compiled = mapping.map((entry, index) => {
    const fail = (message: string): never => {
      throw new AppError('UNPROCESSABLE', `${options.field}[${index}].value: ${message}`, {
        details: [{ path: `/${options.field}/${index}/value`, message }],
      });
    };
    const parts = parseTemplate(entry.value, known, fail);
    for (const part of parts)
      if (typeof part !== 'string' && !referenced.includes(part.column)) referenced.push(part.column);
    return { entry, parts, visibility: entry.attribute.toUpperCase() === 'VISIBILITY' };
  });

  return {
    columns: referenced,
    changesFor(values) {
      return compiled.map(({ entry, parts, visibility }) => {
        const where = { elementName: entry.elementName, attribute: entry.attribute };
        let value = '';
        for (const part of parts) {
          if (typeof part === 'string') {
            value += part;
            continue;
          }
          let text = Object.hasOwn(values, part.column) ? values[part.column] : '';
          // A blank value through a formatter is empty (an optional sale price), not a row error.
          if (text.trim() === '' && part.formats.length > 0) text = '';
          else
            for (const format of part.formats) {
              try {
                text = format(text);
              } catch (error) {
                if (!(error instanceof ValueRule)) throw error;
                throw new RowValueError(
                  `column "${part.column}" (for ${entry.attribute} of "${entry.elementName}"): ${error.message}`,
                  { ...where, column: part.column },
                );
              }
            }
          value += text;
        }
        if (visibility) {
          const normalised = VISIBILITY_WORDS[value.trim().toLowerCase()];
          if (!normalised) {
            const columnsUsed = parts.filter((part): part is Placeholder => typeof part !== 'string');
            const column = columnsUsed.length === 1 ? columnsUsed[0].column : undefined;
            throw new RowValueError(
              `${column ? `column "${column}" ` : ''}(for VISIBILITY of "${entry.elementName}"): VISIBILITY needs true/false, yes/no, y/n, 1/0 or on/off, ${received(value)}`,
              { ...where, column },
            );
          }
          value = normalised;
        }
        return { elementName: entry.elementName, attribute: entry.attribute, value };
      });
    },
  };
}

/**
 * Each row's key: the value of the `rowKey` column (trimmed), or without one the row's number counting from 1 (the
 * first row under the header is "1"). Keys name a row in results and zip folders, so an empty or repeated key
 * refuses the batch, listing the lines.
 */
export function rowKeyOf(table: RowTable, rowKey: string | undefined, field: string): string[] {
  if (rowKey === undefined) return table.rows.map((_, index) => String(index + 1));
  if (!table.columns.includes(rowKey))
    throw new AppError(
      'UNPROCESSABLE',
      `${field}: unknown column "${rowKey}"; the columns are: ${listNames(table.columns)}`,
    );
  const keys = table.rows.map((row) => (row.values[rowKey] ?? '').trim());
  const empty = table.rows.filter((_, index) => keys[index] === '').map((row) => row.line);
  if (empty.length > 0)
    throw new AppError(
      'UNPROCESSABLE',
      `${field}: the column "${rowKey}" is empty on line${empty.length > 1 ? 's' : ''} ${listLines(empty)}; every row needs a key`,
    );
  const firstLine = new Map<string, number>();
  const repeats: string[] = [];
  table.rows.forEach((row, index) => {
    const first = firstLine.get(keys[index]);
    if (first === undefined) firstLine.set(keys[index], row.line);
    else if (repeats.length < 10) repeats.push(`${JSON.stringify(keys[index])} on lines ${first} and ${row.line}`);
  });
  if (repeats.length > 0)
    throw new AppError(
      'UNPROCESSABLE',
      `${field}: the column "${rowKey}" repeats ${repeats.join('; ')}; every row needs its own key`,
    );
  return keys;
}

/**
 * sha256 (hex) of a row's changes, in order (changes apply in order, so order is part of the content): equal changes
 * hash equally, which lets a re-run of an edited feed render only the rows whose changes differ.
 */
export function rowContentHash(changes: { elementName: string; attribute: string; value: string }[]): string {
  const plain = changes.map(({ elementName, attribute, value }) => ({ elementName, attribute, value }));
  return createHash('sha256').update(canonicalJson(plain)).digest('hex');
}
