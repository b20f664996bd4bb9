// The request-budget and Idempotency-Key stores against their contracts: in process always, in Redis (shared by every
// API process) when REDIS_URL is set. Each Redis run has a key prefix of its own, deleted afterwards.
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { createMemoryIdempotencyStore, createRedisIdempotencyStore } from '../../../src/http/plugins/idempotency.js';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../../src/http/plugins/rate-limit.js';
import { deleteKeysWithPrefix, openRedis, type RedisClient } from '../../../src/storage/redis.js';
import { idempotencyStoreContract } from '../../contracts/idempotency-store.js';
import { rateLimiterContract } from '../../contracts/rate-limiter.js';

const REDIS_URL = process.env.REDIS_URL;
let redis: RedisClient | null = null;
const connection = () => {
  redis ??= openRedis(REDIS_URL as string);
  return redis;
};
after(async () => {
  await redis?.quit();
});

function freshPrefix(): string {
  return `placard-test-stores-${process.pid}-${randomBytes(4).toString('hex')}`;
}

rateLimiterContract('in process', async (limits) => ({
  limiter: createMemoryRateLimiter(limits),
  close: async () => {},
}));
idempotencyStoreContract('in process', async (ttls) => ({
  store: createMemoryIdempotencyStore(Date.now, ttls),
  close: async () => {},
}));

if (REDIS_URL) {
  rateLimiterContract('Redis', async (limits) => {
    const prefix = freshPrefix();
    return {
      limiter: createRedisRateLimiter(limits, connection(), prefix),
      close: async () => void (await deleteKeysWithPrefix(connection(), prefix)),
    };
  });
  idempotencyStoreContract('Redis', async (ttls) => {
    const prefix = freshPrefix();
    return {
      store: createRedisIdempotencyStore(connection(), prefix, ttls),
      close: async () => void (await deleteKeysWithPrefix(connection(), prefix)),
    };
  });
} else {
  test('RateLimiter and IdempotencyStore contracts: Redis', {
    skip: 'needs REDIS_URL (the scaled-out shape)',
  }, () => {});
}
