// The error envelope of SPEC §3: every failure is { error, code, requestId } (+ details for validation), Fastify's own
// failures are mapped to catalogue codes, and a bug answers 500 INTERNAL without leaking what went wrong.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const INTERNAL_MESSAGE = 'internal error; the log has the details under this request id';

describe('error envelope', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      beforeReady(app) {
        app.get('/v1/test/boom', { config: { permission: 'read' } }, async () => {
          throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2');
        });
        app.get('/v1/test/syntax', { config: { permission: 'read' } }, async () => JSON.parse('{"stored": broken'));
        app.get('/test/public-boom', { config: { public: true } }, async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'secret')");
        });
      },
    });
  });
  after(() => t.close());

  const post = (payload: string, contentType: string, url = '/v1/users') =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { ...t.owner.headers, 'content-type': contentType },
      payload,
    });

  function assertEnvelope(res: Awaited<ReturnType<typeof post>>, status: number, code: string, error?: string) {
    assert.equal(res.statusCode, status);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    const body = res.json();
    assert.deepEqual(
      Object.keys(body).sort(),
      body.details ? ['code', 'details', 'error', 'requestId'] : ['code', 'error', 'requestId'],
    );
    assert.equal(body.code, code);
    assert.equal(body.requestId, res.headers['x-request-id']);
    if (error !== undefined) assert.equal(body.error, error);
    return body;
  }

  test('a text/plain body is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await post('name=x', 'text/plain');
    assertEnvelope(
      res,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'the body must be JSON sent with Content-Type: application/json',
    );
  });

  test('a form body is 415 UNSUPPORTED_MEDIA_TYPE, on DELETE too', async () => {
    assertEnvelope(await post('name=x', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: { ...t.owner.headers, 'content-type': 'text/plain' },
      payload: 'someone@acme.test',
    });
    assertEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE', async () => {
    const payload = JSON.stringify({ name: 'x'.repeat(1024 * 1024), email: 'big@acme.test', role: 'Viewer' });
    const res = await post(payload, 'application/json');
    assertEnvelope(res, 413, 'PAYLOAD_TOO_LARGE', 'the body is larger than the 1 MiB limit');
    const rows = await t.runtime.db.kysely
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'big@acme.test')
      .execute();
    assert.deepEqual(rows, []);
  });

  test('malformed JSON is 400 INVALID_JSON', async () => {
    const body = assertEnvelope(await post('{"name": "x",', 'application/json'), 400, 'INVALID_JSON');
    assert.match(body.error, /^the body is not valid JSON/);
  });

  test('an empty JSON body is 400 INVALID_JSON', async () => {
    assertEnvelope(
      await post('', 'application/json'),
      400,
      'INVALID_JSON',
      'the body is empty but Content-Type says application/json; send a JSON object',
    );
  });

  test('a JSON body that is not an object is 400 VALIDATION_FAILED', async () => {
    const body = assertEnvelope(await post('[1, 2]', 'application/json'), 400, 'VALIDATION_FAILED');
    assert.equal(body.error, 'body: must be a JSON object, received [1,2]');
    assert.deepEqual(body.details, [{ path: '/', in: 'body', message: 'must be a JSON object, received [1,2]' }]);
  });

  test('an unknown route is 404 NOT_FOUND in the envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nowhere?x=1' });
    assertEnvelope(res, 404, 'NOT_FOUND', 'no route GET /nowhere');
    const v1 = await t.app.inject({ method: 'POST', url: '/v1/nowhere', headers: t.owner.headers, payload: {} });
    assertEnvelope(v1, 404, 'NOT_FOUND', 'no route POST /v1/nowhere');
  });

  // Issue 15 changed this from 404: the path exists, the method does not (decisions.md).
  test('a known path with another method is 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: '/v1/users', headers: t.owner.headers, payload: {} });
    assertEnvelope(
      res,
      405,
      'METHOD_NOT_ALLOWED',
      'PATCH is not served at /v1/users; it serves DELETE, GET, HEAD, POST',
    );
    assert.equal(res.headers.allow, 'DELETE, GET, HEAD, POST');
  });

  for (const [value, message] of [
    ['abc', 'must be an integer, received "abc"'],
    ['0', 'must be >= 1, received 0'],
    ['101', 'must be <= 100, received 101'],
    ['2.5', 'must be an integer, received "2.5"'],
  ] as const) {
    test(`limit=${value} is 400 VALIDATION_FAILED naming limit`, async () => {
      const res = await t.app.inject({ method: 'GET', url: `/v1/users?limit=${value}`, headers: t.owner.headers });
      const body = assertEnvelope(res, 400, 'VALIDATION_FAILED', `limit (query): ${message}`);
      assert.deepEqual(body.details, [{ path: '/limit', in: 'query', message }]);
    });
  }

  // Issue 15 changed this: unknown query parameters are refused as unknown body fields are (decisions.md).
  test('limit=100 is accepted and an unknown query parameter is 400 naming the known ones', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/v1/users?limit=100', headers: t.owner.headers });
    assert.equal(ok.statusCode, 200);
    const res = await t.app.inject({ method: 'GET', url: '/v1/users?limit=100&foo=bar', headers: t.owner.headers });
    const body = assertEnvelope(res, 400, 'VALIDATION_FAILED');
    assert.match(body.error, /^foo \(query\): is not a known field \(known fields: .*limit/);
  });

  test('an orderBy outside its enum is 400 naming orderBy', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/users?orderBy=EMAIL', headers: t.owner.headers });
    const body = assertEnvelope(res, 400, 'VALIDATION_FAILED');
    assert.equal(body.details[0].path, '/orderBy');
    assert.match(body.error, /^orderBy \(query\): must be one of ID, NAME, CREATED_AT, UPDATED_AT, received "EMAIL"$/);
  });

  test('an integer sent as a string in a body is 400 naming the field', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/v1/users/updateTeamUserRole',
      headers: t.owner.headers,
      payload: { userId: String(t.owner.userId), roleId: 1 },
    });
    const body = assertEnvelope(
      res,
      400,
      'VALIDATION_FAILED',
      `userId: must be an integer, received "${t.owner.userId}"`,
    );
    assert.deepEqual(body.details, [
      { path: '/userId', in: 'body', message: `must be an integer, received "${t.owner.userId}"` },
    ]);
  });

  test('a thrown error that is not an AppError is 500 INTERNAL and leaks nothing', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/test/boom', headers: t.owner.headers });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: INTERNAL_MESSAGE, code: 'INTERNAL', requestId: res.headers['x-request-id'] });
    assert.ok(!/hunter2|ECONNREFUSED|\bat\s/.test(res.body));
  });

  test('a SyntaxError thrown by route code is a 500, not a JSON complaint about the request', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/test/syntax', headers: t.owner.headers });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: INTERNAL_MESSAGE, code: 'INTERNAL', requestId: res.headers['x-request-id'] });
    assert.ok(!res.body.includes('stored'));
  });

  test('a bug in a public route is 500 INTERNAL too', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/public-boom' });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: INTERNAL_MESSAGE, code: 'INTERNAL', requestId: res.headers['x-request-id'] });
  });
});

test('a URL Fastify cannot decode answers the error envelope with a request id', async () => {
  const t = await startTestApp();
  try {
    const res = await t.app.inject({ method: 'GET', url: '/avatars/%c0.svg' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_FAILED');
    assert.ok(res.headers['x-request-id']);
    assert.equal(res.json().requestId, res.headers['x-request-id']);
  } finally {
    await t.close();
  }
});
