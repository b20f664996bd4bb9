// Request budgets (SPEC §9): per team once authenticated, per client address before; RateLimit-* headers on every
// limited response and Retry-After on a 429; health routes are never limited. The window is made long so that no
// assertion depends on how fast the test runs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTeamService } from '../../../src/services/team.service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const WINDOW = 3600;

describe('rate limits', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ rateLimit: { other: 3, windowSeconds: WINDOW } });
  });
  after(() => t.close());

  /** A team whose token was fetched from its own address, so that no other test's address budget is touched. */
  async function freshTeam(name: string, remoteAddress: string) {
    const team = await createTeamService(t.runtime.db.kysely).createTeam({ name, ownerEmail: `${name}@rate.test` });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      remoteAddress,
      payload: { clientId: team.clientId, clientSecret: team.clientSecret },
    });
    assert.equal(res.statusCode, 200);
    return { ...team, headers: { authorization: `Bearer ${res.json().token}` } };
  }

  function assertHeaders(res: { headers: Record<string, unknown> }, remaining: number) {
    assert.equal(res.headers['ratelimit-limit'], '3');
    assert.equal(res.headers['ratelimit-remaining'], String(remaining));
    const reset = Number(res.headers['ratelimit-reset']);
    assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= WINDOW, `RateLimit-Reset ${reset}`);
  }

  test('the fourth request of a team in the window is 429 RATE_LIMITED with Retry-After', async () => {
    const team = await freshTeam('alpha', '10.0.1.1');
    for (const remaining of [2, 1, 0]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/users', headers: team.headers });
      assert.equal(res.statusCode, 200);
      assertHeaders(res, remaining);
    }
    const res = await t.app.inject({ method: 'GET', url: '/v1/users', headers: team.headers });
    assert.equal(res.statusCode, 429);
    assertHeaders(res, 0);
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW);
    const body = res.json();
    assert.deepEqual(body, {
      error: `rate limit of 3 requests per window exceeded; retry in ${res.headers['ratelimit-reset']} s`,
      code: 'RATE_LIMITED',
      requestId: res.headers['x-request-id'],
    });

    // Every route of the group shares the budget, writes included; nothing is written.
    const create = await t.app.inject({
      method: 'POST',
      url: '/v1/users',
      headers: team.headers,
      payload: { name: 'Late', email: 'late@rate.test', role: 'Viewer' },
    });
    assert.equal(create.statusCode, 429);
    const rows = await t.runtime.db.kysely
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'late@rate.test')
      .execute();
    assert.deepEqual(rows, []);
  });

  test('another team keeps its own budget', async () => {
    const exhausted = await freshTeam('bravo', '10.0.2.1');
    for (let i = 0; i < 4; i++) await t.app.inject({ method: 'GET', url: '/v1/users', headers: exhausted.headers });
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/users', headers: exhausted.headers })).statusCode, 429);

    const other = await freshTeam('charlie', '10.0.2.2');
    const res = await t.app.inject({ method: 'GET', url: '/v1/users', headers: other.headers });
    assert.equal(res.statusCode, 200);
    assertHeaders(res, 2);
  });

  test('a team is limited by team, not by the address it calls from', async () => {
    const team = await freshTeam('delta', '10.0.3.1');
    for (const [i, remoteAddress] of ['10.0.3.2', '10.0.3.3', '10.0.3.4'].entries()) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/roles', headers: team.headers, remoteAddress });
      assertHeaders(res, 2 - i);
    }
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/roles',
      headers: team.headers,
      remoteAddress: '10.0.3.5',
    });
    assert.equal(res.statusCode, 429);
  });

  test('unauthenticated requests are limited by client address', async () => {
    const attempt = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/auth/token',
        remoteAddress,
        payload: { clientId: '00000000-0000-4000-8000-000000000000', clientSecret: 'guess' },
      });
    for (const remaining of [2, 1, 0]) {
      const res = await attempt('10.0.4.1');
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().code, 'INVALID_CREDENTIALS');
      assertHeaders(res, remaining);
    }
    const limited = await attempt('10.0.4.1');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'RATE_LIMITED');
    assert.ok(limited.headers['retry-after']);

    // Guessing tokens draws from the same address budget, and is refused before the token is looked at.
    const guess = await t.app.inject({
      method: 'GET',
      url: '/v1/users',
      remoteAddress: '10.0.4.1',
      headers: { authorization: 'Bearer nope' },
    });
    assert.equal(guess.statusCode, 429);

    // Another address is unaffected.
    const elsewhere = await attempt('10.0.4.2');
    assert.equal(elsewhere.statusCode, 401);
    assertHeaders(elsewhere, 2);
  });

  test('health, readiness and metrics are never limited nor carry RateLimit headers', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics']) {
      for (let i = 0; i < 5; i++) {
        const res = await t.app.inject({ method: 'GET', url, remoteAddress: '10.0.5.1' });
        assert.equal(res.statusCode, 200, url);
        assert.equal(res.headers['ratelimit-limit'], undefined);
      }
    }
  });
});

describe('export budgets count accepted exports only', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ rateLimit: { exports: 2, invalidExports: 4, windowSeconds: WINDOW } });
  });
  after(() => t.close());

  test('refused export requests spend the budget of invalid requests, not the export budget', async () => {
    const inject = async (url: string, payload: object) =>
      (await t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload })).json().response;
    const kit = (await inject('/v1/brandkits/create', { name: 'K' })).brandKit.id;
    const project = (await inject('/v1/projects', { name: 'P', brandKitId: kit })).project.id;
    const document = {
      name: 'D',
      sizes: [{ name: 'S', width: 20, height: 20, backgroundColor: '#FF0000', slides: [{ elements: [] }] }],
    };
    const hash = (await inject('/v1/templates/import', { projectId: project, name: 'D', document })).template.id;
    const exportOf = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/v1/export', headers: t.owner.headers, payload });

    // A user fixing a request: three refusals (a 400, a 404, a 422) …
    const refused = [
      await exportOf({ creativeHash: hash, type: 'png', exportSettings: { scale: 'big' } }),
      await exportOf({ creativeHash: 'zzzzzzz', type: 'png' }),
      await exportOf({ creativeHash: hash, type: 'png', exportSettings: { allowedSizeHashesOnly: ['nosuchh'] } }),
    ];
    assert.deepEqual(
      refused.map((r) => r.statusCode),
      [400, 404, 422],
    );
    // … then both accepted exports of the budget, and only then a 429.
    assert.equal((await exportOf({ creativeHash: hash, type: 'png' })).statusCode, 200);
    assert.equal((await exportOf({ creativeHash: hash, type: 'jpg' })).statusCode, 200);
    const over = await exportOf({ creativeHash: hash, type: 'webp' });
    assert.equal(over.statusCode, 429);
    assert.match(over.json().error, /rate limit of 2 requests per export route window/);
  });

  test('too many refused export requests are limited on their own budget, naming it', async () => {
    const other = await t.newTeam('Sloppy');
    const bad = () =>
      t.app.inject({ method: 'POST', url: '/v1/export', headers: other.headers, payload: { creativeHash: 'x' } });
    for (let i = 0; i < 4; i++) assert.equal((await bad()).statusCode, 400);
    const limited = await bad();
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'RATE_LIMITED');
    assert.match(limited.json().error, /4 export requests were refused as invalid/);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
  });
});

describe('per-address limits behind a proxy (PLACARD_TRUST_PROXY)', () => {
  const tokenAttempt = (t: TestApp, remoteAddress: string, forwardedFor?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      remoteAddress,
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
      payload: { clientId: '00000000-0000-4000-8000-000000000000', clientSecret: 'guess' },
    });

  test('unset: X-Forwarded-For is ignored, every client behind one peer shares its budget', async () => {
    const t = await startTestApp({ rateLimit: { other: 2, windowSeconds: WINDOW } });
    try {
      assert.equal((await tokenAttempt(t, '10.0.8.1', '198.51.100.1')).statusCode, 401);
      assert.equal((await tokenAttempt(t, '10.0.8.1', '198.51.100.2')).statusCode, 401);
      // A forged header does not buy a fresh budget.
      assert.equal((await tokenAttempt(t, '10.0.8.1', '198.51.100.3')).statusCode, 429);
    } finally {
      await t.close();
    }
  });

  test('a list of proxies: the client named by a trusted proxy has its own budget; an untrusted peer cannot forge one', async () => {
    const t = await startTestApp({ trustProxy: ['10.0.9.1'], rateLimit: { other: 2, windowSeconds: WINDOW } });
    try {
      for (let i = 0; i < 2; i++) assert.equal((await tokenAttempt(t, '10.0.9.1', '198.51.100.1')).statusCode, 401);
      assert.equal((await tokenAttempt(t, '10.0.9.1', '198.51.100.1')).statusCode, 429);
      // Another client behind the same balancer is not blocked by the first.
      assert.equal((await tokenAttempt(t, '10.0.9.1', '198.51.100.2')).statusCode, 401);
      // A peer that is not the balancer is limited by its own address whatever it claims.
      assert.equal((await tokenAttempt(t, '10.0.9.7', '198.51.100.9')).statusCode, 401);
      assert.equal((await tokenAttempt(t, '10.0.9.7', '198.51.100.10')).statusCode, 401);
      assert.equal((await tokenAttempt(t, '10.0.9.7', '198.51.100.11')).statusCode, 429);
    } finally {
      await t.close();
    }
  });

  test('a hop count: the address one hop before the balancer is the client', async () => {
    const t = await startTestApp({ trustProxy: 1, rateLimit: { other: 1, windowSeconds: WINDOW } });
    try {
      assert.equal((await tokenAttempt(t, '10.0.10.1', '198.51.100.1')).statusCode, 401);
      assert.equal((await tokenAttempt(t, '10.0.10.1', '198.51.100.1')).statusCode, 429);
      assert.equal((await tokenAttempt(t, '10.0.10.1', '198.51.100.2')).statusCode, 401);
    } finally {
      await t.close();
    }
  });
});
