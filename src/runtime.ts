// Turns a Config into the running dependencies of the service: database (migrated), server keys, rate limiter,
// idempotency store, files, the job queue and the render threads. main.ts, the CLI and the tests all start the service through here.
// The embedded shape (no REDIS_URL, no S3_ENDPOINT) keeps everything in the process and the data dir; REDIS_URL moves
// jobs, rate limits and idempotency records to Redis, S3_ENDPOINT moves files to object storage (SPEC, two shapes).
import path from 'node:path';
import type { Config } from './config.js';
import { createRenderPool, type RenderPool } from './formats/pool.js';
import {
  createMemoryIdempotencyStore,
  createRedisIdempotencyStore,
  type IdempotencyStore,
} from './http/plugins/idempotency.js';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from './http/plugins/rate-limit.js';
import { createBullMqJobQueue } from './jobs/bullmq-queue.js';
import type { JobQueue } from './jobs/job-queue.js';
import { createLocalJobQueue } from './jobs/local-queue.js';
import type { BlobStore } from './storage/blobs/blob-store.js';
import { createLocalDiskBlobStore } from './storage/blobs/local-disk.js';
import { createS3BlobStore } from './storage/blobs/s3.js';
import { type Db, openDatabase } from './storage/db/database.js';
import { migrateToLatest } from './storage/db/migrate.js';
import { openRedis, type RedisClient } from './storage/redis.js';
import { loadServerKeys, type ServerKeys } from './storage/secrets.js';

export interface Runtime {
  config: Readonly<Config>;
  db: Db;
  keys: ServerKeys;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  /** Files (exports, thumbnails, assets): local disk under the data dir (links served by http/routes/files.ts), or S3. */
  blobs: BlobStore;
  /** The Redis connection of the scaled-out shape (jobs, rate limits, idempotency); null when embedded. */
  redis: RedisClient | null;
  /** Render threads: every render runs here, never on the event loop of the API. */
  renderPool: RenderPool;
  /** Background jobs (exports, deliveries, thumbnails, assets): a table of the database, or BullMQ on Redis. */
  jobs: JobQueue;
  close(): Promise<void>;
}

/**
 * Starts the threads on the first render: a process (or a test) that never renders pays nothing, and one that does
 * keeps them warm with their caches from then on.
 */
function lazyRenderPool(config: Readonly<Config>): RenderPool {
  let pool: RenderPool | null = null;
  const started = () => {
    pool ??= createRenderPool({
      threads: config.renderThreads,
      allowPrivateUrls: config.allowPrivateUrls,
      allowedPrivateHosts: config.allowedPrivateHosts,
      ffmpegPath: config.ffmpegPath,
    });
    return pool;
  };
  return {
    threads: config.renderThreads,
    render: (job, options) => started().render(job, options),
    renderFiles: (job, options) => started().renderFiles(job, options),
    readFont: (bytes, fileName, options) => started().readFont(bytes, fileName, options),
    preflight: (task, options) => started().preflight(task, options),
    queued: () => pool?.queued() ?? 0,
    close: async (options) => {
      await pool?.close(options);
    },
  };
}

export async function openRuntime(config: Readonly<Config>): Promise<Runtime> {
  const db = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    checkpointEveryMs: config.sqliteCheckpointMs,
  });
  await migrateToLatest(db);
  const keys = loadServerKeys(config.jwtSecret, config.dataDir);
  const renderPool = lazyRenderPool(config);
  const redis = config.redisUrl ? openRedis(config.redisUrl) : null;
  const leaseMs = config.jobLeaseSeconds * 1000;
  const bullmq = redis ? createBullMqJobQueue({ connection: redis, prefix: config.redisPrefix, leaseMs }) : null;
  const s3 = config.s3 ? createS3BlobStore(config.s3) : null;
  return {
    config,
    db,
    keys,
    blobs:
      s3 ?? createLocalDiskBlobStore({ dir: path.join(config.dataDir, 'blobs'), publicUrl: config.publicUrl, keys }),
    redis,
    rateLimiter: redis
      ? createRedisRateLimiter(config.rateLimit, redis, config.redisPrefix)
      : createMemoryRateLimiter(config.rateLimit),
    idempotency: redis ? createRedisIdempotencyStore(redis, config.redisPrefix) : createMemoryIdempotencyStore(),
    renderPool,
    jobs:
      bullmq ?? createLocalJobQueue({ db: db.kysely, dialect: db.dialect, leaseMs, pollIntervalMs: config.jobPollMs }),
    async close() {
      // By now the app has stopped its job queue, which waited for running renders and handed back the rest.
      await renderPool.close({ force: true });
      await bullmq?.close();
      await redis?.quit().catch(() => redis.disconnect());
      s3?.close();
      await db.close();
    },
  };
}
