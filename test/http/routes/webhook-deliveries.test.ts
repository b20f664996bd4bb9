// GET /v1/webhooks/deliveries and POST /v1/webhooks/deliveries/{id}/redeliver through the app: an event delivered
// end to end to a receiver on 127.0.0.1, the list's exact shape with attempts, filters, keyset pages over ties and
// cursors bound to their query, redelivery with the same webhook-id, another team's delivery as 404, roles below Admin
// as 403.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createDeliveryRepository } from '../../../src/storage/db/repositories/deliveries.repository.js';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface DeliveryNode {
  id: string;
  webhookId: number | null;
  action: string;
  url: string;
  status: string;
  attempts: Array<{ attemptedAt: string; statusCode: number | null; error: string | null; durationMs: number }>;
  nextAttemptAt: string | null;
  createdAt: string;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhook deliveries routes', () => {
  let t: TestApp;
  let server: http.Server;
  let base: string;
  const received: Received[] = [];

  before(async () => {
    // Retries 1.5 s apart: a delivery to a receiver that is down stays pending for seconds, long enough for a loaded
    // machine to see it so (at 50–200 ms, three deliveries could all be spent before one poll saw them pending).
    t = await startTestApp({ webhookRetryDelaysMs: [1_500, 1_500, 1_500] });
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        received.push({
          path: request.url ?? '/',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        // A receiver that is down: every delivery to it is retried.
        response.writeHead(request.url?.startsWith('/down') ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await t.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const call = (method: 'GET' | 'POST', url: string, caller: Caller, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: caller.headers, ...(payload ? { payload } : {}) });

  const list = async (caller: Caller, query = '') => {
    const res = await call('GET', `/v1/webhooks/deliveries${query}`, caller);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response as {
      totalCount: number;
      nodes: DeliveryNode[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  };

  async function createWebhook(caller: Caller, path: string, actions: number[]): Promise<number> {
    const res = await call('POST', '/v1/webhooks', caller, { name: path, url: `${base}${path}`, actions });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response.id;
  }

  for (const change of ['deleted', 'given another URL'] as const) {
    test(`a webhook ${change} stops its pending deliveries: listed as cancelled, its receiver gets nothing more`, async () => {
      const team = await t.newTeam(change === 'deleted' ? 'Gone' : 'Moved');
      const path = `/down-${change === 'deleted' ? 'gone' : 'moved'}`;
      const webhookId = await createWebhook(team, path, [9]);
      for (let i = 0; i < 3; i++) {
        const res = await call('POST', '/v1/users', team, { name: `U${i}`, email: `u${i}@x.test`, role: 'Viewer' });
        assert.equal(res.statusCode, 200, res.body);
      }
      // Every delivery has failed once and waits for a retry.
      await waitFor('a first attempt of each delivery', async () => {
        const { nodes } = await list(team);
        return nodes.length === 3 && nodes.every((n) => n.attempts.length >= 1 && n.status === 'pending');
      });
      const res =
        change === 'deleted'
          ? await t.app.inject({ method: 'DELETE', url: '/v1/webhooks', headers: team.headers, payload: { webhookId } })
          : await t.app.inject({
              method: 'PUT',
              url: '/v1/webhooks',
              headers: team.headers,
              payload: { webhookId, url: `${base}/elsewhere` },
            });
      assert.equal(res.statusCode, 200, res.body);
      const afterChange = received.filter((r) => r.path === path).length;
      const { nodes } = await list(team);
      assert.deepEqual(
        nodes.map((n) => [n.status, n.nextAttemptAt]),
        nodes.map(() => ['cancelled', null]),
      );
      assert.deepEqual((await list(team, '?status=cancelled')).nodes.length, 3);
      // The retries were due within 1.5 s (the delays above): wait past all of them and the queue's polls.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      // An attempt already on the wire when the change committed may still land; nothing after it.
      assert.ok(received.filter((r) => r.path === path).length <= afterChange + 3);
      const settled = received.filter((r) => r.path === path).length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      assert.equal(received.filter((r) => r.path === path).length, settled);
      assert.ok(
        (await list(team)).nodes.every((n) => n.status === 'cancelled'),
        'a late attempt does not reopen a cancelled delivery',
      );
    });
  }

  test('an event is delivered end to end and listed with its attempt', async () => {
    const team = await t.newTeam('Live');
    const webhookId = await createWebhook(team, '/live', [9]);
    const secret = (await call('GET', '/v1/webhooks/secret', team)).json().response.secret as string;
    const created = await call('POST', '/v1/users', team, {
      name: 'New Person',
      email: 'new@live.test',
      role: 'Viewer',
    });
    assert.equal(created.statusCode, 200, created.body);

    const node = await waitFor('the delivery to succeed', async () => {
      const [first] = (await list(team)).nodes;
      return first?.status === 'succeeded' ? first : undefined;
    });
    const [got] = received.filter((r) => r.path === '/live');
    assert.equal(got.headers['webhook-id'], node.id);
    const payload = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as {
      id: string;
      action: string;
      teamId: number;
      data: { user: { id: number } };
    };
    assert.equal(payload.id, node.id);
    assert.equal(payload.action, 'user/create');
    assert.equal(payload.teamId, team.teamId);
    assert.equal(payload.data.user.id, created.json().response.id);

    assert.deepEqual(Object.keys(node), [
      'id',
      'webhookId',
      'action',
      'url',
      'status',
      'attempts',
      'nextAttemptAt',
      'createdAt',
    ]);
    assert.deepEqual(
      { ...node, attempts: [], createdAt: '' },
      {
        id: node.id,
        webhookId,
        action: 'user/create',
        url: `${base}/live`,
        status: 'succeeded',
        attempts: [],
        nextAttemptAt: null,
        createdAt: '',
      },
    );
    assert.match(node.createdAt, ISO_MS);
    assert.equal(node.attempts.length, 1);
    assert.deepEqual(Object.keys(node.attempts[0]), ['attemptedAt', 'statusCode', 'error', 'durationMs']);
    assert.equal(node.attempts[0].statusCode, 200);
    assert.equal(node.attempts[0].error, null);
    assert.match(node.attempts[0].attemptedAt, ISO_MS);
    assert.ok(Number.isInteger(node.attempts[0].durationMs));
  });

  describe('a seeded history', () => {
    let team: Caller & { teamId: number };
    let hookA: number;
    let hookB: number;
    /** Newest first, as the list orders them by default. */
    const ids: string[] = [];

    before(async () => {
      team = await t.newTeam('History');
      hookA = await createWebhook(team, '/a', [1]);
      hookB = await createWebhook(team, '/b', [1]);
      const repo = createDeliveryRepository(t.runtime.db.kysely);
      // Three share one timestamp: the pages must break the tie by id and neither skip nor repeat one.
      const seeds = [
        { at: '2026-01-01T10:00:00.000Z', webhookId: hookA, status: 'succeeded', codes: [500, 200] },
        { at: '2026-01-01T11:00:00.000Z', webhookId: hookB, status: 'failed', codes: [503, 503, 503] },
        { at: '2026-01-01T12:00:00.000Z', webhookId: hookA, status: 'failed', codes: [null] },
        { at: '2026-01-01T12:00:00.000Z', webhookId: hookB, status: 'succeeded', codes: [204] },
        { at: '2026-01-01T12:00:00.000Z', webhookId: null, status: 'pending', codes: [] },
      ] as const;
      const rows = seeds.map((s) => ({ ...s, id: randomUUID() }));
      for (const s of rows) {
        await repo.insert([
          {
            id: s.id,
            teamId: team.teamId,
            webhookId: s.webhookId,
            eventId: s.webhookId === null ? null : randomUUID(),
            exportId: s.webhookId === null ? randomUUID() : null,
            action: 'export/complete',
            url: `${base}/${s.webhookId === null ? 'export' : s.webhookId === hookA ? 'a' : 'b'}`,
            payload: JSON.stringify({ id: s.id }),
            at: s.at,
          },
        ]);
        for (const [i, code] of s.codes.entries()) {
          await repo.recordAttempt({
            delivery_id: s.id,
            attempted_at: `2026-01-01T1${i}:30:00.000Z`,
            status_code: code,
            error: code === null ? 'connect ECONNREFUSED 10.0.0.1:443' : null,
            duration_ms: 10 + i,
          });
        }
        await t.runtime.db.kysely
          .updateTable('webhook_deliveries')
          .set({
            status: s.status,
            // Pending with its attempt far ahead: nothing in this process delivers it during the test.
            next_attempt_at: s.status === 'pending' ? '2999-01-01T00:00:00.000Z' : null,
          })
          .where('id', '=', s.id)
          .execute();
      }
      const tied = rows.filter((r) => r.at === '2026-01-01T12:00:00.000Z').map((r) => r.id);
      ids.push(...tied.sort().reverse(), rows[1].id, rows[0].id);
    });

    test('lists newest first with ties by id, each with its attempts in order, across pages of 2', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await list(team, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(page.totalCount, 5);
        seen.push(...page.nodes.map((n) => n.id));
        pages++;
        assert.equal(page.pageInfo.hasNextPage, seen.length < 5);
        cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, ids);

      const all = (await list(team)).nodes;
      const byId = new Map(all.map((n) => [n.id, n]));
      const oldest = byId.get(ids[4])!;
      assert.deepEqual(oldest.attempts, [
        { attemptedAt: '2026-01-01T10:30:00.000Z', statusCode: 500, error: null, durationMs: 10 },
        { attemptedAt: '2026-01-01T11:30:00.000Z', statusCode: 200, error: null, durationMs: 11 },
      ]);
      assert.equal(byId.get(ids[3])!.attempts.length, 3);
      const exportDelivery = all.find((n) => n.webhookId === null)!;
      assert.deepEqual(
        [exportDelivery.status, exportDelivery.attempts, exportDelivery.nextAttemptAt, exportDelivery.url],
        ['pending', [], '2999-01-01T00:00:00.000Z', `${base}/export`],
      );
      const refused = all.find((n) => n.webhookId === hookA && n.status === 'failed')!;
      assert.deepEqual(refused.attempts[0], {
        attemptedAt: '2026-01-01T10:30:00.000Z',
        statusCode: null,
        error: 'connect ECONNREFUSED 10.0.0.1:443',
        durationMs: 10,
      });
    });

    test('filters by webhookId and status, alone and together; ascending order; an empty page', async () => {
      const ofA = await list(team, `?webhookId=${hookA}`);
      assert.equal(ofA.totalCount, 2);
      assert.ok(ofA.nodes.every((n) => n.webhookId === hookA));
      const failed = await list(team, '?status=failed');
      assert.deepEqual(failed.nodes.map((n) => n.status).sort(), ['failed', 'failed']);
      const failedOfB = await list(team, `?webhookId=${hookB}&status=failed`);
      assert.deepEqual(
        failedOfB.nodes.map((n) => n.id),
        [ids[3]],
      );
      const pending = await list(team, '?status=pending');
      assert.deepEqual(
        pending.nodes.map((n) => n.webhookId),
        [null],
      );
      const asc = await list(team, '?orderDirection=ASC');
      assert.deepEqual(
        asc.nodes.map((n) => n.id),
        [...ids].reverse(),
      );
      const byId = await list(team, '?orderBy=ID&orderDirection=ASC&limit=3');
      const sorted = [...ids].sort();
      assert.deepEqual(
        byId.nodes.map((n) => n.id),
        sorted.slice(0, 3),
      );
      const next = await list(team, `?orderBy=ID&orderDirection=ASC&limit=3&cursor=${byId.pageInfo.endCursor}`);
      assert.deepEqual(
        next.nodes.map((n) => n.id),
        sorted.slice(3),
      );
      const none = await list(team, '?webhookId=999999');
      assert.deepEqual(none, { totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: '' } });
    });

    test('a cursor of another query or one not issued by the API is 400 INVALID_CURSOR; bad filters are 400', async () => {
      const first = await list(team, '?limit=1');
      const cursor = first.pageInfo.endCursor!;
      for (const query of [`?limit=1&status=failed&cursor=${cursor}`, `?limit=1&orderBy=ID&cursor=${cursor}`]) {
        const res = await call('GET', `/v1/webhooks/deliveries${query}`, team);
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().code, 'INVALID_CURSOR');
        assert.match(res.json().error, /^cursor: belongs to a query with other filters or another order/);
      }
      const forged = Buffer.from(JSON.stringify({ f: 'x', k: 'y', i: 0 })).toString('base64url');
      for (const bad of ['not-a-cursor!', forged]) {
        const res = await call('GET', `/v1/webhooks/deliveries?cursor=${bad}`, team);
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().code, 'INVALID_CURSOR');
      }
      for (const query of ['?status=lost', '?webhookId=abc', '?limit=101']) {
        const res = await call('GET', `/v1/webhooks/deliveries${query}`, team);
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().code, 'VALIDATION_FAILED');
      }
    });

    test("another team's deliveries are not listed and cannot be redelivered (404)", async () => {
      const repo = createDeliveryRepository(t.runtime.db.kysely);
      const untouched = await repo.find(ids[0]);
      const other = await t.newTeam('Elsewhere');
      assert.deepEqual((await list(other)).totalCount, 0);
      const res = await call('POST', `/v1/webhooks/deliveries/${ids[0]}/redeliver`, other);
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 'NOT_FOUND');
      assert.equal(res.json().error, `id: no webhook delivery ${ids[0]} in this team`);
      const unknown = await call('POST', `/v1/webhooks/deliveries/${randomUUID()}/redeliver`, team);
      assert.equal(unknown.statusCode, 404);
      const malformed = await call('POST', '/v1/webhooks/deliveries/42/redeliver', team);
      assert.equal(malformed.statusCode, 400);
      assert.deepEqual(await repo.find(ids[0]), untouched);
    });

    test('Editors and Viewers get 403 on both routes; Admins may list', async () => {
      for (const role of ['Editor', 'Viewer'] as const) {
        const caller = await t.userWith(role, team);
        for (const [method, url] of [
          ['GET', '/v1/webhooks/deliveries'],
          ['POST', `/v1/webhooks/deliveries/${ids[3]}/redeliver`],
        ] as const) {
          const res = await call(method, url, caller);
          assert.equal(res.statusCode, 403, `${role} ${method} ${url}`);
          assert.equal(res.json().code, 'FORBIDDEN');
        }
      }
      const admin = await t.userWith('Admin', team);
      assert.equal((await list(admin)).totalCount, 5);
    });

    test('redeliver: pending at once, one more attempt with the same webhook-id, then succeeded', async () => {
      const failedId = ids[3];
      const before = received.length;
      const res = await call('POST', `/v1/webhooks/deliveries/${failedId}/redeliver`, team);
      assert.equal(res.statusCode, 200, res.body);
      const { delivery } = res.json().response as { delivery: DeliveryNode };
      assert.equal(delivery.id, failedId);
      assert.equal(delivery.status, 'pending');
      assert.match(delivery.nextAttemptAt ?? '', ISO_MS);
      assert.equal(delivery.attempts.length, 3);

      const done = await waitFor('the redelivery', async () => {
        const node = (await list(team, `?webhookId=${hookB}`)).nodes.find((n) => n.id === failedId);
        return node?.status === 'succeeded' ? node : undefined;
      });
      assert.deepEqual(
        done.attempts.map((a) => a.statusCode),
        [503, 503, 503, 200],
      );
      assert.equal(done.nextAttemptAt, null);
      const posts = received.slice(before).filter((r) => r.path === '/b');
      assert.equal(posts.length, 1);
      assert.equal(posts[0].headers['webhook-id'], failedId);
      assert.equal(posts[0].body, JSON.stringify({ id: failedId }));
    });
  });
});
