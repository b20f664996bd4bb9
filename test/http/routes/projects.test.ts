// Projects (seed "Projects", SPEC §2 and §11): shapes of the list and of create/update, visibility per role and per
// team (404 for what the caller cannot see, 403 for a visible project the role may not change), keyset paging over
// ties, brand kit rules, and the project/create and project/delete events.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

type Headers = Caller['headers'];
type Response = { statusCode: number; body: string; json(): { code: string; error: string } };

function assertError(res: Response, status: number, code: string, error?: RegExp | string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().code, code);
  if (typeof error === 'string') assert.equal(res.json().error, error);
  else if (error) assert.match(res.json().error, error);
}

function helpers(t: () => TestApp) {
  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Headers, payload?: unknown) =>
    t().app.inject({ method, url, headers, ...(payload !== undefined && { payload: payload as object }) });
  return {
    list: (query = '', headers: Headers = t().owner.headers) => inject('GET', `/v1/projects${query}`, headers),
    create: (payload: unknown, headers: Headers = t().owner.headers) =>
      inject('POST', '/v1/projects', headers, payload),
    update: (payload: unknown, headers: Headers = t().owner.headers) => inject('PUT', '/v1/projects', headers, payload),
    remove: (payload: unknown, headers: Headers = t().owner.headers) =>
      inject('DELETE', '/v1/projects', headers, payload),
    async kit(name: string, headers: Headers = t().owner.headers): Promise<number> {
      const res = await inject('POST', '/v1/brandkits/create', headers, { name });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response.brandKit.id;
    },
    async project(name: string, brandKitId: number, headers: Headers = t().owner.headers): Promise<number> {
      const res = await inject('POST', '/v1/projects', headers, { name, brandKitId });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response.project.id;
    },
    async join(projectId: number, userId: number) {
      const res = await inject('POST', '/v1/project/users', t().owner.headers, { projectId, userId });
      assert.equal(res.statusCode, 200, res.body);
    },
    async events(teamId: number, action: string) {
      const rows = await t()
        .runtime.db.kysely.selectFrom('events_outbox')
        .select('payload')
        .where('team_id', '=', teamId)
        .where('action', '=', action)
        .execute();
      return rows.map((r) => JSON.parse(r.payload));
    },
  };
}

const ids = (res: { json(): { response: { nodes: { id: number }[] } } }) => res.json().response.nodes.map((n) => n.id);

describe('POST /v1/projects', () => {
  let t: TestApp;
  let kit: number;
  before(async () => {
    t = await startTestApp();
    kit = await helpers(() => t).kit('House style');
  });
  after(() => t.close());
  const h = helpers(() => t);

  test('answers { response: { project } } with the seed shape, a random colour, and its creator as a user', async () => {
    const res = await h.create({ name: '  Summer  ', brandKitId: kit });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['response']);
    const project = body.response.project;
    assert.deepEqual(project, {
      id: project.id,
      teamId: t.owner.teamId,
      name: 'Summer',
      createdBy: t.owner.userId,
      color: project.color,
      description: null,
      brandKit: { id: kit, name: 'House style', teamId: t.owner.teamId, createdBy: t.owner.userId, typography: [] },
    });
    assert.match(project.color, /^#[0-9A-F]{6}$/);

    const db = t.runtime.db.kysely;
    const row = await db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...row, created_at: '', updated_at: '' },
      {
        id: project.id,
        team_id: t.owner.teamId,
        name: 'Summer',
        color: project.color,
        description: null,
        brand_kit_id: kit,
        is_brand_kit_selectable: 0,
        created_by: t.owner.userId,
        created_at: '',
        updated_at: '',
      },
    );
    const members = await db
      .selectFrom('project_users')
      .select('user_id')
      .where('project_id', '=', project.id)
      .execute();
    assert.deepEqual(members, [{ user_id: t.owner.userId }]);

    const [event] = (await h.events(t.owner.teamId, 'project/create')).filter((e) => e.data.project.id === project.id);
    assert.deepEqual(event.data, { project });
  });

  test('takes a colour and a description', async () => {
    const res = await h.create({ name: 'Autumn', brandKitId: kit, color: '#1e40af', description: 'Q3 banners' });
    assert.equal(res.statusCode, 200);
    const { color, description } = res.json().response.project;
    assert.deepEqual({ color, description }, { color: '#1e40af', description: 'Q3 banners' });
  });

  test('a brand kit of another team, or none, is 404 naming brandKitId, for every role', async () => {
    const other = await t.newTeam('Globex');
    const theirs = await h.kit('Theirs', other.headers);
    const viewer = await t.userWith('Viewer');
    for (const headers of [t.owner.headers, viewer.headers]) {
      const res = await h.create({ name: 'X', brandKitId: theirs }, headers);
      assertError(res, 404, 'NOT_FOUND', `brandKitId: brand kit ${theirs} does not exist in this team`);
    }
    assertError(await h.create({ name: 'X', brandKitId: 999999 }), 404, 'NOT_FOUND', /^brandKitId: brand kit 999999/);
    const count = await t.runtime.db.kysely
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('name', '=', 'X')
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });

  test('an Editor creates and then sees its project; a Viewer gets 403', async () => {
    const editor = await t.userWith('Editor');
    const viewer = await t.userWith('Viewer');
    const id = await h.project('Editor made', kit, editor.headers);
    assert.deepEqual(ids(await h.list('', editor.headers)), [id]);
    assertError(
      await h.create({ name: 'Viewer made', brandKitId: kit }, viewer.headers),
      403,
      'FORBIDDEN',
      'creating a project: this change needs the Editor role or a stronger one; the caller is Viewer',
    );
  });

  test('each bad body is a 400 VALIDATION_FAILED naming the field and the rule', async () => {
    const cases: [unknown, string][] = [
      [{ brandKitId: kit }, 'name: is required'],
      [{ name: 'x' }, 'brandKitId: is required'],
      [{ name: ' ', brandKitId: kit }, 'name: must not be empty or only spaces, received " "'],
      [{ name: 'x'.repeat(201), brandKitId: kit }, 'name: must be at most 200 characters long'],
      [{ name: 'x', brandKitId: String(kit) }, `brandKitId: must be an integer, received "${kit}"`],
      [{ name: 'x', brandKitId: -1 }, 'brandKitId: must be >= 1, received -1'],
      [{ name: 'x', brandKitId: kit, color: 'red' }, 'color: must be a hex colour such as #1E40AF, received "red"'],
      [
        { name: 'x', brandKitId: kit, description: 'd'.repeat(2001) },
        // The nullable field also reports "must be null" in details; the sentence names the rule that matters.
        'description: must be at most 2000 characters long (and 1 more problem(s), see details)',
      ],
      [
        { name: 'x', brandKitId: kit, brandKit: 1 },
        'brandKit: is not a known field (known fields: name, brandKitId, color, description)',
      ],
    ];
    for (const [payload, error] of cases) {
      assertError(await h.create(payload), 400, 'VALIDATION_FAILED', error);
    }
  });

  test('needs a bearer token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/projects', payload: { name: 'x', brandKitId: kit } });
    assertError(res, 401, 'UNAUTHENTICATED');
  });
});

describe('GET /v1/projects', () => {
  let t: TestApp;
  let kit: number;
  let editor: Caller;
  let viewer: Caller;
  let other: Caller & { teamId: number };
  const p: Record<string, number> = {};
  before(async () => {
    t = await startTestApp();
    const h = helpers(() => t);
    kit = await h.kit('Kit');
    editor = await t.userWith('Editor');
    viewer = await t.userWith('Viewer');
    other = await t.newTeam('Globex');
    p.alpha = await h.project('Alpha launch', kit);
    p.beta = await h.project('Beta', kit);
    p.gamma = await h.project('gamma LAUNCH', kit, editor.headers);
    p.globex = await h.project('Globex launch', await h.kit('Theirs', other.headers), other.headers);
    await h.join(p.beta, viewer.userId);
    await h.join(p.beta, editor.userId);
  });
  after(() => t.close());
  const h = helpers(() => t);

  test('answers { totalCount, nodes, pageInfo }: each node as the seed lists it, color null, newest first', async () => {
    const res = await h.list();
    assert.equal(res.statusCode, 200);
    const body = res.json().response;
    assert.deepEqual(Object.keys(body).sort(), ['nodes', 'pageInfo', 'totalCount']);
    assert.equal(body.totalCount, 3);
    assert.equal(body.pageInfo.hasNextPage, false);
    assert.deepEqual(ids(res), [p.gamma, p.beta, p.alpha]);
    assert.deepEqual(body.nodes[1], {
      id: p.beta,
      name: 'Beta',
      createdBy: t.owner.userId,
      color: null,
      description: null,
      brandKit: { id: kit, name: 'Kit' },
    });
  });

  test('Owners and Admins see every project; Editors and Viewers only those they are users of', async () => {
    const admin = await t.userWith('Admin');
    assert.deepEqual(ids(await h.list('', admin.headers)), [p.gamma, p.beta, p.alpha]);
    assert.deepEqual(ids(await h.list('', editor.headers)), [p.gamma, p.beta]);
    assert.deepEqual(ids(await h.list('', viewer.headers)), [p.beta]);
    const stranger = await t.userWith('Editor');
    assert.deepEqual((await h.list('', stranger.headers)).json().response, {
      totalCount: 0,
      nodes: [],
      pageInfo: { hasNextPage: false, endCursor: '' },
    });
  });

  test('another team sees only its own projects', async () => {
    assert.deepEqual(ids(await h.list('', other.headers)), [p.globex]);
  });

  test('keyword is a case-insensitive substring of the name, within what the caller sees', async () => {
    const launch = await h.list('?keyword=Launch');
    assert.equal(launch.json().response.totalCount, 2);
    assert.deepEqual(ids(launch), [p.gamma, p.alpha]);
    assert.deepEqual(ids(await h.list('?keyword=launch', viewer.headers)), []);
    assert.deepEqual(ids(await h.list(`?keyword=${encodeURIComponent('%')}`)), []);
  });

  test('bad paging parameters are 400 naming them', async () => {
    assertError(await h.list('?limit=0'), 400, 'VALIDATION_FAILED', 'limit (query): must be >= 1, received 0');
    assertError(await h.list('?limit=101'), 400, 'VALIDATION_FAILED', 'limit (query): must be <= 100, received 101');
    assertError(
      await h.list('?orderDirection=UP'),
      400,
      'VALIDATION_FAILED',
      /^orderDirection \(query\): must be one of ASC, DESC/,
    );
    assertError(await h.list('?cursor=%%%'), 400, 'INVALID_CURSOR');
    const first = (await h.list('?limit=1')).json().response;
    assertError(await h.list(`?limit=1&orderBy=NAME&cursor=${first.pageInfo.endCursor}`), 400, 'INVALID_CURSOR');
    // A cursor is bound to the query, not to the caller's view: the same query by a Viewer accepts it.
    assert.equal((await h.list(`?limit=1&cursor=${first.pageInfo.endCursor}`, viewer.headers)).statusCode, 200);
  });

  test('needs a bearer token', async () => {
    assertError(await t.app.inject({ method: 'GET', url: '/v1/projects' }), 401, 'UNAUTHENTICATED');
  });
});

describe('GET /v1/projects paging over ties', () => {
  let t: TestApp;
  interface Row {
    id: number;
    name: string;
    created_at: string;
    updated_at: string;
  }
  let rows: Row[] = [];
  before(async () => {
    t = await startTestApp();
    const h = helpers(() => t);
    const kit = await h.kit('Kit');
    // Equal names (in any case) and equal timestamps, so that only the id can order them.
    const names = ['Same', 'same', 'SAME', 'Other', 'other', 'Same', 'Zed', 'same'];
    for (const name of names) await h.project(name, kit);
    const db = t.runtime.db.kysely;
    const all = await db.selectFrom('projects').select('id').orderBy('id').execute();
    for (const [i, { id }] of all.entries()) {
      await db
        .updateTable('projects')
        .set({ created_at: `2025-01-0${1 + (i % 2)}T00:00:00.000Z`, updated_at: '2025-02-01T00:00:00.000Z' })
        .where('id', '=', id)
        .execute();
    }
    rows = await db.selectFrom('projects').select(['id', 'name', 'created_at', 'updated_at']).execute();
  });
  after(() => t.close());
  const h = helpers(() => t);

  function expected(orderBy: 'ID' | 'NAME' | 'CREATED_AT' | 'UPDATED_AT', direction: 'ASC' | 'DESC'): number[] {
    const key = (r: Row) =>
      orderBy === 'ID'
        ? r.id
        : orderBy === 'NAME'
          ? r.name.toLowerCase()
          : orderBy === 'CREATED_AT'
            ? r.created_at
            : r.updated_at;
    const sign = direction === 'ASC' ? 1 : -1;
    return [...rows]
      .sort((a, b) => {
        const ka = key(a);
        const kb = key(b);
        return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * sign;
      })
      .map((r) => r.id);
  }

  for (const orderBy of ['ID', 'NAME', 'CREATED_AT', 'UPDATED_AT'] as const) {
    for (const direction of ['ASC', 'DESC'] as const) {
      test(`${orderBy} ${direction}: every project exactly once, in order, pages of 3`, async () => {
        const seen: number[] = [];
        let cursor = '';
        for (let page = 0; page < 10; page++) {
          const query = `?limit=3&orderBy=${orderBy}&orderDirection=${direction}${cursor && `&cursor=${cursor}`}`;
          const body = (await h.list(query)).json().response;
          assert.equal(body.totalCount, rows.length);
          seen.push(...body.nodes.map((n: { id: number }) => n.id));
          assert.equal(body.pageInfo.hasNextPage, seen.length < rows.length);
          if (!body.pageInfo.hasNextPage) break;
          cursor = body.pageInfo.endCursor;
        }
        assert.deepEqual(seen, expected(orderBy, direction));
      });
    }
  }
});

describe('PUT /v1/projects', () => {
  let t: TestApp;
  let kit: number;
  let other: Caller & { teamId: number };
  before(async () => {
    t = await startTestApp();
    kit = await helpers(() => t).kit('First kit');
    other = await t.newTeam('Globex');
  });
  after(() => t.close());
  const h = helpers(() => t);

  test('renames, changes the brand kit, colour and description; answers the project with its new kit', async () => {
    const id = await h.project('Before', kit);
    const second = await h.kit('Second kit');
    const res = await h.update({
      projectId: id,
      name: ' After ',
      assignedBrandKitId: second,
      isBrandKitSelectable: true,
      color: '#ABCDEF',
      description: 'now described',
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().response.project, {
      id,
      teamId: t.owner.teamId,
      name: 'After',
      createdBy: t.owner.userId,
      color: '#ABCDEF',
      description: 'now described',
      brandKit: { id: second, name: 'Second kit', teamId: t.owner.teamId, createdBy: t.owner.userId, typography: [] },
    });
    const row = await t.runtime.db.kysely
      .selectFrom('projects')
      .select(['name', 'brand_kit_id', 'is_brand_kit_selectable', 'color', 'description'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, {
      name: 'After',
      brand_kit_id: second,
      is_brand_kit_selectable: 1,
      color: '#ABCDEF',
      description: 'now described',
    });
    const node = (await h.list()).json().response.nodes.find((n: { id: number }) => n.id === id);
    assert.deepEqual(node.brandKit, { id: second, name: 'Second kit' });
  });

  test('only the fields given change; description null clears it', async () => {
    const res0 = await h.create({ name: 'Keep', brandKitId: kit, color: '#111111', description: 'text' });
    const id = res0.json().response.project.id;
    const res = await h.update({ projectId: id, isBrandKitSelectable: false, description: null });
    assert.equal(res.statusCode, 200);
    const project = res.json().response.project;
    assert.deepEqual(
      { name: project.name, color: project.color, description: project.description, kit: project.brandKit.id },
      { name: 'Keep', color: '#111111', description: null, kit },
    );
  });

  test('visibility before permission: 404 for what the caller cannot see, 403 for a visible project', async () => {
    const id = await h.project('Guarded', kit);
    const member = await t.userWith('Editor');
    const outsider = await t.userWith('Editor');
    const memberViewer = await t.userWith('Viewer');
    const outsiderViewer = await t.userWith('Viewer');
    const admin = await t.userWith('Admin');
    await h.join(id, member.userId);
    await h.join(id, memberViewer.userId);
    const otherViewer = await t.userWith('Viewer', other);

    const notFound = `projectId: project ${id} does not exist or is not visible to the caller`;
    for (const caller of [outsider, outsiderViewer, other, otherViewer]) {
      assertError(await h.update({ projectId: id, name: 'Nope' }, caller.headers), 404, 'NOT_FOUND', notFound);
    }
    assertError(
      await h.update({ projectId: id, name: 'Nope' }, memberViewer.headers),
      403,
      'FORBIDDEN',
      `project ${id}: this change needs the Editor role or a stronger one; the caller is Viewer`,
    );
    assert.equal((await h.update({ projectId: id, name: 'By member' }, member.headers)).statusCode, 200);
    assert.equal((await h.update({ projectId: id, name: 'By admin' }, admin.headers)).statusCode, 200);
    const row = await t.runtime.db.kysely
      .selectFrom('projects')
      .select('name')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.name, 'By admin');
  });

  test('a brand kit of another team is 404 naming assignedBrandKitId and changes nothing', async () => {
    const id = await h.project('Kit guarded', kit);
    const theirs = await h.kit('Theirs', other.headers);
    assertError(
      await h.update({ projectId: id, assignedBrandKitId: theirs, name: 'Changed' }),
      404,
      'NOT_FOUND',
      `assignedBrandKitId: brand kit ${theirs} does not exist in this team`,
    );
    const row = await t.runtime.db.kysely
      .selectFrom('projects')
      .select(['name', 'brand_kit_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { name: 'Kit guarded', brand_kit_id: kit });
  });

  test('an unknown project is 404; bad bodies are 400 naming the field', async () => {
    assertError(await h.update({ projectId: 999999 }), 404, 'NOT_FOUND', /^projectId: project 999999/);
    const cases: [unknown, string][] = [
      [{ name: 'x' }, 'projectId: is required'],
      [
        { projectId: 1, isBrandKitSelectable: 'yes' },
        'isBrandKitSelectable: must be a boolean (true or false), received "yes"',
      ],
      [{ projectId: 1, assignedBrandKitId: 0 }, 'assignedBrandKitId: must be >= 1, received 0'],
      [{ projectId: 1, name: '' }, 'name: must not be empty or only spaces, received ""'],
      [{ projectId: 1, brandKitId: 2 }, /^brandKitId: is not a known field/.source],
    ];
    for (const [payload, error] of cases) {
      const res = await h.update(payload);
      assertError(res, 400, 'VALIDATION_FAILED', error.startsWith('^') ? new RegExp(error) : error);
    }
  });
});

describe('DELETE /v1/projects', () => {
  let t: TestApp;
  let kit: number;
  before(async () => {
    t = await startTestApp();
    kit = await helpers(() => t).kit('Kit');
  });
  after(() => t.close());
  const h = helpers(() => t);

  test('removes the project with its folders and users, records project/delete, answers success', async () => {
    const id = await h.project('Doomed', kit);
    const keep = await h.project('Kept', kit);
    const db = t.runtime.db.kysely;
    // Rows written directly: this is the project rule, whatever the folders API does.
    const folder = async (projectId: number, name: string, parentId: number | null) => {
      const at = new Date().toISOString();
      const by = t.owner.userId;
      const row = await db
        .insertInto('folders')
        .values({
          project_id: projectId,
          parent_id: parentId,
          name,
          created_by: by,
          updated_by: by,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    };
    const root = await folder(id, 'Root', null);
    await folder(id, 'Child', await folder(id, 'Middle', root));
    const kept = await folder(keep, 'Kept folder', null);
    const viewer = await t.userWith('Viewer');
    await h.join(id, viewer.userId);
    const before = (await h.update({ projectId: id })).json().response.project;

    const res = await h.remove({ projectId: id });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { response: { status: 'success' } });

    assert.equal(await db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst(), undefined);
    assert.deepEqual(await db.selectFrom('folders').select('project_id').where('project_id', '=', id).execute(), []);
    assert.deepEqual(await db.selectFrom('project_users').select('user_id').where('project_id', '=', id).execute(), []);
    assert.deepEqual(
      (await db.selectFrom('folders').select('id').where('project_id', '=', keep).execute()).map((r) => r.id),
      [kept],
    );
    const events = await h.events(t.owner.teamId, 'project/delete');
    assert.deepEqual(
      events.map((e) => e.data),
      [{ project: before }],
    );
    assertError(await h.remove({ projectId: id }), 404, 'NOT_FOUND');
    assertError(await h.update({ projectId: id, name: 'ghost' }), 404, 'NOT_FOUND');
  });

  test('visibility before permission: 404 for outsiders and other teams, 403 for a Viewer of the project', async () => {
    const id = await h.project('Guarded', kit);
    const member = await t.userWith('Editor');
    const outsider = await t.userWith('Editor');
    const memberViewer = await t.userWith('Viewer');
    await h.join(id, member.userId);
    await h.join(id, memberViewer.userId);
    const other = await t.newTeam('Globex');
    for (const caller of [outsider, other, await t.userWith('Viewer', other)]) {
      assertError(await h.remove({ projectId: id }, caller.headers), 404, 'NOT_FOUND');
    }
    assertError(await h.remove({ projectId: id }, memberViewer.headers), 403, 'FORBIDDEN');
    assert.equal((await h.remove({ projectId: id }, member.headers)).statusCode, 200);
  });

  test('a missing or malformed projectId is 400 naming it; no token is 401', async () => {
    assertError(await h.remove({}), 400, 'VALIDATION_FAILED', 'projectId: is required');
    assertError(
      await h.remove({ projectId: 'one' }),
      400,
      'VALIDATION_FAILED',
      'projectId: must be an integer, received "one"',
    );
    const res = await t.app.inject({ method: 'DELETE', url: '/v1/projects', payload: { projectId: 1 } });
    assertError(res, 401, 'UNAUTHENTICATED');
  });
});
