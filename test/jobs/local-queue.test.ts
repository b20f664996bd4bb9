// The embedded JobQueue over the `jobs` table: the contract, then what only a table shows — leases that run out and
// are taken over, jobs interrupted until their attempts are used up, SQLite's takeover at start, several instances
// on one table, and the removal of finished rows after a day. Runs on SQLite, or on PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, beforeEach, describe, test } from 'node:test';
import type { Insertable, Selectable } from 'kysely';
import type { Job, JobQueue } from '../../src/jobs/job-queue.js';
import { createLocalJobQueue, type LocalJobQueueOptions } from '../../src/jobs/local-queue.js';
import { type Db, openDatabase } from '../../src/storage/db/database.js';
import { migrateToLatest } from '../../src/storage/db/migrate.js';
import type { JobsTable } from '../../src/storage/db/schema.js';
import { jobQueueContract } from '../contracts/job-queue.js';
import { adminQuery, dropDatabase } from '../helpers/postgres.js';

/**
 * A database of this file's own, without the app: the app's queue would take the jobs these tests enqueue. SQLite in
 * a temporary dir, or a fresh PostgreSQL database when DATABASE_URL is set (as test/helpers/app.ts does).
 */
async function openTestDb(): Promise<Db & { drop(): Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL || null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-jobs-'));
  let name: string | null = null;
  let databaseUrl: string | null = null;
  if (serverUrl) {
    name = `placard_jobs_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(serverUrl, `create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  const db = openDatabase({ databaseUrl, dataDir });
  await migrateToLatest(db);
  return {
    ...db,
    async drop() {
      await db.close();
      if (serverUrl && name) await dropDatabase(serverUrl, name);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let opened: ReturnType<typeof openTestDb> | null = null;
const testDb = () => {
  opened ??= openTestDb();
  return opened;
};
after(async () => {
  await (await opened)?.drop();
});

const made: JobQueue[] = [];
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A queue over the test database, stopped by `stopAll`. */
async function queueOf(options: Partial<LocalJobQueueOptions> = {}): Promise<JobQueue> {
  const db = await testDb();
  const queue = createLocalJobQueue({
    db: db.kysely,
    dialect: db.dialect,
    pollIntervalMs: 50,
    log: { error: () => {}, warn: () => {} },
    ...options,
  });
  made.push(queue);
  return queue;
}

async function stopAll() {
  for (const queue of made.splice(0)) await queue.stop(100);
}

async function emptyTable() {
  await (await testDb()).kysely.deleteFrom('jobs').execute();
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Whether `promise` settles within a minute: a job that waits for an hour-long poll instead of its wake-up does not. */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), 60_000);
    }),
  ]);
  clearTimeout(timer);
  return settled;
}

jobQueueContract('local (jobs table)', async () => {
  await emptyTable();
  return {
    queue: await queueOf(),
    second: () => queueOf(),
    close: stopAll,
  };
});

describe('local job queue', () => {
  beforeEach(emptyTable);
  afterEach(stopAll);

  const db = testDb;

  async function insertRow(row: Partial<Insertable<JobsTable>> & { id: string }) {
    const at = iso(Date.now());
    await (await db()).kysely
      .insertInto('jobs')
      .values({
        kind: 'webhook.deliver',
        payload: JSON.stringify({ deliveryId: row.id }),
        status: 'queued',
        attempts: 0,
        max_attempts: 3,
        retry_delays: '[20]',
        run_at: at,
        lease_until: null,
        locked_by: null,
        last_error: null,
        created_at: at,
        updated_at: at,
        ...row,
      })
      .execute();
  }

  async function rowOf(id: string): Promise<Selectable<JobsTable> | undefined> {
    return (await db()).kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  test('insertStatement writes the rows, fair keys and seq that enqueueing the jobs one by one writes', async (t) => {
    const queue = await queueOf();
    const insertStatement = queue.transactional?.insertStatement;
    if (!insertStatement) {
      t.skip('PostgreSQL only: SQLite has no data-modifying WITH to place it in');
      return;
    }
    const jobs = ['j1', 'j2', 'j3'].map((id) => ({ jobId: id, payload: { exportId: 'e', creativeId: id } }));
    // Another team's backlog ahead, and one job of this team queued already: the keys start after both.
    async function backlog() {
      await emptyTable();
      for (const id of ['b1', 'b2', 'b3']) {
        await queue.enqueue('export.creative', { exportId: 'b', creativeId: id }, { jobId: id, group: 'team:1' });
      }
      await queue.enqueue('export.creative', { exportId: 'a', creativeId: 'a1' }, { jobId: 'a1', group: 'team:2' });
    }
    const shape = async () =>
      (await db()).kysely
        .selectFrom('jobs')
        .select(['id', 'kind', 'payload', 'status', 'max_attempts', 'retry_delays', 'fair_group', 'fair_key', 'seq'])
        .orderBy('seq')
        .execute();
    await backlog();
    for (const job of jobs) {
      await queue.enqueue('export.creative', job.payload, { jobId: job.jobId, group: 'team:2' });
    }
    const oneByOne = await shape();
    await backlog();
    await insertStatement('export.creative', jobs, { group: 'team:2' }).execute();
    assert.deepEqual(await shape(), oneByOne);
    // A job id that exists already is skipped, as enqueue skips it.
    await insertStatement('export.creative', jobs.slice(0, 1), { group: 'team:2' }).execute();
    assert.equal((await shape()).length, oneByOne.length);
  });

  test('a running row whose lease ran out (its process died) is claimed by another instance', async () => {
    const queue = await queueOf({ instanceId: 'alive' });
    const ran = deferred<Job<'webhook.deliver'>>();
    queue.process('webhook.deliver', async (job) => ran.resolve(job), { concurrency: 1 });
    // Started first, so that SQLite's takeover at start plays no part: the poll finds the expired lease.
    await queue.start();
    await insertRow({
      id: 'orphan',
      status: 'running',
      attempts: 1,
      locked_by: 'dead',
      lease_until: iso(Date.now() - 1_000),
    });
    const job = await ran.promise;
    assert.deepEqual([job.id, job.attempt, job.payload], ['orphan', 2, { deliveryId: 'orphan' }]);
    await queue.idle();
    const row = await rowOf('orphan');
    assert.deepEqual([row?.status, row?.locked_by, row?.lease_until], ['done', 'alive', null]);
  });

  test('a job interrupted until its attempts are used up goes to onExhausted without running again', async () => {
    const queue = await queueOf();
    let handled = 0;
    const exhausted = deferred<[Job<'webhook.deliver'>, Error]>();
    queue.process(
      'webhook.deliver',
      async () => {
        handled += 1;
      },
      { concurrency: 1, onExhausted: async (job, error) => exhausted.resolve([job, error]) },
    );
    await queue.start();
    await insertRow({
      id: 'crashy',
      status: 'running',
      attempts: 3,
      max_attempts: 3,
      locked_by: 'dead',
      lease_until: iso(Date.now() - 1_000),
    });
    const [job, error] = await exhausted.promise;
    assert.equal(job.id, 'crashy');
    assert.deepEqual(job.payload, { deliveryId: 'crashy' });
    assert.equal(error.message, 'interrupted 3 times: the process running it stopped or crashed');
    await queue.idle();
    assert.equal(handled, 0);
    const row = await rowOf('crashy');
    assert.deepEqual([row?.status, row?.last_error], ['failed', error.message]);
  });

  test('at start, SQLite takes back running rows at once; PostgreSQL waits for their lease', async () => {
    const { dialect } = await db();
    await insertRow({
      id: 'held',
      status: 'running',
      attempts: 1,
      locked_by: 'before-restart',
      lease_until: iso(Date.now() + 60_000),
    });
    const queue = await queueOf();
    const attempts: number[] = [];
    queue.process(
      'webhook.deliver',
      async (job) => {
        attempts.push(job.attempt);
      },
      { concurrency: 1 },
    );
    await queue.start();
    if (dialect === 'sqlite') {
      await queue.idle();
      assert.deepEqual(attempts, [2]);
      assert.equal((await rowOf('held'))?.status, 'done');
    } else {
      await sleep(200); // several polls
      assert.deepEqual(attempts, []);
      const row = await rowOf('held');
      assert.deepEqual([row?.status, row?.locked_by], ['running', 'before-restart']);
    }
  });

  test('an instance that lost a lease does not settle the job another instance took over', async () => {
    const queue = await queueOf({ instanceId: 'slow' });
    const running = deferred();
    const release = deferred();
    queue.process(
      'webhook.deliver',
      async () => {
        running.resolve();
        await release.promise;
      },
      { concurrency: 1 },
    );
    await queue.start();
    await queue.enqueue('webhook.deliver', { deliveryId: 'taken' }, { jobId: 'taken' });
    await running.promise;
    // What another instance does when this one stalled past its lease.
    const leaseUntil = iso(Date.now() + 60_000);
    await (await db()).kysely
      .updateTable('jobs')
      .set({ locked_by: 'other', lease_until: leaseUntil, attempts: 2 })
      .where('id', '=', 'taken')
      .execute();
    release.resolve();
    await queue.idle();
    const row = await rowOf('taken');
    assert.deepEqual(
      [row?.status, row?.locked_by, row?.lease_until, row?.attempts],
      ['running', 'other', leaseUntil, 2],
    );
  });

  test('a lease is renewed while its handler runs, so no other instance takes the job', async () => {
    // Short leases, with room for a busy machine's stalled timers between two renewals.
    const a = await queueOf({ instanceId: 'a', leaseMs: 450 });
    const b = await queueOf({ instanceId: 'b', leaseMs: 450 });
    const runs: string[] = [];
    const done = deferred();
    for (const [name, queue] of [
      ['a', a],
      ['b', b],
    ] as const) {
      queue.process(
        'export.finish',
        async () => {
          runs.push(name);
          await sleep(1_500); // more than three leases
          done.resolve();
        },
        { concurrency: 1 },
      );
      await queue.start();
    }
    await a.enqueue('export.finish', { exportId: 'long' }, { jobId: 'long' });
    await done.promise;
    await Promise.all([a.idle(), b.idle()]);
    assert.equal(runs.length, 1);
    assert.equal((await rowOf('long'))?.status, 'done');
  });

  test('two instances on one table run each of 50 jobs exactly once', async () => {
    const a = await queueOf({ instanceId: 'a' });
    const b = await queueOf({ instanceId: 'b' });
    const runs = new Map<string, number>();
    let total = 0;
    const all = deferred();
    for (const queue of [a, b]) {
      queue.process(
        'export.creative',
        async (job) => {
          runs.set(job.payload.creativeId, (runs.get(job.payload.creativeId) ?? 0) + 1);
          await sleep(Math.floor(Math.random() * 5));
          if (++total === 50) all.resolve();
        },
        { concurrency: 4 },
      );
      // Both start before any job exists: on SQLite a start takes back the running rows of the one file.
      await queue.start();
    }
    const enqueues = [];
    for (let i = 0; i < 50; i++) {
      enqueues.push((i % 2 ? a : b).enqueue('export.creative', { exportId: 'e', creativeId: `c${i}` }));
    }
    await Promise.all(enqueues);
    await all.promise;
    await Promise.all([a.idle(), b.idle()]);
    assert.equal(runs.size, 50);
    assert.deepEqual(
      [...runs.values()].filter((n) => n !== 1),
      [],
    );
    assert.equal(await a.depth(), 0);
  });

  test('a failed attempt is queued again after its retry delay with jitter, its error recorded', async () => {
    const at = Date.now();
    // A clock that stands still: the retry never comes due, so the row can be looked at.
    const queue = await queueOf({ now: () => at, random: () => 0 });
    const failed = deferred();
    queue.process(
      'webhook.deliver',
      async () => {
        failed.resolve();
        throw new Error('503 from the receiver');
      },
      { concurrency: 1 },
    );
    await queue.start();
    await queue.enqueue('webhook.deliver', { deliveryId: 'r' }, { jobId: 'r', retryDelaysMs: [1_000, 5_000] });
    await failed.promise;
    await queue.idle();
    const row = await rowOf('r');
    assert.deepEqual(
      [row?.status, row?.attempts, row?.run_at, row?.last_error, row?.locked_by, row?.lease_until],
      ['queued', 1, iso(at + 800), '503 from the receiver', null, null],
    );
  });

  test('a job queued while its kind was busy starts when a slot frees, though a claim of another kind came between', async () => {
    // The poll is an hour away: only the queue's own wake-ups can start the second job. A claim of another kind while
    // every slot of this one was busy used to forget that this kind had work waiting (one flag for every kind), and
    // the job then waited for the poll.
    const queue = await queueOf({ pollIntervalMs: 3_600_000 });
    const first = deferred();
    const release = deferred();
    const second = deferred();
    const other = deferred();
    queue.process(
      'webhook.deliver',
      async (job) => {
        if (job.payload.deliveryId === 'first') {
          first.resolve();
          await release.promise;
        } else second.resolve();
      },
      { concurrency: 1 },
    );
    queue.process('design.thumbnail', async () => other.resolve(), { concurrency: 1 });
    await queue.start();
    await queue.enqueue('webhook.deliver', { deliveryId: 'first' }, { jobId: 'first' });
    await first.promise;
    await queue.enqueue('webhook.deliver', { deliveryId: 'second' }, { jobId: 'second' });
    // Another kind's job: its claim looks at that kind only, and finds nothing more of it.
    await queue.enqueue('design.thumbnail', { designId: 1, revision: 1 }, { jobId: 'other' });
    await other.promise;
    release.resolve();
    assert.ok(
      await settlesSoon(second.promise),
      'the second job did not start once the first had finished (it waited for the poll)',
    );
  });

  test('a wake after a commit looks for its own kind only, and not while every slot of it is busy', async () => {
    // The export service enqueues its render jobs in its own statement and wakes the queue after the commit. A wake of
    // every kind claimed the kinds with free slots, which had no jobs: one statement and its commit per export for
    // nothing under load (issue 21).
    const queue = await queueOf({ pollIntervalMs: 3_600_000 });
    const database = await db();
    const first = deferred();
    const release = deferred();
    const second = deferred();
    queue.process(
      'export.creative',
      async (job) => {
        if (job.payload.creativeId === 'c1') {
          first.resolve();
          await release.promise;
        } else second.resolve();
      },
      { concurrency: 1 },
    );
    queue.process('design.thumbnail', async () => {}, { concurrency: 1 });
    await queue.start();
    await queue.enqueue('export.creative', { exportId: 'e', creativeId: 'c1' }, { jobId: 'c1' });
    await first.promise;
    const inTable = queue.transactional;
    assert.ok(inTable, 'the job table enqueues in a transaction');
    await inTable.enqueue(database.kysely, 'export.creative', { exportId: 'e', creativeId: 'c2' }, { jobId: 'c2' });
    const before = database.statements();
    inTable.wake('export.creative');
    await sleep(100);
    assert.equal(database.statements() - before, 0, 'a claim ran while the only slot was busy');
    release.resolve();
    assert.ok(
      await settlesSoon(second.promise),
      'the woken job did not start once the slot freed (it waited for the poll)',
    );
  });

  test('a handler that marks its job done in its own write (inline) gets no settle of the queue after it', async () => {
    // The render that finishes an export marks its job done in the finishing statement (issue 21, stop 23); the queue's
    // own settle would be a second write and commit of the same row.
    const queue = await queueOf({ pollIntervalMs: 3_600_000 });
    const database = await db();
    const marked = deferred<number>();
    queue.process(
      'webhook.deliver',
      async (job) => {
        const inline = job.inline;
        assert.ok(inline, 'the job table offers the inline settle');
        await database.kysely
          .updateTable('jobs')
          .set({ status: 'done', lease_until: null, updated_at: '2000-01-01T00:00:00.000Z' })
          .where('id', '=', job.id)
          .where('locked_by', '=', inline.instance)
          .where('status', '=', 'running')
          .execute();
        inline.settled();
        marked.resolve(database.statements());
      },
      { concurrency: 1 },
    );
    await queue.start();
    await queue.enqueue('webhook.deliver', { deliveryId: 'inline' }, { jobId: 'inline' });
    const after = await marked.promise;
    await sleep(100);
    // What follows the handler is the claim of the slot it freed (its kind may have more waiting), and no settle: a
    // settle after the handler's write would change nothing but cost its statement.
    assert.equal(database.statements() - after, 1, 'the queue wrote the row again after the handler settled it');
    const row = await rowOf('inline');
    assert.deepEqual([row?.status, row?.updated_at], ['done', '2000-01-01T00:00:00.000Z']);
  });

  test('slotFree: the next job of the kind starts while the first writes its outcome; the first keeps its row', async () => {
    // A render job frees its render slot when the render is over (issue 21, stop 29): the next job is claimed while
    // the first still writes, instead of after its write and a claim of its own.
    const queue = await queueOf({ pollIntervalMs: 3_600_000 });
    const firstFreed = deferred();
    const finishFirst = deferred();
    const secondRan = deferred();
    const firstEnded = deferred<string | undefined>();
    queue.process(
      'webhook.deliver',
      async (job) => {
        if (job.payload.deliveryId !== 'first') {
          secondRan.resolve();
          return;
        }
        const free = job.slotFree;
        assert.ok(free, 'the job table offers slotFree');
        free();
        firstFreed.resolve();
        await finishFirst.promise;
        firstEnded.resolve((await rowOf('first'))?.status);
      },
      { concurrency: 1 },
    );
    await queue.start();
    await queue.enqueue('webhook.deliver', { deliveryId: 'first' }, { jobId: 'first' });
    await firstFreed.promise;
    await queue.enqueue('webhook.deliver', { deliveryId: 'second' }, { jobId: 'second' });
    assert.ok(await settlesSoon(secondRan.promise), 'the second job waited for the first to settle');
    finishFirst.resolve();
    // Its lease held to the end: nobody else could take it meanwhile, and the queue settles it as usual.
    assert.equal(await firstEnded.promise, 'running');
    await sleep(100);
    assert.equal((await rowOf('first'))?.status, 'done');
    assert.equal((await rowOf('second'))?.status, 'done');
  });

  test('slotFree counts a slot once: a slot of one never holds two jobs in their render part', async () => {
    const queue = await queueOf({ pollIntervalMs: 3_600_000 });
    let rendering = 0;
    let mostRendering = 0;
    const done = deferred();
    let finished = 0;
    queue.process(
      'webhook.deliver',
      async (job) => {
        rendering += 1;
        mostRendering = Math.max(mostRendering, rendering);
        await sleep(5);
        rendering -= 1;
        job.slotFree?.();
        job.slotFree?.();
        await sleep(15); // writing the outcome
        if (++finished === 6) done.resolve();
      },
      { concurrency: 1 },
    );
    await queue.start();
    for (let i = 0; i < 6; i++) await queue.enqueue('webhook.deliver', { deliveryId: `d${i}` }, { jobId: `d${i}` });
    assert.ok(await settlesSoon(done.promise), 'the six jobs did not all run');
    assert.equal(mostRendering, 1, 'more jobs were in their slot part than the kind has slots');
  });

  test('hold: a job inserted claimed runs in the slot taken, with no claim; none while busy, dirty or stopping', async (t) => {
    // An export accepted while a render slot is free and nothing waits is inserted with its job claimed by its process
    // (issue 21, stop 24, migration 0025): no claim statement between the accept and the render.
    const database = await db();
    const queue = await queueOf({ pollIntervalMs: 3_600_000, instanceId: 'holder' });
    const inTable = queue.transactional;
    if (database.dialect !== 'sqlite' || !inTable?.hold || !inTable.valuesOf) {
      assert.equal(inTable?.hold, undefined, 'hold is SQLite only');
      t.skip('the job table holds on SQLite only');
      return;
    }
    const ran: Array<{ id: string; attempt: number }> = [];
    const release = deferred();
    queue.process(
      'export.creative',
      async (job) => {
        ran.push({ id: job.id, attempt: job.attempt });
        if (job.id === 'h1') await release.promise;
      },
      { concurrency: 1 },
    );
    assert.equal(inTable.hold('export.creative'), null, 'no hold before start');
    await queue.start();
    await sleep(50); // start's claim of every kind finds nothing and leaves the kind clean
    const held = inTable.hold('export.creative');
    assert.ok(held, 'a free slot and nothing waiting: held');
    assert.deepEqual([held.claim.status, held.claim.attempts, held.claim.locked_by], ['running', 1, 'holder']);
    assert.equal(inTable.hold('export.creative'), null, 'the one slot is taken by the hold');
    const [values] = inTable.valuesOf('export.creative', [
      { jobId: 'h1', payload: { exportId: 'e', creativeId: 'h1' } },
    ]);
    const job = { ...values, ...held.claim };
    await insertRow({ ...job, kind: 'export.creative', last_error: null, updated_at: job.created_at });
    const before = database.statements();
    held.launch(job);
    await sleep(50);
    assert.deepEqual(ran, [{ id: 'h1', attempt: 1 }]);
    assert.equal(database.statements() - before, 0, 'the held job started without a claim');
    assert.equal(inTable.hold('export.creative'), null, 'busy while the held job runs');
    release.resolve();
    await sleep(100);
    assert.equal((await rowOf('h1'))?.status, 'done');
    // A job enqueued makes the kind dirty: the next one waits for a claim like any other, in its fair turn.
    await queue.enqueue('export.creative', { exportId: 'e', creativeId: 'q1' }, { jobId: 'q1' });
    assert.equal(inTable.hold('export.creative'), null, 'held while a job waits for its claim');
    await sleep(100);
    assert.ok(
      ran.some((r) => r.id === 'q1'),
      'the queued job was claimed',
    );
    // A hold given back frees its slot.
    const again = inTable.hold('export.creative');
    assert.ok(again, 'free and clean again after the claim found nothing more');
    again.release();
    await sleep(20); // the release looks for waiting work: no hold while that claim is under way
    const third = inTable.hold('export.creative');
    assert.ok(third, 'the released slot can be held again');
    third.release();
    await queue.stop(100);
    assert.equal(inTable.hold('export.creative'), null, 'no hold once stopped');
  });

  test('a held job whose process died is taken back at the next start, as a claimed one is', async () => {
    const database = await db();
    if (database.dialect !== 'sqlite') return;
    const dead = await queueOf({ pollIntervalMs: 3_600_000, instanceId: 'dead' });
    const inTable = dead.transactional;
    assert.ok(inTable?.hold && inTable.valuesOf);
    dead.process('export.creative', async () => {}, { concurrency: 1 });
    await dead.start();
    await sleep(50);
    const held = inTable.hold('export.creative');
    assert.ok(held);
    const [values] = inTable.valuesOf('export.creative', [
      { jobId: 'h2', payload: { exportId: 'e', creativeId: 'h2' } },
    ]);
    // Inserted claimed, then the process dies before launching it: nothing runs it.
    await insertRow({
      ...values,
      ...held.claim,
      kind: 'export.creative',
      last_error: null,
      updated_at: values.created_at,
    });
    const ran = deferred<number>();
    const next = await queueOf({ pollIntervalMs: 3_600_000, instanceId: 'next' });
    next.process('export.creative', async (job) => ran.resolve(job.attempt), { concurrency: 1 });
    await next.start();
    assert.equal(await ran.promise, 2, 'the held claim counts as the first attempt');
  });

  test('stop hands a late job back: queued, due now, its attempt given back, nobody holding it', async () => {
    const queue = await queueOf({ instanceId: 'stopping' });
    const running = deferred();
    const release = deferred();
    queue.process(
      'webhook.deliver',
      async () => {
        running.resolve();
        await release.promise;
      },
      { concurrency: 1 },
    );
    await queue.start();
    await queue.enqueue('webhook.deliver', { deliveryId: 'late' }, { jobId: 'late' });
    await running.promise;
    await queue.stop(20);
    const row = await rowOf('late');
    release.resolve();
    assert.deepEqual([row?.status, row?.attempts, row?.locked_by, row?.lease_until], ['queued', 0, null, null]);
    assert.ok(row && row.run_at <= iso(Date.now()));
  });

  test('finished rows are deleted a day after they finished; queued rows and newer ones stay', async () => {
    const old = iso(Date.now() - 25 * 60 * 60_000);
    const recent = iso(Date.now() - 60 * 60_000);
    await insertRow({ id: 'old-done', status: 'done', updated_at: old });
    await insertRow({ id: 'old-failed', status: 'failed', updated_at: old });
    await insertRow({ id: 'recent-done', status: 'done', updated_at: recent });
    await insertRow({ id: 'old-queued', kind: 'export.finish', run_at: iso(Date.now() + 60_000), updated_at: old });
    const queue = await queueOf();
    queue.process('webhook.deliver', async () => {}, { concurrency: 1 });
    await queue.start();
    await queue.idle();
    const ids = (await (await db()).kysely.selectFrom('jobs').select('id').orderBy('id').execute()).map((r) => r.id);
    assert.deepEqual(ids, ['old-queued', 'recent-done']);
  });
});
