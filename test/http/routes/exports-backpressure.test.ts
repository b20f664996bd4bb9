// Backpressure on the expected wait (issue 14): the export answer says where the export stands (`queue.position`,
// `queue.expectedWaitMs`), the metrics show the time to drain, and an export whose expected wait passes
// PLACARD_MAX_QUEUE_WAIT_SECONDS is refused with 503 and Retry-After — judged by fair turns, so the team that built
// the backlog is refused while another team's small export is not. The render rate is stubbed (the queue reports a
// fixed number of files finished in the last minute) and renders never end, so every figure is exact: no clock.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';
import { heldRenderPool } from '../../helpers/held-render-pool.js';

describe('exports answer their expected wait, and refuse a wait too long', () => {
  let t: TestApp;
  /** Files the stubbed queue says finished in the last minute. */
  let finishedLastMinute = 30;
  const { pool, release } = heldRenderPool();

  before(async () => {
    t = await startTestApp({
      renderPool: pool,
      maxQueueWaitSeconds: 60,
      // The stubbed rate changes mid-test: read it on every request.
      renderRateTtlMs: 0,
      wrapJobs: (jobs) => ({ ...jobs, finishedSince: async () => finishedLastMinute }),
    });
  });
  after(async () => {
    release();
    await t.close();
  });

  async function designOf(caller: Caller, name: string, slides: number): Promise<string> {
    const post = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: caller.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response;
    };
    const kit = (await post('/v1/brandkits/create', { name: 'K' })).brandKit.id;
    const project = (await post('/v1/projects', { name: 'P', brandKitId: kit })).project.id;
    const document = {
      name,
      sizes: [
        {
          name: 'S',
          width: 300,
          height: 250,
          slides: Array.from({ length: slides }, () => ({ duration: 1, elements: [] })),
        },
      ],
    };
    return (await post('/v1/templates/import', { projectId: project, name, document })).template.id;
  }

  const exportOf = (caller: Caller, hash: string, type: string) =>
    t.app.inject({ method: 'POST', url: '/v1/export', headers: caller.headers, payload: { creativeHash: hash, type } });

  const exportsOfTeam = async (teamId: number) =>
    (await t.runtime.db.kysely.selectFrom('exports').select('id').where('team_id', '=', teamId).execute()).length;

  test('position and expected wait follow fair turns; the team whose export would wait too long gets 503', async () => {
    const busy = t.owner;
    const other = await t.newTeam('Other');
    const twenty = await designOf(busy, 'Twenty', 20);
    const one = await designOf(other, 'One', 1);

    // 30 files a minute: 2 s a file. Nothing in flight: 20 files, the last one in 40 s.
    const first = await exportOf(busy, twenty, 'png');
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json().response.queue, { position: 0, expectedWaitMs: 40_000 });

    // 20 more of the same team: its last file after the 40 in flight and these, 80 s > 60 s.
    const refused = await exportOf(busy, twenty, 'jpg');
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json().code, 'UNAVAILABLE');
    assert.match(refused.json().error, /would be rendered in about 80 s .* more than the limit of 60 s/);
    assert.match(refused.json().error, /PLACARD_MAX_QUEUE_WAIT_SECONDS/);
    assert.equal(refused.headers['retry-after'], '20');
    assert.equal(await exportsOfTeam(busy.teamId), 1, 'the refused export created nothing');

    // Another team: one turn of the busy team's, then its file — 2 files, 4 s.
    const mine = await exportOf(other, one, 'png');
    assert.equal(mine.statusCode, 200, mine.body);
    assert.deepEqual(mine.json().response.queue, { position: 1, expectedWaitMs: 4_000 });

    // The metric: 21 files in flight at 0.5 a second.
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /^placard_export_expected_wait_seconds 42$/m);
    assert.match(metrics, /^placard_export_render_rate 0\.5$/m);

    // Too few files finished to tell a rate: no estimate, and no refusal on time (the count limits still hold).
    finishedLastMinute = 5;
    const unknown = await exportOf(busy, twenty, 'webp');
    assert.equal(unknown.statusCode, 200, unknown.body);
    assert.deepEqual(unknown.json().response.queue, { position: 21, expectedWaitMs: null });
    assert.match(
      (await t.app.inject({ method: 'GET', url: '/metrics' })).body,
      /^placard_export_expected_wait_seconds Nan$/im,
    );
  });

  test('the OpenAPI document describes the queue extension of the export answer', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const answer = spec.paths['/v1/export'].post.responses['200'].content['application/json'].schema;
    const queue = answer.properties.response.properties.queue;
    assert.ok(queue, JSON.stringify(answer).slice(0, 500));
    assert.deepEqual(Object.keys(queue.properties).sort(), ['expectedWaitMs', 'position']);
    assert.match(queue.properties.expectedWaitMs.description, /render rate of the last minute/);
  });
});
