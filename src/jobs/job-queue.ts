// The JobQueue seam (docs/architecture.md): background work that must survive a crash. The embedded shape keeps jobs
// in a table of the database (local-queue.ts); the scaled-out shape keeps them in Redis (BullMQ). Both promise the
// same: a job enqueued is run at least once, so handlers make their completion idempotent (they check the state of
// what they settle before settling it); a job whose process died is claimed again once its lease runs out; a job that
// throws is retried after its retry delays; one that has used all its attempts is handed to the kind's `onExhausted`,
// which settles it for good (for example RENDER_CRASHED).
// Enqueue after the database transaction commits, never inside it, through `enqueue`: the queue may live elsewhere.
// Where it does not (`transactional`), a job can be written in the same transaction as its rows.
import type { InsertQueryBuilder, InsertResult, Kysely } from 'kysely';
import type { CreativeRow, ExportRow, JobValues } from '../storage/db/repositories/exports.repository.js';
import type { Database } from '../storage/db/schema.js';

/** The payload of each job kind. */
export interface JobPayloads {
  /** Render one file of an export and store it. */
  'export.creative': {
    exportId: string;
    creativeId: string;
    /**
     * How many files the export makes. One: the render settles its file and finishes the export in one statement,
     * in whichever process it runs (issue 21). Absent in jobs of the sweep and of earlier versions: the long way.
     */
    files?: number;
    /**
     * An export of one file, with jobs in Redis: its rows as the accept wrote them, so that the first run of the
     * render need not read them back (issue 21, stop 33: a statement and a round trip fewer per export). A run that
     * takes the job later than `ACCEPTED_FRESH_MS` after the accept, or again, reads them as they are now.
     */
    accepted?: { export: ExportRow; creative: CreativeRow };
  };
  /** Every file of an export is settled: zip a set, set the final status, record the events. */
  'export.finish': { exportId: string };
  /** POST one webhook delivery (events/deliveries.ts). */
  'webhook.deliver': { deliveryId: string };
  /** Draw the thumbnail of a design made without one (export with changes), if it still has that revision. */
  'design.thumbnail': { designId: number; revision: number };
  /** Fetch the source of one uploaded brand kit asset, store it, settle its row (services/asset-processor.ts). */
  'asset.fetch': { mediaId: number };
  /** Render one row of a batch (every size of the template with the row's changes) and settle it (issue 22). */
  'batch.row': { batchId: number; rowId: number };
  /** Every row of a batch is settled: write its zip and results CSV, set its final status, send batch/completed. */
  'batch.finish': { batchId: number };
}

export type JobKind = keyof JobPayloads;

/**
 * Every job kind, for what lists them at run time (the queue-depth gauge). `satisfies` makes the compiler refuse this
 * object when a kind of JobPayloads is missing from it or one is not a kind, so it cannot drift from the map above.
 */
export const JOB_KINDS = Object.keys({
  'export.creative': true,
  'export.finish': true,
  'webhook.deliver': true,
  'design.thumbnail': true,
  'asset.fetch': true,
  'batch.row': true,
  'batch.finish': true,
} satisfies Record<JobKind, true>) as readonly JobKind[];

export interface EnqueueOptions {
  /**
   * Enqueueing an id that the queue still holds (queued, running, or finished within the last day) does nothing, so
   * a recovery sweep can enqueue whatever might be missing without running anything twice. Default: a fresh UUID.
   */
  jobId?: string;
  /** Wait before the first attempt. Default 0. */
  delayMs?: number;
  /** Attempts in all, crashes included. Default 3. */
  maxAttempts?: number;
  /** Waits before the 2nd, 3rd… attempt, each with ±20% jitter; the last value repeats. Default [1 000, 5 000]. */
  retryDelaysMs?: readonly number[];
  /**
   * The group (a team) the job belongs to: jobs of a kind are claimed in turns across groups, so one group's backlog
   * delays another group's next job by at most one job per group ahead of it. Jobs without a group are claimed first.
   */
  group?: string;
  /**
   * How long the queue remembers a job that completed, so that enqueueing its id again does nothing (above). Default
   * a day. Jobs in Redis only (the job table's payloads are small): one that carries its export's rows (JobPayloads)
   * is forgotten sooner, as its handler does nothing for a file settled already, and a day of such payloads would
   * hold every document rendered that day in Redis's memory. At least two minutes: the expected wait counts the jobs
   * finished in the last minute (services/export-wait.ts).
   */
  keepCompletedSeconds?: number;
}

export interface Job<K extends JobKind = JobKind> {
  id: string;
  kind: K;
  payload: JobPayloads[K];
  /** 1 on the first attempt. */
  attempt: number;
  maxAttempts: number;
  /**
   * The job table's queue only (issue 21, stop 23): a handler whose last write can also mark its job done names
   * `instance` as the holder in that write (done only while it holds the row) and then calls `settled()`; the queue
   * then skips its own settle, a write and a commit of its own.
   */
  inline?: { instance: string; settled(): void };
  /**
   * The job table's queue only (issue 21, stop 29): the handler's part that the kind's concurrency is for (a render and
   * storing its file) is over, and what is left is writing its outcome. The queue counts the job out of its kind's
   * slots and claims the next one at once, in the same turn as that write (one group commit): before, a render slot
   * stood empty for the write's round trip and then the claim's. The job keeps its lease until it settles. Calling it
   * again does nothing.
   */
  slotFree?(): void;
}

export interface ProcessOptions<K extends JobKind> {
  /** Jobs of this kind run at once in this process. */
  concurrency: number;
  /**
   * Called once when a job has used its attempts: its last attempt threw (`error`), or its process died while it ran
   * (`error` says it was interrupted). Settles whatever the job was for; it should not throw.
   */
  onExhausted?: (job: Job<K>, error: Error) => Promise<void>;
}

/**
 * Render jobs of one kind that run at once per render thread. While one job renders, the others read rows, fetch and
 * store files, and the thread's last JPEG or PNG is encoded on libuv's pool; jobs beyond the threads wait in the
 * pool's gate, where teams take turns (formats/thread-gate.ts), so a deeper line does not let one team's burst go
 * ahead of another's next file. On the local disk four per thread (issue 21, stop 29: with two, 698 against 771
 * exports/s at c=16 in a paired run, the cores idle while a thread's two jobs both waited for the database; eight gave
 * 4 % more only because the bench's 16 in flight then all fit, skipping their claims). With an object store,
 * PostgreSQL and Redis over the network that wait takes several small renders' time (with two, a scaled-out worker's
 * thread waited between renders: 34–38 exports/s, 40–42 with four; stop 28, two PUTs of 25–45 ms each: 40 exports/s
 * with four, 45 with eight), so eight. Jobs waiting for the thread hold only their document: pixels exist for the one
 * being drawn.
 */
export function renderJobsPerThread(blobs: { readonly localRoot?: string }): number {
  return blobs.localRoot ? 4 : 8;
}

export type JobHandler<K extends JobKind> = (job: Job<K>) => Promise<void>;

/** A slot taken for a job inserted already claimed (JobQueue.transactional.hold). */
export interface JobHold {
  /** The values that insert the job claimed by this process. */
  readonly claim: { status: 'running'; attempts: 1; lease_until: string; locked_by: string };
  /** After the commit that inserted the job with `claim`: runs it in the slot taken. */
  launch(values: JobValues): void;
  /** The insert failed: gives the slot back. */
  release(): void;
}

export interface JobQueue {
  enqueue<K extends JobKind>(kind: K, payload: JobPayloads[K], options?: EnqueueOptions): Promise<void>;
  /**
   * Present when jobs live in the database (the job table): a job enqueued inside the caller's transaction exists
   * exactly when the rows it works on do (issue 21: an export is accepted in one transaction). Call `wake` with the
   * kind after the commit. Absent (BullMQ): enqueue after the commit; a recovery sweep covers a crash in between.
   */
  readonly transactional?: {
    enqueue<K extends JobKind>(
      tx: Kysely<Database>,
      kind: K,
      payload: JobPayloads[K],
      options?: EnqueueOptions,
    ): Promise<void>;
    /**
     * PostgreSQL: the insert of jobs of one kind and one group as a data-modifying statement for the caller's WITH
     * (issue 21: an export with its jobs is accepted in one statement). Same rows, fair keys and seq as enqueueing
     * them one by one in that order, and a job id that exists already is skipped. Absent on SQLite.
     */
    insertStatement?<K extends JobKind>(
      kind: K,
      jobs: { jobId: string; payload: JobPayloads[K] }[],
      options?: Omit<EnqueueOptions, 'jobId'>,
    ): InsertQueryBuilder<Database, 'jobs', InsertResult>;
    /**
     * SQLite: the values of jobs of one kind and one group for the `export_accepts` trigger (migration 0023), which
     * inserts them with the fair keys and seq that enqueueing them one by one in that order gives (issue 21: an export
     * with its jobs is accepted in one statement on SQLite too). Absent on PostgreSQL.
     */
    valuesOf?<K extends JobKind>(
      kind: K,
      jobs: { jobId: string; payload: JobPayloads[K] }[],
      options?: Omit<EnqueueOptions, 'jobId'>,
    ): JobValues[];
    /**
     * SQLite: a slot of `kind` taken now for a job that its enqueuer inserts already claimed (issue 21, stop 24: the
     * claim's statement and round trip saved), or null when the job must wait for a claim like any other. Insert the
     * job with `claim`'s values, then `launch` it after the commit, or `release` the slot when the insert failed.
     */
    hold?(kind: JobKind): JobHold | null;
    /**
     * After the commit: jobs of `kind` may be waiting. Only that kind is looked for, and only if it has a free slot
     * (issue 21: waking every kind made each accept under load claim the other kinds, whose slots were free and whose
     * jobs there were none: one claim and its commit per export for nothing).
     */
    wake(kind: JobKind): void;
  };
  /** Registers the handler of a kind; call before start(). */
  process<K extends JobKind>(kind: K, handler: JobHandler<K>, options: ProcessOptions<K>): void;
  /** Starts claiming jobs of the registered kinds (and takes back those of a process that died). */
  start(): Promise<void>;
  /**
   * Claims nothing more and waits up to `graceMs` (default 30 000) for running jobs; the ones still running then are
   * handed back to the queue for the next start or another process, without counting the attempt.
   */
  stop(graceMs?: number): Promise<void>;
  /** Jobs waiting or running, of the given kinds (all when absent): the measure of backpressure and a metric. */
  depth(kinds?: readonly JobKind[]): Promise<number>;
  /**
   * Jobs of a kind that finished (succeeded, or failed for good) at or after `sinceMs` (epoch ms), kept a day: the
   * recent render rate that backpressure estimates the time to drain from (issue 14).
   */
  finishedSince(kind: JobKind, sinceMs: number): Promise<number>;
  /** Resolves once no job of this queue's kinds is queued and due, or running (tests, the bench). */
  idle(): Promise<void>;
}

/** The id of the job that draws a design's thumbnail at a revision: one such job per design and revision. */
export function thumbnailJobId(designId: number, revision: number): string {
  return `design.thumbnail:${designId}:${revision}`;
}

/** ±20% so that retries of many jobs that failed together do not come back together. */
export function withJitter(ms: number, random: () => number = Math.random): number {
  return Math.round(ms * (0.8 + 0.4 * random()));
}

/** The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed, before jitter. */
export function retryDelayAfter(attempt: number, delays: readonly number[]): number {
  if (delays.length === 0) return 0;
  return delays[Math.min(Math.max(attempt, 1) - 1, delays.length - 1)];
}

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000];
