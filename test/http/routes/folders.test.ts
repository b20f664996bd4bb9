// Folders (seed "Folders", SPEC §11 extensions): the seed's folder shape, children of a folder with the breadcrumb
// from the root, moves that never make a cycle or cross projects, deletion that keeps subfolders by moving them up,
// and visibility per role and team (404 for what the caller cannot see, 403 for a visible folder it may not change).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

type Headers = Caller['headers'];
type Response = { statusCode: number; body: string; json(): { code: string; error: string } };

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function assertError(res: Response, status: number, code: string, error?: RegExp | string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().code, code);
  if (typeof error === 'string') assert.equal(res.json().error, error);
  else if (error) assert.match(res.json().error, error);
}

describe('/v1/folders', () => {
  let t: TestApp;
  let kit: number;
  let other: Caller & { teamId: number };

  const list = (query: string, headers: Headers = t.owner.headers) =>
    t.app.inject({ method: 'GET', url: `/v1/folders${query}`, headers });
  const create = (payload: unknown, headers: Headers = t.owner.headers) =>
    t.app.inject({ method: 'POST', url: '/v1/folders', headers, payload: payload as object });
  const update = (payload: unknown, headers: Headers = t.owner.headers) =>
    t.app.inject({ method: 'PUT', url: '/v1/folders', headers, payload: payload as object });
  const remove = (payload: unknown, headers: Headers = t.owner.headers) =>
    t.app.inject({ method: 'DELETE', url: '/v1/folders', headers, payload: payload as object });

  async function project(name: string, headers: Headers = t.owner.headers, brandKitId = kit): Promise<number> {
    const res = await t.app.inject({ method: 'POST', url: '/v1/projects', headers, payload: { name, brandKitId } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response.project.id;
  }
  async function folder(projectId: number, name: string, parentId?: number, headers = t.owner.headers) {
    const res = await create({ projectId, name, ...(parentId !== undefined && { parentId }) }, headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response.folder.id as number;
  }
  async function join(projectId: number, userId: number) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/project/users',
      headers: t.owner.headers,
      payload: { projectId, userId },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  /** The tree of a project as parent id → child names, straight from the table. */
  async function tree(projectId: number): Promise<Record<string, string[]>> {
    const rows = await t.runtime.db.kysely
      .selectFrom('folders')
      .select(['parent_id', 'name'])
      .where('project_id', '=', projectId)
      .orderBy('name')
      .execute();
    const names = new Map<number, string>();
    for (const r of await t.runtime.db.kysely.selectFrom('folders').select(['id', 'name']).execute()) {
      names.set(r.id, r.name);
    }
    const out: Record<string, string[]> = {};
    for (const r of rows) {
      const key = r.parent_id === null ? '(root)' : names.get(r.parent_id)!;
      out[key] = [...(out[key] ?? []), r.name];
    }
    return out;
  }

  before(async () => {
    t = await startTestApp();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: t.owner.headers,
      payload: { name: 'Kit' },
    });
    kit = res.json().response.brandKit.id;
    other = await t.newTeam('Globex');
  });
  after(() => t.close());

  describe('POST /v1/folders', () => {
    test('answers { response: { folder } } with the seed shape and stores the folder', async () => {
      const projectId = await project('Create');
      const res = await create({ projectId, name: '  Banners  ' });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(Object.keys(body), ['response']);
      const folder = body.response.folder;
      assert.deepEqual(folder, {
        id: folder.id,
        name: 'Banners',
        parentId: null,
        createdByUser: { id: t.owner.userId, name: 'Acme Owner' },
        isParent: null,
        updatedAt: folder.createdAt,
        createdAt: folder.createdAt,
        updatedByUser: { id: t.owner.userId, name: 'Acme Owner' },
      });
      assert.match(folder.createdAt, ISO_MS);
      const row = await t.runtime.db.kysely
        .selectFrom('folders')
        .selectAll()
        .where('id', '=', folder.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, {
        id: folder.id,
        project_id: projectId,
        parent_id: null,
        name: 'Banners',
        created_by: t.owner.userId,
        updated_by: t.owner.userId,
        created_at: folder.createdAt,
        updated_at: folder.createdAt,
      });

      const child = await create({ projectId, name: 'Sub', parentId: folder.id });
      assert.equal(child.statusCode, 200);
      assert.equal(child.json().response.folder.parentId, folder.id);
    });

    test('a parent in another project of the team is 422 INVALID_MOVE; of another team, 404', async () => {
      const a = await project('A');
      const b = await project('B');
      const inB = await folder(b, 'In B');
      assertError(
        await create({ projectId: a, name: 'X', parentId: inB }),
        422,
        'INVALID_MOVE',
        `parentId: folder ${inB} belongs to project ${b}, not to project ${a}; a folder and its parent are always in the same project`,
      );
      const theirs = await folder(
        await project('Theirs', other.headers, await otherKit()),
        'Their folder',
        undefined,
        other.headers,
      );
      assertError(
        await create({ projectId: a, name: 'X', parentId: theirs }),
        404,
        'NOT_FOUND',
        `parentId: folder ${theirs} does not exist or is not visible to the caller`,
      );
      assertError(
        await create({ projectId: a, name: 'X', parentId: 999999 }),
        404,
        'NOT_FOUND',
        /^parentId: folder 999999/,
      );
      assert.deepEqual(await tree(a), {});
    });

    test('each bad body is a 400 VALIDATION_FAILED naming the field and the rule', async () => {
      const cases: [unknown, string | RegExp][] = [
        [{ name: 'x' }, 'projectId: is required'],
        [{ projectId: 1 }, 'name: is required'],
        [{ projectId: 1, name: '\t' }, 'name: must not be empty or only spaces, received "\\t"'],
        [{ projectId: 1, name: 'x'.repeat(201) }, 'name: must be at most 200 characters long'],
        [{ projectId: 1, name: 'x', parentId: -1 }, 'parentId: must be >= 1, received -1'],
        [{ projectId: 1, name: 'x', parent: 2 }, /^parent: is not a known field/],
      ];
      for (const [payload, error] of cases) assertError(await create(payload), 400, 'VALIDATION_FAILED', error);
    });
  });

  let otherKitId: number | undefined;
  async function otherKit(): Promise<number> {
    if (otherKitId) return otherKitId;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: other.headers,
      payload: { name: 'Their kit' },
    });
    otherKitId = res.json().response.brandKit.id as number;
    return otherKitId;
  }

  describe('GET /v1/folders', () => {
    test('lists the root folders by name with an empty path and rootFolderHash null', async () => {
      const projectId = await project('Listing');
      const zeta = await folder(projectId, 'zeta');
      const alpha = await folder(projectId, 'Alpha');
      await folder(projectId, 'Nested', alpha);
      const res = await list(`?projectId=${projectId}`);
      assert.equal(res.statusCode, 200);
      const body = res.json().response;
      assert.deepEqual(Object.keys(body).sort(), ['folders', 'path', 'rootFolderHash']);
      assert.deepEqual(
        body.folders.map((f: { id: number }) => f.id),
        [alpha, zeta],
      );
      assert.deepEqual(body.path, []);
      assert.equal(body.rootFolderHash, null);
      assert.deepEqual(Object.keys(body.folders[0]).sort(), [
        'createdAt',
        'createdByUser',
        'id',
        'isParent',
        'name',
        'parentId',
        'updatedAt',
        'updatedByUser',
      ]);
    });

    test('lists the children of parentId with the breadcrumb from the root to parentId', async () => {
      const projectId = await project('Breadcrumb');
      const a = await folder(projectId, 'A');
      const b = await folder(projectId, 'B', a);
      const c = await folder(projectId, 'C', b);
      const d1 = await folder(projectId, 'D1', c);
      const d2 = await folder(projectId, 'd2', c);
      const res = await list(`?projectId=${projectId}&parentId=${c}`);
      assert.equal(res.statusCode, 200);
      const body = res.json().response;
      assert.deepEqual(body.path, [
        { id: a, name: 'A' },
        { id: b, name: 'B' },
        { id: c, name: 'C' },
      ]);
      assert.deepEqual(
        body.folders.map((f: { id: number; parentId: number }) => [f.id, f.parentId]),
        [
          [d1, c],
          [d2, c],
        ],
      );
      const leaf = (await list(`?projectId=${projectId}&parentId=${d2}`)).json().response;
      assert.deepEqual(leaf.folders, []);
      assert.equal(leaf.path.length, 4);
    });

    test('a parentId outside the project is 404; bad query strings are 400', async () => {
      const projectId = await project('Strict');
      const elsewhere = await folder(await project('Elsewhere'), 'Elsewhere');
      assertError(
        await list(`?projectId=${projectId}&parentId=${elsewhere}`),
        404,
        'NOT_FOUND',
        `parentId: folder ${elsewhere} is not a folder of project ${projectId}`,
      );
      assertError(await list(''), 400, 'VALIDATION_FAILED', 'projectId (query): is required');
      assertError(
        await list('?projectId=abc'),
        400,
        'VALIDATION_FAILED',
        'projectId (query): must be an integer, received "abc"',
      );
      assertError(
        await list(`?projectId=${projectId}&parentId=0`),
        400,
        'VALIDATION_FAILED',
        /^parentId \(query\): must be >= 1/,
      );
      assertError(await list('?projectId=999999'), 404, 'NOT_FOUND', /^projectId: project 999999/);
    });
  });

  describe('PUT /v1/folders', () => {
    test('renames: the answer shows who changed it, the creator stays', async () => {
      const projectId = await project('Rename');
      const id = await folder(projectId, 'Old');
      const editor = await t.userWith('Editor');
      await join(projectId, editor.userId);
      const res = await update({ folderId: id, name: ' New ' }, editor.headers);
      assert.equal(res.statusCode, 200);
      const f = res.json().response.folder;
      assert.equal(f.name, 'New');
      assert.deepEqual(f.createdByUser, { id: t.owner.userId, name: 'Acme Owner' });
      assert.deepEqual(f.updatedByUser.id, editor.userId);
      assert.ok(f.updatedAt >= f.createdAt);
      // Without a change the folder is answered as it is.
      const same = await update({ folderId: id });
      assert.deepEqual(same.json().response.folder, f);
    });

    test('moves under another folder, and to the root with -1 or null', async () => {
      const projectId = await project('Move');
      const a = await folder(projectId, 'A');
      const b = await folder(projectId, 'B');
      const c = await folder(projectId, 'C', a);
      const moved = await update({ folderId: c, parentId: b });
      assert.equal(moved.statusCode, 200);
      assert.equal(moved.json().response.folder.parentId, b);
      assert.deepEqual(await tree(projectId), { '(root)': ['A', 'B'], B: ['C'] });
      assert.deepEqual(
        (await list(`?projectId=${projectId}&parentId=${b}`)).json().response.folders.map((f: { id: number }) => f.id),
        [c],
      );
      assert.equal((await update({ folderId: c, parentId: -1 })).json().response.folder.parentId, null);
      await update({ folderId: c, parentId: a });
      assert.equal((await update({ folderId: c, parentId: null })).json().response.folder.parentId, null);
      assert.deepEqual(await tree(projectId), { '(root)': ['A', 'B', 'C'] });
    });

    test('a move into the folder itself or its subtree is 422 INVALID_MOVE and changes nothing', async () => {
      const projectId = await project('Cycles');
      const a = await folder(projectId, 'A');
      const b = await folder(projectId, 'B', a);
      const c = await folder(projectId, 'C', b);
      for (const target of [a, b, c]) {
        assertError(
          await update({ folderId: a, parentId: target, name: 'Renamed' }),
          422,
          'INVALID_MOVE',
          `parentId: folder ${target} is folder ${a} itself or inside it; a folder cannot move into its own subtree`,
        );
      }
      assert.deepEqual(await tree(projectId), { '(root)': ['A'], A: ['B'], B: ['C'] });
      // Moving a descendant up above its ancestor is fine.
      assert.equal((await update({ folderId: c, parentId: a })).statusCode, 200);
      assert.equal((await update({ folderId: b, parentId: c })).statusCode, 200);
      assert.deepEqual(await tree(projectId), { '(root)': ['A'], A: ['C'], C: ['B'] });
    });

    test('two opposite moves at once: one succeeds, the other is 422, and no cycle appears', async () => {
      const projectId = await project('Race');
      const a = await folder(projectId, 'A');
      const b = await folder(projectId, 'B');
      const results = await Promise.all([update({ folderId: a, parentId: b }), update({ folderId: b, parentId: a })]);
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 422]);
      // Whichever move won, the other saw its result and was refused.
      const aMoved = results[0].statusCode === 200;
      assert.deepEqual(await tree(projectId), aMoved ? { '(root)': ['B'], B: ['A'] } : { '(root)': ['A'], A: ['B'] });
    });

    test('a parent in another project is 422 INVALID_MOVE; in another team, 404', async () => {
      const a = await project('Mine');
      const b = await project('Other of mine');
      const mine = await folder(a, 'Mine');
      const inB = await folder(b, 'In B');
      assertError(
        await update({ folderId: mine, parentId: inB }),
        422,
        'INVALID_MOVE',
        `parentId: folder ${inB} belongs to project ${b}, not to project ${a}; a folder and its parent are always in the same project`,
      );
      const theirs = await folder(
        await project('Theirs', other.headers, await otherKit()),
        'T',
        undefined,
        other.headers,
      );
      assertError(await update({ folderId: mine, parentId: theirs }), 404, 'NOT_FOUND', /^parentId: folder/);
      assertError(await update({ folderId: theirs, name: 'Mine now' }), 404, 'NOT_FOUND', /^folderId: folder/);
    });

    test('bad bodies are 400 naming the field', async () => {
      const cases: [unknown, string | RegExp][] = [
        [{ name: 'x' }, 'folderId: is required'],
        [{ folderId: 1, name: '' }, 'name: must not be empty or only spaces, received ""'],
        [{ folderId: 1, parentId: -2 }, /^parentId: /],
        [{ folderId: 1, parentId: 'root' }, /^parentId: /],
        [{ folderId: 1, projectId: 2 }, /^projectId: is not a known field/],
      ];
      for (const [payload, error] of cases) assertError(await update(payload), 400, 'VALIDATION_FAILED', error);
    });
  });

  describe('DELETE /v1/folders', () => {
    test('deletes the folder and moves its subfolders up to its parent', async () => {
      const projectId = await project('Delete');
      const a = await folder(projectId, 'A');
      const b = await folder(projectId, 'B', a);
      await folder(projectId, 'C1', b);
      await folder(projectId, 'C2', b);
      const res = await remove({ folderId: b });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { response: { status: 'success' } });
      assert.deepEqual(await tree(projectId), { '(root)': ['A'], A: ['C1', 'C2'] });
      // At the root, its subfolders become root folders.
      assert.equal((await remove({ folderId: a })).statusCode, 200);
      assert.deepEqual(await tree(projectId), { '(root)': ['C1', 'C2'] });
      assertError(
        await remove({ folderId: a }),
        404,
        'NOT_FOUND',
        `folderId: folder ${a} does not exist or is not visible to the caller`,
      );
    });

    test('bad bodies are 400 naming the field', async () => {
      assertError(await remove({}), 400, 'VALIDATION_FAILED', 'folderId: is required');
      assertError(
        await remove({ folderId: 'a' }),
        400,
        'VALIDATION_FAILED',
        'folderId: must be an integer, received "a"',
      );
    });
  });

  test('visibility before permission, per role and team', async () => {
    const projectId = await project('Roles');
    const id = await folder(projectId, 'Shared');
    const member = await t.userWith('Editor');
    const outsider = await t.userWith('Editor');
    const memberViewer = await t.userWith('Viewer');
    const outsiderViewer = await t.userWith('Viewer');
    const admin = await t.userWith('Admin');
    await join(projectId, member.userId);
    await join(projectId, memberViewer.userId);
    const otherViewer = await t.userWith('Viewer', other);

    // What a caller cannot see is a 404, whatever its role.
    for (const caller of [outsider, outsiderViewer, other, otherViewer]) {
      const projectNotFound = `projectId: project ${projectId} does not exist or is not visible to the caller`;
      const folderNotFound = `folderId: folder ${id} does not exist or is not visible to the caller`;
      assertError(await list(`?projectId=${projectId}`, caller.headers), 404, 'NOT_FOUND', projectNotFound);
      assertError(await create({ projectId, name: 'X' }, caller.headers), 404, 'NOT_FOUND', projectNotFound);
      assertError(await update({ folderId: id, name: 'X' }, caller.headers), 404, 'NOT_FOUND', folderNotFound);
      assertError(await remove({ folderId: id }, caller.headers), 404, 'NOT_FOUND', folderNotFound);
    }

    // A Viewer of the project reads its folders but changes nothing.
    assert.equal((await list(`?projectId=${projectId}&parentId=${id}`, memberViewer.headers)).statusCode, 200);
    const forbidden = /this change needs the Editor role or a stronger one; the caller is Viewer$/;
    assertError(await create({ projectId, name: 'X' }, memberViewer.headers), 403, 'FORBIDDEN', forbidden);
    assertError(await update({ folderId: id, name: 'X' }, memberViewer.headers), 403, 'FORBIDDEN', forbidden);
    assertError(await remove({ folderId: id }, memberViewer.headers), 403, 'FORBIDDEN', forbidden);

    // An Editor of the project, and an Admin (who sees every project of the team), may change them.
    const made = await folder(projectId, 'By member', id, member.headers);
    assert.equal((await update({ folderId: made, name: 'Renamed by admin' }, admin.headers)).statusCode, 200);
    assert.equal((await remove({ folderId: made }, member.headers)).statusCode, 200);
    assert.deepEqual(await tree(projectId), { '(root)': ['Shared'] });

    for (const res of [
      await t.app.inject({ method: 'GET', url: `/v1/folders?projectId=${projectId}` }),
      await t.app.inject({ method: 'POST', url: '/v1/folders', payload: { projectId, name: 'X' } }),
    ]) {
      assertError(res, 401, 'UNAUTHENTICATED');
    }
  });
});
