// The rows of a batch (issue 22): CSV/TSV parsing with line numbers that stay right after embedded newlines, every
// whole-file error naming the field, the line and the rule, Merchant RSS and Atom feeds, JSON rows, and sniffing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  BATCH_LIMITS,
  parseDelimitedRows,
  parseFeedXml,
  rowsFromJson,
  sniffRowFormat,
} from '../../../src/domain/batch/rows.js';
import { AppError } from '../../../src/errors.js';
import { merchantAtom, merchantItem, merchantRss } from '../../fixtures/merchant-feed.js';

/** Asserts an UNPROCESSABLE whose message matches exactly (a string) or the pattern. */
function refuses(run: () => unknown, message: string | RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof AppError, `not an AppError: ${error}`);
    assert.equal(error.code, 'UNPROCESSABLE');
    assert.equal(error.status, 422);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

const csv = (text: string) => parseDelimitedRows(text, { field: 'csv' });

describe('parseDelimitedRows', () => {
  test('a header and rows; header names trimmed, values kept as written', () => {
    const table = csv(' title , price\nMug,19.99\n Cup ,4\n');
    assert.deepEqual(table, {
      columns: ['title', 'price'],
      rows: [
        { line: 2, values: { title: 'Mug', price: '19.99' } },
        { line: 3, values: { title: ' Cup ', price: '4' } },
      ],
    });
  });

  test('UTF-8 with a BOM, as a Buffer and as a string, CRLF line ends', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('städte,€\r\nMünchen,5\r\n')]);
    for (const input of [bytes, bytes.toString('utf8')]) {
      const table = parseDelimitedRows(input, { field: 'file' });
      assert.deepEqual(table.columns, ['städte', '€']);
      assert.deepEqual(table.rows, [{ line: 2, values: { städte: 'München', '€': '5' } }]);
    }
  });

  test('quoted fields with commas, doubled quotes and embedded newlines; lines count where each row starts', () => {
    const text = [
      'title,body,price',
      '"Mug, large","He said ""hi""",1',
      '"Cup","line one',
      'line two',
      'line three",2',
      '',
      'Plate,"a\r\nb",3',
      'Bowl,x,4',
    ].join('\n');
    const table = csv(text);
    assert.deepEqual(
      table.rows.map((row) => [row.line, row.values.title, row.values.body]),
      [
        [2, 'Mug, large', 'He said "hi"'],
        [3, 'Cup', 'line one\nline two\nline three'],
        [7, 'Plate', 'a\r\nb'],
        [9, 'Bowl', 'x'], // the CR LF inside Plate's quoted field is a line break too
      ],
    );
  });

  test('CRLF inside quoted fields does not shift later line numbers', () => {
    const text = 'a,b\r\n1,"x\r\ny\r\nz"\r\n2,ok\r\n3\r\n';
    refuses(() => csv(text), "csv: line 6: expected 2 fields (as many as the header's columns), found 1");
  });

  test('a file with old Mac line ends (CR only) counts lines by CR', () => {
    refuses(() => csv('a,b\r1,2\r3\r'), "csv: line 3: expected 2 fields (as many as the header's columns), found 1");
  });

  test('TSV and semicolon files: the delimiter is sniffed from the header line', () => {
    const tsv = csv('title\tprice, incl. VAT\nMug\t1,50\n');
    assert.deepEqual(tsv.columns, ['title', 'price, incl. VAT']);
    assert.deepEqual(tsv.rows[0].values, { title: 'Mug', 'price, incl. VAT': '1,50' });
    const semicolon = csv('\n\ntitel;preis;"a,b"\nTasse;1,50;x\n');
    assert.deepEqual(semicolon.columns, ['titel', 'preis', 'a,b']);
    assert.deepEqual(semicolon.rows, [{ line: 4, values: { titel: 'Tasse', preis: '1,50', 'a,b': 'x' } }]);
    // Told explicitly: a comma file read as TSV is one column.
    const forced = parseDelimitedRows('a,b\n1,2\n', { field: 'csv', delimiter: '\t' });
    assert.deepEqual(forced.columns, ['a,b']);
    const single = csv('title\nMug\n');
    assert.deepEqual(single.rows, [{ line: 2, values: { title: 'Mug' } }]);
  });

  test('blank lines and all-empty rows are skipped', () => {
    const table = csv('a,b\n\n1,2\n,\n\n3,4\n,\n');
    assert.deepEqual(
      table.rows.map((row) => row.line),
      [3, 6],
    );
  });

  test('ragged rows: expected K fields, found M, on the line where the row starts', () => {
    refuses(
      () => csv('a,b,c\n1,2,3\n4,5\n'),
      "csv: line 3: expected 3 fields (as many as the header's columns), found 2",
    );
    refuses(
      () => csv('a,b\n1,"multi\nline"\n2,3,4\n'),
      "csv: line 4: expected 2 fields (as many as the header's columns), found 3",
    );
  });

  test('an unterminated quote names the line where its row starts', () => {
    refuses(
      () => csv('a,b\n1,2\n3,"never closed\n4,5\n6,7\n'),
      'csv: line 3: a quoted field is never closed (a " opens it and the file ends before the closing ")',
    );
    refuses(() => csv('a,b\n1,"x"y\n'), /^csv: line 2: a quoted field has text after its closing quote/);
  });

  test('invalid UTF-8 names its line, also after multi-byte characters and a BOM', () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('name,city\nÅsa,Malmö\nBob,'),
      Buffer.from([0x4d, 0xfc, 0x6e]), // "Mün" in Latin-1
      Buffer.from('chen\n'),
    ]);
    refuses(
      () => parseDelimitedRows(bytes, { field: 'file' }),
      'file: line 3: the text is not valid UTF-8; save the file as UTF-8 (with or without BOM)',
    );
  });

  test('empty and duplicate header names, an empty file, no rows', () => {
    refuses(() => csv('a,,c\n1,2,3\n'), 'csv: line 1: column 2 of the header is empty; every column needs a name');
    refuses(
      () => csv('sku,title, sku\n1,2,3\n'),
      'csv: line 1: the header names "sku" twice (columns 1 and 3); column names must be unique',
    );
    refuses(() => csv(''), 'csv: the file is empty; it needs a header line and at least one row');
    refuses(() => csv('\n\n'), 'csv: the file is empty; it needs a header line and at least one row');
    refuses(() => csv('a,b\n\n,\n'), 'csv: no rows under the header (line 1); the file needs at least one row');
  });

  test('limits: rows, bytes, columns, cell length', () => {
    const atLimit = `n\n${'1\n'.repeat(BATCH_LIMITS.maxRows)}`;
    assert.equal(csv(atLimit).rows.length, BATCH_LIMITS.maxRows);
    refuses(
      () => csv(`${atLimit}1\n`),
      `csv: more than ${BATCH_LIMITS.maxRows} rows, over the limit of a batch; split the file into several batches`,
    );
    const big = Buffer.alloc(BATCH_LIMITS.maxFileBytes + 1, 0x61);
    refuses(
      () => parseDelimitedRows(big, { field: 'file' }),
      `file: the file has ${BATCH_LIMITS.maxFileBytes + 1} bytes, over the limit of 52428800 bytes (50 MiB); split it into several batches`,
    );
    const header = Array.from({ length: BATCH_LIMITS.maxColumns + 1 }, (_, i) => `c${i}`).join(',');
    refuses(
      () => csv(`${header}\n`),
      `csv: line 1: the header has 501 columns, over the limit of ${BATCH_LIMITS.maxColumns}`,
    );
    refuses(
      () => csv(`a,b\n1,${'x'.repeat(BATCH_LIMITS.maxCellChars + 1)}\n`),
      `csv: line 2: column "b" has ${BATCH_LIMITS.maxCellChars + 1} characters, over the limit of ${BATCH_LIMITS.maxCellChars}`,
    );
  });

  test('a column named __proto__ is an ordinary column', () => {
    const table = csv('__proto__,constructor\nx,y\n');
    assert.equal(Object.getPrototypeOf(table.rows[0].values), Object.prototype);
    assert.equal(Object.hasOwn(table.rows[0].values, '__proto__'), true);
    assert.equal(table.rows[0].values.constructor, 'y');
  });
});

describe('parseFeedXml', () => {
  test('a Merchant RSS feed of 50 items: g: fields without the prefix, first repeated value, nested groups', () => {
    const table = parseFeedXml(merchantRss(50), { field: 'feedUrl' });
    assert.equal(table.rows.length, 50);
    assert.deepEqual(table.columns, [
      'title',
      'link',
      'description',
      'id',
      'price',
      'image_link',
      'additional_image_link',
      'availability',
      'shipping.country',
      'shipping.price',
    ]);
    table.rows.forEach((row, index) => {
      const item = merchantItem(index + 1);
      assert.equal(row.line, 6 + 15 * index);
      assert.deepEqual(row.values, {
        title: item.title,
        link: item.link,
        description: item.description,
        id: item.id,
        price: item.price,
        image_link: item.imageLink,
        additional_image_link: `${item.imageLink}?alt=1`,
        availability: item.availability,
        'shipping.country': 'DE',
        'shipping.price': '4.95 EUR',
      });
    });
    assert.equal(table.rows[0].values.title, 'Mug & Saucer no. 1');
    assert.equal(table.rows[49].values.price, '50.99 EUR');
  });

  test('a Merchant Atom feed: the alternate link, the summary, the same g: fields', () => {
    const table = parseFeedXml(Buffer.from(merchantAtom(3)), { field: 'file' });
    assert.equal(table.rows.length, 3);
    assert.deepEqual(table.rows[2].values, {
      title: 'Mug & Saucer no. 3',
      link: 'https://shop.example/p/3',
      summary: 'A <b>mug</b> for item 3',
      updated: '2026-11-25T10:00:00Z',
      id: 'SKU-0003',
      price: '3.99 EUR',
      image_link: 'https://shop.example/img/3.png',
      additional_image_link: 'https://shop.example/img/3.png?alt=1',
      availability: 'in_stock',
      'shipping.country': 'DE',
      'shipping.price': '4.95 EUR',
    });
  });

  test('plain RSS: title, link, description; an item without a field has it empty; g:title wins over title', () => {
    const xml = `<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>
<item><title>First</title><link>https://a.example/1</link><description>One</description><dc:creator>Ann</dc:creator></item>
<item><title>Plain</title><g:title>Merchant</g:title></item>
</channel></rss>`;
    const table = parseFeedXml(xml, { field: 'feedUrl' });
    assert.deepEqual(table.columns, ['title', 'link', 'description', 'dc:creator']);
    assert.deepEqual(table.rows, [
      { line: 2, values: { title: 'First', link: 'https://a.example/1', description: 'One', 'dc:creator': 'Ann' } },
      { line: 3, values: { title: 'Merchant', link: '', description: '', 'dc:creator': '' } },
    ]);
  });

  test('RSS 1.0 (RDF): items are children of the root', () => {
    const xml = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
  <channel rdf:about="https://a.example/"><title>Shop</title></channel>
  <item rdf:about="https://a.example/1"><title>One</title><link>https://a.example/1</link></item>
  <item rdf:about="https://a.example/2"><title>Two</title><link>https://a.example/2</link></item>
</rdf:RDF>`;
    assert.deepEqual(parseFeedXml(xml, { field: 'feedUrl' }), {
      columns: ['title', 'link'],
      rows: [
        { line: 4, values: { title: 'One', link: 'https://a.example/1' } },
        { line: 5, values: { title: 'Two', link: 'https://a.example/2' } },
      ],
    });
  });

  test('not XML, not a feed, no items, HTML: UNPROCESSABLE naming the field', () => {
    refuses(() => parseFeedXml('a,b\n1,2\n', { field: 'feedUrl' }), /^feedUrl: not XML: /);
    refuses(
      () => parseFeedXml('<rss><channel><item><title>x</titel></item></channel></rss>', { field: 'feedUrl' }),
      /^feedUrl: not XML: .*title/,
    );
    refuses(
      () => parseFeedXml('<html><body><p>Shop</p></body></html>', { field: 'feedUrl' }),
      "feedUrl: not a feed: the XML's root element is <html>; a feed is RSS (<rss>) or Atom (<feed>)",
    );
    refuses(
      () => parseFeedXml('<rss><channel><title>x</title></channel></rss>', { field: 'feedUrl' }),
      'feedUrl: the feed has no <item> elements; it needs at least one',
    );
    refuses(
      () => parseFeedXml('<feed xmlns="http://www.w3.org/2005/Atom"></feed>', { field: 'feedUrl' }),
      'feedUrl: the feed has no <entry> elements; it needs at least one',
    );
    refuses(
      () => parseFeedXml(Buffer.from([0x3c, 0x72, 0xff, 0x3e]), { field: 'file' }),
      /^file: line 1: .*not valid UTF-8/,
    );
  });

  test('hostile XML: DTD entities are not expanded, external entities never read', () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
<rss><channel><item><title>&c;</title></item></channel></rss>`;
    refuses(() => parseFeedXml(laughs, { field: 'feedUrl' }), /^feedUrl: not well-formed XML: entity not found/);
    const external = `<!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]><rss><channel><item><title>&x;</title></item></channel></rss>`;
    refuses(() => parseFeedXml(external, { field: 'feedUrl' }), /^feedUrl: not well-formed XML: entity not found/);
  });
});

describe('rowsFromJson', () => {
  test('strings, numbers, booleans and null become strings; columns in first-seen order; missing keys empty', () => {
    const table = rowsFromJson(
      [
        { title: 'Mug', price: 19.9, onSale: true },
        { title: 'Cup', note: null, price: 4 },
      ],
      {
        field: 'rows',
      },
    );
    assert.deepEqual(table, {
      columns: ['title', 'price', 'onSale', 'note'],
      rows: [
        { line: 1, values: { title: 'Mug', price: '19.9', onSale: 'true', note: '' } },
        { line: 2, values: { title: 'Cup', price: '4', onSale: '', note: '' } },
      ],
    });
  });

  test('nested values, non-objects, empty lists and limits are refused naming rows[i].col', () => {
    refuses(
      () => rowsFromJson([{ a: '1' }, { a: '2', tags: ['x'] }], { field: 'rows' }),
      'rows[1].tags: nested values are not accepted; give a string, number, boolean or null',
    );
    refuses(
      () => rowsFromJson([{ a: { b: 1 } }], { field: 'rows' }),
      'rows[0].a: nested values are not accepted; give a string, number, boolean or null',
    );
    refuses(() => rowsFromJson(['x'], { field: 'rows' }), 'rows[0]: a row must be an object of column names to values');
    refuses(() => rowsFromJson([[1]], { field: 'rows' }), 'rows[0]: a row must be an object of column names to values');
    refuses(() => rowsFromJson([], { field: 'rows' }), 'rows: no rows; a batch needs at least one');
    refuses(() => rowsFromJson([{ '': 1 }], { field: 'rows' }), 'rows[0]: a column name is empty');
    refuses(
      () =>
        rowsFromJson(
          Array.from({ length: BATCH_LIMITS.maxRows + 1 }, () => ({ a: 1 })),
          { field: 'rows' },
        ),
      /^rows: more than 100000 rows/,
    );
  });
});

describe('sniffRowFormat', () => {
  const sniff = (type: string | undefined, text: string) => sniffRowFormat(type, Buffer.from(text));
  test('the first bytes decide XML and HTML; then the content type; then the text', () => {
    assert.equal(sniff('text/html', '<?xml version="1.0"?><rss>'), 'xml');
    assert.equal(sniff('text/plain', '\uFEFF  <rss version="2.0">'), 'xml');
    assert.equal(sniff('application/atom+xml', '<feed xmlns="http://www.w3.org/2005/Atom">'), 'xml');
    assert.equal(sniff('text/csv', '<!DOCTYPE html><html><body>Not found</body></html>'), null);
    assert.equal(sniff('text/html; charset=utf-8', 'a,b\n1,2\n'), null);
    assert.equal(sniff('text/csv; charset=utf-8', 'a\tb\n'), 'csv');
    assert.equal(sniff('text/tab-separated-values', 'a,b\n'), 'tsv');
    assert.equal(sniff('application/octet-stream', 'a\tb\n1\t2\n'), 'tsv');
    assert.equal(sniff(undefined, 'title;price\nMug;1\n'), 'csv');
    assert.equal(sniff('application/json', '[{"a":1}]'), null);
    assert.equal(sniff(undefined, '{"a":1}'), null);
    assert.equal(sniffRowFormat('application/octet-stream', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0])), null);
    assert.equal(sniff('text/plain', ''), null);
    // Declared CSV whose header happens to start like markup or JSON is still CSV.
    assert.equal(sniff('text/csv', '<b>title</b>,price\nMug,1\n'), 'csv');
    assert.equal(sniff('text/csv', '{id},name\n1,Mug\n'), 'csv');
    assert.equal(sniff(undefined, '<b>title</b>,price\n'), null);
  });
});
