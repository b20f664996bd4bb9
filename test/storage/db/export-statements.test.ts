// Accepting and finishing an export in one statement (issue 21): PostgreSQL's data-modifying WITH and SQLite's
// INSTEAD OF triggers (migration 0023). The rows answered are the rows stored; SQLite's trigger gives render jobs the
// fair keys and seq that enqueueing them one by one gives; a finish writes the export, its event and its deliveries
// once, and a second finish (or one of an export that is gone) writes nothing and says so. Runs on SQLite, or on
// PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { JobKind } from '../../../src/jobs/job-queue.js';
import { createLocalJobQueue } from '../../../src/jobs/local-queue.js';
import { type Db, openDatabase } from '../../../src/storage/db/database.js';
import { createDeliveryRepository } from '../../../src/storage/db/repositories/deliveries.repository.js';
import {
  createExportRepository,
  type JobValues,
  type NewCreative,
  type NewExport,
} from '../../../src/storage/db/repositories/exports.repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

// A kind no handler of the app takes: the jobs written here stay as written.
const KIND = 'test.accept' as JobKind;
let t: TestApp;
// The app's database opened again: the statements counted are this file's alone. The app's counter also counts its
// pollers' (the webhook dispatcher's, each second), which can land inside a counted window.
let own: Db;

before(async () => {
  t = await startTestApp({ jobPollMs: 3_600_000 });
  own = openDatabase({ databaseUrl: t.config.databaseUrl, dataDir: t.config.dataDir, checkpointEveryMs: 0 });
});

after(async () => {
  await own?.close();
  await t?.close();
});

const db = () => own.kysely;
const queueOverDb = () =>
  createLocalJobQueue({ db: db(), dialect: t.runtime.db.dialect, log: { error() {}, warn() {} } });

function newExport(files: number): { row: NewExport; creatives: NewCreative[] } {
  const id = randomUUID();
  return {
    row: {
      id,
      team_id: t.owner.teamId,
      project_id: 1,
      design_id: 1,
      design_hash: 'd1',
      new_design_hash: null,
      created_by: t.owner.userId,
      type: 'jpg',
      format: 'jpg',
      settings: '{"quality":80}',
      document: JSON.stringify({ sizes: [{ name: 'Ünïcode “quoted” \\ backslash', width: 300, height: 250 }] }),
      file_stem: 'Banner',
      is_set: files > 1 ? 1 : 0,
      webhook_url: 'http://127.0.0.1:9/hook',
      cache_key: null,
      zip_name: 'Banner.zip',
      created_at: new Date().toISOString(),
    },
    creatives: Array.from({ length: files }, (_, position) => ({
      id: randomUUID(),
      export_id: id,
      position,
      size_index: position,
      size_hash: `s${position}`,
      size_name: `Size ${position}`,
      width: 300 + position,
      height: 250,
      slide_number: position === 0 ? null : position,
      file_name: `Banner-${position}.jpg`,
    })),
  };
}

/** The render jobs of an export as the dialect's accept takes them. */
function jobsOf(creatives: NewCreative[], group: string) {
  const inTable = queueOverDb().transactional;
  const jobs = creatives.map((c) => ({ jobId: c.id, payload: { exportId: c.export_id, creativeId: c.id } }));
  return (
    inTable?.insertStatement?.(KIND, jobs as never, { group }) ?? inTable?.valuesOf?.(KIND, jobs as never, { group })
  );
}

/** A new export/complete event of the test's team, stored dispatched by a finish. */
function completeEvent() {
  const id = randomUUID();
  return {
    id,
    teamId: t.owner.teamId,
    action: 'export/complete',
    payload: JSON.stringify({ id }),
    occurredAt: new Date().toISOString(),
  };
}

test('an export accepted in one statement is answered as it is stored', async () => {
  const repo = createExportRepository(db());
  const { row, creatives } = newExport(3);
  const before = own.statements();
  const stored = await repo.insertAtOnce(row, creatives, jobsOf(creatives, `team:${t.owner.teamId}`));
  assert.equal(own.statements() - before, 1, 'one statement');
  assert.deepEqual(stored.row, await repo.findById(row.id));
  assert.deepEqual(stored.creatives, await repo.creativesOf(row.id));
  const jobs = await db().selectFrom('jobs').select(['id', 'status']).where('kind', '=', KIND).orderBy('seq').execute();
  assert.deepEqual(
    jobs,
    creatives.map((c) => ({ id: c.id, status: 'queued' })),
  );
});

test('an accept whose job its process holds stores the job claimed and the file being made (SQLite)', async (s) => {
  if (t.runtime.db.dialect !== 'sqlite') {
    s.skip('the held accept is SQLite only');
    return;
  }
  const repo = createExportRepository(db());
  const { row, creatives } = newExport(1);
  const [values] = jobsOf(creatives, `team:${t.owner.teamId}`) as JobValues[];
  const claim = { status: 'running', attempts: 1, lease_until: '2100-01-01T00:00:00.000Z', locked_by: 'me' } as const;
  const stored = await repo.insertAtOnce(row, [{ ...creatives[0], status: 'inProgress' }], [{ ...values, ...claim }]);
  assert.deepEqual(stored.creatives, await repo.creativesOf(row.id), 'answered as stored');
  assert.equal(stored.creatives[0].status, 'inProgress');
  const job = await db()
    .selectFrom('jobs')
    .select(['status', 'attempts', 'lease_until', 'locked_by', 'fair_key'])
    .where('id', '=', creatives[0].id)
    .executeTakeFirstOrThrow();
  assert.deepEqual({ ...job, fair_key: job.fair_key > 0 }, { ...claim, fair_key: true });
});

test("SQLite's accept gives render jobs the fair keys and seq that enqueueing them one by one gives", async (s) => {
  const queue = queueOverDb();
  if (!queue.transactional?.valuesOf) {
    s.skip('SQLite only: PostgreSQL inserts them with its own statement (test/jobs/local-queue.test.ts)');
    return;
  }
  const shape = () =>
    db()
      .selectFrom('jobs')
      .select(['id', 'kind', 'payload', 'status', 'attempts', 'max_attempts', 'retry_delays', 'fair_group', 'fair_key'])
      .select((eb) =>
        eb(
          'seq',
          '-',
          eb.selectFrom('jobs').select((f) => f.fn.min('seq').as('m')),
        ).as('seq'),
      )
      .where('kind', '=', KIND)
      .orderBy('seq')
      .execute();
  // Another team's backlog ahead, and one job of this team queued already: the keys start after both.
  const backlog = async () => {
    await db().deleteFrom('jobs').where('kind', '=', KIND).execute();
    for (const id of ['b1', 'b2', 'b3']) {
      await queue.enqueue(KIND, { exportId: 'b', creativeId: id } as never, { jobId: id, group: 'team:other' });
    }
    await queue.enqueue(KIND, { exportId: 'a', creativeId: 'a1' } as never, { jobId: 'a1', group: 'team:this' });
  };
  const { row, creatives } = newExport(3);
  await backlog();
  for (const c of creatives) {
    await queue.enqueue(KIND, { exportId: row.id, creativeId: c.id } as never, { jobId: c.id, group: 'team:this' });
  }
  const oneByOne = await shape();
  await backlog();
  await createExportRepository(db()).insertAtOnce(row, creatives, jobsOf(creatives, 'team:this'));
  assert.deepEqual(await shape(), oneByOne);
  assert.deepEqual(
    oneByOne.map((j) => j.fair_key),
    [1, 2, 3, 2, 3, 4, 5],
  );
});

test('a finish writes the export, its event and its deliveries once; a second one writes nothing', async () => {
  const exports = createExportRepository(db());
  const deliveries = createDeliveryRepository(db());
  const { row, creatives } = newExport(1);
  await exports.insertAtOnce(row, creatives, jobsOf(creatives, `team:${t.owner.teamId}`));
  const at = new Date().toISOString();
  const eventId = randomUUID();
  const event = {
    id: eventId,
    teamId: t.owner.teamId,
    action: 'export/complete',
    payload: JSON.stringify({ id: eventId, note: 'ünïcode "quoted"' }),
    occurredAt: at,
  };
  const rows = [row.webhook_url, 'http://127.0.0.1:9/second'].map((url, i) => ({
    id: randomUUID(),
    teamId: t.owner.teamId,
    webhookId: null,
    eventId: null,
    exportId: row.id,
    action: 'export/complete',
    url: url as string,
    payload: JSON.stringify({ n: i, text: 'line\nbreak' }),
    at,
  }));
  const finish = { id: row.id, status: 'complete' as const, errorLog: null, zipKey: 'exports/x.zip' };
  const before = own.statements();
  assert.equal(await deliveries.finishExport(finish, event, rows), true);
  assert.equal(own.statements() - before, 1, 'one statement');
  const finished = await exports.findById(row.id);
  assert.deepEqual(
    [finished?.status, finished?.zip_key, finished?.completed_at, finished?.updated_at],
    ['complete', 'exports/x.zip', at, at],
  );
  const written = await db()
    .selectFrom('webhook_deliveries')
    .select(['id', 'export_id', 'url', 'payload', 'status', 'attempt_count', 'next_attempt_at', 'created_at'])
    .where('export_id', '=', row.id)
    .orderBy('url')
    .execute();
  assert.deepEqual(
    written,
    rows
      .map((r) => ({
        id: r.id,
        export_id: row.id,
        url: r.url,
        payload: r.payload,
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: at,
        created_at: at,
      }))
      .sort((a, b) => a.url.localeCompare(b.url)),
  );
  const events = await db().selectFrom('events_outbox').selectAll().where('id', '=', eventId).execute();
  assert.deepEqual(
    events.map((e) => [e.team_id, e.action, e.payload, e.status, e.attempts, e.occurred_at]),
    [[t.owner.teamId, 'export/complete', event.payload, 'dispatched', 1, at]],
  );

  // Finished already: nothing more is written, and the caller is told.
  const again = rows.map((r) => ({ ...r, id: randomUUID() }));
  assert.equal(
    await deliveries.finishExport({ ...finish, status: 'failed' }, { ...event, id: randomUUID() }, again),
    false,
  );
  assert.equal((await exports.findById(row.id))?.status, 'complete');
  const count = async (table: 'webhook_deliveries' | 'events_outbox', column: 'export_id' | 'team_id', v: unknown) =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where(column, '=', v as never)
          .executeTakeFirstOrThrow()
      ).n,
    );
  assert.equal(await count('webhook_deliveries', 'export_id', row.id), 2);
  const eventsBefore = await count('events_outbox', 'team_id', t.owner.teamId);
  // An export that does not exist (deleted with its team) is not finished either.
  assert.equal(
    await deliveries.finishExport({ ...finish, id: randomUUID() }, { ...event, id: randomUUID() }, []),
    false,
  );
  assert.equal(await count('events_outbox', 'team_id', t.owner.teamId), eventsBefore);
});

test('a render starts its file and reads its export in one statement on PostgreSQL, as two statements read them', async () => {
  const exports = createExportRepository(db());
  const { row, creatives } = newExport(1);
  await exports.insertAtOnce(row, creatives, jobsOf(creatives, `team:${t.owner.teamId}`));
  const stored = await exports.findById(row.id);
  const before = own.statements();
  const started = await exports.startRendering(row.id, creatives[0].id);
  // A worker of the scaled-out shape accepted nothing itself (issue 21): one round trip instead of two.
  assert.equal(own.statements() - before, t.postgres ? 1 : 2);
  assert.deepEqual(started.row, stored, 'the export as a read of its row gives it');
  const [file] = await exports.creativesOf(row.id);
  assert.equal(file.status, 'inProgress');
  assert.deepEqual(started.creative, file, 'the file as a read of its row gives it');

  // Settled meanwhile (a job run again): no file to make, the export as it is now.
  await exports.settleCreative(creatives[0].id, { status: 'failed', code: 'RENDER_TIMEOUT', message: 'slow' });
  const again = await exports.startRendering(row.id, creatives[0].id);
  assert.equal(again.creative, undefined);
  assert.deepEqual(again.row, await exports.findById(row.id));
  // Deleted with its team: neither.
  const gone = await exports.startRendering(randomUUID(), randomUUID());
  assert.deepEqual(gone, { row: undefined, creative: undefined });
});

test("a finish that settles the export's one file writes both, or neither once the file is settled", async () => {
  const exports = createExportRepository(db());
  const deliveries = createDeliveryRepository(db());
  const outcome = {
    status: 'complete' as const,
    blobKey: 'exports/e/c.jpg',
    bytes: 1234,
    renderMs: 7,
    warnings: ['font: "quoted" advice'],
    fallbackKey: null,
    findings: [{ code: 'X', message: 'm' }],
  };
  const { row, creatives } = newExport(1);
  await exports.insertAtOnce(row, creatives, jobsOf(creatives, `team:${t.owner.teamId}`));
  const settle = { creativeId: creatives[0].id, outcome };
  const finish = { id: row.id, status: 'complete' as const, errorLog: null, zipKey: null, settle };
  const first = completeEvent();
  const before = own.statements();
  assert.equal(await deliveries.finishExport(finish, first, []), true);
  // SQLite: the `export_finishes` trigger; PostgreSQL: the file's update as one more WITH of the finishing statement.
  assert.equal(own.statements() - before, 1, 'one statement');
  const [file] = await exports.creativesOf(row.id);
  assert.deepEqual(
    [file.status, file.blob_key, file.bytes, file.render_ms, file.warnings, file.findings, file.progress],
    ['complete', outcome.blobKey, 1234, 7, JSON.stringify(outcome.warnings), JSON.stringify(outcome.findings), 1],
  );
  assert.equal((await exports.findById(row.id))?.status, 'complete');

  // A file settled already (another run of its job): the export is left to that run, and nothing is written.
  const other = newExport(1);
  await exports.insertAtOnce(other.row, other.creatives, jobsOf(other.creatives, `team:${t.owner.teamId}`));
  await exports.settleCreative(other.creatives[0].id, { status: 'failed', code: 'RENDER_TIMEOUT', message: 'slow' });
  const second = completeEvent();
  const again = { ...finish, id: other.row.id, settle: { creativeId: other.creatives[0].id, outcome } };
  assert.equal(await deliveries.finishExport(again, second, []), false);
  const [otherFile] = await exports.creativesOf(other.row.id);
  assert.deepEqual([otherFile.status, otherFile.blob_key], ['failed', null]);
  assert.equal((await exports.findById(other.row.id))?.status, 'pending');
  const events = await db().selectFrom('events_outbox').select('id').where('id', '=', second.id).execute();
  assert.deepEqual(events, []);

  // A failed file: its own columns, in the same one statement.
  const failing = newExport(1);
  await exports.insertAtOnce(failing.row, failing.creatives, jobsOf(failing.creatives, `team:${t.owner.teamId}`));
  const failure = { status: 'failed' as const, code: 'RENDER_TIMEOUT' as const, message: 'took too long', renderMs: 9 };
  const failed = {
    ...finish,
    id: failing.row.id,
    status: 'failed' as const,
    errorLog: 'took too long',
    settle: { creativeId: failing.creatives[0].id, outcome: failure },
  };
  const counted = own.statements();
  assert.equal(await deliveries.finishExport(failed, completeEvent(), []), true);
  assert.equal(own.statements() - counted, 1, 'one statement');
  const [failedFile] = await exports.creativesOf(failing.row.id);
  assert.deepEqual(
    [failedFile.status, failedFile.error_code, failedFile.error_message, failedFile.render_ms, failedFile.blob_key],
    ['failed', 'RENDER_TIMEOUT', 'took too long', 9, null],
  );
  assert.equal((await exports.findById(failing.row.id))?.status, 'failed');
});

test('a finish that names its job marks it done while that instance holds it, and only with the export', async () => {
  // The render that finishes an export settles its own job in the finishing statement (issue 21, stop 23; migration
  // 0024 on SQLite, the WITH on PostgreSQL): the queue's settle of the same row would be a write of its own.
  const exports = createExportRepository(db());
  const deliveries = createDeliveryRepository(db());
  const running = async (holder: string) => {
    const { row, creatives } = newExport(1);
    await exports.insertAtOnce(row, creatives, jobsOf(creatives, `team:${t.owner.teamId}`));
    await db()
      .updateTable('jobs')
      .set({ status: 'running', locked_by: holder, lease_until: '2999-01-01T00:00:00.000Z', attempts: 1 })
      .where('id', '=', creatives[0].id)
      .execute();
    return { id: row.id, job: creatives[0].id };
  };
  const jobRow = (id: string) =>
    db().selectFrom('jobs').select(['status', 'locked_by', 'lease_until', 'updated_at']).where('id', '=', id).execute();
  const finish = (id: string) => ({ id, status: 'complete' as const, errorLog: null, zipKey: null });

  const mine = await running('me');
  const done = completeEvent();
  const before = own.statements();
  assert.equal(
    await deliveries.finishExport({ ...finish(mine.id), job: { id: mine.job, instance: 'me' } }, done, []),
    true,
  );
  assert.equal(own.statements() - before, 1, 'one statement');
  assert.deepEqual(await jobRow(mine.job), [
    { status: 'done', locked_by: 'me', lease_until: null, updated_at: done.occurredAt },
  ]);

  // Held by another instance (this one lost its lease): the export is finished, the job is the holder's to settle.
  const theirs = await running('them');
  assert.equal(
    await deliveries.finishExport(
      { ...finish(theirs.id), job: { id: theirs.job, instance: 'me' } },
      completeEvent(),
      [],
    ),
    true,
  );
  assert.equal((await jobRow(theirs.job))[0].status, 'running');

  // Finished already: nothing is written, the job included, and the caller is told (the queue settles the job).
  const again = await running('me');
  await deliveries.finishExport(finish(again.id), completeEvent(), []);
  assert.equal(
    await deliveries.finishExport({ ...finish(again.id), job: { id: again.job, instance: 'me' } }, completeEvent(), []),
    false,
  );
  assert.equal((await jobRow(again.job))[0].status, 'running');
});
