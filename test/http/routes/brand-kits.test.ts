// Brand kits (SPEC §11): team-wide, created and changed by Editors and stronger, listed to every role of the team,
// invisible to other teams (404 for every role), and not deletable while a project uses them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Headers = Caller['headers'];

function helpers(t: () => TestApp) {
  return {
    list: (query = '', headers: Headers = t().owner.headers) =>
      t().app.inject({ method: 'GET', url: `/v1/brandkits${query}`, headers }),
    create: (payload: unknown, headers: Headers = t().owner.headers) =>
      t().app.inject({ method: 'POST', url: '/v1/brandkits/create', headers, payload: payload as object }),
    rename: (payload: unknown, headers: Headers = t().owner.headers) =>
      t().app.inject({ method: 'PUT', url: '/v1/brandkits', headers, payload: payload as object }),
    remove: (payload: unknown, headers: Headers = t().owner.headers) =>
      t().app.inject({ method: 'DELETE', url: '/v1/brandkits', headers, payload: payload as object }),
    /** Creates a kit as the caller and returns its id. */
    async kit(name: string, headers: Headers = t().owner.headers): Promise<number> {
      const res = await t().app.inject({ method: 'POST', url: '/v1/brandkits/create', headers, payload: { name } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response.brandKit.id;
    },
  };
}

function assertError(
  res: { statusCode: number; json(): { code: string; error: string } },
  status: number,
  code: string,
  error?: RegExp,
) {
  assert.equal(res.statusCode, status);
  assert.equal(res.json().code, code);
  if (error) assert.match(res.json().error, error);
}

describe('POST /v1/brandkits/create', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());
  const h = helpers(() => t);

  test('answers { response: { brandKit } } with the shape of SPEC §11 and stores the kit', async () => {
    const res = await h.create({ name: '  Spring campaign  ' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['response']);
    const kit = body.response.brandKit;
    assert.deepEqual(kit, {
      id: kit.id,
      name: 'Spring campaign',
      teamId: t.owner.teamId,
      createdBy: t.owner.userId,
      typography: [],
      colors: [],
      createdAt: kit.createdAt,
    });
    assert.ok(Number.isInteger(kit.id));
    assert.match(kit.createdAt, ISO_MS);

    const row = await t.runtime.db.kysely
      .selectFrom('brand_kits')
      .selectAll()
      .where('id', '=', kit.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, {
      id: kit.id,
      team_id: t.owner.teamId,
      name: 'Spring campaign',
      typography: '[]',
      colors: '[]',
      created_by: t.owner.userId,
      created_at: kit.createdAt,
      updated_at: kit.createdAt,
    });
  });

  test('an Editor may create a brand kit; a Viewer gets 403 FORBIDDEN', async () => {
    const editor = await t.userWith('Editor');
    const viewer = await t.userWith('Viewer');
    const made = await h.create({ name: 'By editor' }, editor.headers);
    assert.equal(made.statusCode, 200);
    assert.equal(made.json().response.brandKit.createdBy, editor.userId);
    assertError(await h.create({ name: 'By viewer' }, viewer.headers), 403, 'FORBIDDEN', /needs the Editor role/);
  });

  test('needs a bearer token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/brandkits/create', payload: { name: 'x' } });
    assertError(res, 401, 'UNAUTHENTICATED');
  });

  test('each bad body is a 400 VALIDATION_FAILED naming the field and the rule', async () => {
    const cases: [unknown, string][] = [
      [{}, 'name: is required'],
      [{ name: '' }, 'name: must not be empty or only spaces, received ""'],
      [{ name: '   ' }, 'name: must not be empty or only spaces, received "   "'],
      [{ name: 'x'.repeat(201) }, 'name: must be at most 200 characters long'],
      [{ name: 7 }, 'name: must be a string, received 7'],
      [{ name: 'ok', colour: 'red' }, 'colour: is not a known field (known fields: name)'],
    ];
    for (const [payload, error] of cases) {
      const res = await h.create(payload);
      assertError(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.json().error, error, JSON.stringify(payload));
    }
    const count = await t.runtime.db.kysely
      .selectFrom('brand_kits')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('name', '=', 'ok')
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });
});

describe('GET /v1/brandkits', () => {
  let t: TestApp;
  let other: Caller & { teamId: number };
  const ids: Record<string, number> = {};
  before(async () => {
    t = await startTestApp();
    other = await t.newTeam('Globex');
    const h = helpers(() => t);
    for (const name of ['Autumn', 'autumn sale', 'Winter', '100%_real']) ids[name] = await h.kit(name);
    ids.globex = await h.kit('Globex autumn', other.headers);
  });
  after(() => t.close());
  const h = helpers(() => t);

  test('answers { totalCount, nodes, pageInfo } with each node exactly, newest first', async () => {
    const res = await h.list();
    assert.equal(res.statusCode, 200);
    const body = res.json().response;
    assert.deepEqual(Object.keys(body).sort(), ['nodes', 'pageInfo', 'totalCount']);
    assert.equal(body.totalCount, 4);
    assert.equal(body.pageInfo.hasNextPage, false);
    assert.deepEqual(
      body.nodes.map((n: { id: number }) => n.id),
      [ids['100%_real'], ids.Winter, ids['autumn sale'], ids.Autumn],
    );
    const winter = body.nodes[1];
    assert.deepEqual(winter, {
      id: ids.Winter,
      name: 'Winter',
      teamId: t.owner.teamId,
      createdBy: t.owner.userId,
      createdAt: winter.createdAt,
      updatedAt: winter.createdAt,
      assetCount: 0,
      colors: [],
    });
    assert.match(winter.createdAt, ISO_MS);
  });

  test('keyword is a case-insensitive substring of the name; LIKE wildcards are plain characters', async () => {
    const names = async (query: string) =>
      (await h.list(query)).json().response.nodes.map((n: { name: string }) => n.name);
    assert.deepEqual(await names('?keyword=AUTUMN&orderBy=NAME&orderDirection=ASC'), ['Autumn', 'autumn sale']);
    assert.deepEqual(await names(`?keyword=${encodeURIComponent('0%_')}`), ['100%_real']);
    assert.deepEqual(await names('?keyword=_'), ['100%_real']);
    const none = (await h.list('?keyword=nothing')).json().response;
    assert.deepEqual(none, { totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: '' } });
  });

  test('pages with limit and cursor; totalCount counts the whole set', async () => {
    const first = (await h.list('?limit=3&orderBy=NAME&orderDirection=ASC')).json().response;
    assert.equal(first.totalCount, 4);
    assert.equal(first.pageInfo.hasNextPage, true);
    assert.deepEqual(
      first.nodes.map((n: { name: string }) => n.name),
      ['100%_real', 'Autumn', 'autumn sale'],
    );
    const second = (await h.list(`?limit=3&orderBy=NAME&orderDirection=ASC&cursor=${first.pageInfo.endCursor}`)).json()
      .response;
    assert.equal(second.totalCount, 4);
    assert.equal(second.pageInfo.hasNextPage, false);
    assert.deepEqual(
      second.nodes.map((n: { name: string }) => n.name),
      ['Winter'],
    );
  });

  test('a cursor of another query is 400 INVALID_CURSOR; limit over 100 is 400', async () => {
    const first = (await h.list('?limit=1')).json().response;
    assertError(await h.list(`?limit=1&keyword=a&cursor=${first.pageInfo.endCursor}`), 400, 'INVALID_CURSOR');
    assertError(await h.list('?cursor=nonsense!'), 400, 'INVALID_CURSOR');
    const big = await h.list('?limit=101');
    assertError(big, 400, 'VALIDATION_FAILED');
    assert.equal(big.json().error, 'limit (query): must be <= 100, received 101');
    assertError(await h.list('?orderBy=SIZE'), 400, 'VALIDATION_FAILED', /^orderBy \(query\): must be one of ID, NAME/);
  });

  test('every role of the team lists the kits; another team sees only its own', async () => {
    const viewer = await t.userWith('Viewer');
    assert.equal((await h.list('', viewer.headers)).json().response.totalCount, 4);
    const theirs = (await h.list('', other.headers)).json().response;
    assert.deepEqual(
      theirs.nodes.map((n: { id: number }) => n.id),
      [ids.globex],
    );
  });

  test('needs a bearer token', async () => {
    assertError(await t.app.inject({ method: 'GET', url: '/v1/brandkits' }), 401, 'UNAUTHENTICATED');
  });
});

describe('PUT /v1/brandkits', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());
  const h = helpers(() => t);

  test('renames the kit and answers { brandKit }; the list shows the new name', async () => {
    const id = await h.kit('Old name');
    const res = await h.rename({ brandkitId: id, name: ' New name ' });
    assert.equal(res.statusCode, 200);
    const kit = res.json().response.brandKit;
    assert.deepEqual(kit, {
      id,
      name: 'New name',
      teamId: t.owner.teamId,
      createdBy: t.owner.userId,
      typography: [],
      colors: [],
      createdAt: kit.createdAt,
    });
    const row = await t.runtime.db.kysely
      .selectFrom('brand_kits')
      .select(['name', 'created_at', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.name, 'New name');
    assert.ok(row.updated_at >= row.created_at);
  });

  test('an Editor may rename; a Viewer gets 403; another team gets 404 for every role', async () => {
    const id = await h.kit('Shared');
    const editor = await t.userWith('Editor');
    const viewer = await t.userWith('Viewer');
    assert.equal((await h.rename({ brandkitId: id, name: 'By editor' }, editor.headers)).statusCode, 200);
    assertError(
      await h.rename({ brandkitId: id, name: 'By viewer' }, viewer.headers),
      403,
      'FORBIDDEN',
      new RegExp(`^brand kit ${id}: this change needs the Editor role or a stronger one; the caller is Viewer$`),
    );

    const other = await t.newTeam('Globex');
    const otherViewer = await t.userWith('Viewer', other);
    for (const headers of [other.headers, otherViewer.headers]) {
      const res = await h.rename({ brandkitId: id, name: 'Stolen' }, headers);
      assertError(res, 404, 'NOT_FOUND');
      assert.equal(res.json().error, `brandkitId: brand kit ${id} does not exist in this team`);
    }
    const row = await t.runtime.db.kysely
      .selectFrom('brand_kits')
      .select('name')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.name, 'By editor');
  });

  test('an unknown id is 404; bad bodies are 400 naming the field', async () => {
    assertError(await h.rename({ brandkitId: 999999, name: 'x' }), 404, 'NOT_FOUND', /^brandkitId: brand kit 999999/);
    const cases: [unknown, RegExp][] = [
      [{ name: 'x' }, /^brandkitId: is required$/],
      [{ brandkitId: 1 }, /^name: is required$/],
      [{ brandkitId: '1', name: 'x' }, /^brandkitId: must be an integer, received "1"$/],
      [{ brandkitId: 0, name: 'x' }, /^brandkitId: must be >= 1, received 0$/],
      [{ brandkitId: 1, name: ' ' }, /^name: must not be empty or only spaces/],
    ];
    for (const [payload, error] of cases) assertError(await h.rename(payload), 400, 'VALIDATION_FAILED', error);
  });

  test('colors (extension) replace the palette: stored trimmed with lower-case hex, answered and listed', async () => {
    const id = await h.kit('Palette');
    const colors = [
      { name: ' Primary ', hex: '#1A73E8' },
      { name: 'Ink', hex: '#202124' },
    ];
    const res = await h.rename({ brandkitId: id, name: 'Palette', colors });
    assert.equal(res.statusCode, 200, res.body);
    const expected = [
      { name: 'Primary', hex: '#1a73e8' },
      { name: 'Ink', hex: '#202124' },
    ];
    assert.deepEqual(res.json().response.brandKit.colors, expected);
    const listed = (await h.list('?keyword=Palette')).json().response.nodes;
    assert.deepEqual(listed[0].colors, expected);
    const row = await t.runtime.db.kysely
      .selectFrom('brand_kits')
      .select('colors')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(row.colors), expected);
    // A rename without colors keeps them.
    const renamed = await h.rename({ brandkitId: id, name: 'Palette 2' });
    assert.deepEqual(renamed.json().response.brandKit.colors, expected);
  });

  test('bad colors are refused naming the entry and the rule, and change nothing', async () => {
    const id = await h.kit('Strict');
    await h.rename({ brandkitId: id, name: 'Strict', colors: [{ name: 'Keep', hex: '#000000' }] });
    const cases: [unknown, number, RegExp][] = [
      [[{ name: 'A', hex: 'red' }], 400, /^colors\[0\]\.hex: must be a colour as #rrggbb, received "red"$/],
      [[{ name: ' ', hex: '#000000' }], 400, /^colors\[0\]\.name: must not be empty or only spaces/],
      [[{ hex: '#000000' }], 400, /^colors\[0\]\.name: is required$/],
      [[{ name: 'A', hex: '#000000', alpha: 1 }], 400, /^colors\[0\]\.alpha: is not a known field/],
      [
        [
          { name: 'Brand', hex: '#000000' },
          { name: 'brand ', hex: '#ffffff' },
        ],
        422,
        /^colors\[1\]\.name: the kit already has a colour named "brand"$/,
      ],
    ];
    for (const [colors, status, error] of cases) {
      const res = await h.rename({ brandkitId: id, name: 'Changed', colors });
      assertError(res, status, status === 400 ? 'VALIDATION_FAILED' : 'UNPROCESSABLE', error);
    }
    const row = await t.runtime.db.kysely
      .selectFrom('brand_kits')
      .select(['name', 'colors'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { name: 'Strict', colors: JSON.stringify([{ name: 'Keep', hex: '#000000' }]) });
  });
});

describe('DELETE /v1/brandkits', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());
  const h = helpers(() => t);

  test('deletes an unused kit: { status: "success" }, then it is gone', async () => {
    const id = await h.kit('Unused');
    const res = await h.remove({ brandkitId: id });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { response: { status: 'success' } });
    const row = await t.runtime.db.kysely.selectFrom('brand_kits').select('id').where('id', '=', id).executeTakeFirst();
    assert.equal(row, undefined);
    assertError(await h.remove({ brandkitId: id }), 404, 'NOT_FOUND');
  });

  test('a kit that a project uses is 409 BRANDKIT_IN_USE and stays', async () => {
    const id = await h.kit('In use');
    // Rows written directly: this is the brand kit rule, whatever the projects API does.
    const db = t.runtime.db.kysely;
    const at = new Date().toISOString();
    const project = { team_id: t.owner.teamId, color: '#000000', description: null, created_by: t.owner.userId };
    const { id: projectId } = await db
      .insertInto('projects')
      .values({ ...project, name: 'Uses it', brand_kit_id: id, created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    const res = await h.remove({ brandkitId: id });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), {
      error: `brandkitId: brand kit ${id} is used by a project; assign another brand kit to them first (PUT /v1/projects with assignedBrandKitId)`,
      code: 'BRANDKIT_IN_USE',
      requestId: res.headers['x-request-id'],
    });
    await db
      .insertInto('projects')
      .values({ ...project, name: 'Uses it too', brand_kit_id: id, created_at: at, updated_at: at })
      .execute();
    assert.match((await h.remove({ brandkitId: id })).json().error, /is used by 2 projects;/);
    const row = await db.selectFrom('brand_kits').select('id').where('id', '=', id).executeTakeFirst();
    assert.deepEqual(row, { id });

    // Once no project uses it any more, the kit can go.
    await db.deleteFrom('projects').where('id', '=', projectId).execute();
    const replacement = await h.kit('Replacement');
    await db.updateTable('projects').set({ brand_kit_id: replacement }).where('brand_kit_id', '=', id).execute();
    assert.equal((await h.remove({ brandkitId: id })).statusCode, 200);
  });

  test('a Viewer gets 403; another team gets 404 for every role; an Editor may delete', async () => {
    const id = await h.kit('Guarded');
    const viewer = await t.userWith('Viewer');
    assertError(await h.remove({ brandkitId: id }, viewer.headers), 403, 'FORBIDDEN');
    const other = await t.newTeam('Globex');
    const otherViewer = await t.userWith('Viewer', other);
    assertError(await h.remove({ brandkitId: id }, other.headers), 404, 'NOT_FOUND');
    assertError(await h.remove({ brandkitId: id }, otherViewer.headers), 404, 'NOT_FOUND');
    const editor = await t.userWith('Editor');
    assert.equal((await h.remove({ brandkitId: id }, editor.headers)).statusCode, 200);
  });

  test('a missing or malformed brandkitId is 400 naming it', async () => {
    assertError(await h.remove({}), 400, 'VALIDATION_FAILED', /^brandkitId: is required$/);
    assertError(await h.remove({ brandkitId: 1.5 }), 400, 'VALIDATION_FAILED', /^brandkitId: must be an integer/);
    assertError(
      await h.remove({ brandkitId: 1, force: true }),
      400,
      'VALIDATION_FAILED',
      /^force: is not a known field/,
    );
  });
});
