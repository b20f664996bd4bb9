// Mapping templates (issue 22): columns, formatters by locale (exact strings from ICU), brace escapes, the errors that
// refuse a batch at submit (unknown column or formatter, bad arguments), the errors that stay on one row
// (RowValueError), VISIBILITY normalisation, row keys and the row content hash.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RowTable } from '../../../src/domain/batch/rows.js';
import {
  compileMapping,
  type MappingEntry,
  RowValueError,
  rowContentHash,
  rowKeyOf,
} from '../../../src/domain/batch/template.js';
import { AppError } from '../../../src/errors.js';

const COLUMNS = ['title', 'price', 'day', 'city', 'on_sale', 'amount'];

/** One template rendered against one row. */
function render(template: string, values: Record<string, string>, attribute = 'LABEL'): string {
  const mapping = compileMapping([{ elementName: 'headline', attribute, value: template }], COLUMNS, {
    field: 'mapping',
  });
  return mapping.changesFor(values)[0].value;
}

function refusesAtSubmit(mapping: MappingEntry[], message: string | RegExp, columns = COLUMNS): void {
  assert.throws(
    () => compileMapping(mapping, columns, { field: 'mapping' }),
    (error: unknown) => {
      assert.ok(error instanceof AppError, `not an AppError: ${error}`);
      assert.equal(error.code, 'UNPROCESSABLE');
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      return true;
    },
  );
}

function refusesRow(template: string, values: Record<string, string>, message: string, attribute = 'LABEL'): void {
  assert.throws(
    () => render(template, values, attribute),
    (error: unknown) => {
      assert.ok(error instanceof RowValueError, `not a RowValueError: ${error}`);
      assert.equal(error.message, message);
      assert.equal(error.elementName, 'headline');
      assert.equal(error.attribute, attribute);
      return true;
    },
  );
}

const NBSP = '\u00a0';
const NNBSP = '\u202f';

describe('templates', () => {
  test('plain columns, literal text, several columns, a constant', () => {
    const mapping = compileMapping(
      [
        { elementName: 'headline', attribute: 'LABEL', value: '{title} – {price}' },
        { elementName: 'photo', attribute: 'SOURCE', value: 'https://cdn.example/{ city }.png' },
        { elementName: 'badge', attribute: 'BGCOLOR', value: '#ff0000' },
      ],
      COLUMNS,
      { field: 'mapping' },
    );
    assert.deepEqual(mapping.columns, ['title', 'price', 'city']);
    assert.deepEqual(mapping.changesFor({ title: 'Mug', price: '19.99', city: 'Berlin' }), [
      { elementName: 'headline', attribute: 'LABEL', value: 'Mug – 19.99' },
      { elementName: 'photo', attribute: 'SOURCE', value: 'https://cdn.example/Berlin.png' },
      { elementName: 'badge', attribute: 'BGCOLOR', value: '#ff0000' },
    ]);
  });

  test('{{ and }} are literal braces', () => {
    assert.equal(render('{{{title}}} {{x}} }}{{', { title: 'Mug' }), '{Mug} {x} }{');
  });

  test('number: fraction digits and locale', () => {
    assert.equal(render('{amount|number:2:de-DE}', { amount: '1234.5' }), '1.234,50');
    assert.equal(render('{amount|number:2:en-US}', { amount: '1234.5' }), '1,234.50');
    assert.equal(render('{amount|number:2:fr-FR}', { amount: '1234.5' }), `1${NNBSP}234,50`);
    assert.equal(render('{amount|number:0:de-CH}', { amount: '-98765.4' }), "-98'765");
    assert.equal(render('{amount|number}', { amount: ' 1234.5678 ' }), '1,234.568');
    assert.equal(render('{amount|number::de-DE}', { amount: '.5' }), '0,5');
  });

  test('currency: code and locale; a code in the value is accepted when it agrees', () => {
    assert.equal(render('{price|currency:EUR:de-DE}', { price: '19.99' }), `19,99${NBSP}€`);
    assert.equal(render('{price|currency:EUR:en-US}', { price: '19.99 EUR' }), '€19.99');
    assert.equal(render('{price|currency:eur:fr-FR}', { price: 'EUR 1234.5' }), `1${NNBSP}234,50${NBSP}€`);
    assert.equal(render('{price|currency:JPY:ja-JP}', { price: '1234' }), '￥1,234');
    assert.equal(render('{price|currency:GBP:en-GB}', { price: '-5' }), '-£5.00');
    // No code in the template: the value's own (a Merchant feed's "19.99 USD").
    assert.equal(render('{price|currency::en-US}', { price: '19.99 USD' }), '$19.99');
    assert.equal(render('{price|currency::de-DE}', { price: '19.99 USD' }), `19,99${NBSP}$`);
  });

  test('date: style, locale and time zone', () => {
    assert.equal(render('{day|date:medium:fr-FR}', { day: '2026-11-25' }), '25 nov. 2026');
    assert.equal(render('{day|date:long:de-DE}', { day: '2026-11-25' }), '25. November 2026');
    assert.equal(render('{day|date:full:en-US}', { day: '2026-11-25' }), 'Wednesday, November 25, 2026');
    assert.equal(render('{day|date:short}', { day: '2026-11-25' }), '11/25/26');
    assert.equal(render('{day|date:long:ja-JP}', { day: '2026-11-25' }), '2026年11月25日');
    // 23:30 on the 25th in New York is the 26th in UTC (the default zone) and in Berlin.
    assert.equal(render('{day|date:medium:en-US}', { day: '2026-11-25T23:30-05:00' }), 'Nov 26, 2026');
    assert.equal(render('{day|date:medium:en-US:America/New_York}', { day: '2026-11-25T23:30-0500' }), 'Nov 25, 2026');
    assert.equal(render('{day|date:long:de-DE:Europe/Berlin}', { day: '2026-11-25T23:30Z' }), '26. November 2026');
  });

  test('upper and lower, with a locale when casing differs (Turkish dotted i)', () => {
    assert.equal(render('{city|upper}', { city: 'München' }), 'MÜNCHEN');
    assert.equal(render('{city|lower}', { city: 'MÜNCHEN' }), 'münchen');
    assert.equal(render('{city|upper:tr-TR}', { city: 'istanbul' }), 'İSTANBUL');
    assert.equal(render('{city|upper:en-US}', { city: 'istanbul' }), 'ISTANBUL');
    assert.equal(render('{city|lower:tr-TR}', { city: 'İSTANBUL' }), 'istanbul');
    assert.equal(render('{city|lower|upper}', { city: 'Köln' }), 'KÖLN');
  });

  test('an empty value stays empty through every formatter', () => {
    for (const format of ['number:2', 'currency:EUR', 'date:long', 'upper'])
      assert.equal(render(`[{amount|${format}}]`, { amount: ' ' }), '[]', format);
    assert.equal(render('[{amount}]', {}), '[]');
  });

  test('VISIBILITY is normalised to true/false from the usual spellings', () => {
    const cases: [string, string][] = [
      ['true', 'true'],
      [' TRUE ', 'true'],
      ['Yes', 'true'],
      ['y', 'true'],
      ['1', 'true'],
      ['On', 'true'],
      ['false', 'false'],
      ['NO', 'false'],
      ['n', 'false'],
      ['0', 'false'],
      ['off', 'false'],
    ];
    for (const [input, expected] of cases)
      assert.equal(render('{on_sale}', { on_sale: input }, 'VISIBILITY'), expected, input);
    assert.equal(render('false', {}, 'VISIBILITY'), 'false');
    refusesRow(
      '{on_sale}',
      { on_sale: 'maybe' },
      'column "on_sale" (for VISIBILITY of "headline"): VISIBILITY needs true/false, yes/no, y/n, 1/0 or on/off, received "maybe"',
      'VISIBILITY',
    );
    refusesRow(
      '{on_sale}',
      { on_sale: '' },
      'column "on_sale" (for VISIBILITY of "headline"): VISIBILITY needs true/false, yes/no, y/n, 1/0 or on/off, received ""',
      'VISIBILITY',
    );
  });

  test('a value a formatter cannot take is a RowValueError naming the column and the rule', () => {
    refusesRow(
      '{amount|number:2:de-DE}',
      { amount: '12,50' },
      'column "amount" (for LABEL of "headline"): number needs a decimal number like 1234.5, received "12,50"',
    );
    refusesRow(
      '{price|currency:EUR}',
      { price: '19.99 USD' },
      'column "price" (for LABEL of "headline"): the amount is in USD but the template formats EUR, received "19.99 USD"',
    );
    refusesRow(
      '{price|currency:EUR}',
      { price: 'free' },
      'column "price" (for LABEL of "headline"): currency needs an amount like 19.99, optionally with its code ("19.99 EUR"), received "free"',
    );
    refusesRow(
      '{price|currency}',
      { price: '19.99' },
      'column "price" (for LABEL of "headline"): the amount has no currency code and the template names none (write {column|currency:EUR}), received "19.99"',
    );
    refusesRow(
      '{day|date}',
      { day: '2026-02-30' },
      'column "day" (for LABEL of "headline"): date needs an ISO 8601 date like 2026-11-25 or 2026-11-25T14:30Z, received "2026-02-30"',
    );
    refusesRow(
      '{day|date}',
      { day: '25.11.2026' },
      'column "day" (for LABEL of "headline"): date needs an ISO 8601 date like 2026-11-25 or 2026-11-25T14:30Z, received "25.11.2026"',
    );
  });
});

describe('errors at submit', () => {
  const one = (value: string): MappingEntry[] => [
    { elementName: 'a', attribute: 'LABEL', value: '{title}' },
    { elementName: 'b', attribute: 'LABEL', value },
  ];

  test('an unknown column names the columns found', () => {
    refusesAtSubmit(
      one('{prize}'),
      'mapping[1].value: unknown column "prize"; the columns are: title, price, day, city, on_sale, amount',
    );
    refusesAtSubmit(
      one('{Title}'),
      'mapping[1].value: unknown column "Title"; the columns are: title, price, day, city, on_sale, amount',
    );
    // The error carries a detail whose path points at the template.
    try {
      compileMapping(one('{prize}'), COLUMNS, { field: 'mapping' });
    } catch (error) {
      assert.deepEqual((error as AppError).details?.[0].path, '/mapping/1/value');
    }
  });

  test('an unknown formatter names the formatters known', () => {
    refusesAtSubmit(
      one('{price|money:EUR}'),
      'mapping[1].value: unknown formatter "money" in "{price|money:EUR}"; the formatters are: number, currency, date, upper, lower',
    );
    refusesAtSubmit(
      one('{price|}'),
      'mapping[1].value: unknown formatter "" in "{price|}"; the formatters are: number, currency, date, upper, lower',
    );
    refusesAtSubmit(one('{price|toString}'), /^mapping\[1\]\.value: unknown formatter "toString"/);
  });

  test('bad formatter arguments name the formatter, the rule and its usage', () => {
    refusesAtSubmit(
      one('{price|currency:EURO}'),
      /^mapping\[1\]\.value: formatter currency in "\{price\|currency:EURO\}": the currency must be a three-letter ISO 4217 code like EUR or USD, received "EURO"; usage: currency:<ISO 4217 code>:<locale>/,
    );
    refusesAtSubmit(
      one('{amount|number:two}'),
      /^mapping\[1\]\.value: formatter number in "\{amount\|number:two\}": the fraction digits must be a whole number from 0 to 20, received "two"; usage: number:/,
    );
    refusesAtSubmit(one('{amount|number:2:xx_YY}'), /formatter number .*"xx_YY" is not a locale tag/);
    refusesAtSubmit(
      one('{amount|number:2:qq-QQ}'),
      /formatter number .*the locale "qq-QQ" is not one this server has data for/,
    );
    refusesAtSubmit(
      one('{day|date:huge}'),
      /formatter date .*the style must be one of full, long, medium, short, received "huge"/,
    );
    refusesAtSubmit(
      one('{day|date:long:de-DE:Mars/Olympus}'),
      /formatter date .*"Mars\/Olympus" is not an IANA time zone/,
    );
  });

  test('unbalanced braces and empty placeholders', () => {
    refusesAtSubmit(
      one('{title'),
      'mapping[1].value: the "{" at character 1 is never closed; write "{{" for a literal brace',
    );
    refusesAtSubmit(
      one('50% off}'),
      'mapping[1].value: a "}" at character 8 closes nothing; write "}}" for a literal brace',
    );
    refusesAtSubmit(
      one('{ti{tle}'),
      'mapping[1].value: the "{" at character 1 is never closed; write "{{" for a literal brace',
    );
    refusesAtSubmit(one('{ }'), 'mapping[1].value: "{ }" names no column; write {column} or {column|formatter}');
  });
});

describe('rowKeyOf', () => {
  const table = (keys: string[]): RowTable => ({
    columns: ['sku', 'title'],
    rows: keys.map((sku, index) => ({ line: index + 2, values: { sku, title: `t${index}` } })),
  });

  test('no rowKey: the row number from 1; a rowKey: its values, trimmed', () => {
    assert.deepEqual(rowKeyOf(table(['a', 'b', 'c']), undefined, 'rowKey'), ['1', '2', '3']);
    assert.deepEqual(rowKeyOf(table([' A-1 ', 'B-2']), 'sku', 'rowKey'), ['A-1', 'B-2']);
  });

  test('unknown column, empty keys, duplicate keys: UNPROCESSABLE with the lines', () => {
    const refuses = (run: () => unknown, message: string) =>
      assert.throws(
        run,
        (error: unknown) => error instanceof AppError && error.code === 'UNPROCESSABLE' && error.message === message,
      );
    refuses(() => rowKeyOf(table(['a']), 'id', 'rowKey'), 'rowKey: unknown column "id"; the columns are: sku, title');
    refuses(
      () => rowKeyOf(table(['a', '', ' ', 'd']), 'sku', 'rowKey'),
      'rowKey: the column "sku" is empty on lines 3, 4; every row needs a key',
    );
    refuses(
      () => rowKeyOf(table(['a', 'b', 'a', 'b ', 'c']), 'sku', 'rowKey'),
      'rowKey: the column "sku" repeats "a" on lines 2 and 4; "b" on lines 3 and 5; every row needs its own key',
    );
  });
});

describe('rowContentHash', () => {
  test('stable sha256 of the changes in order; equal changes hash equally', () => {
    const a = { elementName: 'headline', attribute: 'LABEL', value: 'Mug' };
    const b = { elementName: 'photo', attribute: 'SOURCE', value: 'https://x.example/1.png' };
    const hash = rowContentHash([a, b]);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(rowContentHash([{ value: 'Mug', attribute: 'LABEL', elementName: 'headline' }, { ...b }]), hash);
    assert.notEqual(rowContentHash([b, a]), hash);
    assert.notEqual(rowContentHash([a, { ...b, value: 'https://x.example/2.png' }]), hash);
    // Pinned: a change of this hash would make every stored batch row look changed.
    assert.equal(rowContentHash([]), '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945');
  });
});
