// POST /v1/auth/token (SPEC §2): a credential pair becomes an HS256 JWT carrying sub, team, cred, iat and exp.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';

function decodeSegment(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

describe('POST /v1/auth/token', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const token = (payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/v1/auth/token', payload: payload as Record<string, unknown> });

  test('answers the token at the top level and inside response', async () => {
    const res = await token({ clientId: t.owner.clientId, clientSecret: t.owner.clientSecret });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['response', 'token']);
    assert.equal(typeof body.token, 'string');
    assert.deepEqual(body.response, { token: body.token, tokenType: 'Bearer', expiresIn: 3600 });
  });

  test('the token is an HS256 JWT carrying sub, team, cred, iat and exp one hour apart', async () => {
    const res = await token({ clientId: t.owner.clientId, clientSecret: t.owner.clientSecret });
    const jwt: string = res.json().token;
    const [header, payload, signature] = jwt.split('.');
    assert.ok(signature.length > 0);
    assert.deepEqual(decodeSegment(header), { alg: 'HS256', typ: 'JWT' });

    const credential = await t.runtime.db.kysely
      .selectFrom('api_credentials')
      .select(['id', 'user_id', 'team_id'])
      .where('client_id', '=', t.owner.clientId)
      .executeTakeFirstOrThrow();
    const claims = decodeSegment(payload);
    assert.deepEqual(Object.keys(claims).sort(), ['cred', 'exp', 'iat', 'iss', 'sub', 'team']);
    assert.equal(claims.sub, String(t.owner.userId));
    assert.equal(claims.team, t.owner.teamId);
    assert.equal(claims.cred, credential.id);
    assert.equal(claims.iss, 'placard');
    assert.equal(typeof claims.iat, 'number');
    assert.equal((claims.exp as number) - (claims.iat as number), 3600);
  });

  test('issuing a token records when the credential was last used', async () => {
    await token({ clientId: t.owner.clientId, clientSecret: t.owner.clientSecret });
    const row = await t.runtime.db.kysely
      .selectFrom('api_credentials')
      .select('last_used_at')
      .where('client_id', '=', t.owner.clientId)
      .executeTakeFirstOrThrow();
    assert.match(String(row.last_used_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test('a wrong secret is 401 INVALID_CREDENTIALS', async () => {
    const res = await token({ clientId: t.owner.clientId, clientSecret: `${t.owner.clientSecret}x` });
    assert.equal(res.statusCode, 401);
    const body = res.json();
    assert.deepEqual(body, {
      error: 'clientId and clientSecret do not match any API credential',
      code: 'INVALID_CREDENTIALS',
      requestId: res.headers['x-request-id'],
    });
  });

  test('an unknown clientId is the same 401 INVALID_CREDENTIALS as a wrong secret', async () => {
    const res = await token({ clientId: randomUUID(), clientSecret: t.owner.clientSecret });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'INVALID_CREDENTIALS');
    assert.equal(res.json().error, 'clientId and clientSecret do not match any API credential');
  });

  test('a clientId that is not a UUID is 400 VALIDATION_FAILED naming clientId', async () => {
    const res = await token({ clientId: 'not-a-uuid', clientSecret: 'x' });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.equal(body.error, 'clientId: must be a UUID, received "not-a-uuid"');
    assert.deepEqual(body.details, [
      { path: '/clientId', in: 'body', message: 'must be a UUID, received "not-a-uuid"' },
    ]);
  });

  test('a missing clientSecret is 400 VALIDATION_FAILED naming it', async () => {
    const res = await token({ clientId: t.owner.clientId });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.equal(body.error, 'clientSecret: is required');
    assert.deepEqual(body.details, [{ path: '/clientSecret', in: 'body', message: 'is required' }]);
  });

  test('an unknown field is 400 VALIDATION_FAILED naming it and the known fields', async () => {
    const res = await token({ clientId: t.owner.clientId, clientSecret: t.owner.clientSecret, scope: 'all' });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.equal(body.error, 'scope: is not a known field (known fields: clientId, clientSecret)');
    assert.deepEqual(body.details, [
      { path: '/scope', in: 'body', message: 'is not a known field (known fields: clientId, clientSecret)' },
    ]);
  });

  test('the credential of a deleted user can no longer get a token', async () => {
    const editor = await t.userWith('Editor');
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: editor.email },
    });
    assert.equal(deleted.statusCode, 200);
    const res = await token({ clientId: editor.clientId, clientSecret: editor.clientSecret });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'INVALID_CREDENTIALS');
  });
});
