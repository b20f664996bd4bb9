// Cursors (SPEC §4): opaque base64url, bound to the query (filters and order) they came from.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_LIMIT, encodeCursor, pageRequest } from '../../src/domain/page.js';
import { AppError } from '../../src/errors.js';

const DEFAULTS = { orderBy: 'CREATED_AT', direction: 'DESC' } as const;

function invalidCursor(message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'INVALID_CURSOR');
    assert.equal(error.status, 400);
    assert.match(error.message, message);
    return true;
  };
}

describe('pageRequest', () => {
  test('fills in the defaults', () => {
    const page = pageRequest({}, { keyword: 'x' }, DEFAULTS);
    assert.equal(page.limit, DEFAULT_LIMIT);
    assert.equal(page.limit, 20);
    assert.equal(page.orderBy, 'CREATED_AT');
    assert.equal(page.direction, 'DESC');
    assert.equal(page.after, null);
    assert.match(page.fingerprint, /^[A-Za-z0-9_-]{12}$/);
  });

  test('takes limit, order and direction from the query', () => {
    const page = pageRequest({ limit: 7, orderBy: 'NAME', orderDirection: 'ASC' }, {}, DEFAULTS);
    assert.deepEqual(
      { limit: page.limit, orderBy: page.orderBy, direction: page.direction },
      { limit: 7, orderBy: 'NAME', direction: 'ASC' },
    );
  });

  test('a cursor round-trips its key and id', () => {
    const first = pageRequest({ orderBy: 'NAME' }, { keyword: 'al' }, DEFAULTS);
    const cursor = encodeCursor(first.fingerprint, 'alpha', 42);
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    const next = pageRequest({ orderBy: 'NAME', cursor, limit: 5 }, { keyword: 'al' }, DEFAULTS);
    assert.deepEqual(next.after, { key: 'alpha', id: 42 });
    assert.equal(next.fingerprint, first.fingerprint);

    const byId = pageRequest({ orderBy: 'ID' }, {}, DEFAULTS);
    const idCursor = encodeCursor(byId.fingerprint, 42, 42);
    assert.deepEqual(pageRequest({ orderBy: 'ID', cursor: idCursor }, {}, DEFAULTS).after, { key: 42, id: 42 });
  });

  test('the default order and an explicit equal one share cursors', () => {
    const implicit = pageRequest({}, {}, DEFAULTS);
    const explicit = pageRequest({ orderBy: 'CREATED_AT', orderDirection: 'DESC' }, {}, DEFAULTS);
    assert.equal(implicit.fingerprint, explicit.fingerprint);
  });

  test('the fingerprint changes with every filter, the order and the direction, not with the limit', () => {
    const base = pageRequest({ limit: 2 }, { keyword: 'a' }, DEFAULTS).fingerprint;
    assert.equal(pageRequest({ limit: 50 }, { keyword: 'a' }, DEFAULTS).fingerprint, base);
    for (const other of [
      pageRequest({}, { keyword: 'b' }, DEFAULTS),
      pageRequest({}, {}, DEFAULTS),
      pageRequest({}, { keyword: 'a', projectId: 1 }, DEFAULTS),
      pageRequest({ orderBy: 'NAME' }, { keyword: 'a' }, DEFAULTS),
      pageRequest({ orderDirection: 'ASC' }, { keyword: 'a' }, DEFAULTS),
    ]) {
      assert.notEqual(other.fingerprint, base);
    }
  });

  test('a cursor of another query is refused', () => {
    const cursor = encodeCursor(pageRequest({}, { keyword: 'a' }, DEFAULTS).fingerprint, '2025-01-01T00:00:00.000Z', 3);
    assert.throws(
      () => pageRequest({ cursor }, { keyword: 'b' }, DEFAULTS),
      invalidCursor(/^cursor: belongs to a query with other filters or another order/),
    );
    assert.throws(
      () => pageRequest({ cursor, orderDirection: 'ASC' }, { keyword: 'a' }, DEFAULTS),
      invalidCursor(/belongs to a query with other filters or another order/),
    );
  });

  test('a cursor this API did not issue is refused', () => {
    const fingerprint = pageRequest({}, {}, DEFAULTS).fingerprint;
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      'not base64!',
      '%%%',
      Buffer.from('not json').toString('base64url'),
      b64(null),
      b64('text'),
      b64({ f: fingerprint, k: 'x' }),
      b64({ f: fingerprint, k: 'x', i: 1.5 }),
      b64({ f: fingerprint, k: 'x', i: '1' }),
      b64({ f: fingerprint, k: null, i: 1 }),
      b64({ k: 'x', i: 1 }),
    ]) {
      assert.throws(
        () => pageRequest({ cursor }, {}, DEFAULTS),
        invalidCursor(/^cursor: is not a cursor issued by this API/),
        cursor,
      );
    }
  });

  test('a cursor whose key has the wrong type for the order is refused', () => {
    const byId = pageRequest({ orderBy: 'ID' }, {}, DEFAULTS).fingerprint;
    const byName = pageRequest({ orderBy: 'NAME' }, {}, DEFAULTS).fingerprint;
    assert.throws(
      () => pageRequest({ orderBy: 'ID', cursor: encodeCursor(byId, '1; drop table users', 1) }, {}, DEFAULTS),
      invalidCursor(/is not a cursor issued by this API/),
    );
    assert.throws(
      () => pageRequest({ orderBy: 'NAME', cursor: encodeCursor(byName, 5, 1) }, {}, DEFAULTS),
      invalidCursor(/is not a cursor issued by this API/),
    );
  });
});
