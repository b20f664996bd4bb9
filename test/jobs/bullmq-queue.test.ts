// The scaled-out JobQueue on BullMQ: the JobQueue contract, then what only BullMQ shows — a job whose worker died
// (its lock no longer renewed) is taken back by another worker's stalled-job check. Needs REDIS_URL; every run uses
// keys of its own prefix and deletes them afterwards.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { type BullMqJobQueue, bullIdOf, createBullMqJobQueue } from '../../src/jobs/bullmq-queue.js';
import type { Job } from '../../src/jobs/job-queue.js';
import { deleteKeysWithPrefix, openRedis, type RedisClient } from '../../src/storage/redis.js';
import { jobQueueContract } from '../contracts/job-queue.js';

const REDIS_URL = process.env.REDIS_URL;
const skip = REDIS_URL ? false : 'needs REDIS_URL (the scaled-out shape)';

let redis: RedisClient | null = null;
const connection = () => {
  redis ??= openRedis(REDIS_URL as string);
  return redis;
};
const prefixes: string[] = [];
after(async () => {
  if (!redis) return;
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

const silent = { error: () => {}, warn: () => {} };

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function opener(leaseMs?: number) {
  const prefix = `placard-test-jobs-${process.pid}-${randomBytes(4).toString('hex')}`;
  prefixes.push(prefix);
  const made: BullMqJobQueue[] = [];
  const make = (own?: RedisClient) => {
    const queue = createBullMqJobQueue({ connection: own ?? connection(), prefix, leaseMs, log: silent });
    made.push(queue);
    return queue;
  };
  return {
    make,
    async close() {
      for (const queue of made.splice(0)) {
        await queue.stop(100);
        await queue.close();
      }
      await deleteKeysWithPrefix(connection(), prefix);
    },
  };
}

if (skip) {
  test('JobQueue contract: BullMQ', { skip }, () => {});
} else {
  jobQueueContract('BullMQ (Redis)', async () => {
    const { make, close } = opener();
    return { queue: make(), second: async () => make(), close };
  });
}

describe('BullMQ job queue', { skip }, () => {
  test('ids BullMQ refuses (with ":" or all digits) are spelled so that no two ids meet', () => {
    const ids = ['finish:e1', 'finish%3Ae1', '42', '#42', '%2342', 'a#b', 'plain-uuid'];
    const spelled = ids.map(bullIdOf);
    assert.equal(new Set(spelled).size, ids.length);
    for (const s of spelled) {
      assert.ok(!s.includes(':') && !/^\d+$/.test(s), s);
    }
  });

  test('a job whose worker died mid-run is taken back by another worker, as its next attempt', async () => {
    const { make, close } = opener(1_000);
    const dyingConnection = openRedis(REDIS_URL as string);
    try {
      const dying = make(dyingConnection);
      const started = deferred();
      dying.process(
        'export.creative',
        async () => {
          started.resolve();
          await new Promise(() => {}); // never ends: the process dies below
        },
        { concurrency: 1 },
      );
      await dying.start();
      await dying.enqueue('export.creative', { exportId: 'e', creativeId: 'c' }, { jobId: 'c' });
      await started.promise;
      // What SIGKILL does to a worker as Redis sees it: its connection drops and its lock is no longer renewed.
      dyingConnection.disconnect();
      const taker = make();
      const ran = deferred<Job<'export.creative'>>();
      taker.process('export.creative', async (job) => ran.resolve(job), { concurrency: 1 });
      await taker.start();
      const job = await ran.promise;
      assert.deepEqual([job.id, job.attempt], ['c', 2]);
    } finally {
      await close();
    }
  });
});
