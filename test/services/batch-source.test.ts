// A batch's rows from a feed URL (issue 22), against a real local HTTP server: CSV, TSV and Merchant RSS bodies
// sniffed and parsed, redirects followed through the guard, and every refusal an UNPROCESSABLE naming `feedUrl` and
// the rule: slow, too large (declared or streamed — reading stops at the limit), HTML, 404, a private address, a
// redirect to a private address, too many redirects.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { BATCH_LIMITS } from '../../src/domain/batch/rows.js';
import { AppError } from '../../src/errors.js';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { fetchRowSource } from '../../src/services/batch-source.js';
import { merchantRss } from '../fixtures/merchant-feed.js';

let server: http.Server;
let origin: string;
/** Bytes the server wrote for /endless before the client went away. */
let endlessWritten = 0;
let endlessClosed: Promise<void> = Promise.resolve();

// The server is on 127.0.0.1, a loopback address: allowed here the way an operator allows an intranet feed host.
const guard = createUrlGuard({ allowPrivateUrls: false, allowedPrivateHosts: ['127.0.0.1'] });
const deps = { guard, timeoutMs: 2_000 };

before(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/products.csv') {
      res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
      res.end('\uFEFFsku,title,price\r\nA1,"Mug, large",19.99\r\nA2,Cup,4.50\r\n');
    } else if (path === '/products.tsv') {
      // Served as a generic type: the first line decides.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end('sku\ttitle\nA1\tMug\n');
    } else if (path === '/feed.xml') {
      res.writeHead(200, { 'content-type': 'text/html' }); // mislabelled, as servers do
      res.end(merchantRss(50));
    } else if (path === '/moved') {
      res.writeHead(302, { location: '/products.csv' });
      res.end();
    } else if (path === '/loop') {
      res.writeHead(301, { location: '/loop' });
      res.end();
    } else if (path === '/to-private') {
      res.writeHead(307, { location: 'http://10.1.2.3/feed.csv' });
      res.end();
    } else if (path === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><head><title>Shop</title></head><body>Hello</body></html>');
    } else if (path === '/ragged.csv') {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end('a,b\n1,2\n3\n');
    } else if (path === '/slow') {
      // Headers at once, then nothing: the body never comes.
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write('a,b\n');
    } else if (path === '/declared-huge') {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': String(60 * 1024 * 1024) });
      res.write('a,b\n');
    } else if (path === '/endless') {
      // No Content-Length: 1 MiB chunks for as long as the client reads.
      res.writeHead(200, { 'content-type': 'text/csv' });
      endlessWritten = 0;
      const chunk = Buffer.alloc(1024 * 1024, 'x,y\n');
      endlessClosed = new Promise((resolve) => res.once('close', () => resolve()));
      const pump = () => {
        while (!res.destroyed && endlessWritten < 200 * 1024 * 1024) {
          endlessWritten += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end();
      };
      pump();
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function refused(url: string, message: string | RegExp, options = deps): Promise<void> {
  await assert.rejects(fetchRowSource(url, options, 'feedUrl'), (error: unknown) => {
    assert.ok(error instanceof AppError, `not an AppError: ${error}`);
    assert.equal(error.code, 'UNPROCESSABLE');
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

describe('fetchRowSource', () => {
  test('a CSV feed: BOM, CRLF and quoted commas parsed', async () => {
    const source = await fetchRowSource(`${origin}/products.csv`, deps, 'feedUrl');
    assert.equal(source.format, 'csv');
    assert.deepEqual(source.columns, ['sku', 'title', 'price']);
    assert.deepEqual(source.rows, [
      { line: 2, values: { sku: 'A1', title: 'Mug, large', price: '19.99' } },
      { line: 3, values: { sku: 'A2', title: 'Cup', price: '4.50' } },
    ]);
  });

  test('a TSV body served as octet-stream, and a Merchant feed labelled text/html, are sniffed by their bytes', async () => {
    const tsv = await fetchRowSource(`${origin}/products.tsv`, deps, 'feedUrl');
    assert.equal(tsv.format, 'tsv');
    assert.deepEqual(tsv.rows, [{ line: 2, values: { sku: 'A1', title: 'Mug' } }]);
    const feed = await fetchRowSource(`${origin}/feed.xml`, deps, 'feedUrl');
    assert.equal(feed.format, 'xml');
    assert.equal(feed.rows.length, 50);
    assert.equal(feed.rows[49].values.price, '50.99 EUR');
    assert.equal(feed.rows[0].values.image_link, 'https://shop.example/img/1.png');
  });

  test('a redirect is followed through the guard', async () => {
    const source = await fetchRowSource(`${origin}/moved`, deps, 'feedUrl');
    assert.equal(source.finalUrl, `${origin}/products.csv`);
    assert.equal(source.rows.length, 2);
  });

  test('a private address is refused unless the host is allowed, also after a redirect', async () => {
    const strict = { guard: createUrlGuard({ allowPrivateUrls: false }), timeoutMs: 2_000 };
    await refused(
      `${origin}/products.csv`,
      `feedUrl: ${origin}/products.csv: points at 127.0.0.1, a loopback address (an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS)`,
      strict,
    );
    await refused(
      `${origin}/to-private`,
      `feedUrl: ${origin}/to-private: redirected to http://10.1.2.3/feed.csv, which points at 10.1.2.3, a private address (an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS)`,
    );
    await refused('file:///etc/passwd', /^feedUrl: file:\/\/\/etc\/passwd: uses file; only http and https/);
  });

  test('too many redirects, 404, HTML, a ragged CSV', async () => {
    await refused(`${origin}/loop`, `feedUrl: ${origin}/loop redirects more than 5 times, the most that is followed`);
    await refused(
      `${origin}/missing.csv`,
      `feedUrl: ${origin}/missing.csv answered HTTP 404; the feed must be publicly downloadable`,
    );
    await refused(
      `${origin}/page`,
      `feedUrl: ${origin}/page is not a CSV, TSV or RSS/Atom feed (content type "text/html; charset=utf-8", it starts with "<!DOCTYPE html><html><head><title>Shop</")`,
    );
    await refused(
      `${origin}/ragged.csv`,
      "feedUrl: line 3: expected 2 fields (as many as the header's columns), found 1",
    );
  });

  test('a slow feed is refused naming the time limit', async () => {
    await refused(`${origin}/slow`, `feedUrl: ${origin}/slow took longer than 0.3 s to download (the time limit)`, {
      guard,
      timeoutMs: 300,
    });
  });

  test('a feed over the byte limit: refused on its Content-Length, or as soon as it streams past the limit', async () => {
    const limit = BATCH_LIMITS.maxFileBytes;
    await refused(
      `${origin}/declared-huge`,
      `feedUrl: ${origin}/declared-huge declares 62914560 bytes, over the limit of ${limit} bytes (50 MiB) for a batch; split the feed into several`,
    );
    // A time limit far past what 50 MiB over loopback takes on a loaded machine: the byte limit is what is tested.
    await refused(
      `${origin}/endless`,
      `feedUrl: ${origin}/endless sent more than ${limit} bytes, over the limit of ${limit} bytes (50 MiB) for a batch; split the feed into several`,
      { guard, timeoutMs: 300_000 },
    );
    await endlessClosed;
    // Reading stopped at the limit: the server wrote far less than the 200 MiB it would have sent.
    assert.ok(endlessWritten < 100 * 1024 * 1024, `the server wrote ${endlessWritten} bytes`);
  });
});
