// POST /v1/export of a design exported before, accepted in the same message to SQLite's thread as its cache probe
// (issue 21, stop 38; export.service.ts `speculate`, migration 0028): the accept is built from the design row read last
// and guarded, so that whatever the usual way would refuse or answer otherwise is still refused or answered so — a
// renamed or deleted design, a cached export, every limit of the queue. Renders never end here (a stubbed pool), so
// the files in flight are exact and nothing but the request writes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';
import { heldRenderPool } from '../../helpers/held-render-pool.js';

const postgres = Boolean(process.env.DATABASE_URL);

/** A service whose renders never end, the render rate stubbed at 30 files a minute and kept (no read per request). */
async function startApp(limits: { teamFilesInFlight?: number; queueLimit?: number }) {
  const { pool, release } = heldRenderPool();
  const t = await startTestApp({
    renderPool: pool,
    maxQueueWaitSeconds: 60,
    // An accept goes with its probe only while the render rate is known without a read.
    renderRateTtlMs: 600_000,
    ...limits,
    wrapJobs: (jobs) => ({ ...jobs, finishedSince: async () => 30 }),
  });

  /** A request that must succeed; its `response`. */
  async function ok(caller: Caller, method: 'POST' | 'PUT' | 'DELETE', url: string, payload: object) {
    const res = await t.app.inject({ method, url, headers: caller.headers, payload });
    assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`);
    return res.json().response;
  }
  const post = (caller: Caller, url: string, payload: object) => ok(caller, 'POST', url, payload);

  return {
    t,
    ok,
    async close() {
      release();
      await t.close();
    },
    async designOf(caller: Caller, name: string): Promise<string> {
      const kit = (await post(caller, '/v1/brandkits/create', { name: 'K' })).brandKit.id;
      const project = (await post(caller, '/v1/projects', { name: 'P', brandKitId: kit })).project.id;
      const document = {
        name,
        sizes: [{ name: 'S', width: 300, height: 250, slides: [{ duration: 1, elements: [] }] }],
      };
      return (await post(caller, '/v1/templates/import', { projectId: project, name, document })).template.id;
    },
    /** The POST, and the statements it ran before its answer. */
    async exportOf(caller: Caller, hash: string, webhook?: string) {
      const before = t.runtime.db.statements();
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/export',
        headers: caller.headers,
        payload: {
          creativeHash: hash,
          type: 'jpg',
          ...(webhook ? { webhookUrl: `https://hooks.example.com/${webhook}` } : {}),
        },
      });
      return { res, statements: t.runtime.db.statements() - before };
    },
    exportRows: (teamId: number) =>
      t.runtime.db.kysely
        .selectFrom('exports')
        .select(['id', 'status', 'file_stem', 'cache_key', 'document'])
        .where('team_id', '=', teamId)
        .orderBy('created_at')
        .execute(),
  };
}

describe('an export of a design exported before goes with its probe, guarded', {
  skip: postgres ? 'SQLite only: PostgreSQL accepts after its reads' : false,
}, () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  let t: TestApp;
  before(async () => {
    app = await startApp({});
    t = app.t;
  });
  after(() => app?.close());
  const exportOf = (...args: Parameters<typeof app.exportOf>) => app.exportOf(...args);
  const designOf = (...args: Parameters<typeof app.designOf>) => app.designOf(...args);
  const exportRows = (teamId: number) => app.exportRows(teamId);

  test('the second export is two statements, the probe and the accept, and is stored as the first', async () => {
    const team = await t.newTeam('Speculating');
    const hash = await designOf(team, 'Banner');
    const first = await exportOf(team, hash, 'first');
    assert.equal(first.res.statusCode, 200, first.res.body);
    const second = await exportOf(team, hash, 'second');
    assert.equal(second.res.statusCode, 200, second.res.body);
    // The fewest of three: a job's lease renewal or a poll can fall inside one count (renders here never end).
    const counts = [second.statements];
    for (const route of ['third', 'fourth']) {
      const { res, statements } = await exportOf(team, hash, route);
      assert.equal(res.statusCode, 200, res.body);
      counts.push(statements);
    }
    assert.equal(Math.min(...counts), 2, `no read of the design (${counts.join(', ')})`);
    // Where the export stands: one file of the team's in flight before it, each 2 s.
    assert.deepEqual(second.res.json().response.queue, { position: 1, expectedWaitMs: 4_000 });
    const rows = await exportRows(team.teamId);
    assert.equal(rows.length, 4);
    assert.equal(rows[1].id, second.res.json().response.export.id);
    assert.equal(rows[1].file_stem, 'Banner');
    assert.equal(rows[1].document, rows[0].document);
    const filesOf = (exportId: string) =>
      t.runtime.db.kysely
        .selectFrom('export_creatives')
        .select(['file_name', 'size_name', 'width', 'height', 'status'])
        .where('export_id', '=', exportId)
        .execute();
    const files = await filesOf(rows[1].id);
    assert.deepEqual(files, await filesOf(rows[0].id));
    assert.deepEqual(
      files.map((f) => [f.file_name, f.width, f.height]),
      [['Banner-300x250.jpg', 300, 250]],
    );
  });

  test('a design renamed since is exported as it is now', async () => {
    const team = await t.newTeam('Renaming');
    const hash = await designOf(team, 'Before');
    assert.equal((await exportOf(team, hash, 'before')).res.statusCode, 200);
    await app.ok(team, 'PUT', '/v1/templates', { hash, name: 'After' });
    const after = await exportOf(team, hash, 'after');
    assert.equal(after.res.statusCode, 200, after.res.body);
    // The accept built from the kept row was refused (a new revision); the usual way read the design again.
    const rows = await exportRows(team.teamId);
    assert.equal(rows.length, 2, 'the refused accept wrote nothing');
    assert.equal(rows[1].file_stem, 'After');
    assert.notEqual(rows[1].cache_key, rows[0].cache_key);
  });

  test('a design deleted since is not found, and nothing is written', async () => {
    const team = await t.newTeam('Deleting');
    const hash = await designOf(team, 'Gone');
    assert.equal((await exportOf(team, hash, 'gone')).res.statusCode, 200);
    await app.ok(team, 'DELETE', '/v1/templates', { hash });
    const again = await exportOf(team, hash, 'gone-again');
    assert.equal(again.res.statusCode, 404, again.res.body);
    assert.equal(again.res.json().code, 'NOT_FOUND');
    assert.equal((await exportRows(team.teamId)).length, 1);
  });

  test('a cached export is answered from the cache, with no more statements than the usual way', async () => {
    const team = await t.newTeam('Caching');
    const hash = await designOf(team, 'Cached');
    // No webhook: a cache hit calls it again, and its delivery's attempts would write beside the counts.
    const first = await exportOf(team, hash);
    assert.equal(first.res.statusCode, 200);
    const id = first.res.json().response.export.id as string;
    // As if rendered: complete, its file settled.
    const at = new Date().toISOString();
    await t.runtime.db.kysely
      .updateTable('exports')
      .set({ status: 'complete', completed_at: at, updated_at: at })
      .where('id', '=', id)
      .execute();
    await t.runtime.db.kysely
      .updateTable('export_creatives')
      .set({ status: 'complete', blob_key: 'exports/none.jpg', bytes: 1, updated_at: at })
      .where('export_id', '=', id)
      .execute();
    const counts: number[] = [];
    for (let n = 0; n < 3; n++) {
      const hit = await exportOf(team, hash);
      assert.equal(hit.res.statusCode, 200, hit.res.body);
      assert.equal(hit.res.headers['x-cache'], 'HIT');
      assert.equal(hit.res.json().response.export.id, id);
      counts.push(hit.statements);
    }
    // The probe, the refused accept (a statement that fails is not counted), the cached export and its files: the
    // design is not read again, the guard found it as kept (the usual way reads it: 4). The fewest of three.
    assert.equal(Math.min(...counts), 3, counts.join(', '));
    assert.equal((await exportRows(team.teamId)).length, 1, 'nothing new was stored');
  });
});

describe('a guarded accept refuses what the usual way refuses, no more and no less', {
  skip: postgres ? 'SQLite only: PostgreSQL accepts after its reads' : false,
}, () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  before(async () => {
    app = await startApp({ teamFilesInFlight: 5, queueLimit: 8 });
  });
  after(() => app?.close());

  test('the team limit and the queue limit refuse exactly where the usual way refuses', async () => {
    const a = await app.t.newTeam('Team A');
    const one = await app.designOf(a, 'One');
    // 5 files of a team at most: the 6th is refused; the 2nd to the 5th go with their probe.
    const counts: number[] = [];
    for (let n = 0; n < 5; n++) {
      const { res, statements } = await app.exportOf(a, one, `a-${n}`);
      assert.equal(res.statusCode, 200, `export ${n + 1}: ${res.body}`);
      assert.deepEqual(res.json().response.queue, { position: n, expectedWaitMs: (n + 1) * 2_000 });
      if (n > 0) counts.push(statements);
    }
    assert.equal(Math.min(...counts), 2, `they went with their probe (${counts.join(', ')})`);
    const full = await app.exportOf(a, one, 'a-5');
    assert.equal(full.res.statusCode, 429, full.res.body);
    assert.equal(full.res.json().code, 'TEAM_QUEUE_FULL');
    assert.equal((await app.exportRows(a.teamId)).length, 5, 'the refused export wrote nothing');

    // 8 files of every team at most: another team's 3 are taken, its 4th is refused.
    const b = await app.t.newTeam('Team B');
    const other = await app.designOf(b, 'Other');
    for (let n = 0; n < 3; n++) {
      const { res } = await app.exportOf(b, other, `b-${n}`);
      assert.equal(res.statusCode, 200, `export ${n + 1}: ${res.body}`);
    }
    const queueFull = await app.exportOf(b, other, 'b-3');
    assert.equal(queueFull.res.statusCode, 503, queueFull.res.body);
    assert.match(queueFull.res.json().error, /the export queue is full \(8 files waiting, limit 8\)/);
    assert.equal((await app.exportRows(b.teamId)).length, 3, 'the refused export wrote nothing');
  });
});

describe('a guarded accept is held to the expected wait as the usual way is', {
  skip: postgres ? 'SQLite only: PostgreSQL accepts after its reads' : false,
}, () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  before(async () => {
    app = await startApp({});
  });
  after(() => app?.close());

  test('the expected wait refuses exactly where the usual way refuses', async () => {
    const team = await app.t.newTeam('Waiting');
    const hash = await app.designOf(team, 'Many');
    // 30 files a minute and 60 s at most: 30 files of one team in flight, the 31st refused.
    for (let n = 0; n < 30; n++) {
      const { res } = await app.exportOf(team, hash, `wait-${n}`);
      assert.equal(res.statusCode, 200, `export ${n + 1}: ${res.body}`);
      assert.deepEqual(res.json().response.queue, { position: n, expectedWaitMs: (n + 1) * 2_000 });
    }
    const refused = await app.exportOf(team, hash, 'wait-30');
    assert.equal(refused.res.statusCode, 503, refused.res.body);
    assert.match(refused.res.json().error, /would be rendered in about 62 s/);
    assert.equal((await app.exportRows(team.teamId)).length, 30, 'the refused export wrote nothing');
  });
});
