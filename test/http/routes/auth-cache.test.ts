// The credential behind a token is kept per process (issue 21, storage/db/invalidation.ts); revocation and role
// changes must still apply at once (SPEC §2). Each case first uses the token (so its credential is cached), then
// changes what the cache holds, then the very next request must see the change. On PostgreSQL a write made by
// another process (here: a client of its own, bypassing the service) reaches the cache through the triggers'
// notifications; while the listening connection is down, the cache is not used at all.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;

before(async () => {
  t = await startTestApp();
});

after(async () => {
  await t?.close();
});

function get(url: string, headers: { authorization: string }) {
  return t.app.inject({ method: 'GET', url, headers });
}

test('a deleted credential is refused from the next request on', async () => {
  const admin = await t.userWith('Admin');
  assert.equal((await get('/v1/apiCredentials', admin.headers)).statusCode, 200);
  assert.equal((await get('/v1/apiCredentials', admin.headers)).statusCode, 200);
  const deleted = await t.app.inject({
    method: 'DELETE',
    url: '/v1/apiCredentials',
    headers: t.owner.headers,
    payload: { clientId: admin.clientId },
  });
  assert.equal(deleted.statusCode, 200, deleted.body);
  const refused = await get('/v1/apiCredentials', admin.headers);
  assert.equal(refused.statusCode, 401);
  assert.equal(refused.json().code, 'UNAUTHENTICATED');
});

test('a role change applies from the next request on', async () => {
  const admin = await t.userWith('Admin');
  assert.equal((await get('/v1/apiCredentials', admin.headers)).statusCode, 200);
  const changed = await t.app.inject({
    method: 'PUT',
    url: '/v1/users/updateTeamUserRole',
    headers: t.owner.headers,
    payload: { userId: admin.userId, roleId: 4 },
  });
  assert.equal(changed.statusCode, 200, changed.body);
  const refused = await get('/v1/apiCredentials', admin.headers);
  assert.equal(refused.statusCode, 403);
  assert.equal(refused.json().code, 'FORBIDDEN');
});

test('a removed user is refused from the next request on', async () => {
  const editor = await t.userWith('Editor');
  assert.equal((await get('/v1/projects', editor.headers)).statusCode, 200);
  const removed = await t.app.inject({
    method: 'DELETE',
    url: '/v1/users',
    headers: t.owner.headers,
    payload: { email: editor.email },
  });
  assert.equal(removed.statusCode, 200, removed.body);
  assert.equal((await get('/v1/projects', editor.headers)).statusCode, 401);
});

test('PostgreSQL: a credential deleted by another process is refused', {
  skip: !process.env.DATABASE_URL,
}, async () => {
  const admin = await t.userWith('Admin');
  assert.equal((await get('/v1/apiCredentials', admin.headers)).statusCode, 200);
  const side = new pg.Client({ connectionString: t.config.databaseUrl as string });
  await side.connect();
  try {
    await side.query('delete from api_credentials where client_id = $1', [admin.clientId]);
    // The notification is sent at that commit and read by this process's listening connection, asynchronously: poll.
    const deadline = Date.now() + 60_000;
    let status = 200;
    while (Date.now() < deadline) {
      status = (await get('/v1/apiCredentials', admin.headers)).statusCode;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(status, 401, 'the token of a credential deleted elsewhere was still accepted after 60 s');

    // The listening connection lost: the cache is bypassed until it listens again and starts empty then, so a change
    // whose notification nobody heard still applies.
    const editor = await t.userWith('Editor');
    assert.equal((await get('/v1/projects', editor.headers)).statusCode, 200);
    const listeners = await side.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'LISTEN%'",
    );
    assert.ok(listeners.rowCount && listeners.rowCount > 0, 'the service listens for invalidations');
    await side.query('delete from api_credentials where client_id = $1', [editor.clientId]);
    const end = Date.now() + 60_000;
    status = 200;
    while (Date.now() < end) {
      status = (await get('/v1/projects', editor.headers)).statusCode;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(status, 401, 'a credential deleted while nobody listened was still accepted after 60 s');
  } finally {
    await side.end();
  }
});
