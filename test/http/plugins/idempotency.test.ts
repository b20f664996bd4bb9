// Idempotency-Key on POST (SPEC §6): a retry with the same key and body replays the first response and does the work
// once; another body under the key is a 409; keys are scoped per team. The memory store is tested with a fake clock.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createMemoryIdempotencyStore,
  IN_FLIGHT_TTL_MS,
  REPLAY_TTL_MS,
  type StoredResponse,
} from '../../../src/http/plugins/idempotency.js';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('Idempotency-Key on POST', () => {
  let t: TestApp;
  let flakyCalls = 0;
  const slowReached = deferred();
  const slowGate = deferred();
  before(async () => {
    t = await startTestApp({
      beforeReady(app) {
        // Fails with a bug the first time, works the second.
        app.post('/v1/test/flaky', { config: { permission: 'read' } }, async () => {
          flakyCalls++;
          if (flakyCalls === 1) throw new Error('transient bug');
          return { response: { calls: flakyCalls } };
        });
        // Holds its response until the test opens the gate.
        app.post('/v1/test/slow', { config: { permission: 'read' } }, async () => {
          slowReached.resolve();
          await slowGate.promise;
          return { response: { done: true } };
        });
      },
    });
  });
  after(() => t.close());

  const createUser = (key: string, payload: Record<string, unknown>, headers: Caller['headers'] = t.owner.headers) =>
    t.app.inject({ method: 'POST', url: '/v1/users', headers: { ...headers, 'idempotency-key': key }, payload });

  const rowsWithEmail = (teamId: number, email: string) =>
    t.runtime.db.kysely
      .selectFrom('users')
      .select('id')
      .where('team_id', '=', teamId)
      .where('email', '=', email)
      .execute();

  test('the same key and body replays the first response and creates one user', async () => {
    const payload = { name: 'Once', email: 'once@acme.test', role: 'Editor' };
    const first = await createUser('create-once-1', payload);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['idempotent-replayed'], undefined);

    // Key order does not make another body.
    const second = await createUser('create-once-1', { role: 'Editor', email: 'once@acme.test', name: 'Once' });
    assert.equal(second.statusCode, 200);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.headers['content-type'], first.headers['content-type']);
    assert.equal(second.body, first.body);
    assert.notEqual(second.headers['x-request-id'], first.headers['x-request-id']);

    assert.equal((await rowsWithEmail(t.owner.teamId, 'once@acme.test')).length, 1);
  });

  test('a replayed failure is the same failure', async () => {
    const payload = { name: 'Boss', email: 'boss@acme.test', role: 'Owner' };
    const admin = await t.userWith('Admin');
    const first = await createUser('forbidden-1', payload, admin.headers);
    assert.equal(first.statusCode, 403);
    const second = await createUser('forbidden-1', payload, admin.headers);
    assert.equal(second.statusCode, 403);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.body, first.body);
  });

  test('the same key with another body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    assert.equal(
      (await createUser('reused-1', { name: 'First', email: 'first@acme.test', role: 'Viewer' })).statusCode,
      200,
    );
    const res = await createUser('reused-1', { name: 'Second', email: 'second@acme.test', role: 'Viewer' });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), {
      error: 'Idempotency-Key "reused-1" was already used with another request within 24 hours',
      code: 'IDEMPOTENCY_KEY_REUSED',
      requestId: res.headers['x-request-id'],
    });
    assert.deepEqual(await rowsWithEmail(t.owner.teamId, 'second@acme.test'), []);
  });

  test('the same key on another route is another request', async () => {
    const key = 'route-scoped-1';
    assert.equal((await createUser(key, { name: 'R', email: 'r@acme.test', role: 'Viewer' })).statusCode, 200);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/apiCredentials',
      headers: { ...t.owner.headers, 'idempotency-key': key },
      payload: { name: 'R key' },
    });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().code, 'IDEMPOTENCY_KEY_REUSED');
  });

  test('the same key in another team is independent', async () => {
    const payload = { name: 'Twin', email: 'twin@acme.test', role: 'Viewer' };
    const other = await t.newTeam('Globex');
    const mine = await createUser('shared-key-1', payload);
    const theirs = await createUser('shared-key-1', payload, other.headers);
    assert.equal(mine.statusCode, 200);
    assert.equal(theirs.statusCode, 200);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.json().response.id, mine.json().response.id);
    assert.equal((await rowsWithEmail(other.teamId, 'twin@acme.test')).length, 1);
    assert.equal((await rowsWithEmail(t.owner.teamId, 'twin@acme.test')).length, 1);
  });

  test('without a key every POST does the work', async () => {
    const payload = { name: 'Plain', email: 'plain@acme.test', role: 'Viewer' };
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/v1/users', headers: t.owner.headers, payload })).statusCode,
      200,
    );
    const again = await t.app.inject({ method: 'POST', url: '/v1/users', headers: t.owner.headers, payload });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'EMAIL_TAKEN');
  });

  test('a key longer than 255 characters is 400 and does nothing', async () => {
    const res = await createUser('k'.repeat(256), { name: 'Long', email: 'long@acme.test', role: 'Viewer' });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), {
      error: 'Idempotency-Key header: must be 1 to 255 printable ASCII characters',
      code: 'VALIDATION_FAILED',
      details: [{ path: '/idempotency-key', in: 'headers', message: 'must be 1 to 255 printable ASCII characters' }],
      requestId: res.headers['x-request-id'],
    });
    assert.deepEqual(await rowsWithEmail(t.owner.teamId, 'long@acme.test'), []);
    // 255 is still fine.
    assert.equal(
      (await createUser('k'.repeat(255), { name: 'L', email: 'l@acme.test', role: 'Viewer' })).statusCode,
      200,
    );
  });

  test('a 5xx is not kept: the retry with the key runs again', async () => {
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/test/flaky',
        headers: { ...t.owner.headers, 'idempotency-key': 'flaky-1' },
        payload: { attempt: 'same' },
      });
    const first = await send();
    assert.equal(first.statusCode, 500);
    const second = await send();
    assert.equal(second.statusCode, 200);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.deepEqual(second.json(), { response: { calls: 2 } });
    const third = await send();
    assert.equal(third.headers['idempotent-replayed'], 'true');
    assert.deepEqual(third.json(), { response: { calls: 2 } });
    assert.equal(flakyCalls, 2);
  });

  test('a retry while the first request is still running is 409 IDEMPOTENCY_KEY_IN_USE with Retry-After', async () => {
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/test/slow',
        headers: { ...t.owner.headers, 'idempotency-key': 'slow-1' },
        payload: { same: true },
      });
    const first = send();
    await slowReached.promise;
    const second = await send();
    assert.equal(second.statusCode, 409);
    assert.equal(second.headers['retry-after'], '1');
    assert.deepEqual(second.json(), {
      error: 'a request with Idempotency-Key "slow-1" is still being processed; retry shortly',
      code: 'IDEMPOTENCY_KEY_IN_USE',
      requestId: second.headers['x-request-id'],
    });
    slowGate.resolve();
    assert.equal((await first).statusCode, 200);
    const third = await send();
    assert.equal(third.statusCode, 200);
    assert.equal(third.headers['idempotent-replayed'], 'true');
  });

  test('the key is ignored on other methods', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/users',
      headers: { ...t.owner.headers, 'idempotency-key': 'k'.repeat(300) },
    });
    assert.equal(res.statusCode, 200);
  });
});

describe('createMemoryIdempotencyStore', () => {
  const response: StoredResponse = { status: 200, contentType: 'application/json; charset=utf-8', body: '{"a":1}' };

  function fakeClock(start = 1_700_000_000_000) {
    let now = start;
    return {
      clock: () => now,
      advance(ms: number) {
        now += ms;
      },
    };
  }

  test('a new key is claimed, then in flight, then done with its response', async () => {
    const time = fakeClock();
    const store = createMemoryIdempotencyStore(time.clock);
    assert.deepEqual(await store.begin('k', 'fp'), { state: 'new' });
    assert.deepEqual(await store.begin('k', 'fp'), { state: 'in-flight' });
    await store.complete('k', response);
    assert.deepEqual(await store.begin('k', 'fp'), { state: 'done', response });
  });

  test('another fingerprint is a mismatch, in flight or done', async () => {
    const store = createMemoryIdempotencyStore(fakeClock().clock);
    await store.begin('k', 'fp');
    assert.deepEqual(await store.begin('k', 'other'), { state: 'mismatch' });
    await store.complete('k', response);
    assert.deepEqual(await store.begin('k', 'other'), { state: 'mismatch' });
  });

  test('a response is replayed for 24 hours after it completed, then the key is new', async () => {
    const time = fakeClock();
    const store = createMemoryIdempotencyStore(time.clock);
    await store.begin('k', 'fp');
    time.advance(1000);
    await store.complete('k', response);
    time.advance(REPLAY_TTL_MS - 1);
    assert.deepEqual(await store.begin('k', 'fp'), { state: 'done', response });
    time.advance(1);
    assert.deepEqual(await store.begin('k', 'other'), { state: 'new' });
    assert.equal(REPLAY_TTL_MS, 24 * 3600 * 1000);
  });

  test('a claim that never completes stops blocking the key after the in-flight limit', async () => {
    const time = fakeClock();
    const store = createMemoryIdempotencyStore(time.clock);
    await store.begin('k', 'fp');
    time.advance(IN_FLIGHT_TTL_MS - 1);
    assert.deepEqual(await store.begin('k', 'fp'), { state: 'in-flight' });
    time.advance(1);
    assert.deepEqual(await store.begin('k', 'fp'), { state: 'new' });
  });

  test('abandon releases the claim at once', async () => {
    const store = createMemoryIdempotencyStore(fakeClock().clock);
    await store.begin('k', 'fp');
    await store.abandon('k');
    assert.deepEqual(await store.begin('k', 'other'), { state: 'new' });
  });

  test('complete after abandon stores nothing', async () => {
    const store = createMemoryIdempotencyStore(fakeClock().clock);
    await store.begin('k', 'fp');
    await store.abandon('k');
    await store.complete('k', response);
    assert.deepEqual(await store.begin('k', 'fp'), { state: 'new' });
  });

  test('keys are independent', async () => {
    const store = createMemoryIdempotencyStore(fakeClock().clock);
    await store.begin('a', 'fp');
    await store.complete('a', response);
    assert.deepEqual(await store.begin('b', 'fp'), { state: 'new' });
    assert.deepEqual(await store.begin('a', 'fp'), { state: 'done', response });
  });
});
