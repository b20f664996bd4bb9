// Operations routes (SPEC §12): liveness, readiness of the database and the storage, Prometheus metrics by route.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../../src/app.js';
import { createLocalJobQueue } from '../../../src/jobs/local-queue.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

describe('health and metrics', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('GET /healthz answers { status: "ok" } without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  test('GET /readyz checks the database, the job queue, the storage and Redis when scaled out', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 200);
    const checks = { database: 'ok', queue: 'ok', storage: 'ok', ...(t.runtime.redis ? { redis: 'ok' } : {}) };
    assert.deepEqual(res.json(), { status: 'ready', checks });
  });

  test('GET /readyz is 503 naming the dependency that is down', async () => {
    const broken = await buildApp({
      ...t.runtime,
      // Its own job queue: a queue takes one handler per kind, and the harness's app registered them on its own.
      jobs: {
        ...createLocalJobQueue({ db: t.runtime.db.kysely, dialect: t.runtime.db.dialect }),
        depth: async () => {
          throw new Error('queue unreachable');
        },
      },
      blobs: {
        ...t.runtime.blobs,
        ping: async () => {
          throw new Error('storage unreachable');
        },
      },
      redis: {
        ping: async () => {
          throw new Error('redis unreachable');
        },
      },
      db: {
        ...t.runtime.db,
        ping: async () => {
          throw new Error('connection refused');
        },
      },
      logger: false,
    });
    try {
      await broken.ready();
      const res = await broken.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      const body = res.json();
      assert.equal(body.status, 'unavailable');
      // The reason (which may hold hosts or paths) goes to the log, not to an unauthenticated answer.
      assert.deepEqual(body.checks, {
        database: 'unreachable',
        queue: 'unreachable',
        storage: 'unreachable',
        redis: 'unreachable',
      });
      // Liveness does not depend on the dependencies.
      assert.equal((await broken.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    } finally {
      await broken.close();
    }
  });

  test('GET /readyz answers 503 naming a dependency that never answers (a Redis that is down), not after it', async () => {
    const hung = await buildApp({
      ...t.runtime,
      jobs: createLocalJobQueue({ db: t.runtime.db.kysely, dialect: t.runtime.db.dialect }),
      // ioredis with its retries: the ping neither resolves nor rejects while Redis is down.
      redis: { ping: () => new Promise(() => {}) },
      logger: false,
    });
    try {
      await hung.ready();
      const res = await hung.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.json().checks, { database: 'ok', queue: 'ok', storage: 'ok', redis: 'unreachable' });
    } finally {
      await hung.close();
    }
  });

  test('GET /metrics serves request latency labelled by route pattern, never by raw URL', async () => {
    await t.app.inject({ method: 'GET', url: '/v1/users', headers: t.owner.headers });
    await t.app.inject({ method: 'GET', url: '/avatars/123456.svg?s=wrong' });
    await t.app.inject({ method: 'GET', url: '/no-such-route-98765' });

    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
    const text = res.body;
    assert.match(text, /# TYPE placard_http_request_duration_seconds histogram/);
    assert.match(
      text,
      /placard_http_request_duration_seconds_count\{method="GET",route="\/v1\/users",status="200"\} [1-9]\d*/,
    );
    assert.match(text, /placard_http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/v1\/users"/);
    assert.match(text, /route="\/avatars\/:file",status="404"/);
    assert.match(text, /route="unmatched",status="404"/);
    assert.ok(!text.includes('123456'));
    assert.ok(!text.includes('no-such-route'));
    // Process metrics of prom-client, under the service prefix.
    assert.match(text, /placard_process_cpu_user_seconds_total/);
  });

  test('GET /docs answers the API reference as HTML', async () => {
    let res = await t.app.inject({ method: 'GET', url: '/docs' });
    if (res.statusCode === 302) res = await t.app.inject({ method: 'GET', url: String(res.headers.location) });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /<html/i);
    assert.match(res.body, /swagger/i);
  });
});
