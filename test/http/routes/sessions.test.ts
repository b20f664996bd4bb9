// Studio sign-in (issue 18): invites set passwords, login sets an HttpOnly SameSite=Lax cookie that authenticates /v1
// like a bearer token, CSRF is enforced on cookie-authenticated writes, sessions end on logout, role change and delete.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const PASSWORD = 'correct horse battery';

describe('studio sessions', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function invite(userId: number, headers = t.owner.headers) {
    const res = await t.app.inject({ method: 'POST', url: '/v1/users/invite', headers, payload: { userId } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { inviteUrl: string; expiresAt: string; response: { inviteUrl: string } };
  }
  const tokenOf = (inviteUrl: string) => inviteUrl.split('/invite/')[1];
  const cookieOf = (res: { headers: Record<string, unknown> }) => {
    const raw = ([] as string[]).concat(res.headers['set-cookie'] as string | string[]).join('\n');
    return { raw, value: /placard_session=([^;]*)/.exec(raw)?.[1] ?? '' };
  };
  async function signedIn(role: 'Editor' | 'Viewer' | 'Admin') {
    const user = await t.userWith(role);
    const link = await invite(user.userId);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/invite/accept',
      payload: { token: tokenOf(link.inviteUrl), password: PASSWORD },
    });
    assert.equal(res.statusCode, 200, res.body);
    return { user, cookie: `placard_session=${cookieOf(res).value}`, csrf: res.json().response.csrfToken as string };
  }

  test('invite → set password → the cookie is HttpOnly, SameSite=Lax and authenticates GETs', async () => {
    const user = await t.userWith('Editor');
    const link = await invite(user.userId);
    assert.match(link.inviteUrl, /^http:\/\/placard\.test\/invite\/[A-Za-z0-9_-]{43}$/);
    assert.equal(link.response.inviteUrl, link.inviteUrl);
    const info = await t.app.inject({ method: 'GET', url: `/v1/auth/invite/${tokenOf(link.inviteUrl)}` });
    assert.equal(info.json().response.email, user.email);

    const accepted = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/invite/accept',
      payload: { token: tokenOf(link.inviteUrl), password: PASSWORD },
    });
    assert.equal(accepted.statusCode, 200, accepted.body);
    const { raw, value } = cookieOf(accepted);
    assert.match(raw, /HttpOnly/);
    assert.match(raw, /SameSite=Lax/);
    assert.doesNotMatch(raw, /Secure/); // http public URL
    assert.ok(!accepted.body.includes(PASSWORD) && !accepted.body.includes(value));

    const reused = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/invite/accept',
      payload: { token: tokenOf(link.inviteUrl), password: PASSWORD },
    });
    assert.equal(reused.statusCode, 404);
    assert.match(reused.json().error, /already used/);

    const session = await t.app.inject({
      method: 'GET',
      url: '/v1/auth/session',
      headers: { cookie: `placard_session=${value}` },
    });
    assert.equal(session.statusCode, 200, session.body);
    assert.equal(session.json().response.user.email, user.email);
    assert.equal(session.json().response.user.role.name, 'Editor');

    const stored = await t.runtime.db.kysely
      .selectFrom('user_passwords')
      .selectAll()
      .where('user_id', '=', user.userId)
      .executeTakeFirstOrThrow();
    assert.match(stored.password_hash, /^scrypt\$/);
    assert.ok(!stored.password_hash.includes(PASSWORD));
  });

  test('login: wrong password 401, right one sets a session; logout ends it', async () => {
    const { user } = await signedIn('Editor');
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: user.email, password: 'nope-nope-nope' },
    });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().code, 'INVALID_CREDENTIALS');
    const ok = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: user.email.toUpperCase(), password: PASSWORD },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    const cookie = `placard_session=${cookieOf(ok).value}`;
    const csrf = ok.json().response.csrfToken;
    const out = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    assert.equal(out.statusCode, 200, out.body);
    const after = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } });
    assert.equal(after.statusCode, 401);
    assert.match(after.json().error, /session has expired or was ended/);
  });

  test('a cookie-authenticated write needs the CSRF token and a same-site Origin; bearer clients need neither', async () => {
    const { cookie, csrf } = await signedIn('Editor');
    const body = { name: 'Kit' };
    const noToken = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: { cookie },
      payload: body,
    });
    assert.equal(noToken.statusCode, 403);
    assert.equal(noToken.json().code, 'CSRF_REJECTED');
    const crossSite = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: { cookie, 'x-csrf-token': csrf, origin: 'https://evil.example' },
      payload: body,
    });
    assert.equal(crossSite.statusCode, 403);
    assert.equal(crossSite.json().code, 'CSRF_REJECTED');
    const before = await t.runtime.db.kysely.selectFrom('brand_kits').select('id').execute();
    const ok = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: { cookie, 'x-csrf-token': csrf, origin: 'http://placard.test' },
      payload: body,
    });
    assert.equal(ok.statusCode, 200, ok.body);
    const afterRows = await t.runtime.db.kysely.selectFrom('brand_kits').select('id').execute();
    assert.equal(afterRows.length, before.length + 1); // the refused ones created nothing
    const bearer = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: t.owner.headers,
      payload: body,
    });
    assert.equal(bearer.statusCode, 200);
  });

  test('a Viewer session reads but cannot write; an Editor cannot invite', async () => {
    const viewer = await signedIn('Viewer');
    const read = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: viewer.cookie } });
    assert.equal(read.statusCode, 200);
    const write = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: { cookie: viewer.cookie, 'x-csrf-token': viewer.csrf },
      payload: { name: 'no' },
    });
    assert.equal(write.statusCode, 403);
    assert.equal(write.json().code, 'FORBIDDEN');
    const editor = await signedIn('Editor');
    const inv = await t.app.inject({
      method: 'POST',
      url: '/v1/users/invite',
      headers: { cookie: editor.cookie, 'x-csrf-token': editor.csrf },
      payload: { userId: viewer.user.userId },
    });
    assert.equal(inv.statusCode, 403);
  });

  test('a role change or a deletion ends the sessions; another team’s user cannot be invited', async () => {
    const a = await signedIn('Editor');
    const role = await t.app.inject({
      method: 'PUT',
      url: '/v1/users/updateTeamUserRole',
      headers: t.owner.headers,
      payload: { userId: a.user.userId, roleId: 4 },
    });
    assert.equal(role.statusCode, 200, role.body);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: a.cookie } })).statusCode,
      401,
    );

    const b = await signedIn('Editor');
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: b.user.email },
    });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: b.cookie } })).statusCode,
      401,
    );

    const other = await t.newTeam('Other');
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/users/invite',
      headers: t.owner.headers,
      payload: { userId: other.userId },
    });
    assert.equal(res.statusCode, 404);
  });

  test('login is rate limited per account', async () => {
    const { user } = await signedIn('Editor');
    let last = 0;
    for (let i = 0; i < 11; i++) {
      last = (
        await t.app.inject({
          method: 'POST',
          url: '/v1/auth/login',
          payload: { email: user.email, password: 'wrong-wrong-1' },
        })
      ).statusCode;
    }
    assert.equal(last, 429);
  });
});
