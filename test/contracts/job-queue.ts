// The JobQueue contract (STYLE 7): every adapter (the local table now, BullMQ later) runs this same suite. It tests
// only what job-queue.ts promises, never how an adapter stores its jobs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Job, JobHandler, JobQueue } from '../../src/jobs/job-queue.js';

export interface JobQueueUnderTest {
  /** A queue over an empty store. */
  queue: JobQueue;
  /** Another queue (another process) over the same store, when the adapter can make one. */
  second?: () => Promise<JobQueue>;
  /** Stops every queue made and releases the store. */
  close(): Promise<void>;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Small waits so that the suite is quick; jitter keeps them within ±20%. */
const FAST = { retryDelaysMs: [20, 20] } as const;

export function jobQueueContract(name: string, open: () => Promise<JobQueueUnderTest>) {
  describe(`JobQueue contract: ${name}`, () => {
    const withQueue = async (fn: (under: JobQueueUnderTest) => Promise<void>) => {
      const under = await open();
      try {
        await fn(under);
      } finally {
        await under.close();
      }
    };

    test('runs a job with its payload, as attempt 1 of its maxAttempts', () =>
      withQueue(async ({ queue }) => {
        const ran = deferred<Job<'webhook.deliver'>>();
        queue.process('webhook.deliver', async (job) => ran.resolve(job), { concurrency: 1 });
        await queue.start();
        await queue.enqueue('webhook.deliver', { deliveryId: 'd-1' }, { jobId: 'job-1', maxAttempts: 5 });
        // `inline` and `slotFree` are the job table's alone (its handler may settle the row in its own write, and
        // give its slot back before it writes).
        const { inline: _inline, slotFree: _slotFree, ...job } = await ran.promise;
        assert.deepEqual(job, {
          id: 'job-1',
          kind: 'webhook.deliver',
          payload: { deliveryId: 'd-1' },
          attempt: 1,
          maxAttempts: 5,
        });
      }));

    test('without a jobId each enqueue is its own job; maxAttempts defaults to 3', () =>
      withQueue(async ({ queue }) => {
        const jobs: Job<'export.finish'>[] = [];
        queue.process(
          'export.finish',
          async (job) => {
            jobs.push(job);
          },
          { concurrency: 1 },
        );
        await queue.start();
        await queue.enqueue('export.finish', { exportId: 'e-1' });
        await queue.enqueue('export.finish', { exportId: 'e-1' });
        await queue.idle();
        assert.equal(jobs.length, 2);
        assert.notEqual(jobs[0].id, jobs[1].id);
        assert.deepEqual(
          jobs.map((j) => j.maxAttempts),
          [3, 3],
        );
      }));

    test('enqueueing a jobId it still holds does nothing, before and after the job ran', () =>
      withQueue(async ({ queue }) => {
        const runs: string[] = [];
        queue.process(
          'export.creative',
          async (job) => {
            runs.push(job.payload.creativeId);
          },
          { concurrency: 2 },
        );
        await queue.enqueue('export.creative', { exportId: 'e', creativeId: 'first' }, { jobId: 'same' });
        await queue.enqueue('export.creative', { exportId: 'e', creativeId: 'second' }, { jobId: 'same' });
        await queue.start();
        await queue.idle();
        assert.deepEqual(runs, ['first']);

        await queue.enqueue('export.creative', { exportId: 'e', creativeId: 'third' }, { jobId: 'same' });
        await queue.idle();
        assert.deepEqual(runs, ['first']);
        assert.equal(await queue.depth(), 0);
      }));

    test('a delayed job does not run before its delay', () =>
      withQueue(async ({ queue }) => {
        const ran = deferred<number>();
        queue.process('webhook.deliver', async () => ran.resolve(Date.now()), { concurrency: 1 });
        await queue.start();
        const enqueuedAt = Date.now();
        await queue.enqueue('webhook.deliver', { deliveryId: 'later' }, { delayMs: 300 });
        // Timers may fire a millisecond early; anything earlier than that ignored the delay.
        assert.ok((await ran.promise) - enqueuedAt >= 295);
      }));

    test('a job that throws is retried with attempts 1, 2, 3, then handed to onExhausted once with the last error', () =>
      withQueue(async ({ queue }) => {
        const attempts: number[] = [];
        const exhausted: [Job<'webhook.deliver'>, Error][] = [];
        const settled = deferred();
        queue.process(
          'webhook.deliver',
          async (job) => {
            attempts.push(job.attempt);
            throw new Error(`refused on attempt ${job.attempt}`);
          },
          {
            concurrency: 1,
            onExhausted: async (job, error) => {
              exhausted.push([job, error]);
              settled.resolve();
            },
          },
        );
        await queue.start();
        await queue.enqueue('webhook.deliver', { deliveryId: 'd-r' }, { jobId: 'retried', maxAttempts: 3, ...FAST });
        await settled.promise;
        await queue.idle();
        assert.deepEqual(attempts, [1, 2, 3]);
        assert.equal(exhausted.length, 1);
        const [job, error] = exhausted[0];
        assert.equal(job.id, 'retried');
        assert.deepEqual(job.payload, { deliveryId: 'd-r' });
        assert.equal(job.maxAttempts, 3);
        assert.equal(error.message, 'refused on attempt 3');
        assert.equal(await queue.depth(), 0);
      }));

    test('a job that succeeds on a retry is not exhausted', () =>
      withQueue(async ({ queue }) => {
        const attempts: number[] = [];
        let exhausted = 0;
        const done = deferred();
        queue.process(
          'webhook.deliver',
          async (job) => {
            attempts.push(job.attempt);
            if (job.attempt < 2) throw new Error('not yet');
            done.resolve();
          },
          {
            concurrency: 1,
            onExhausted: async () => {
              exhausted += 1;
            },
          },
        );
        await queue.start();
        await queue.enqueue('webhook.deliver', { deliveryId: 'd' }, { maxAttempts: 3, ...FAST });
        await done.promise;
        await queue.idle();
        assert.deepEqual(attempts, [1, 2]);
        assert.equal(exhausted, 0);
      }));

    test('never more handlers of a kind at once than its concurrency', () =>
      withQueue(async ({ queue }) => {
        let running = 0;
        let most = 0;
        let started = 0;
        let finished = 0;
        const allDone = deferred();
        const twoStarted = deferred();
        queue.process(
          'export.creative',
          async () => {
            running += 1;
            started += 1;
            most = Math.max(most, running);
            if (started >= 2) twoStarted.resolve();
            // Hold the slot until a second handler started (or a while), so that overlap is certain to happen.
            await Promise.race([twoStarted.promise, sleep(500)]);
            await sleep(10);
            running -= 1;
            finished += 1;
            if (finished === 6) allDone.resolve();
          },
          { concurrency: 2 },
        );
        for (let i = 0; i < 6; i++) await queue.enqueue('export.creative', { exportId: 'e', creativeId: `c${i}` });
        await queue.start();
        await allDone.promise;
        await queue.idle();
        assert.equal(most, 2);
      }));

    test("groups take turns: one group's backlog delays another group's job by a job or two, not by the backlog", () =>
      withQueue(async ({ queue }) => {
        const order: string[] = [];
        const allDone = deferred();
        queue.process(
          'export.creative',
          async (job) => {
            order.push(job.payload.creativeId);
            if (order.length === 63) allDone.resolve();
          },
          { concurrency: 1 },
        );
        // Team a's backlog is waiting before team b's exports arrive.
        for (let i = 0; i < 60; i++) {
          await queue.enqueue('export.creative', { exportId: 'a', creativeId: `a${i}` }, { group: 'team-a' });
        }
        await queue.enqueue('export.creative', { exportId: 'b', creativeId: 'b0' }, { group: 'team-b' });
        await queue.enqueue('export.creative', { exportId: 'b', creativeId: 'b1' }, { group: 'team-b' });
        await queue.enqueue('export.creative', { exportId: 'c', creativeId: 'c0' }, { group: 'team-c' });
        await queue.start();
        await allDone.promise;
        await queue.idle();
        // b0 and c0 run within the first few jobs; b1 waits one turn of each other group, not the 60 of a.
        assert.ok(order.indexOf('b0') <= 2, `b0 ran ${order.indexOf('b0') + 1}th: ${order.join(' ')}`);
        assert.ok(order.indexOf('c0') <= 3, `c0 ran ${order.indexOf('c0') + 1}th: ${order.join(' ')}`);
        assert.ok(order.indexOf('b1') <= 5, `b1 ran ${order.indexOf('b1') + 1}th: ${order.join(' ')}`);
        // Team a's own jobs keep their order.
        const a = order.filter((id) => id.startsWith('a'));
        assert.deepEqual(
          a,
          Array.from({ length: 60 }, (_, i) => `a${i}`),
        );
      }));

    test('depth counts the jobs waiting and running, of the given kinds, and drops to 0', () =>
      withQueue(async ({ queue }) => {
        const release = deferred();
        const running = deferred();
        queue.process(
          'export.creative',
          async () => {
            running.resolve();
            await release.promise;
          },
          { concurrency: 1 },
        );
        queue.process('export.finish', async () => {}, { concurrency: 1 });
        for (let i = 0; i < 3; i++) await queue.enqueue('export.creative', { exportId: 'e', creativeId: `c${i}` });
        await queue.enqueue('export.finish', { exportId: 'e' }, { delayMs: 60_000 });
        assert.equal(await queue.depth(), 4);
        assert.equal(await queue.depth(['export.creative']), 3);
        assert.equal(await queue.depth(['export.finish', 'webhook.deliver']), 1);
        assert.equal(await queue.depth([]), 0);

        await queue.start();
        await running.promise;
        assert.equal(await queue.depth(['export.creative']), 3);
        release.resolve();
        await queue.idle();
        assert.equal(await queue.depth(['export.creative']), 0);
        // The delayed job is still waiting: it is not due, so the queue is idle, but it counts.
        assert.equal(await queue.depth(), 1);
      }));

    test('stop() waits for a running job to finish', () =>
      withQueue(async ({ queue }) => {
        const running = deferred();
        let finished = false;
        let runs = 0;
        queue.process(
          'webhook.deliver',
          async () => {
            runs += 1;
            running.resolve();
            await sleep(100);
            finished = true;
          },
          { concurrency: 1 },
        );
        await queue.start();
        await queue.enqueue('webhook.deliver', { deliveryId: 'd' });
        await running.promise;
        await queue.stop(10_000);
        assert.equal(finished, true);
        assert.equal(runs, 1);
        assert.equal(await queue.depth(), 0);
      }));

    test('finishedSince counts the jobs of a kind finished since a time, failed ones included', () =>
      withQueue(async ({ queue }) => {
        const since = Date.now() - 1;
        queue.process(
          'export.creative',
          async (job) => {
            if (job.payload.creativeId === 'bad') throw new Error('no');
          },
          { concurrency: 2, onExhausted: async () => {} },
        );
        await queue.start();
        for (const id of ['a', 'b', 'bad']) {
          await queue.enqueue('export.creative', { exportId: 'e', creativeId: id }, { jobId: id, maxAttempts: 1 });
        }
        await queue.idle();
        assert.equal(await queue.finishedSince('export.creative', since), 3);
        assert.equal(await queue.finishedSince('webhook.deliver', since), 0);
        assert.equal(await queue.finishedSince('export.creative', Date.now() + 60_000), 0);
      }));

    // Issue 14: on BullMQ a grouped job (an export's render) started before stop() was not waited for — its entry
    // was registered only after the fair clock's update — so it went on writing after the process had closed.
    test('stop() waits for a running job of a group to finish', () =>
      withQueue(async ({ queue }) => {
        const running = deferred();
        let finished = false;
        queue.process(
          'export.creative',
          async () => {
            running.resolve();
            await sleep(100);
            finished = true;
          },
          { concurrency: 1 },
        );
        await queue.start();
        await queue.enqueue('export.creative', { exportId: 'e', creativeId: 'c' }, { group: 'team:1' });
        await running.promise;
        await queue.stop(10_000);
        assert.equal(finished, true);
        assert.equal(await queue.depth(), 0);
      }));

    /** Runs a job that is still running when stop's grace ends, then lets `next` of the queue take it up. */
    async function handBack(queue: JobQueue, next: (handler: JobHandler<'export.creative'>) => Promise<JobQueue>) {
      const attempts: number[] = [];
      const firstRunning = deferred();
      const releaseFirst = deferred();
      const secondRun = deferred();
      const handler = async (job: Job<'export.creative'>) => {
        attempts.push(job.attempt);
        if (attempts.length === 1) {
          firstRunning.resolve();
          await releaseFirst.promise;
        } else {
          secondRun.resolve();
        }
      };
      queue.process('export.creative', handler, { concurrency: 1 });
      await queue.start();
      await queue.enqueue('export.creative', { exportId: 'e', creativeId: 'slow' }, { jobId: 'slow', ...FAST });
      await firstRunning.promise;
      await queue.stop(50);
      assert.equal(await queue.depth(), 1);

      const taker = await next(handler);
      await secondRun.promise;
      // The abandoned handler finishing now must not settle (or fail) the job a second time.
      releaseFirst.resolve();
      await taker.idle();
      assert.deepEqual(attempts, [1, 1]);
      assert.equal(await taker.depth(), 0);
    }

    test('a job still running when the grace ends is handed back and runs again after a restart, same attempt', () =>
      withQueue(async ({ queue }) =>
        handBack(queue, async () => {
          await queue.start();
          return queue;
        }),
      ));

    test('a job handed back by a stopping queue is taken by another queue, same attempt', async (t) => {
      await withQueue(async ({ queue, second }) => {
        if (!second) {
          t.skip('the adapter has no second queue');
          return;
        }
        await handBack(queue, async (handler) => {
          const other = await second();
          other.process('export.creative', handler, { concurrency: 1 });
          await other.start();
          return other;
        });
      });
    });

    test('idle() resolves once every due job has run', () =>
      withQueue(async ({ queue }) => {
        const ran: string[] = [];
        queue.process(
          'export.creative',
          async (job) => {
            await sleep(5);
            ran.push(job.payload.creativeId);
          },
          { concurrency: 2 },
        );
        queue.process(
          'export.finish',
          async (job) => {
            ran.push(job.payload.exportId);
          },
          { concurrency: 1 },
        );
        await queue.start();
        for (let i = 0; i < 5; i++) await queue.enqueue('export.creative', { exportId: 'e', creativeId: `c${i}` });
        await queue.enqueue('export.finish', { exportId: 'e' });
        await queue.idle();
        assert.deepEqual([...ran].sort(), ['c0', 'c1', 'c2', 'c3', 'c4', 'e']);
        assert.equal(await queue.depth(), 0);
      }));

    test('a job enqueued in one queue runs in another over the same store', async (t) => {
      await withQueue(async ({ queue, second }) => {
        if (!second) {
          t.skip('the adapter has no second queue');
          return;
        }
        const worker = await second();
        const ran = deferred<Job<'webhook.deliver'>>();
        worker.process('webhook.deliver', async (job) => ran.resolve(job), { concurrency: 1 });
        await worker.start();
        await queue.enqueue('webhook.deliver', { deliveryId: 'elsewhere' }, { jobId: 'elsewhere' });
        const job = await ran.promise;
        assert.deepEqual([job.id, job.payload], ['elsewhere', { deliveryId: 'elsewhere' }]);
      });
    });
  });
}
