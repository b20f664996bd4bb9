// Project users (seed "Project users", SPEC §2 and §11): the seed's shape with the team role, adding twice changes
// nothing, a user of another team is a 404, and membership is what makes a project visible to Editors and Viewers.
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

describe('/v1/project/users', () => {
  let t: TestApp;
  let kit: number;
  let other: Caller & { teamId: number };

  const list = (projectId: number | string, headers: Headers = t.owner.headers) =>
    t.app.inject({ method: 'GET', url: `/v1/project/users?projectId=${projectId}`, headers });
  const add = (payload: unknown, headers: Headers = t.owner.headers) =>
    t.app.inject({ method: 'POST', url: '/v1/project/users', headers, payload: payload as object });
  const remove = (payload: unknown, headers: Headers = t.owner.headers) =>
    t.app.inject({ method: 'DELETE', url: '/v1/project/users', headers, payload: payload as object });
  async function project(name: string, headers: Headers = t.owner.headers): Promise<number> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers,
      payload: { name, brandKitId: kit },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response.project.id;
  }
  const userIds = async (projectId: number) =>
    (await list(projectId)).json().response.map((u: { userId: number }) => u.userId);

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

  test('GET answers { response: [project user] } with the seed shape, the team role by name, by name', async () => {
    const id = await project('Listed');
    const editor = await t.userWith('Editor');
    assert.equal((await add({ projectId: id, userId: editor.userId })).statusCode, 200);
    const res = await list(id);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['response']);
    const [owner, ed] = body.response;
    assert.deepEqual(
      { ...owner, profilePicture: '' },
      {
        userId: t.owner.userId,
        teamId: t.owner.teamId,
        name: 'Acme Owner',
        url: null,
        email: t.owner.email,
        profilePicture: '',
        role: 'Owner',
        teamRoleId: 1,
      },
    );
    // The same picture GET /v1/users shows.
    const team = (await t.app.inject({ method: 'GET', url: '/v1/users', headers: t.owner.headers })).json().response;
    const teamOwner = team.nodes.find((n: { id: number }) => n.id === t.owner.userId);
    assert.equal(owner.profilePicture, teamOwner.profilePicture);
    assert.deepEqual(
      { userId: ed.userId, role: ed.role, teamRoleId: ed.teamRoleId, email: ed.email },
      { userId: editor.userId, role: 'Editor', teamRoleId: 3, email: editor.email },
    );
    // Sorted by name: "Acme Owner" before "Editor n".
    assert.deepEqual(
      body.response.map((u: { userId: number }) => u.userId),
      [t.owner.userId, editor.userId],
    );
  });

  test('adding a user twice is a success and changes nothing', async () => {
    const id = await project('Twice');
    const viewer = await t.userWith('Viewer');
    for (let i = 0; i < 2; i++) {
      const res = await add({ projectId: id, userId: viewer.userId });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { response: { status: 'success' } });
    }
    const rows = await t.runtime.db.kysely
      .selectFrom('project_users')
      .select('user_id')
      .where('project_id', '=', id)
      .orderBy('user_id')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.user_id),
      [t.owner.userId, viewer.userId].sort((a, b) => a - b),
    );
  });

  test('membership makes the project visible to Editors and Viewers; removal hides it again', async () => {
    const id = await project('Members only');
    const viewer = await t.userWith('Viewer');
    const projects = async () =>
      (await t.app.inject({ method: 'GET', url: '/v1/projects', headers: viewer.headers }))
        .json()
        .response.nodes.map((n: { id: number }) => n.id);
    assertError(await list(id, viewer.headers), 404, 'NOT_FOUND');
    assert.deepEqual(await projects(), []);

    await add({ projectId: id, userId: viewer.userId });
    assert.deepEqual(await projects(), [id]);
    assert.equal((await list(id, viewer.headers)).statusCode, 200);

    const res = await remove({ projectId: id, userId: viewer.userId });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { response: { status: 'success' } });
    assert.deepEqual(await projects(), []);
    assert.deepEqual(await userIds(id), [t.owner.userId]);
    // Removing somebody who is not a user of the project is a success too, and changes nothing.
    assert.equal((await remove({ projectId: id, userId: viewer.userId })).statusCode, 200);
  });

  test('a user of another team, or no user, is a 404 naming userId', async () => {
    const id = await project('Closed');
    for (const send of [add, remove]) {
      assertError(
        await send({ projectId: id, userId: other.userId }),
        404,
        'NOT_FOUND',
        `userId: user ${other.userId} does not exist in this team`,
      );
      assertError(await send({ projectId: id, userId: 999999 }), 404, 'NOT_FOUND', /^userId: user 999999/);
    }
    assert.deepEqual(await userIds(id), [t.owner.userId]);
  });

  test('a deleted team user is not listed and cannot be added', async () => {
    const id = await project('Departures');
    const leaver = await t.userWith('Editor');
    await add({ projectId: id, userId: leaver.userId });
    const gone = await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: leaver.email },
    });
    assert.equal(gone.statusCode, 200);
    assert.deepEqual(await userIds(id), [t.owner.userId]);
    assertError(await add({ projectId: id, userId: leaver.userId }), 404, 'NOT_FOUND');
  });

  test('visibility before permission: 404 for outsiders and other teams, 403 for a Viewer of the project', async () => {
    const id = await project('Guarded');
    const member = await t.userWith('Editor');
    const outsider = await t.userWith('Editor');
    const memberViewer = await t.userWith('Viewer');
    const newcomer = await t.userWith('Viewer');
    await add({ projectId: id, userId: member.userId });
    await add({ projectId: id, userId: memberViewer.userId });
    const otherViewer = await t.userWith('Viewer', other);

    const notFound = `projectId: project ${id} does not exist or is not visible to the caller`;
    for (const caller of [outsider, other, otherViewer]) {
      assertError(await list(id, caller.headers), 404, 'NOT_FOUND', notFound);
      assertError(await add({ projectId: id, userId: newcomer.userId }, caller.headers), 404, 'NOT_FOUND', notFound);
      assertError(await remove({ projectId: id, userId: member.userId }, caller.headers), 404, 'NOT_FOUND', notFound);
    }
    // A Viewer of the project reads its users but may not change them.
    assert.equal((await list(id, memberViewer.headers)).statusCode, 200);
    for (const send of [add, remove]) {
      assertError(
        await send({ projectId: id, userId: newcomer.userId }, memberViewer.headers),
        403,
        'FORBIDDEN',
        `project ${id}: this change needs the Editor role or a stronger one; the caller is Viewer`,
      );
    }
    // An Editor of the project may add users; an Admin may, without being a user of it.
    assert.equal((await add({ projectId: id, userId: newcomer.userId }, member.headers)).statusCode, 200);
    const admin = await t.userWith('Admin');
    assert.equal((await remove({ projectId: id, userId: newcomer.userId }, admin.headers)).statusCode, 200);
    assert.deepEqual((await userIds(id)).sort(), [t.owner.userId, member.userId, memberViewer.userId].sort());
  });

  test('bad queries and bodies are 400 naming the field; no token is 401', async () => {
    assertError(await list('abc'), 400, 'VALIDATION_FAILED', 'projectId (query): must be an integer, received "abc"');
    assertError(
      await t.app.inject({ method: 'GET', url: '/v1/project/users', headers: t.owner.headers }),
      400,
      'VALIDATION_FAILED',
      'projectId (query): is required',
    );
    assertError(await add({ projectId: 1 }), 400, 'VALIDATION_FAILED', 'userId: is required');
    assertError(
      await add({ userId: 1, projectId: 1, role: 'Editor' }),
      400,
      'VALIDATION_FAILED',
      /^role: is not a known field/,
    );
    assertError(
      await remove({ userId: '1', projectId: 1 }),
      400,
      'VALIDATION_FAILED',
      'userId: must be an integer, received "1"',
    );
    assertError(await t.app.inject({ method: 'GET', url: '/v1/project/users?projectId=1' }), 401, 'UNAUTHENTICATED');
  });
});
