// The one Redis connection of a scaled-out process, shared by the BullMQ queues, the rate limiter and the idempotency
// store. `maxRetriesPerRequest: null` is what BullMQ requires: a command waits for Redis to come back instead of
// failing after a few retries, so a Redis restart pauses the workers rather than failing their jobs.
import { Redis } from 'ioredis';
import { AppError } from '../errors.js';

export type RedisClient = Redis;

export function openRedis(url: string): RedisClient {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

/** Deletes every key under `prefix:` (tests clean up after their run; never used by the service). */
export async function deleteKeysWithPrefix(redis: RedisClient, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

/**
 * Gives up on a Redis that is unreachable: no more reconnects, and every command waiting for it fails now. ioredis's
 * disconnect() alone leaves the offline queue waiting when it is between reconnect attempts (no socket to close, so no
 * close event flushes it), and with `maxRetriesPerRequest: null` those commands, and the requests that made them,
 * would wait forever. flushQueue is ioredis's own (untyped) method that its close handler uses for the same purpose.
 */
export function abandonRedis(redis: RedisClient, reason: string): void {
  redis.disconnect();
  const flush = (redis as unknown as { flushQueue?: (error: Error) => void }).flushQueue;
  // An AppError, so a request that was waiting answers 503 in the envelope rather than a 500.
  flush?.call(redis, new AppError('UNAVAILABLE', reason));
}
