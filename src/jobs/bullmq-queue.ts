// The JobQueue of the scaled-out shape: one BullMQ queue per job kind in Redis, so any number of `placard worker`
// processes on any number of machines share the work. BullMQ holds a lock per running job that its worker renews; a
// worker that dies stops renewing, and the stalled-job check of another worker puts the job back (stalled-job
// detection). What job-queue.ts promises on top of BullMQ lives here:
// - attempts count crashes: the attempt is BullMQ's `attemptsStarted` less the times stop() handed the job back, and a
//   job started more often than its maxAttempts goes to onExhausted as interrupted instead of running again;
// - the last failed attempt runs onExhausted inside the job, then fails it for good (UnrecoverableError);
// - a job still running when stop()'s grace ends is moved back to waiting under its lock, so only the next holder can
//   settle it (BullMQ refuses a completion whose lock token is not the job's).
import { type Job as BullJob, type JobType, type MinimalJob, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { RedisClient } from '../storage/redis.js';
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_RETRY_DELAYS_MS,
  type EnqueueOptions,
  type Job,
  type JobHandler,
  type JobKind,
  type JobPayloads,
  type JobQueue,
  type ProcessOptions,
  retryDelayAfter,
  withJitter,
} from './job-queue.js';

export interface BullMqJobQueueLog {
  error(details: object, message: string): void;
  warn?(details: object, message: string): void;
}

export interface BullMqJobQueueOptions {
  /** Shared connection (storage/redis.ts); the workers open their blocking connections from it. */
  connection: RedisClient;
  /** Prefix of every key, so that deployments and test runs sharing a Redis never see each other's jobs. */
  prefix: string;
  /** Lock of a running job without renewal: a dead worker's job is taken back after about this long. Default 30 s. */
  leaseMs?: number;
  /** Source of the retry jitter. Default Math.random. */
  random?: () => number;
  log?: BullMqJobQueueLog;
}

/** What a BullMQ job carries: the payload and what the contract needs that BullMQ does not keep. */
interface JobData {
  /** The JobQueue id (BullMQ ids cannot hold ':' nor be integers, see bullIdOf). */
  id: string;
  payload: unknown;
  maxAttempts: number;
  retryDelaysMs: readonly number[];
  /** Times a stopping worker handed the job back: those starts are not attempts. */
  handedBack?: number;
}

interface Registration {
  handler: JobHandler<JobKind>;
  concurrency: number;
  onExhausted?: ProcessOptions<JobKind>['onExhausted'];
}

interface Running {
  job: BullJob<JobData>;
  token: string | undefined;
  abandoned: boolean;
  done: Promise<unknown>;
}

/**
 * Start-time fair queueing on BullMQ priorities (the open-source BullMQ has no groups): a grouped job's priority is one
 * more than the later of the kind's virtual time (the priority of the last job a worker started) and its group's last
 * key, so groups take turns as on the local table (migration 0010). KEYS: the virtual time, the group's last key, and
 * the kind's prioritized, active and delayed sets (all empty: both keys start again). Ungrouped jobs keep priority 0 and go first.
 * BullMQ's priorities end at 2^21: keys stop there, which degrades to first-come order only after two million
 * grouped jobs in one burst; they start again from 1 whenever the kind's queue has drained (virtual time reset).
 */
const FAIR_KEY_SCRIPT = `
if redis.call('ZCARD', KEYS[3]) + redis.call('LLEN', KEYS[4]) + redis.call('ZCARD', KEYS[5]) == 0 then
  redis.call('DEL', KEYS[1], KEYS[2])
end
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local k = math.max(v, last) + 1
if k > 2097151 then k = 2097151 end
redis.call('SET', KEYS[2], k, 'EX', 86400)
return k`;
/** Raises the virtual time to a started job's priority (never lowers it). */
const FAIR_ADVANCE_SCRIPT = `
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > v then redis.call('SET', KEYS[1], ARGV[1]) end
return 0`;

interface FairCommands {
  /** FAIR_KEY_SCRIPT (ioredis defineCommand). */
  placardFairKey(clock: string, last: string, prioritized: string, active: string, delayed: string): Promise<number>;
  /** FAIR_ADVANCE_SCRIPT (ioredis defineCommand). */
  placardFairAdvance(clock: string, priority: number): Promise<number>;
}

/** Finished jobs are kept a day, so that enqueueing the same id again does nothing (job-queue.ts). */
const KEEP_FINISHED_SECONDS = 24 * 60 * 60;
const IDLE_CHECK_MS = 10;
const WAITING_STATES: readonly JobType[] = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'];
const DUE_STATES: readonly JobType[] = ['waiting', 'active', 'prioritized'];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An injective spelling of a JobQueue id that BullMQ accepts: no ':' and not an integer. */
export function bullIdOf(id: string): string {
  if (/^\d+$/.test(id)) return `#${id}`;
  return id.replace(/%/g, '%25').replace(/:/g, '%3A').replace(/#/g, '%23');
}

function attemptOf(job: BullJob<JobData>): number {
  return Math.max(1, job.attemptsStarted - (job.data.handedBack ?? 0));
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export interface BullMqJobQueue extends JobQueue {
  /** Closes the producer side (the queues); the connection belongs to the caller. */
  close(): Promise<void>;
}

export function createBullMqJobQueue(options: BullMqJobQueueOptions): BullMqJobQueue {
  const { connection, prefix, log } = options;
  const leaseMs = options.leaseMs ?? 30_000;
  const random = options.random ?? Math.random;
  const queues = new Map<JobKind, Queue<JobData>>();
  const registrations = new Map<JobKind, Registration>();
  const running = new Map<string, Running>();
  let workers: Worker<JobData>[] = [];

  function queueOf(kind: JobKind): Queue<JobData> {
    let queue = queues.get(kind);
    if (!queue) {
      queue = new Queue<JobData>(kind, { connection, prefix });
      queue.on('error', (error) => log?.error({ err: error, kind }, 'job queue: Redis error'));
      queues.set(kind, queue);
    }
    return queue;
  }

  const fairKeys = (kind: JobKind, group?: string) => [
    `${prefix}:placard-fair:${kind}:v`,
    `${prefix}:placard-fair:${kind}:g:${group ?? ''}`,
  ];

  // Sent by SHA-1 (EVALSHA), not with their text on every call; ioredis loads a script that Redis does not hold yet
  // (a restart, SCRIPT FLUSH) and sends it again. Defined once per connection: every queue over it shares them.
  const scripts = connection as RedisClient & Partial<FairCommands>;
  if (!scripts.placardFairKey || !scripts.placardFairAdvance) {
    connection.defineCommand('placardFairKey', { numberOfKeys: 5, lua: FAIR_KEY_SCRIPT });
    connection.defineCommand('placardFairAdvance', { numberOfKeys: 1, lua: FAIR_ADVANCE_SCRIPT });
  }
  const fair = connection as RedisClient & FairCommands;

  async function nextFairKey(kind: JobKind, group: string): Promise<number> {
    // One round trip per enqueue (a 5,000-file export enqueues 5,000 jobs): when nothing of the kind waits or runs
    // (its prioritized, active and delayed sets are empty) the script first starts every group again from 1.
    const { keys } = queueOf(kind);
    const [clock, last] = fairKeys(kind, group);
    return Number(await fair.placardFairKey(clock, last, keys.prioritized, keys.active, keys.delayed));
  }

  async function run(kind: JobKind, registration: Registration, entry: Running) {
    const { job } = entry;
    const data = job.data;
    if (job.opts.priority) {
      // Not awaited: the clock only ever rises (the script keeps the larger), so the job need not wait for Redis to
      // have raised it; the command leaves at once and is answered while the job runs. A failure only leaves the clock
      // lower, which places a newly arriving group's first job earlier, as before this job started.
      void fair.placardFairAdvance(fairKeys(kind)[0], job.opts.priority).catch(() => undefined);
    }
    const attempt = attemptOf(job);
    const asJob = (n: number): Job => ({
      id: data.id,
      kind,
      payload: data.payload as Job['payload'],
      attempt: n,
      maxAttempts: data.maxAttempts,
    });
    if (attempt > data.maxAttempts) {
      // Every earlier start ended without settling the job: the workers running it died.
      const interrupted = new Error(`interrupted ${attempt - 1} times: the process running it stopped or crashed`);
      await exhaust(registration, asJob(attempt - 1), interrupted);
      throw new UnrecoverableError(interrupted.message);
    }
    try {
      await registration.handler(asJob(attempt));
    } catch (error) {
      if (entry.abandoned) return;
      const failure = asError(error);
      if (attempt >= data.maxAttempts) {
        await exhaust(registration, asJob(attempt), failure);
        throw new UnrecoverableError(failure.message);
      }
      throw failure; // BullMQ retries after backoffStrategy's wait
    }
  }

  async function exhaust(registration: Registration, job: Job, error: Error) {
    try {
      await registration.onExhausted?.(job, error);
    } catch (failure) {
      log?.error({ err: failure, jobId: job.id, kind: job.kind }, 'job queue: onExhausted threw');
    }
  }

  function workerOf(kind: JobKind, registration: Registration): Worker<JobData> {
    const worker = new Worker<JobData>(
      kind,
      async (job, token) => {
        // The job is ours from the moment BullMQ hands it over, before run() awaits anything (the fair clock's
        // update): stop() waits for exactly these, and hands back those still running after its grace. Registered
        // after an await, a job started just before stop() was neither waited for nor handed back with its promise,
        // so it went on writing its file after the process had closed (the BullMQ fairness test's hang, issue 14).
        const key = `${kind}\n${job.id}`;
        const entry: Running = { job, token, abandoned: false, done: Promise.resolve() };
        running.set(key, entry);
        const done = run(kind, registration, entry);
        entry.done = done.catch(() => undefined);
        try {
          return await done;
        } finally {
          if (running.get(key) === entry) running.delete(key);
        }
      },
      {
        connection,
        prefix,
        concurrency: registration.concurrency,
        lockDuration: leaseMs,
        stalledInterval: Math.max(1_000, Math.floor(leaseMs / 2)),
        // Crashes are counted by run() against the job's own maxAttempts, not by BullMQ's stalled limit.
        maxStalledCount: 1_000,
        autorun: false,
        settings: {
          backoffStrategy: (_attemptsMade: number, _type?: string, _error?: Error, job?: MinimalJob) => {
            const data = job?.data as JobData | undefined;
            if (!job || !data) return 0;
            // The worker hands its own Job here, which carries attemptsStarted.
            return withJitter(retryDelayAfter(attemptOf(job as BullJob<JobData>), data.retryDelaysMs), random);
          },
        },
      },
    );
    worker.on('error', (error) => log?.error({ err: error, kind }, 'job queue: worker error'));
    return worker;
  }

  async function countOf(kinds: readonly JobKind[], states: readonly JobType[]): Promise<number> {
    const counts = await Promise.all(
      kinds.map(async (kind) => {
        const byState = await queueOf(kind).getJobCounts(...states);
        return Object.values(byState).reduce((a, b) => a + b, 0);
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  return {
    async enqueue<K extends JobKind>(kind: K, payload: JobPayloads[K], opts: EnqueueOptions = {}) {
      const id = opts.jobId ?? crypto.randomUUID();
      const maxAttempts = opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
      const data: JobData = {
        id,
        payload,
        maxAttempts,
        retryDelaysMs: opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
      };
      const priority = opts.group === undefined ? undefined : await nextFairKey(kind, opts.group);
      // BullMQ ignores an add whose id it still holds (queued, running, or kept after finishing).
      await queueOf(kind).add(kind, data, {
        ...(priority ? { priority } : {}),
        jobId: bullIdOf(id),
        delay: opts.delayMs ?? 0,
        attempts: maxAttempts,
        backoff: { type: 'placard' },
        removeOnComplete: { age: Math.max(120, opts.keepCompletedSeconds ?? KEEP_FINISHED_SECONDS) },
        removeOnFail: { age: KEEP_FINISHED_SECONDS },
      });
    },

    process<K extends JobKind>(kind: K, handler: JobHandler<K>, { concurrency, onExhausted }: ProcessOptions<K>) {
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw new RangeError(`job queue: concurrency of ${kind} must be a whole number ≥ 1, received ${concurrency}`);
      }
      registrations.set(kind, {
        handler: handler as JobHandler<JobKind>,
        concurrency,
        onExhausted: onExhausted as ProcessOptions<JobKind>['onExhausted'],
      });
    },

    async start() {
      if (workers.length > 0) return;
      workers = [...registrations].map(([kind, registration]) => workerOf(kind, registration));
      for (const worker of workers) {
        void worker.run().catch((error) => log?.error({ err: error }, 'job queue: a worker stopped'));
      }
      await Promise.all(workers.map((worker) => worker.waitUntilReady()));
    },

    async stop(graceMs = 30_000) {
      if (workers.length === 0) return;
      const stopping = workers;
      workers = [];
      // Claim nothing more; running jobs go on.
      await Promise.all(stopping.map((worker) => worker.pause(true)));
      if (running.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all([...running.values()].map((r) => r.done)),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, graceMs);
          }),
        ]);
        clearTimeout(timer);
      }
      if (running.size === 0) {
        // Nothing left: close without force, so that the last completions reach Redis.
        await Promise.all(stopping.map((worker) => worker.close()));
        return;
      }
      // Still running: back to waiting, the start not counted, for another worker or the next start.
      for (const [key, entry] of [...running]) {
        running.delete(key);
        entry.abandoned = true;
        try {
          await entry.job.updateData({ ...entry.job.data, handedBack: (entry.job.data.handedBack ?? 0) + 1 });
          await entry.job.moveToWait(entry.token);
        } catch (error) {
          log?.error({ err: error, jobId: entry.job.data.id }, 'job queue: handing a job back failed');
        }
      }
      // force: the handed-back handlers may still run, but their jobs are no longer ours to settle.
      await Promise.all(stopping.map((worker) => worker.close(true)));
    },

    async depth(kinds?: readonly JobKind[]) {
      const all = kinds ?? (['export.creative', 'export.finish', 'webhook.deliver', 'design.thumbnail'] as const);
      if (all.length === 0) return 0;
      return countOf(all, WAITING_STATES);
    },

    async finishedSince(kind: JobKind, sinceMs: number) {
      // BullMQ keeps finished jobs in sorted sets scored by when they finished (kept a day, KEEP_FINISHED_SECONDS).
      const [completed, failed] = await Promise.all(
        ['completed', 'failed'].map((set) => connection.zcount(`${prefix}:${kind}:${set}`, sinceMs, '+inf')),
      );
      return completed + failed;
    },

    async idle() {
      const kinds = [...registrations.keys()];
      if (kinds.length === 0) return;
      for (;;) {
        if (running.size === 0 && (await countOf(kinds, DUE_STATES)) === 0 && running.size === 0) return;
        await sleep(IDLE_CHECK_MS);
      }
    },

    async close() {
      await Promise.all([...queues.values()].map((queue) => queue.close()));
      queues.clear();
    },
  };
}
