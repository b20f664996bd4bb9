// Per-team request budgets (SPEC §9) behind an interface; the in-process implementation uses rate-limiter-flexible's
// memory store, and the Redis one (shared by every API process) its Redis store with the same fixed windows.
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../../config.js';
import type { RedisClient } from '../../storage/redis.js';

/** `renderUrls`: renders (cache misses) of render URLs per team, and refused render URLs per client address. */
export type RateGroup = 'exports' | 'other' | 'invalidExports' | 'renderUrls';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  hit(group: RateGroup, key: string): Promise<RateDecision>;
  /**
   * Whether `key` has budget left in `group`, without spending any. `resetSeconds` is exact when none is left; while
   * some is, it may say the whole window.
   */
  peek(group: RateGroup, key: string): Promise<RateDecision>;
  /** Gives back one request of `group` spent by `hit` (a refused export does not spend the export budget). */
  refund(group: RateGroup, key: string): Promise<void>;
}

type Limits = Config['rateLimit'];

export function createMemoryRateLimiter(limits: Limits): RateLimiter {
  return limiterOver(limits, {
    exports: new RateLimiterMemory({ points: limits.exports, duration: limits.windowSeconds, keyPrefix: 'exports' }),
    other: new RateLimiterMemory({ points: limits.other, duration: limits.windowSeconds, keyPrefix: 'other' }),
    invalidExports: new RateLimiterMemory({
      points: limits.invalidExports,
      duration: limits.windowSeconds,
      keyPrefix: 'invalidExports',
    }),
    renderUrls: new RateLimiterMemory({
      points: limits.renderUrls,
      duration: limits.windowSeconds,
      keyPrefix: 'renderUrls',
    }),
  });
}

/** The same windows counted in Redis, so that every API process behind the load balancer spends one budget. */
export function createRedisRateLimiter(limits: Limits, redis: RedisClient, prefix: string): RateLimiter {
  const store = (group: RateGroup) =>
    new RateLimiterRedis({
      storeClient: redis,
      points: limits[group],
      duration: limits.windowSeconds,
      keyPrefix: `${prefix}:rate:${group}`,
    });
  const stores = {
    exports: store('exports'),
    other: store('other'),
    invalidExports: store('invalidExports'),
    renderUrls: store('renderUrls'),
  };
  // A look at a budget is one GET of the store's own key (getKey), not the store's MULTI, GET, PTTL and EXEC: every
  // export request looks at its team's invalid-request budget (issue 21, stop 33: 4 of the API's 7 Redis commands per
  // export). The time left is read, the store's way, only for a budget that is spent.
  const spent = async (group: RateGroup, key: string) => {
    const points = await redis.get(stores[group].getKey(key));
    return points === null ? 0 : Number(points);
  };
  return limiterOver(limits, stores, spent);
}

function limiterOver(
  limits: Limits,
  stores: Record<RateGroup, RateLimiterAbstract>,
  spent?: (group: RateGroup, key: string) => Promise<number>,
): RateLimiter {
  return {
    async hit(group, key) {
      const limit = limits[group];
      try {
        const res = await stores[group].consume(key, 1);
        return {
          allowed: true,
          limit,
          remaining: res.remainingPoints,
          resetSeconds: Math.ceil(res.msBeforeNext / 1000),
        };
      } catch (rejected) {
        if (!(rejected instanceof RateLimiterRes)) throw rejected;
        return {
          allowed: false,
          limit,
          remaining: 0,
          resetSeconds: Math.max(1, Math.ceil(rejected.msBeforeNext / 1000)),
        };
      }
    },
    async peek(group, key) {
      const limit = limits[group];
      const quick = spent ? await spent(group, key) : undefined;
      if (quick !== undefined && quick < limit) {
        return { allowed: true, limit, remaining: limit - quick, resetSeconds: limits.windowSeconds };
      }
      const res = await stores[group].get(key);
      const used = res?.consumedPoints ?? 0;
      return {
        allowed: used < limit,
        limit,
        remaining: Math.max(0, limit - used),
        resetSeconds: Math.max(1, Math.ceil((res?.msBeforeNext ?? limits.windowSeconds * 1000) / 1000)),
      };
    },
    async refund(group, key) {
      await stores[group].reward(key, 1);
    },
  };
}
