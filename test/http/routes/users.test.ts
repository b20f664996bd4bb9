import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUserRepository } from '../../../src/storage/db/repositories/users.repository.js';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

const ROLE_DESCRIPTIONS = {
  Owner: 'Everything an Admin can do; cannot be deleted or demoted by an Admin.',
  Admin: 'Manages team users, roles, webhooks, API credentials and every project.',
  Editor: 'Creates, changes and deletes designs, folders, versions, projects and brand kits.',
  Viewer: 'Reads what it can see, exports designs and creates share links.',
};

describe('team users', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('lists the users of the team with the seed shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/users', headers: t.owner.headers });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.response.totalCount, 1);
    const [node] = body.response.nodes;
    assert.deepEqual(Object.keys(node).sort(), ['email', 'id', 'name', 'profilePicture', 'role']);
    assert.deepEqual(node.role, {
      id: 1,
      name: 'Owner',
      description: 'Everything an Admin can do; cannot be deleted or demoted by an Admin.',
    });
    assert.equal(body.response.pageInfo.hasNextPage, false);
  });
});

describe('GET /v1/users', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const list = (query = '', headers: Caller['headers'] = t.owner.headers) =>
    t.app.inject({ method: 'GET', url: `/v1/users${query}`, headers });

  const create = (payload: { name: string; email: string; role: string }) =>
    t.app.inject({ method: 'POST', url: '/v1/users', headers: t.owner.headers, payload });

  test('answers { response: { totalCount, nodes, pageInfo } } with each user exactly', async () => {
    const res = await list();
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['response']);
    assert.deepEqual(Object.keys(body.response).sort(), ['nodes', 'pageInfo', 'totalCount']);
    assert.equal(body.response.totalCount, 1);
    assert.equal(body.response.pageInfo.hasNextPage, false);
    assert.equal(typeof body.response.pageInfo.endCursor, 'string');
    const [node] = body.response.nodes;
    assert.deepEqual(
      { ...node, profilePicture: undefined },
      {
        id: t.owner.userId,
        name: 'Acme Owner',
        email: t.owner.email,
        profilePicture: undefined,
        role: { id: 1, name: 'Owner', description: ROLE_DESCRIPTIONS.Owner },
      },
    );
    assert.match(
      node.profilePicture,
      new RegExp(`^http://placard\\.test/avatars/${t.owner.userId}\\.svg\\?s=[\\w-]+$`),
    );
  });

  test('keyword matches the name and the email, case-insensitively', async () => {
    const grace = await create({ name: 'Grace Hopper', email: 'amazing.grace@navy.test', role: 'Editor' });
    const alan = await create({ name: 'Alan Turing', email: 'alan@bletchley.test', role: 'Viewer' });
    assert.equal(grace.statusCode, 200);
    assert.equal(alan.statusCode, 200);
    const graceId = grace.json().response.id;

    const byName = (await list('?keyword=HOPPER')).json().response;
    assert.equal(byName.totalCount, 1);
    assert.deepEqual(
      byName.nodes.map((n: { id: number }) => n.id),
      [graceId],
    );

    const byEmail = (await list('?keyword=NaVy.TeSt')).json().response;
    assert.deepEqual(
      byEmail.nodes.map((n: { id: number }) => n.id),
      [graceId],
    );

    const both = (await list('?keyword=a')).json().response;
    assert.equal(both.totalCount, 3);

    const none = (await list('?keyword=nobody-has-this')).json().response;
    assert.deepEqual(none, { totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: '' } });
  });

  test('keyword treats LIKE wildcards as plain characters', async () => {
    const created = await create({ name: 'Under Score', email: 'first_last@acme.test', role: 'Viewer' });
    assert.equal(created.statusCode, 200);
    const id = created.json().response.id;
    await create({ name: 'Percent', email: 'firstxlast@acme.test', role: 'Viewer' });

    const underscore = (await list('?keyword=first_last')).json().response;
    assert.deepEqual(
      underscore.nodes.map((n: { id: number }) => n.id),
      [id],
    );
    const percent = (await list(`?keyword=${encodeURIComponent('first%last')}`)).json().response;
    assert.equal(percent.totalCount, 0);
  });

  test('a Viewer can list the users', async () => {
    const viewer = await t.userWith('Viewer');
    const res = await list('', viewer.headers);
    assert.equal(res.statusCode, 200);
    assert.ok(res.json().response.nodes.some((n: { id: number }) => n.id === viewer.userId));
  });

  test('the users of another team are not listed', async () => {
    const other = await t.newTeam('Globex');
    const mine = (await list()).json().response.nodes.map((n: { id: number }) => n.id);
    assert.ok(!mine.includes(other.userId));
    const theirs = (await list('', other.headers)).json().response;
    assert.equal(theirs.totalCount, 1);
    assert.equal(theirs.nodes[0].id, other.userId);
  });
});

describe('POST /v1/users', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const create = (payload: Record<string, unknown>, headers: Caller['headers'] = t.owner.headers) =>
    t.app.inject({ method: 'POST', url: '/v1/users', headers, payload });

  test('answers { response: { id, name, email } } and stores the user with its role', async () => {
    const res = await create({ name: 'Ada Lovelace', email: 'ada@acme.test', role: 'Editor' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body.response).sort(), ['email', 'id', 'name']);
    assert.deepEqual(body.response, { id: body.response.id, name: 'Ada Lovelace', email: 'ada@acme.test' });
    assert.ok(Number.isInteger(body.response.id));

    const row = await t.runtime.db.kysely
      .selectFrom('users')
      .select(['team_id', 'name', 'email', 'role_id', 'deleted_at'])
      .where('id', '=', body.response.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, {
      team_id: t.owner.teamId,
      name: 'Ada Lovelace',
      email: 'ada@acme.test',
      role_id: 3,
      deleted_at: null,
    });
  });

  test('takes the role name in any case', async () => {
    const res = await create({ name: 'Case Study', email: 'case@acme.test', role: 'vIeWeR' });
    assert.equal(res.statusCode, 200);
    const id = res.json().response.id;
    const row = await t.runtime.db.kysely
      .selectFrom('users')
      .select('role_id')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.role_id, 4);
  });

  test('an unknown role is 400 VALIDATION_FAILED naming role', async () => {
    const res = await create({ name: 'X', email: 'x@acme.test', role: 'Superuser' });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), {
      error: 'role: must be one of Owner, Admin, Editor, Viewer, received "Superuser"',
      code: 'VALIDATION_FAILED',
      details: [{ path: '/role', in: 'body', message: 'must be one of Owner, Admin, Editor, Viewer' }],
      requestId: res.headers['x-request-id'],
    });
  });

  test('a malformed email is 400 VALIDATION_FAILED naming email', async () => {
    const res = await create({ name: 'X', email: 'not-an-email', role: 'Viewer' });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.equal(body.error, 'email: must be an email address, received "not-an-email"');
    assert.deepEqual(body.details, [
      { path: '/email', in: 'body', message: 'must be an email address, received "not-an-email"' },
    ]);
  });

  test('missing and unknown fields are 400 VALIDATION_FAILED listing each', async () => {
    const res = await create({ email: 'y@acme.test', role: 'Viewer', nmae: 'typo' });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.deepEqual(
      body.details.map((d: { path: string }) => d.path),
      ['/name', '/nmae'],
    );
    assert.equal(body.error, 'name: is required (and 1 more problem(s), see details)');
  });

  test('an email of the team is 409 EMAIL_TAKEN, also in another case', async () => {
    assert.equal((await create({ name: 'Dup', email: 'dup@acme.test', role: 'Viewer' })).statusCode, 200);
    for (const email of ['dup@acme.test', 'DUP@Acme.Test']) {
      const res = await create({ name: 'Dup 2', email, role: 'Viewer' });
      assert.equal(res.statusCode, 409);
      assert.deepEqual(res.json(), {
        error: `email: ${email} already belongs to a user of this team`,
        code: 'EMAIL_TAKEN',
        requestId: res.headers['x-request-id'],
      });
    }
    const rows = await t.runtime.db.kysely
      .selectFrom('users')
      .select('id')
      .where('team_id', '=', t.owner.teamId)
      .where('name', 'like', 'Dup%')
      .execute();
    assert.equal(rows.length, 1);
  });

  test('the same email is free in another team, and again after its user was deleted', async () => {
    const other = await t.newTeam('Initech');
    assert.equal((await create({ name: 'Shared', email: 'shared@acme.test', role: 'Viewer' })).statusCode, 200);
    const there = await create({ name: 'Shared', email: 'shared@acme.test', role: 'Viewer' }, other.headers);
    assert.equal(there.statusCode, 200);

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: 'shared@acme.test' },
    });
    assert.equal(deleted.statusCode, 200);
    assert.equal((await create({ name: 'Shared again', email: 'shared@acme.test', role: 'Viewer' })).statusCode, 200);
  });

  test('an Admin cannot create an Owner', async () => {
    const admin = await t.userWith('Admin');
    const res = await create({ name: 'Boss', email: 'boss@acme.test', role: 'Owner' }, admin.headers);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'FORBIDDEN');
    assert.equal(res.json().error, 'only an Owner can grant the Owner role or change or delete an Owner');
    // An Admin may still create the other roles.
    assert.equal((await create({ name: 'Ok', email: 'ok@acme.test', role: 'Admin' }, admin.headers)).statusCode, 200);
  });

  test('an Owner can create an Owner', async () => {
    const res = await create({ name: 'Co Owner', email: 'co-owner@acme.test', role: 'owner' });
    assert.equal(res.statusCode, 200);
  });

  test('Editors and Viewers get 403 FORBIDDEN', async () => {
    for (const role of ['Editor', 'Viewer'] as const) {
      const caller = await t.userWith(role);
      const res = await create({ name: 'Nope', email: `nope-${role}@acme.test`, role: 'Viewer' }, caller.headers);
      assert.equal(res.statusCode, 403);
      assert.deepEqual(res.json(), {
        error: `POST /v1/users needs the Admin role or a stronger one; the caller is ${role}`,
        code: 'FORBIDDEN',
        requestId: res.headers['x-request-id'],
      });
    }
  });
});

describe('DELETE /v1/users', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const remove = (email: string, headers: Caller['headers'] = t.owner.headers) =>
    t.app.inject({ method: 'DELETE', url: '/v1/users', headers, payload: { email } });

  test('removes the user: success status, gone from the list, row kept as deleted', async () => {
    const viewer = await t.userWith('Viewer');
    const res = await remove(viewer.email);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { response: { status: 'success' } });

    const listed = await t.app.inject({ method: 'GET', url: '/v1/users', headers: t.owner.headers });
    assert.ok(!listed.json().response.nodes.some((n: { id: number }) => n.id === viewer.userId));
    const row = await t.runtime.db.kysely
      .selectFrom('users')
      .select('deleted_at')
      .where('id', '=', viewer.userId)
      .executeTakeFirstOrThrow();
    assert.match(String(row.deleted_at), /^\d{4}-\d{2}-\d{2}T/);

    const again = await remove(viewer.email);
    assert.equal(again.statusCode, 404);
  });

  test('finds the user by email in any case', async () => {
    const viewer = await t.userWith('Viewer');
    assert.equal((await remove(viewer.email.toUpperCase())).statusCode, 200);
  });

  test('an unknown email is 404 NOT_FOUND', async () => {
    const res = await remove('nobody@acme.test');
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      error: 'email: no user of this team has the email nobody@acme.test',
      code: 'NOT_FOUND',
      requestId: res.headers['x-request-id'],
    });
  });

  test('a user of another team is 404 and stays', async () => {
    const other = await t.newTeam('Umbrella');
    const res = await remove(other.email);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'NOT_FOUND');
    const row = await t.runtime.db.kysely
      .selectFrom('users')
      .select('deleted_at')
      .where('id', '=', other.userId)
      .executeTakeFirstOrThrow();
    assert.equal(row.deleted_at, null);
  });

  test('Editors and Viewers get 403 FORBIDDEN', async () => {
    const target = await t.userWith('Viewer');
    for (const role of ['Editor', 'Viewer'] as const) {
      const caller = await t.userWith(role);
      const res = await remove(target.email, caller.headers);
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'FORBIDDEN');
    }
  });

  test('an Admin cannot delete an Owner', async () => {
    const team = await t.newTeam('Owners');
    const admin = await t.userWith('Admin', team);
    const res = await remove(team.email, admin.headers);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'FORBIDDEN');
  });

  test('the last Owner cannot be deleted; one of two Owners can', async () => {
    const team = await t.newTeam('Last');
    const res = await remove(team.email, team.headers);
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), {
      error: `${team.email} is the last Owner of the team; make another user Owner first`,
      code: 'LAST_OWNER',
      requestId: res.headers['x-request-id'],
    });

    const second = await t.userWith('Owner', team);
    assert.equal((await remove(second.email, team.headers)).statusCode, 200);
    assert.equal((await remove(team.email, team.headers)).statusCode, 409);
  });
});

describe('PUT /v1/users/updateTeamUserRole', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const update = (payload: Record<string, unknown>, headers: Caller['headers'] = t.owner.headers) =>
    t.app.inject({ method: 'PUT', url: '/v1/users/updateTeamUserRole', headers, payload });

  test('answers the user with its new role and stores it', async () => {
    const viewer = await t.userWith('Viewer');
    const res = await update({ userId: viewer.userId, roleId: 3 });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body.response).sort(), ['email', 'id', 'name', 'profilePicture', 'role']);
    assert.equal(body.response.id, viewer.userId);
    assert.equal(body.response.email, viewer.email);
    assert.match(body.response.name, /^Viewer \d+$/);
    assert.match(body.response.profilePicture, new RegExp(`/avatars/${viewer.userId}\\.svg\\?s=`));
    assert.deepEqual(body.response.role, { id: 3, name: 'Editor', description: ROLE_DESCRIPTIONS.Editor });

    const row = await t.runtime.db.kysely
      .selectFrom('users')
      .select('role_id')
      .where('id', '=', viewer.userId)
      .executeTakeFirstOrThrow();
    assert.equal(row.role_id, 3);
  });

  test('roleId outside 1..4 is 400 VALIDATION_FAILED naming roleId', async () => {
    const res = await update({ userId: t.owner.userId, roleId: 9 });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.equal(body.error, 'roleId: must be one of 1, 2, 3, 4, received 9');
    assert.deepEqual(body.details, [{ path: '/roleId', in: 'body', message: 'must be one of 1, 2, 3, 4, received 9' }]);
  });

  test('an unknown user is 404 NOT_FOUND', async () => {
    const res = await update({ userId: 987654, roleId: 3 });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      error: 'userId: no user 987654 in this team',
      code: 'NOT_FOUND',
      requestId: res.headers['x-request-id'],
    });
  });

  test('a user of another team is 404 and keeps its role', async () => {
    const other = await t.newTeam('Hooli');
    const res = await update({ userId: other.userId, roleId: 4 });
    assert.equal(res.statusCode, 404);
    const row = await t.runtime.db.kysely
      .selectFrom('users')
      .select('role_id')
      .where('id', '=', other.userId)
      .executeTakeFirstOrThrow();
    assert.equal(row.role_id, 1);
  });

  test('a deleted user is 404', async () => {
    const viewer = await t.userWith('Viewer');
    await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: viewer.email },
    });
    assert.equal((await update({ userId: viewer.userId, roleId: 3 })).statusCode, 404);
  });

  test('Editors and Viewers get 403 FORBIDDEN', async () => {
    const target = await t.userWith('Viewer');
    for (const role of ['Editor', 'Viewer'] as const) {
      const caller = await t.userWith(role);
      const res = await update({ userId: target.userId, roleId: 3 }, caller.headers);
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'FORBIDDEN');
    }
  });

  test('an Admin cannot demote an Owner nor make somebody Owner', async () => {
    const team = await t.newTeam('Demote');
    const admin = await t.userWith('Admin', team);
    const viewer = await t.userWith('Viewer', team);

    const demote = await update({ userId: team.userId, roleId: 2 }, admin.headers);
    assert.equal(demote.statusCode, 403);
    assert.equal(demote.json().code, 'FORBIDDEN');

    const promote = await update({ userId: viewer.userId, roleId: 1 }, admin.headers);
    assert.equal(promote.statusCode, 403);
    assert.equal(promote.json().code, 'FORBIDDEN');

    // Between the other roles an Admin decides.
    assert.equal((await update({ userId: viewer.userId, roleId: 3 }, admin.headers)).statusCode, 200);
  });

  test('the last Owner cannot be demoted; with two Owners one can', async () => {
    const team = await t.newTeam('Single');
    const lonely = await update({ userId: team.userId, roleId: 2 }, team.headers);
    assert.equal(lonely.statusCode, 409);
    assert.equal(lonely.json().code, 'LAST_OWNER');
    assert.equal(lonely.json().error, `${team.email} is the last Owner of the team; make another user Owner first`);

    // Keeping the Owner role is no demotion.
    assert.equal((await update({ userId: team.userId, roleId: 1 }, team.headers)).statusCode, 200);

    const second = await t.userWith('Admin', team);
    assert.equal((await update({ userId: second.userId, roleId: 1 }, team.headers)).statusCode, 200);
    const demoted = await update({ userId: team.userId, roleId: 2 }, team.headers);
    assert.equal(demoted.statusCode, 200);
    assert.deepEqual(demoted.json().response.role, { id: 2, name: 'Admin', description: ROLE_DESCRIPTIONS.Admin });

    // Now the second one is the last Owner.
    const last = await update({ userId: second.userId, roleId: 3 }, second.headers);
    assert.equal(last.statusCode, 409);
    assert.equal(last.json().code, 'LAST_OWNER');
  });
});

describe('GET /v1/roles', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('lists exactly the four roles of SPEC §2, to every role', async () => {
    const viewer = await t.userWith('Viewer');
    for (const headers of [t.owner.headers, viewer.headers]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/roles', headers });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        response: [
          { id: 1, name: 'Owner', description: ROLE_DESCRIPTIONS.Owner },
          { id: 2, name: 'Admin', description: ROLE_DESCRIPTIONS.Admin },
          { id: 3, name: 'Editor', description: ROLE_DESCRIPTIONS.Editor },
          { id: 4, name: 'Viewer', description: ROLE_DESCRIPTIONS.Viewer },
        ],
      });
    }
  });

  test('needs a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/roles' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'UNAUTHENTICATED');
  });
});

test('the database refuses a second live user whose email differs only in letter case (races past the check)', async () => {
  const t = await startTestApp();
  try {
    const users = createUserRepository(t.runtime.db.kysely);
    await users.insert({ teamId: t.owner.teamId, name: 'A', email: 'Same@Case.test', roleId: 4 });
    await assert.rejects(
      users.insert({ teamId: t.owner.teamId, name: 'B', email: 'same@case.TEST', roleId: 4 }),
      /unique|duplicate/i,
    );
  } finally {
    await t.close();
  }
});
