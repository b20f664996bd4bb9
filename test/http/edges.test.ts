// Hostile input at the edges of HTTP (issue 15): deep nesting, charsets, undecodable and huge URLs, unknown query
// parameters, and methods a known path does not serve. Each answer is a 4xx in the envelope, never a 5xx.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../../src/http/json-body.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

function assertEnvelope(body: Record<string, unknown>) {
  assert.equal(typeof body.error, 'string');
  assert.equal(typeof body.code, 'string');
  assert.equal(typeof body.requestId, 'string');
}

describe('edges of HTTP', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => t?.close());

  test('the depth scan counts brackets outside strings only', () => {
    assert.equal(jsonDepthExceeds('[[[1]]]', 3), false);
    assert.equal(jsonDepthExceeds('[[[[1]]]]', 3), true);
    assert.equal(jsonDepthExceeds(`{"a":"${'['.repeat(500)}\\"["}`, 3), false);
  });

  test('a body nested 20,000 levels deep is a 400 naming the limit, not a stack overflow', async () => {
    const payload = `{"clientId":${'['.repeat(20_000)}${']'.repeat(20_000)},"clientSecret":"x"}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assertEnvelope(body);
    assert.equal(body.code, 'INVALID_JSON');
    assert.match(body.error, new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
  });

  test('a body nested just within the limit is still parsed and validated', async () => {
    const payload = `{"clientId":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)},"clientSecret":"x"}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_FAILED');
    assert.match(res.json().error, /clientId: must be a string/);
  });

  test('a charset other than UTF-8 is refused; utf-8 is accepted', async () => {
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...t.owner.headers, 'content-type': 'application/json; charset=utf-16le' },
      payload: JSON.stringify({ name: 'P' }),
    });
    assert.equal(refused.statusCode, 415);
    assert.equal(refused.json().code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(refused.json().error, /charset=utf-16le/);
    const accepted = await t.app.inject({
      method: 'GET',
      url: '/v1/projects',
      headers: { ...t.owner.headers },
    });
    assert.equal(accepted.statusCode, 200);
    const utf8 = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      payload: JSON.stringify({ clientId: t.owner.clientId, clientSecret: t.owner.clientSecret }),
    });
    assert.equal(utf8.statusCode, 200);
  });

  test('a 1 MB query string gets 431 in the envelope over real HTTP', async () => {
    const res = await new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>(
      (resolve, reject) => {
        const req = http.get(`${base}/v1/projects?q=${'x'.repeat(1024 * 1024)}`, (r) => {
          let body = '';
          r.on('data', (c) => {
            body += c;
          });
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body, headers: r.headers }));
        });
        req.on('error', reject);
      },
    );
    assert.equal(res.status, 431);
    const body = JSON.parse(res.body);
    assertEnvelope(body);
    assert.equal(body.code, 'REQUEST_TOO_LARGE');
    assert.equal(res.headers['x-request-id'], body.requestId);
  });

  test('undecodable and 10,000-character paths answer in the envelope without echoing the whole path', async () => {
    for (const url of ['/avatars/%ff', '/files/%ff', `/avatars/${'x'.repeat(10_000)}`, `/v1/${'y'.repeat(10_000)}`]) {
      const res = await fetch(`${base}${url}`, { headers: t.owner.headers });
      assert.ok(res.status >= 400 && res.status < 500, `${url.slice(0, 20)} answered ${res.status}`);
      const body = (await res.json()) as Record<string, unknown>;
      assertEnvelope(body);
      assert.ok(String(body.error).length < 600, `${url.slice(0, 20)} echoes ${String(body.error).length} chars`);
    }
  });

  test('unknown query parameters are refused, naming the known ones', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/folders?folderId=2&projectId=1',
      headers: t.owner.headers,
    });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.match(body.error, /folderId \(query\): is not a known field \(known fields: .*projectId/);
    const none = await t.app.inject({ method: 'GET', url: '/v1/adnetworks?x=1', headers: t.owner.headers });
    assert.equal(none.statusCode, 400);
    assert.match(none.json().error, /x \(query\): is not a known field/);
  });

  test('endCursor is always a string: "" on an empty page, and an empty cursor starts from the beginning', async () => {
    const team = await t.newTeam('Empty');
    const empty = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: team.headers });
    assert.deepEqual(empty.json().response.pageInfo, { hasNextPage: false, endCursor: '' });
    const again = await t.app.inject({ method: 'GET', url: '/v1/projects?cursor=', headers: team.headers });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json().response.pageInfo, { hasNextPage: false, endCursor: '' });
  });

  test('a known path with another method answers 405 with Allow', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: '/v1/projects', headers: t.owner.headers });
    assert.equal(res.statusCode, 405);
    assert.equal(res.json().code, 'METHOD_NOT_ALLOWED');
    const allow = String(res.headers.allow).split(', ');
    for (const m of ['GET', 'POST', 'PUT', 'DELETE']) assert.ok(allow.includes(m), `Allow: ${res.headers.allow}`);
    const param = await t.app.inject({ method: 'DELETE', url: '/v1/export/12', headers: t.owner.headers });
    assert.equal(param.statusCode, 405);
    assert.match(String(param.headers.allow), /GET/);
    const unknown = await t.app.inject({ method: 'GET', url: '/v1/nothing-here', headers: t.owner.headers });
    assert.equal(unknown.statusCode, 404);
  });
});
