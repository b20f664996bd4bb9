// API credentials (SPEC §2 extension): Admin-only, secret shown once and stored as a scrypt hash, scoped to the team.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('/v1/apiCredentials', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const list = (headers: Caller['headers'] = t.owner.headers, query = '') =>
    t.app.inject({ method: 'GET', url: `/v1/apiCredentials${query}`, headers });
  const create = (payload: Record<string, unknown>, headers: Caller['headers'] = t.owner.headers) =>
    t.app.inject({ method: 'POST', url: '/v1/apiCredentials', headers, payload });
  const remove = (clientId: string, headers: Caller['headers'] = t.owner.headers) =>
    t.app.inject({ method: 'DELETE', url: '/v1/apiCredentials', headers, payload: { clientId } });

  test('lists the credentials of the team without any secret', async () => {
    const res = await list();
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['response']);
    assert.equal(body.response.totalCount, 1);
    assert.deepEqual(body.response.pageInfo.hasNextPage, false);
    const [node] = body.response.nodes;
    assert.deepEqual(Object.keys(node).sort(), ['clientId', 'createdAt', 'lastUsedAt', 'name', 'userId']);
    assert.equal(node.clientId, t.owner.clientId);
    assert.equal(node.name, 'Owner credential');
    assert.equal(node.userId, t.owner.userId);
    assert.match(node.createdAt, ISO_MS);
    // The harness exchanged it for a token.
    assert.match(node.lastUsedAt, ISO_MS);
    assert.ok(!res.body.includes(t.owner.clientSecret));
    assert.ok(!res.body.includes('scrypt'));
  });

  test('creates a credential whose secret is shown once and works at /v1/auth/token', async () => {
    const viewer = await t.userWith('Viewer');
    const res = await create({ userId: viewer.userId, name: '  CI pipeline  ' });
    assert.equal(res.statusCode, 200);
    const created = res.json().response;
    assert.deepEqual(Object.keys(created).sort(), [
      'clientId',
      'clientSecret',
      'createdAt',
      'lastUsedAt',
      'name',
      'userId',
    ]);
    assert.match(created.clientId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(created.name, 'CI pipeline');
    assert.equal(created.userId, viewer.userId);
    assert.equal(created.lastUsedAt, null);
    assert.match(created.createdAt, ISO_MS);
    assert.match(created.clientSecret, /^pcs_[A-Za-z0-9_-]{43}$/);

    const row = await t.runtime.db.kysely
      .selectFrom('api_credentials')
      .select(['team_id', 'user_id', 'secret_hash', 'created_by'])
      .where('client_id', '=', created.clientId)
      .executeTakeFirstOrThrow();
    assert.equal(row.team_id, t.owner.teamId);
    assert.equal(row.user_id, viewer.userId);
    assert.equal(row.created_by, t.owner.userId);
    assert.match(row.secret_hash, /^scrypt\$16384\$8\$1\$/);
    assert.ok(!row.secret_hash.includes(created.clientSecret));

    const token = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      payload: { clientId: created.clientId, clientSecret: created.clientSecret },
    });
    assert.equal(token.statusCode, 200);
    const jwt = token.json().token;
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
    assert.equal(claims.sub, String(viewer.userId));

    // Listed afterwards, never with its secret.
    const listed = await list();
    const node = listed.json().response.nodes.find((n: { clientId: string }) => n.clientId === created.clientId);
    assert.equal(node.name, 'CI pipeline');
    assert.ok(!listed.body.includes(created.clientSecret));
  });

  test('without userId the credential acts as the caller', async () => {
    const admin = await t.userWith('Admin');
    const res = await create({ name: 'mine' }, admin.headers);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().response.userId, admin.userId);
  });

  test('a userId of another team is 404 NOT_FOUND', async () => {
    const other = await t.newTeam('Globex');
    const res = await create({ userId: other.userId, name: 'sneaky' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      error: `userId: no user ${other.userId} in this team`,
      code: 'NOT_FOUND',
      requestId: res.headers['x-request-id'],
    });
  });

  test('a deleted user gets no credential', async () => {
    const viewer = await t.userWith('Viewer');
    await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: viewer.email },
    });
    const res = await create({ userId: viewer.userId, name: 'ghost' });
    assert.equal(res.statusCode, 404);
  });

  test('a userId sent as a string is 400', async () => {
    const res = await create({ userId: String(t.owner.userId), name: 'x' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_FAILED');
    assert.equal(res.json().details[0].path, '/userId');
  });

  test('an Admin cannot create a credential for an Owner; an Owner can', async () => {
    const admin = await t.userWith('Admin');
    const res = await create({ userId: t.owner.userId, name: 'owner power' }, admin.headers);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), {
      error: 'only an Owner can create a credential for an Owner',
      code: 'FORBIDDEN',
      requestId: res.headers['x-request-id'],
    });
    assert.equal((await create({ userId: t.owner.userId, name: 'second key' })).statusCode, 200);
  });

  test('Editors and Viewers get 403 FORBIDDEN on every route', async () => {
    for (const role of ['Editor', 'Viewer'] as const) {
      const caller = await t.userWith(role);
      for (const res of [
        await list(caller.headers),
        await create({ name: 'x' }, caller.headers),
        await remove(t.owner.clientId, caller.headers),
      ]) {
        assert.equal(res.statusCode, 403);
        assert.equal(res.json().code, 'FORBIDDEN');
      }
    }
    // The Owner's credential survived the attempts.
    assert.equal(
      (await list()).json().response.nodes.some((n: { clientId: string }) => n.clientId === t.owner.clientId),
      true,
    );
  });

  test('deleting an unknown credential is 404 NOT_FOUND', async () => {
    const clientId = randomUUID();
    const res = await remove(clientId);
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      error: `clientId: no API credential ${clientId} in this team`,
      code: 'NOT_FOUND',
      requestId: res.headers['x-request-id'],
    });
  });

  test('deleting a credential of another team is 404 and leaves it working', async () => {
    const other = await t.newTeam('Initech');
    const res = await remove(other.clientId);
    assert.equal(res.statusCode, 404);
    const theirs = await t.app.inject({ method: 'GET', url: '/v1/users', headers: other.headers });
    assert.equal(theirs.statusCode, 200);
  });

  test('deleting a credential removes it from the list', async () => {
    const created = (await create({ name: 'temporary' })).json().response;
    const res = await remove(created.clientId);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { response: { status: 'success' } });
    const listed = (await list()).json().response.nodes.map((n: { clientId: string }) => n.clientId);
    assert.ok(!listed.includes(created.clientId));
  });

  test('a clientId that is not a UUID is 400 naming clientId', async () => {
    const res = await remove('123');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'clientId: must be a UUID, received "123"');
  });

  test('the credentials of another team are not listed', async () => {
    const other = await t.newTeam('Hooli');
    const mine = (await list()).json().response.nodes.map((n: { clientId: string }) => n.clientId);
    assert.ok(!mine.includes(other.clientId));
    const theirs = (await list(other.headers)).json().response;
    assert.deepEqual(
      theirs.nodes.map((n: { clientId: string }) => n.clientId),
      [other.clientId],
    );
  });

  test('pages newest first with limit and cursor', async () => {
    const team = await t.newTeam('Paged');
    const made: string[] = [team.clientId];
    for (let i = 0; i < 4; i++) made.push((await create({ name: `key ${i}` }, team.headers)).json().response.clientId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await list(team.headers, query)).json().response;
      assert.equal(page.totalCount, 5);
      seen.push(...page.nodes.map((n: { clientId: string }) => n.clientId));
      cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (cursor);
    assert.deepEqual(seen, [...made].reverse());
  });
});
