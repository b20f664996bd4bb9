// Generated avatars (SPEC §11): a user's profilePicture is a signed link to an SVG with its initials, served
// without a token; a link with another signature finds nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';

describe('GET /avatars/:file', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** The profilePicture of a user as GET /v1/users lists it, without the public URL. */
  async function avatarPathOf(userId: number): Promise<string> {
    const res = await t.app.inject({ method: 'GET', url: '/v1/users?limit=100', headers: t.owner.headers });
    const node = res.json().response.nodes.find((n: { id: number }) => n.id === userId);
    assert.ok(node, `user ${userId} is listed`);
    assert.ok(node.profilePicture.startsWith('http://placard.test/'));
    return node.profilePicture.slice('http://placard.test'.length);
  }

  async function createUser(name: string, email: string): Promise<number> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { name, email, role: 'Viewer' },
    });
    assert.equal(res.statusCode, 200);
    return res.json().response.id;
  }

  test('the profilePicture URL answers an SVG with the initials, without a token', async () => {
    const path = await avatarPathOf(t.owner.userId);
    assert.match(path, new RegExp(`^/avatars/${t.owner.userId}\\.svg\\?s=[A-Za-z0-9_-]{43}$`));
    const res = await t.app.inject({ method: 'GET', url: path });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/svg+xml; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'public, max-age=86400');
    assert.match(res.headers['content-security-policy'] as string, /default-src 'none'/);
    assert.match(res.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    // "Acme Owner"
    assert.match(res.body, /aria-label="Acme Owner"/);
    assert.match(res.body, />AO<\/text><\/svg>$/);
  });

  test('initials are the first letters of the first and last words; markup in names is escaped', async () => {
    const cases: Array<[string, string]> = [
      ['grace brewster murray hopper', 'GH'],
      ['Zoë', 'Z'],
      ['<b>Bold</b> & "Co"', '&#60;&#34;'],
    ];
    for (const [i, [name, initials]] of cases.entries()) {
      const id = await createUser(name, `avatar${i}@acme.test`);
      const res = await t.app.inject({ method: 'GET', url: await avatarPathOf(id) });
      assert.equal(res.statusCode, 200);
      assert.ok(res.body.endsWith(`>${initials}</text></svg>`), `${name}: ${res.body}`);
      assert.ok(!res.body.includes('<b>'));
    }
  });

  test('a wrong signature is 404 NOT_FOUND', async () => {
    const path = await avatarPathOf(t.owner.userId);
    const res = await t.app.inject({ method: 'GET', url: path.replace(/s=.*/, 's=forged') });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      error: 'no such avatar',
      code: 'NOT_FOUND',
      requestId: res.headers['x-request-id'],
    });
  });

  test("another user's signature does not open this user's avatar", async () => {
    const other = await createUser('Other Person', 'other@acme.test');
    const signature = (await avatarPathOf(other)).split('?')[1];
    const res = await t.app.inject({ method: 'GET', url: `/avatars/${t.owner.userId}.svg?${signature}` });
    assert.equal(res.statusCode, 404);
  });

  test('a missing signature or a malformed file name is 400', async () => {
    const missing = await t.app.inject({ method: 'GET', url: `/avatars/${t.owner.userId}.svg` });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().code, 'VALIDATION_FAILED');
    const file = await t.app.inject({ method: 'GET', url: '/avatars/abc.png?s=x' });
    assert.equal(file.statusCode, 400);
    assert.equal(file.json().code, 'VALIDATION_FAILED');
  });

  test('the avatar of a deleted user still answers, for names kept in history', async () => {
    const id = await createUser('Gone Soon', 'gone@acme.test');
    const path = await avatarPathOf(id);
    await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: 'gone@acme.test' },
    });
    const res = await t.app.inject({ method: 'GET', url: path });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, />GS<\/text><\/svg>$/);
  });
});
