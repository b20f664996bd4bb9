// X-Request-Id (SPEC §1): echoed when the client sends a sane one, a UUID otherwise, on every response including
// errors and 404s, and the same id as the requestId of an error body.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('X-Request-Id', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('is echoed when sent', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/users',
      headers: { ...t.owner.headers, 'x-request-id': 'trace-42.abc:def/ghi' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-request-id'], 'trace-42.abc:def/ghi');
  });

  test('is a fresh UUID when not sent', async () => {
    const a = await t.app.inject({ method: 'GET', url: '/healthz' });
    const b = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.match(a.headers['x-request-id'] as string, UUID);
    assert.match(b.headers['x-request-id'] as string, UUID);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });

  test('is replaced by a UUID when the sent one is not sane', async () => {
    for (const sent of ['has spaces in it', 'x'.repeat(129), '<script>', '']) {
      const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': sent } });
      assert.match(res.headers['x-request-id'] as string, UUID, JSON.stringify(sent));
    }
  });

  test('is on errors and equals their requestId', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/users',
      headers: { 'x-request-id': 'unauth-1' },
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['x-request-id'], 'unauth-1');
    assert.equal(res.json().requestId, 'unauth-1');

    const invalid = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: { 'x-request-id': 'invalid-1' },
      payload: {},
    });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.headers['x-request-id'], 'invalid-1');
    assert.equal(invalid.json().requestId, 'invalid-1');
  });

  test('is on 404s, sent or generated', async () => {
    const sent = await t.app.inject({ method: 'GET', url: '/missing', headers: { 'x-request-id': 'lost-1' } });
    assert.equal(sent.statusCode, 404);
    assert.equal(sent.headers['x-request-id'], 'lost-1');
    assert.equal(sent.json().requestId, 'lost-1');

    const generated = await t.app.inject({ method: 'GET', url: '/missing' });
    assert.equal(generated.statusCode, 404);
    assert.match(generated.headers['x-request-id'] as string, UUID);
    assert.equal(generated.json().requestId, generated.headers['x-request-id']);
  });
});
