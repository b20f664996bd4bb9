// The one Redis connection of a scaled-out process, shared by the BullMQ queues, the rate limiter and the idempotency
// store. `maxRetriesPerRequest: null` is what BullMQ requires: a command waits for Redis to come back instead of
// failing after a few retries, so a Redis restart pauses the workers rather than failing their jobs.
import { Redis } from 'ioredis';

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
