// Bearer tokens on every non-public /v1 route (SPEC §2): missing, malformed, tampered, expired and revoked tokens are
// refused, and a role change or a deletion applies to tokens already handed out.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, mock, test } from 'node:test';
import { SignJWT } from 'jose';
import { createAuthService } from '../../../src/services/auth.service.js';
import { createCredentialRepository } from '../../../src/storage/db/repositories/credentials.repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

describe('bearer authentication', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const listUsers = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/v1/users', headers });

  async function credentialIdOf(clientId: string): Promise<number> {
    const row = await t.runtime.db.kysely
      .selectFrom('api_credentials')
      .select('id')
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  function assertUnauthenticated(res: Awaited<ReturnType<typeof listUsers>>, error: string) {
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), { error, code: 'UNAUTHENTICATED', requestId: res.headers['x-request-id'] });
  }

  test('a valid token is accepted', async () => {
    const res = await listUsers(t.owner.headers);
    assert.equal(res.statusCode, 200);
  });

  test('a missing Authorization header is 401 UNAUTHENTICATED', async () => {
    assertUnauthenticated(await listUsers(), 'Authorization header is missing; send Authorization: Bearer <token>');
  });

  test('a malformed Authorization header is 401 UNAUTHENTICATED', async () => {
    for (const authorization of [`Basic ${t.owner.token}`, 'Bearer', `Bearer ${t.owner.token} extra`, 'token']) {
      assertUnauthenticated(await listUsers({ authorization }), 'Authorization header must be "Bearer <token>"');
    }
  });

  test('the scheme is case-insensitive', async () => {
    const res = await listUsers({ authorization: `bearer ${t.owner.token}` });
    assert.equal(res.statusCode, 200);
  });

  test('a token whose payload was changed is 401 UNAUTHENTICATED', async () => {
    const viewer = await t.userWith('Viewer');
    const [header, payload, signature] = viewer.token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    // Claim to be the Owner with the Viewer's signature.
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: String(t.owner.userId) })).toString('base64url');
    assertUnauthenticated(
      await listUsers({ authorization: `Bearer ${header}.${forged}.${signature}` }),
      'the access token is not valid',
    );
  });

  test('a token signed with another key is 401 UNAUTHENTICATED', async () => {
    const jwt = await new SignJWT({ team: t.owner.teamId, cred: await credentialIdOf(t.owner.clientId) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(t.owner.userId))
      .setIssuer('placard')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('a key the server does not have, 32+ bytes long'));
    assertUnauthenticated(await listUsers({ authorization: `Bearer ${jwt}` }), 'the access token is not valid');
  });

  test('a correctly signed token without exp is 401 UNAUTHENTICATED (issue 15)', async () => {
    const jwt = await new SignJWT({ team: t.owner.teamId, cred: await credentialIdOf(t.owner.clientId) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(t.owner.userId))
      .setIssuer('placard')
      .setIssuedAt()
      .sign(t.runtime.keys.jwt);
    assertUnauthenticated(await listUsers({ authorization: `Bearer ${jwt}` }), 'the access token is not valid');
  });

  test('a token of another issuer is 401 UNAUTHENTICATED', async () => {
    const jwt = await new SignJWT({ team: t.owner.teamId, cred: await credentialIdOf(t.owner.clientId) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(t.owner.userId))
      .setIssuer('somebody-else')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(t.runtime.keys.jwt);
    assertUnauthenticated(await listUsers({ authorization: `Bearer ${jwt}` }), 'the access token is not valid');
  });

  test('an expired token is 401 TOKEN_EXPIRED', async () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({ team: t.owner.teamId, cred: await credentialIdOf(t.owner.clientId) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(t.owner.userId))
      .setIssuer('placard')
      .setIssuedAt(nowSeconds - 7200)
      .setExpirationTime(nowSeconds - 3600)
      .sign(t.runtime.keys.jwt);
    const res = await listUsers({ authorization: `Bearer ${jwt}` });
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), {
      error: 'the access token has expired; request a new one at POST /v1/auth/token',
      code: 'TOKEN_EXPIRED',
      requestId: res.headers['x-request-id'],
    });
  });

  test('a well-signed token whose claims disagree with its credential is revoked', async () => {
    const viewer = await t.userWith('Viewer');
    const jwt = await new SignJWT({ team: t.owner.teamId, cred: await credentialIdOf(viewer.clientId) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(t.owner.userId))
      .setIssuer('placard')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(t.runtime.keys.jwt);
    assertUnauthenticated(await listUsers({ authorization: `Bearer ${jwt}` }), 'the access token has been revoked');
  });

  test('deleting the credential revokes its token at once', async () => {
    const admin = await t.userWith('Admin');
    assert.equal((await listUsers(admin.headers)).statusCode, 200);

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/v1/apiCredentials',
      headers: t.owner.headers,
      payload: { clientId: admin.clientId },
    });
    assert.equal(deleted.statusCode, 200);
    assert.deepEqual(deleted.json(), { response: { status: 'success' } });

    assertUnauthenticated(await listUsers(admin.headers), 'the access token has been revoked');
    const rows = await t.runtime.db.kysely
      .selectFrom('api_credentials')
      .select('id')
      .where('client_id', '=', admin.clientId)
      .execute();
    assert.deepEqual(rows, []);
  });

  test('deleting the user revokes its tokens at once', async () => {
    const editor = await t.userWith('Editor');
    assert.equal((await listUsers(editor.headers)).statusCode, 200);

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: editor.email },
    });
    assert.equal(deleted.statusCode, 200);

    assertUnauthenticated(await listUsers(editor.headers), 'the access token has been revoked');
    const user = await t.runtime.db.kysely
      .selectFrom('users')
      .select(['deleted_at'])
      .where('id', '=', editor.userId)
      .executeTakeFirstOrThrow();
    assert.notEqual(user.deleted_at, null);
    const credentials = await t.runtime.db.kysely
      .selectFrom('api_credentials')
      .select('id')
      .where('user_id', '=', editor.userId)
      .execute();
    assert.deepEqual(credentials, []);
  });

  test('a role change applies to tokens already issued', async () => {
    const admin = await t.userWith('Admin');
    const listCredentials = () => t.app.inject({ method: 'GET', url: '/v1/apiCredentials', headers: admin.headers });
    assert.equal((await listCredentials()).statusCode, 200);

    const demoted = await t.app.inject({
      method: 'PUT',
      url: '/v1/users/updateTeamUserRole',
      headers: t.owner.headers,
      payload: { userId: admin.userId, roleId: 4 },
    });
    assert.equal(demoted.statusCode, 200);

    const res = await listCredentials();
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), {
      error: 'GET /v1/apiCredentials needs the Admin role or a stronger one; the caller is Viewer',
      code: 'FORBIDDEN',
      requestId: res.headers['x-request-id'],
    });
    // Still a Viewer: reading is allowed.
    assert.equal((await listUsers(admin.headers)).statusCode, 200);

    const promoted = await t.app.inject({
      method: 'PUT',
      url: '/v1/users/updateTeamUserRole',
      headers: t.owner.headers,
      payload: { userId: admin.userId, roleId: 2 },
    });
    assert.equal(promoted.statusCode, 200);
    assert.equal((await listCredentials()).statusCode, 200);
  });

  test("a token checked again sets no timer of the token cache's", async () => {
    // The token cache's clock used to be forgotten by a 1 ms timer after each check: a wake-up of the event loop of
    // its own after every request (issue 21). Only the cache's timers count: the database's pool may set its own.
    const auth = createAuthService({
      credentials: createCredentialRepository(t.runtime.db.kysely),
      jwtKey: randomBytes(32),
      tokenTtlSeconds: 3600,
    });
    const { token } = await auth.issueToken(t.owner.clientId, t.owner.clientSecret);
    const bearer = `Bearer ${token}`;
    assert.equal((await auth.authenticate(bearer)).userId, t.owner.userId);
    const setTimer = globalThis.setTimeout;
    let cacheTimers = 0;
    const timers = mock.method(globalThis, 'setTimeout', (...args: Parameters<typeof setTimeout>) => {
      if (new Error().stack?.includes('lru-cache')) cacheTimers += 1;
      return setTimer(...args);
    });
    try {
      assert.equal((await auth.authenticate(bearer)).userId, t.owner.userId);
      assert.equal(auth.known(bearer)?.userId, t.owner.userId);
    } finally {
      timers.mock.restore();
    }
    assert.equal(cacheTimers, 0);
  });

  test('public routes answer without a token', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).statusCode, 200);
  });
});
