// The JobQueue of the embedded shape: jobs are rows of the `jobs` table, so a crash loses nothing. A row is claimed in
// one statement (SKIP LOCKED on PostgreSQL) with a lease that this instance renews while the handler runs; a row whose
// lease ran out belongs to a dead process and is claimed again. Every completion is guarded by the lease holder, so a
// job taken over by another instance is never settled twice by the one that lost it.
import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Dialect } from '../storage/db/database.js';
import { prepared, preparedBy } from '../storage/db/prepared.js';
import type { Database, JobsTable } from '../storage/db/schema.js';
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_RETRY_DELAYS_MS,
  type EnqueueOptions,
  type Job,
  type JobHandler,
  type JobHold,
  type JobKind,
  type JobPayloads,
  type JobQueue,
  type ProcessOptions,
  retryDelayAfter,
  withJitter,
} from './job-queue.js';

export interface LocalJobQueueLog {
  error(details: object, message: string): void;
  warn?(details: object, message: string): void;
}

export interface LocalJobQueueOptions {
  db: Kysely<Database>;
  /**
   * On `sqlite` the queue assumes it is the only process using the file: start() makes every running row claimable
   * at once, since its process must have died. On `postgres` such rows wait for their lease to run out.
   */
  dialect: Dialect;
  /** How long a claim holds a job without renewal; renewed every third of it while the handler runs. Default 30 s. */
  leaseMs?: number;
  /** How often the table is asked for due work (other processes, delays, expired leases). Default 500 ms. */
  pollIntervalMs?: number;
  /** Clock in milliseconds. Default Date.now. */
  now?: () => number;
  /** Written to `locked_by` of the rows this instance holds. Default a random UUID. */
  instanceId?: string;
  /** Source of the retry jitter. Default Math.random. */
  random?: () => number;
  log?: LocalJobQueueLog;
}

type JobRow = Selectable<JobsTable>;

interface Registration {
  handler: JobHandler<JobKind>;
  concurrency: number;
  onExhausted?: ProcessOptions<JobKind>['onExhausted'];
  running: number;
}

interface Execution {
  id: string;
  registration: Registration;
  /** Handed back by stop(): the handler may still run, but the row is no longer this execution's to settle. */
  abandoned: boolean;
  /** Counted out of its kind's slots already (Job.slotFree). */
  slotFreed: boolean;
  renewal: NodeJS.Timeout | null;
  done: Promise<void>;
}

/** Finished rows are kept this long so that enqueueing the same job id again does nothing. */
const KEEP_FINISHED_MS = 24 * 60 * 60_000;
const HOUSEKEEPING_EVERY_MS = 60_000;
/** How often idle() looks at the table again. */
const IDLE_CHECK_MS = 10;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** A job that ran to its end, settled by the instance holding it (every job: built once, issue 21). */
const markDone = prepared<{ id: string; instance: string; at: string }, unknown>((db, p) =>
  db
    .updateTable('jobs')
    .set({ status: 'done', lease_until: null, last_error: null, updated_at: p('at') })
    .where('id', '=', p('id'))
    .where('locked_by', '=', p('instance'))
    .where('status', '=', 'running'),
);

function jobOf(row: JobRow, attempt: number): Job {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    // Written by enqueue with JSON.stringify; a row edited by hand reaches the handler, which rejects it.
  }
  return {
    id: row.id,
    kind: row.kind as JobKind,
    payload: payload as Job['payload'],
    attempt,
    maxAttempts: row.max_attempts,
  };
}

function parseDelays(text: string): number[] {
  try {
    const delays = JSON.parse(text);
    return Array.isArray(delays) ? delays.filter((d): d is number => typeof d === 'number') : [];
  } catch {
    return [];
  }
}

export function createLocalJobQueue(options: LocalJobQueueOptions): JobQueue {
  const { db, dialect } = options;
  const leaseMs = options.leaseMs ?? 30_000;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const clock = options.now ?? Date.now;
  const instanceId = options.instanceId ?? randomUUID();
  const random = options.random ?? Math.random;
  const log = options.log;
  const iso = (ms: number) => new Date(ms).toISOString();

  const registrations = new Map<string, Registration>();
  const active = new Map<string, Execution>();
  let started = false;
  let stopping = false;
  let poll: NodeJS.Timeout | null = null;
  let wake: NodeJS.Timeout | null = null;
  let wakeAt = Number.POSITIVE_INFINITY;
  let pumping: Promise<void> | null = null;
  let pumpAgain = false;
  let lastHousekeeping = Number.NEGATIVE_INFINITY;
  /**
   * The kinds whose due work this process may not have claimed yet: a kind is marked by its enqueue, a wake-up, the
   * poll (other processes, expired leases) and a claim that filled its free slots; it is cleared by a claim that asked
   * for it and found less. A job that ends asks the table again only when its kind may have work waiting (issue 21:
   * no empty claim per finished job). Kept per kind because a claim looks only at the kinds with free slots: one flag
   * for all of them was cleared by a claim of other kinds while every slot of a kind was busy, and that kind's queued
   * jobs then waited for the poll (half a second) although its slots had come free.
   */
  const dirty = new Set<string>();
  /** Every registered kind may have work (the poll, a start, a wake-up that does not say which kind). */
  function markAll(): void {
    for (const kind of registrations.keys()) dirty.add(kind);
  }

  /**
   * The claim on SQLite, compiled once per number of kinds asked for (issue 21: built anew it cost more than it ran):
   * `kind0…`, `limit0…` are the kinds and their free slots. The two ways a row is due are two index searches joined
   * by UNION ALL: written as one OR, SQLite's planner took a claim of one kind as a walk over every row of that kind
   * through jobs_fair (kind), the finished rows of the last day included — 1.2 ms with 30,000 of them instead of
   * 10 µs, and the claim grew to most of the main thread's database time as a day's jobs piled up.
   */
  const claimSqlite = preparedBy<number, Record<string, unknown>, JobRow>(
    (_db, p, count) => {
      const indexes = Array.from({ length: count }, (_, i) => i);
      const kinds = sql.join(indexes.map((i) => p(`kind${i}`)));
      const limits = sql.join(
        indexes.map((i) => sql`(ranked.kind = ${p(`kind${i}`)} and ranked.rn <= ${p(`limit${i}`)})`),
        sql` or `,
      );
      return sql<JobRow>`
        update jobs set status = 'running', attempts = attempts + 1, lease_until = ${p('lease')},
          locked_by = ${p('instance')}, updated_at = ${p('now')}
        where id in (
          select ranked.id from (
            select id, kind, row_number() over (partition by kind order by fair_key, run_at, seq, id) as rn
            from (
              select id, kind, fair_key, run_at, seq from jobs
              where kind in (${kinds}) and status = 'queued' and run_at <= ${p('now')}
              union all
              select id, kind, fair_key, run_at, seq from jobs
              where kind in (${kinds}) and status = 'running' and lease_until < ${p('now')}
            )
          ) as ranked
          where ${limits}
        )
        returning *`;
    },
    (count) => String(count),
  );

  /** Due rows of these kinds: queued and due, or running under a lease that ran out. */
  function claimable(kinds: readonly string[], at: string) {
    return db
      .selectFrom('jobs')
      .where('kind', 'in', kinds)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', at)]),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', at)]),
        ]),
      );
  }

  /**
   * Claims up to `free[kind]` due rows of each kind in one statement (issue 21: one claim per job, and one more that
   * found nothing, were a fifth of an export's statements). The rows of each kind are taken in the single claim's
   * order (fair key, then due time, then enqueue order), so fairness between groups is unchanged. PostgreSQL refuses
   * FOR UPDATE with a window function, so there each kind's rows are picked by a CTE of their own with
   * `LIMIT … FOR UPDATE SKIP LOCKED` (claimBatchPostgres): two claimers still never take the same row.
   */
  async function claimBatch(free: ReadonlyMap<string, number>): Promise<JobRow[]> {
    const at = clock();
    const now = iso(at);
    const kinds = [...free.keys()];
    if (dialect === 'postgres') return sortClaimed(await claimBatchPostgres(free, at));
    const values: Record<string, unknown> = { lease: iso(at + leaseMs), instance: instanceId, now };
    kinds.forEach((kind, i) => {
      values[`kind${i}`] = kind;
      values[`limit${i}`] = free.get(kind);
    });
    const rows = await claimSqlite(db, kinds.length, values);
    return sortClaimed(rows.rows);
  }

  async function claimBatchPostgres(free: ReadonlyMap<string, number>, at: number): Promise<JobRow[]> {
    const now = iso(at);
    const picks = [...free].map(
      ([kind, limit], i) => sql`${sql.id(`k${i}`)} as (
        select id from jobs
        where kind = ${kind}
          and ((status = 'queued' and run_at <= ${now}) or (status = 'running' and lease_until < ${now}))
        order by fair_key, run_at, seq, id
        limit ${limit}
        for update skip locked
      )`,
    );
    const picked = sql.join(
      [...free.keys()].map((_, i) => sql`select id from ${sql.id(`k${i}`)}`),
      sql` union all `,
    );
    const rows = await sql<JobRow>`
      with ${sql.join(picks)}
      update jobs set status = 'running', attempts = attempts + 1, lease_until = ${iso(at + leaseMs)},
        locked_by = ${instanceId}, updated_at = ${now}
      where id in (${picked})
      returning *`.execute(db);
    return rows.rows;
  }

  /** The claimed rows in the order a single claim would have taken them. */
  function sortClaimed(rows: JobRow[]): JobRow[] {
    return rows.sort(
      (a, b) =>
        a.fair_key - b.fair_key ||
        a.run_at.localeCompare(b.run_at) ||
        Number(a.seq) - Number(b.seq) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  }

  /**
   * Start-time fair queueing over the table: a group's next job goes one place after the later of the queue's head
   * (the smallest queued key of the kind) and the group's own last queued job. A group arriving behind another's
   * backlog of thousands is claimed next but one; two groups with backlogs alternate. Two enqueuers racing may give
   * equal keys, which only makes those two jobs share a turn. Both reads use an index (migration 0010), and run inside
   * the job's own insert (issue 21: statements per export).
   */
  function nextFairKey(kind: string, group: string, nth: number) {
    const head = sql<number>`coalesce((select min(fair_key) from jobs where kind = ${kind} and status = 'queued' and fair_key > 0), 0)`;
    const last = sql<number>`coalesce((select max(fair_key) from jobs where kind = ${kind} and status in ('queued', 'running') and fair_group = ${group}), 0)`;
    // SQLite's two-argument max() is PostgreSQL's greatest().
    return dialect === 'postgres'
      ? sql<number>`greatest(${head}, ${last}) + ${nth}`
      : sql<number>`max(${head}, ${last}) + ${nth}`;
  }

  /** One job's row as jobRow() makes it, with its fair key when it has a group (nth 1). */
  const insertJobStatement = preparedBy<
    boolean,
    {
      id: string;
      kind: string;
      payload: string;
      maxAttempts: number;
      retryDelays: string;
      runAt: string;
      group: string | null;
      at: string;
    },
    unknown
  >(
    (executor, p, grouped) =>
      executor
        .insertInto('jobs')
        .values({
          id: p('id'),
          kind: p('kind'),
          payload: p('payload'),
          status: 'queued',
          attempts: 0,
          max_attempts: p('maxAttempts'),
          retry_delays: p('retryDelays'),
          run_at: p('runAt'),
          lease_until: null,
          locked_by: null,
          last_error: null,
          fair_group: p('group'),
          fair_key: grouped ? nextFairKey(p('kind'), p('group') as string, 1) : 0,
          seq: sql<number>`(select coalesce(max(seq), 0) + 1 from jobs)`,
          created_at: p('at'),
          updated_at: p('at'),
        })
        .onConflict((oc) => oc.column('id').doNothing()),
    (grouped) => (grouped ? 'grouped' : 'plain'),
  );

  /** Updates a row this instance holds; false when the lease was lost to another instance meanwhile. */
  async function settle(id: string, changes: Partial<Omit<JobRow, 'id'>>): Promise<boolean> {
    const result = await db
      .updateTable('jobs')
      .set({ ...changes, updated_at: iso(clock()) })
      .where('id', '=', id)
      .where('locked_by', '=', instanceId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  function scheduleWake(atMs: number) {
    if (!started || stopping) return;
    const delay = Math.max(0, atMs - clock());
    // The poll finds it as soon; one timer, for the earliest known job only.
    if (delay >= pollIntervalMs || atMs >= wakeAt) return;
    if (wake) clearTimeout(wake);
    wakeAt = atMs;
    wake = setTimeout(() => {
      wake = null;
      wakeAt = Number.POSITIVE_INFINITY;
      markAll();
      pump();
    }, delay);
  }

  function pump(): void {
    if (!started || stopping) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = (async () => {
      do {
        pumpAgain = false;
        for (;;) {
          if (stopping) break;
          const free = new Map(
            [...registrations]
              .filter(([kind, r]) => r.running < r.concurrency && dirty.has(kind))
              .map(([kind, r]) => [kind, r.concurrency - r.running]),
          );
          if (free.size === 0) break;
          // Cleared before the await: an enqueue while the claim runs marks its kind again, and the loop looks again.
          for (const kind of free.keys()) dirty.delete(kind);
          const rows = await claimBatch(free);
          const took = new Map<string, number>();
          for (const row of rows) took.set(row.kind, (took.get(row.kind) ?? 0) + 1);
          // A kind whose free slots were all filled may have more waiting.
          for (const [kind, n] of free) if ((took.get(kind) ?? 0) >= n) dirty.add(kind);
          for (const row of rows) launch(row);
          if (rows.length === 0) break;
        }
        await housekeeping();
      } while (pumpAgain && !stopping);
    })()
      .catch((error) => log?.error({ err: error }, 'job queue: claiming jobs failed'))
      .finally(() => {
        pumping = null;
        // A wake-up that arrived after the loop's last look at pumpAgain would otherwise wait for the next poll.
        if (pumpAgain) pump();
      });
  }

  async function housekeeping() {
    const at = clock();
    if (at - lastHousekeeping < HOUSEKEEPING_EVERY_MS) return;
    lastHousekeeping = at;
    await db
      .deleteFrom('jobs')
      .where('status', 'in', ['done', 'failed'])
      .where('updated_at', '<', iso(at - KEEP_FINISHED_MS))
      .execute();
  }

  /** Runs a claimed row; `held`: its slot was taken already (hold). */
  function launch(row: JobRow, held = false) {
    const registration = registrations.get(row.kind)!;
    if (!held) registration.running += 1;
    const execution: Execution = {
      id: row.id,
      registration,
      abandoned: false,
      slotFreed: false,
      renewal: null,
      done: Promise.resolve(),
    };
    execution.renewal = setInterval(() => void renew(execution), Math.max(1, Math.floor(leaseMs / 3)));
    active.set(row.id, execution);
    execution.done = execute(execution, row)
      .catch((error) => log?.error({ err: error, jobId: row.id, kind: row.kind }, 'job queue: settling a job failed'))
      .finally(() => {
        if (execution.renewal) clearInterval(execution.renewal);
        execution.renewal = null;
        if (execution.abandoned) return; // stop() already released its slot
        if (active.get(row.id) === execution) active.delete(row.id);
        freeSlot(execution);
      });
  }

  /** Counts the execution out of its kind's slots, once; false when it was already. */
  function countOut(execution: Execution): boolean {
    if (execution.slotFreed) return false;
    execution.slotFreed = true;
    execution.registration.running -= 1;
    return true;
  }

  /** The execution's slot back to its kind, once, and the next job claimed. */
  function freeSlot(execution: Execution) {
    if (countOut(execution)) pump();
  }

  async function renew(execution: Execution) {
    if (execution.abandoned || !execution.renewal) return;
    try {
      const kept = await db
        .updateTable('jobs')
        .set({ lease_until: iso(clock() + leaseMs) })
        .where('id', '=', execution.id)
        .where('locked_by', '=', instanceId)
        .where('status', '=', 'running')
        .executeTakeFirst();
      if (Number(kept.numUpdatedRows) === 0 && !execution.abandoned) {
        log?.warn?.({ jobId: execution.id }, 'job queue: lost the lease of a running job to another instance');
        if (execution.renewal) clearInterval(execution.renewal);
        execution.renewal = null;
      }
    } catch (error) {
      log?.error({ err: error, jobId: execution.id }, 'job queue: renewing a lease failed');
    }
  }

  /**
   * Runs onExhausted while the lease is still held and marks the row failed only afterwards: a crash in between
   * leaves a row that is claimed again and exhausted again, rather than a job whose outcome nobody ever settles.
   */
  async function exhaust(execution: Execution, job: Job, error: Error) {
    try {
      await execution.registration.onExhausted?.(job, error);
    } catch (failure) {
      log?.error({ err: failure, jobId: job.id, kind: job.kind }, 'job queue: onExhausted threw');
    }
    if (execution.abandoned) return;
    await settle(job.id, { status: 'failed', lease_until: null, last_error: error.message });
  }

  async function execute(execution: Execution, row: JobRow) {
    if (row.attempts > row.max_attempts) {
      // Every earlier claim ended without settling the row: their processes died while running it.
      const interrupted = new Error(`interrupted ${row.attempts - 1} times: the process running it stopped or crashed`);
      await exhaust(execution, jobOf(row, row.attempts - 1), interrupted);
      return;
    }
    const job = jobOf(row, row.attempts);
    let settledInline = false;
    job.inline = {
      instance: instanceId,
      settled: () => {
        settledInline = true;
      },
    };
    job.slotFree = () => {
      if (!execution.abandoned) freeSlot(execution);
    };
    let failure: Error | null = null;
    try {
      await execution.registration.handler(job);
    } catch (error) {
      failure = asError(error);
    }
    if (execution.abandoned) return;
    // The handler's own last write settled the row (Job.inline).
    if (!failure && settledInline) return;
    if (!failure) {
      const done = await markDone(db, { id: row.id, instance: instanceId, at: iso(clock()) });
      if (Number(done.numAffectedRows ?? 0) !== 1) {
        log?.warn?.({ jobId: row.id, kind: row.kind }, 'job queue: a job finished after its lease was taken over');
      }
      return;
    }
    if (row.attempts < row.max_attempts) {
      const runAt = clock() + withJitter(retryDelayAfter(row.attempts, parseDelays(row.retry_delays)), random);
      const released = await settle(row.id, {
        status: 'queued',
        run_at: iso(runAt),
        lease_until: null,
        locked_by: null,
        last_error: failure.message,
      });
      if (released) scheduleWake(runAt);
      return;
    }
    // Make sure the row is still ours (and record why it failed) before settling what the job was for.
    if (!(await settle(row.id, { last_error: failure.message, lease_until: iso(clock() + leaseMs) }))) {
      log?.warn?.({ jobId: row.id, kind: row.kind }, 'job queue: a job failed after its lease was taken over');
      return;
    }
    await exhaust(execution, job, failure);
  }

  /** A job still running when stop's grace ends goes back to the queue as if this attempt never started. */
  async function handBack(execution: Execution) {
    execution.abandoned = true;
    if (execution.renewal) clearInterval(execution.renewal);
    execution.renewal = null;
    countOut(execution);
    if (active.get(execution.id) === execution) active.delete(execution.id);
    await requeue(execution.id);
  }

  /** A row this instance holds back to the queue, its attempt not counted. */
  async function requeue(id: string) {
    await db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'queued',
        run_at: iso(clock()),
        attempts: eb('attempts', '-', 1),
        lease_until: null,
        locked_by: null,
        updated_at: iso(clock()),
      }))
      .where('id', '=', id)
      .where('locked_by', '=', instanceId)
      .where('status', '=', 'running')
      .execute();
  }

  /**
   * A slot of `kind` taken for a job its enqueuer inserts already claimed (SQLite's `export_accepts`, migration 0025),
   * when taking the next job of the kind needs no claim: a slot is free and the kind has nothing waiting (`dirty`
   * clear: the last claim found less than it asked for, and nothing was enqueued or came due since), and no claim is
   * under way. The job would have been claimed next anyway, so fairness between groups is unchanged; a crash after the
   * commit leaves a running row, which start() takes back as it takes back every row of a process that died.
   */
  function hold(kind: JobKind): JobHold | null {
    const registration = registrations.get(kind);
    if (dialect !== 'sqlite' || !started || stopping || pumping || dirty.has(kind)) return null;
    if (!registration || registration.running >= registration.concurrency) return null;
    registration.running += 1;
    let ended = false;
    const claim = {
      status: 'running',
      attempts: 1,
      lease_until: iso(clock() + leaseMs),
      locked_by: instanceId,
    } as const;
    return {
      claim,
      launch(values) {
        if (ended) return;
        ended = true;
        if (stopping || !started) {
          // stop() no longer waits for new work: the row goes back to the queue for the next start.
          registration.running -= 1;
          requeue(values.id).catch((error) =>
            log?.error({ err: error, jobId: values.id }, 'job queue: handing a held job back failed'),
          );
          return;
        }
        // Written out in one shape: a spread of the values and the claim took V8's slow paths (issue 21, stop 25).
        const row: JobRow = {
          id: values.id,
          kind: values.kind,
          payload: values.payload,
          status: claim.status,
          attempts: claim.attempts,
          max_attempts: values.max_attempts,
          retry_delays: values.retry_delays,
          run_at: values.run_at,
          lease_until: claim.lease_until,
          locked_by: claim.locked_by,
          last_error: null,
          created_at: values.created_at,
          updated_at: values.created_at,
          fair_group: values.fair_group,
          fair_key: 0,
          seq: 0,
        };
        launch(row, true);
      },
      release() {
        if (ended) return;
        ended = true;
        registration.running -= 1;
        pump();
      },
    };
  }

  /**
   * The row of a job, its due time; without its place in line (fair_key, seq: SQL, see `ordered`), which the statements
   * prepared once per kind of row compute themselves: building it for every job cost the event loop for nothing
   * (issue 21).
   */
  function jobRow<K extends JobKind>(kind: K, payload: JobPayloads[K], enqueueOptions: EnqueueOptions) {
    const maxAttempts = enqueueOptions.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new RangeError(
        `enqueue ${kind}: maxAttempts must be a whole number of at least 1, received ${maxAttempts}`,
      );
    }
    const at = clock();
    const runAt = at + Math.max(0, enqueueOptions.delayMs ?? 0);
    const group = enqueueOptions.group ?? null;
    return {
      runAt,
      row: {
        id: enqueueOptions.jobId ?? randomUUID(),
        kind,
        payload: JSON.stringify(payload),
        status: 'queued',
        attempts: 0,
        max_attempts: maxAttempts,
        retry_delays: JSON.stringify(enqueueOptions.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS),
        run_at: iso(runAt),
        lease_until: null,
        locked_by: null,
        last_error: null,
        fair_group: group,
        created_at: iso(at),
        updated_at: iso(at),
      },
    };
  }

  /**
   * A row with its place in line. `nth`: its place among jobs of one group inserted by one statement, whose subqueries
   * all read the table as it was before the statement: keys and seq go up by one per job, as they do when the jobs are
   * inserted one by one.
   */
  function ordered(row: ReturnType<typeof jobRow>['row'], nth: number) {
    const group = row.fair_group;
    return {
      ...row,
      fair_key: group === null ? 0 : nextFairKey(row.kind, group, nth),
      seq: sql<number>`(select coalesce(max(seq), 0) + ${nth} from jobs)`,
    };
  }

  /** The job's row, through `executor` (the queue's database, or a caller's transaction); its due time. */
  async function insertJob<K extends JobKind>(
    executor: Kysely<Database>,
    kind: K,
    payload: JobPayloads[K],
    enqueueOptions: EnqueueOptions,
  ): Promise<number> {
    const { runAt, row } = jobRow(kind, payload, enqueueOptions);
    // Compiled once per kind of row (issue 21: an export's render job is inserted with every export).
    await insertJobStatement(executor, row.fair_group !== null, {
      id: row.id,
      kind,
      payload: row.payload,
      maxAttempts: row.max_attempts,
      retryDelays: row.retry_delays,
      runAt: row.run_at,
      group: row.fair_group,
      at: row.created_at,
    });
    return runAt;
  }

  function wakeFor(kind: string, runAt: number): void {
    const registration = registrations.get(kind);
    if (!registration) return;
    if (runAt <= clock()) {
      dirty.add(kind);
      // All slots of the kind taken: the job is claimed when one frees (a finishing job pumps; its kind stays
      // marked). A claim now could only look at other kinds — one wasted statement per enqueue, 15,000 for a 15,000-file
      // backlog, which on PostgreSQL made enqueueing one team's backlog take minutes (issue 14).
      if (registration.running < registration.concurrency) pump();
    } else scheduleWake(runAt);
  }

  return {
    async enqueue<K extends JobKind>(kind: K, payload: JobPayloads[K], enqueueOptions: EnqueueOptions = {}) {
      const runAt = await insertJob(db, kind, payload, enqueueOptions);
      wakeFor(kind, runAt);
    },

    transactional: {
      async enqueue<K extends JobKind>(
        tx: Kysely<Database>,
        kind: K,
        payload: JobPayloads[K],
        enqueueOptions: EnqueueOptions = {},
      ) {
        await insertJob(tx, kind, payload, enqueueOptions);
      },
      ...(dialect === 'postgres'
        ? {
            insertStatement<K extends JobKind>(
              kind: K,
              jobs: { jobId: string; payload: JobPayloads[K] }[],
              enqueueOptions: Omit<EnqueueOptions, 'jobId'> = {},
            ) {
              const rows = jobs.map((job, i) =>
                ordered(jobRow(kind, job.payload, { ...enqueueOptions, jobId: job.jobId }).row, i + 1),
              );
              return db
                .insertInto('jobs')
                .values(rows)
                .onConflict((oc) => oc.column('id').doNothing());
            },
          }
        : {
            valuesOf<K extends JobKind>(
              kind: K,
              jobs: { jobId: string; payload: JobPayloads[K] }[],
              enqueueOptions: Omit<EnqueueOptions, 'jobId'> = {},
            ) {
              return jobs.map((job) => {
                const { row } = jobRow(kind, job.payload, { ...enqueueOptions, jobId: job.jobId });
                return {
                  id: row.id,
                  kind,
                  payload: row.payload,
                  max_attempts: row.max_attempts,
                  retry_delays: row.retry_delays,
                  run_at: row.run_at,
                  fair_group: row.fair_group,
                  created_at: row.created_at,
                };
              });
            },
            hold,
          }),
      // After the commit: a claim before it would not see the row (PostgreSQL) or would wait for it (SQLite).
      wake(kind) {
        wakeFor(kind, clock());
      },
    },

    process<K extends JobKind>(kind: K, handler: JobHandler<K>, processOptions: ProcessOptions<K>) {
      if (registrations.has(kind)) throw new Error(`process ${kind}: a handler of this kind is registered already`);
      const { concurrency, onExhausted } = processOptions;
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw new RangeError(
          `process ${kind}: concurrency must be a whole number of at least 1, received ${concurrency}`,
        );
      }
      // One map holds every kind; the row's kind picks the registration, so each handler sees its own payloads.
      registrations.set(kind, {
        handler: handler as JobHandler<JobKind>,
        concurrency,
        onExhausted: onExhausted as ProcessOptions<JobKind>['onExhausted'],
        running: 0,
      });
      dirty.add(kind);
      pump();
    },

    async start() {
      if (started) return;
      if (dialect === 'sqlite') {
        // This process owns the file: whoever held these rows is gone.
        await db
          .updateTable('jobs')
          .set({ lease_until: iso(0) })
          .where('status', '=', 'running')
          .execute();
      }
      started = true;
      stopping = false;
      poll = setInterval(() => {
        markAll();
        pump();
      }, pollIntervalMs);
      markAll();
      pump();
    },

    async stop(graceMs = 30_000) {
      if (!started) return;
      stopping = true;
      if (poll) clearInterval(poll);
      if (wake) clearTimeout(wake);
      poll = wake = null;
      wakeAt = Number.POSITIVE_INFINITY;
      await pumping;
      if (active.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all([...active.values()].map((e) => e.done)),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, graceMs);
          }),
        ]);
        clearTimeout(timer);
      }
      const late = [...active.values()];
      const results = await Promise.allSettled(late.map(handBack));
      for (const [i, result] of results.entries()) {
        if (result.status === 'rejected') {
          log?.error({ err: result.reason, jobId: late[i].id }, 'job queue: handing a job back failed');
        }
      }
      started = false;
      stopping = false;
    },

    async depth(kinds?: readonly JobKind[]) {
      if (kinds && kinds.length === 0) return 0;
      let query = db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['queued', 'running']);
      if (kinds) query = query.where('kind', 'in', kinds);
      const row = await query.executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async finishedSince(kind: JobKind, sinceMs: number) {
      // Index jobs_status (status, updated_at): a range of the last minute's rows, however many the day kept.
      const row = await db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['done', 'failed'])
        .where('updated_at', '>=', iso(sinceMs))
        .where('kind', '=', kind)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async idle() {
      for (;;) {
        if (active.size === 0 && !pumping) {
          const kinds = [...registrations.keys()];
          if (kinds.length === 0) return;
          const due = await claimable(kinds, iso(clock())).select('id').limit(1).executeTakeFirst();
          if (!due && active.size === 0 && !pumping) return;
        }
        await sleep(IDLE_CHECK_MS);
      }
    },
  };
}
