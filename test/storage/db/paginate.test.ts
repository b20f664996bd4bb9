// Keyset pagination (SPEC §4), walked through GET /v1/users over rows with equal names and equal timestamps: every
// row appears exactly once and in order (ties broken by id in the same direction), totalCount is exact on every page,
// hasNextPage is false exactly on the last one, and a cursor only works with the query that produced it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';

type OrderBy = 'ID' | 'NAME' | 'CREATED_AT' | 'UPDATED_AT';
type Direction = 'ASC' | 'DESC';

interface Row {
  id: number;
  name: string;
  email: string;
  created_at: string;
  updated_at: string;
}

// Letters only, so that the order of lower(name) is the same under any collation; several differ only in case.
const NAMES = [
  'Alpha',
  'alpha',
  'ALPHA',
  'Bravo',
  'bravo',
  'Charlie',
  'charlie',
  'CHARLIE',
  'Delta',
  'Echo',
  'echo',
  'Foxtrot',
  'Golf',
  'golf',
  'Hotel',
  'India',
  'india',
  'Juliett',
  'Kilo',
  'kilo',
  'Lima',
  'Mike',
  'November',
  'Oscar',
];
const CREATED = ['2025-03-01T10:00:00.000Z', '2025-03-02T10:00:00.000Z', '2025-03-03T10:00:00.000Z'];
const UPDATED = [
  '2025-04-01T10:00:00.000Z',
  '2025-04-02T10:00:00.000Z',
  '2025-04-03T10:00:00.000Z',
  '2025-04-04T10:00:00.000Z',
];

function sortKey(row: Row, orderBy: OrderBy): string | number {
  switch (orderBy) {
    case 'ID':
      return row.id;
    case 'NAME':
      return row.name.toLowerCase();
    case 'CREATED_AT':
      return row.created_at;
    case 'UPDATED_AT':
      return row.updated_at;
  }
}

function expectedOrder(rows: Row[], orderBy: OrderBy, direction: Direction): number[] {
  const ascending = [...rows].sort((a, b) => {
    const ka = sortKey(a, orderBy);
    const kb = sortKey(b, orderBy);
    if (ka !== kb) return ka < kb ? -1 : 1;
    return a.id - b.id;
  });
  const ids = ascending.map((r) => r.id);
  return direction === 'ASC' ? ids : ids.reverse();
}

describe('keyset pagination on GET /v1/users', () => {
  let t: TestApp;
  let team: Awaited<ReturnType<TestApp['newTeam']>>;
  let rows: Row[];

  before(async () => {
    t = await startTestApp();
    team = await t.newTeam('Pages');
    await t.runtime.db.kysely
      .insertInto('users')
      .values(
        NAMES.map((name, i) => ({
          team_id: team.teamId,
          name,
          email: `user${i}@pages.test`,
          role_id: 4,
          profile_picture: null,
          created_at: CREATED[i % CREATED.length],
          updated_at: UPDATED[i % UPDATED.length],
          deleted_at: null,
        })),
      )
      .execute();
    // A deleted user of the team, and the first team's owner, must never show up.
    await t.runtime.db.kysely
      .insertInto('users')
      .values({
        team_id: team.teamId,
        name: 'Alpha',
        email: 'gone@pages.test',
        role_id: 4,
        profile_picture: null,
        created_at: CREATED[0],
        updated_at: UPDATED[0],
        deleted_at: UPDATED[3],
      })
      .execute();
    rows = await t.runtime.db.kysely
      .selectFrom('users')
      .select(['id', 'name', 'email', 'created_at', 'updated_at'])
      .where('team_id', '=', team.teamId)
      .where('deleted_at', 'is', null)
      .execute();
    assert.equal(rows.length, 25);
  });
  after(() => t.close());

  async function page(query: string) {
    const res = await t.app.inject({ method: 'GET', url: `/v1/users?${query}`, headers: team.headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response as {
      totalCount: number;
      nodes: Array<{ id: number; name: string }>;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  }

  /** Follows endCursor until hasNextPage is false, checking every page on the way. */
  async function walk(query: string, limit: number, total: number) {
    const ids: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    for (;;) {
      const current = await page(`${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pages++;
      assert.equal(current.totalCount, total, `totalCount on page ${pages}`);
      ids.push(...current.nodes.map((n) => n.id));
      if (!current.pageInfo.hasNextPage) {
        assert.ok(current.nodes.length > 0 || total === 0, 'the last page is not empty');
        break;
      }
      assert.equal(current.nodes.length, limit, `a page with a next page is full (page ${pages})`);
      assert.equal(typeof current.pageInfo.endCursor, 'string');
      cursor = current.pageInfo.endCursor;
      assert.ok(pages <= total, 'the walk ends');
    }
    return { ids, pages };
  }

  for (const orderBy of ['ID', 'NAME', 'CREATED_AT', 'UPDATED_AT'] as const) {
    for (const direction of ['ASC', 'DESC'] as const) {
      test(`orderBy=${orderBy} ${direction}: every row once, in order, at limit 2, 3 and 5`, async () => {
        const expected = expectedOrder(rows, orderBy, direction);
        for (const limit of [2, 3, 5]) {
          const { ids, pages } = await walk(`orderBy=${orderBy}&orderDirection=${direction}`, limit, rows.length);
          assert.deepEqual(ids, expected, `limit ${limit}`);
          assert.equal(new Set(ids).size, rows.length);
          assert.equal(pages, Math.ceil(rows.length / limit), `pages at limit ${limit}`);
        }
      });
    }
  }

  test('hasNextPage is false on a full last page when the total is a multiple of the limit', async () => {
    assert.equal(rows.length % 5, 0);
    const { pages } = await walk('orderBy=NAME&orderDirection=ASC', 5, rows.length);
    assert.equal(pages, 5);
    const all = await page('limit=25');
    assert.equal(all.nodes.length, 25);
    assert.equal(all.pageInfo.hasNextPage, false);
    const almost = await page('limit=24');
    assert.equal(almost.pageInfo.hasNextPage, true);
  });

  test('the default order is CREATED_AT DESC', async () => {
    const all = await page('limit=100');
    assert.deepEqual(
      all.nodes.map((n) => n.id),
      expectedOrder(rows, 'CREATED_AT', 'DESC'),
    );
    const { ids } = await walk('', 4, rows.length);
    assert.deepEqual(ids, expectedOrder(rows, 'CREATED_AT', 'DESC'));
  });

  test('the default limit is 20', async () => {
    const first = await page('orderBy=ID');
    assert.equal(first.nodes.length, 20);
    assert.equal(first.pageInfo.hasNextPage, true);
  });

  test('a keyword walk pages through the matching rows only', async () => {
    const keyword = 'ha';
    const matching = rows.filter((r) => r.name.toLowerCase().includes(keyword) || r.email.includes(keyword));
    assert.equal(matching.length, 6);
    const { ids } = await walk(`keyword=${keyword}&orderBy=NAME&orderDirection=DESC`, 2, matching.length);
    assert.deepEqual(ids, expectedOrder(matching, 'NAME', 'DESC'));
  });

  test('a cursor may be followed with another limit', async () => {
    const expected = expectedOrder(rows, 'UPDATED_AT', 'ASC');
    const first = await page('orderBy=UPDATED_AT&orderDirection=ASC&limit=2');
    const second = await page(
      `orderBy=UPDATED_AT&orderDirection=ASC&limit=7&cursor=${encodeURIComponent(first.pageInfo.endCursor!)}`,
    );
    assert.deepEqual(
      [...first.nodes, ...second.nodes].map((n) => n.id),
      expected.slice(0, 9),
    );
  });

  test('a cursor used with another keyword, order or direction is 400 INVALID_CURSOR', async () => {
    const first = await page('keyword=ha&orderBy=NAME&orderDirection=ASC&limit=2');
    const cursor = encodeURIComponent(first.pageInfo.endCursor!);
    for (const query of [
      `keyword=al&orderBy=NAME&orderDirection=ASC&cursor=${cursor}`,
      `orderBy=NAME&orderDirection=ASC&cursor=${cursor}`,
      `keyword=ha&orderBy=ID&orderDirection=ASC&cursor=${cursor}`,
      `keyword=ha&orderBy=NAME&orderDirection=DESC&cursor=${cursor}`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url: `/v1/users?${query}`, headers: team.headers });
      assert.equal(res.statusCode, 400, query);
      assert.deepEqual(res.json(), {
        error:
          'cursor: belongs to a query with other filters or another order; repeat the query that produced it or start without a cursor',
        code: 'INVALID_CURSOR',
        requestId: res.headers['x-request-id'],
      });
    }
  });

  test('an edited cursor whose sort key has the wrong type is 400 INVALID_CURSOR, not a database error', async () => {
    for (const [orderBy, key] of [
      ['ID', 'abc'],
      ['NAME', 42],
      ['CREATED_AT', 7],
    ] as const) {
      const issued = (await page(`orderBy=${orderBy}&limit=1`)).pageInfo.endCursor!;
      const edited = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(issued, 'base64url').toString('utf8')), k: key }),
      ).toString('base64url');
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/users?orderBy=${orderBy}&cursor=${edited}`,
        headers: team.headers,
      });
      assert.equal(res.statusCode, 400, `${orderBy}: ${res.statusCode} ${res.json().code}`);
      assert.equal(res.json().code, 'INVALID_CURSOR');
    }
  });

  test('a cursor that this API did not issue is 400 INVALID_CURSOR', async () => {
    for (const cursor of [
      'garbage!',
      'abc',
      Buffer.from('{"f":"x"}').toString('base64url'),
      Buffer.from('[1,2,3]').toString('base64url'),
      Buffer.from('{"f":"x","k":{"a":1},"i":1}').toString('base64url'),
    ]) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/users?cursor=${encodeURIComponent(cursor)}`,
        headers: team.headers,
      });
      assert.equal(res.statusCode, 400, cursor);
      assert.deepEqual(res.json(), {
        error: 'cursor: is not a cursor issued by this API; pass the endCursor of the previous page',
        code: 'INVALID_CURSOR',
        requestId: res.headers['x-request-id'],
      });
    }
  });
});
