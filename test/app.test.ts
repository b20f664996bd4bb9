// buildApp by PLACARD_ROLE: a worker builds health, metrics and the background work and nothing of the API (no route,
// no auth, no OpenAPI document); an api process builds the API and registers no job handler; `all` builds both.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildApp } from '../src/app.js';
import type { JobKind, JobQueue } from '../src/jobs/job-queue.js';
import { JOB_KINDS } from '../src/jobs/job-queue.js';
import { createLocalJobQueue } from '../src/jobs/local-queue.js';
import { startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

/** A queue of its own (one handler per kind and queue) that records which kinds got a handler. */
function recordingQueue(): { queue: JobQueue; registered: JobKind[] } {
  const queue = createLocalJobQueue({ db: t.runtime.db.kysely, dialect: t.runtime.db.dialect });
  const registered: JobKind[] = [];
  const process = queue.process.bind(queue);
  queue.process = (kind, handler, options) => {
    registered.push(kind);
    process(kind, handler, options);
  };
  return { queue, registered };
}

async function built(role: 'api' | 'worker' | 'all') {
  const { queue, registered } = recordingQueue();
  const app = await buildApp({ ...t.runtime, config: { ...t.config, role }, jobs: queue, logger: false });
  await app.ready();
  const routes = app.printRoutes({ commonPrefix: false });
  return { app, registered, routes };
}

test('the worker role builds health, metrics and the job handlers, and no API route or plugin', async () => {
  const { app, registered, routes } = await built('worker');
  try {
    assert.deepEqual([...registered].sort(), [...JOB_KINDS].sort());
    assert.doesNotMatch(routes, /\/v1\//);
    assert.doesNotMatch(routes, /openapi|\/docs|\/files|\/share/);
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(metrics.statusCode, 200);
    for (const kind of JOB_KINDS) assert.match(metrics.body, new RegExp(`placard_queue_depth\\{kind="${kind}"\\}`));
    // Not switched off: absent. The answer is the envelope's 404, not a 401 of an auth plugin.
    const res = await app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      payload: { clientId: 'x', clientSecret: 'y' },
    });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'NOT_FOUND');
  } finally {
    await app.close();
  }
});

test('the api role builds the API and registers no job handler', async () => {
  const { app, registered, routes } = await built('api');
  try {
    assert.deepEqual(registered, []);
    assert.ok(app.hasRoute({ method: 'POST', url: '/v1/auth/token' }));
    assert.ok(app.hasRoute({ method: 'POST', url: '/v1/export-with-changes' }));
    assert.match(routes, /openapi/);
    const res = await app.inject({ method: 'GET', url: '/v1/users' });
    assert.equal(res.statusCode, 401);
  } finally {
    await app.close();
  }
});

test('the all role builds both', async () => {
  const { app, registered } = await built('all');
  try {
    assert.deepEqual([...registered].sort(), [...JOB_KINDS].sort());
    // hasRoute, not the printed tree: its shape changes as routes share prefixes.
    assert.ok(app.hasRoute({ method: 'GET', url: '/v1/templates' }));
    assert.ok(app.hasRoute({ method: 'POST', url: '/v1/export-with-changes' }));
  } finally {
    await app.close();
  }
});
