// The RateLimiter contract (STYLE 7): the in-process limiter and the Redis one run this same suite.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Config } from '../../src/config.js';
import type { RateLimiter } from '../../src/http/plugins/rate-limit.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function rateLimiterContract(
  name: string,
  open: (limits: Config['rateLimit']) => Promise<{ limiter: RateLimiter; close(): Promise<void> }>,
) {
  describe(`RateLimiter contract: ${name}`, () => {
    const limits = { enabled: true, windowSeconds: 1, exports: 3, other: 5, invalidExports: 2, renderUrls: 4 };
    const withLimiter = async (fn: (limiter: RateLimiter) => Promise<void>) => {
      const { limiter, close } = await open(limits);
      try {
        await fn(limiter);
      } finally {
        await close();
      }
    };

    test('peek spends nothing; refund gives one request back', () =>
      withLimiter(async (limiter) => {
        assert.equal((await limiter.peek('invalidExports', 'team:7')).remaining, 2);
        await limiter.hit('invalidExports', 'team:7');
        const left = await limiter.peek('invalidExports', 'team:7');
        assert.deepEqual([left.allowed, left.remaining], [true, 1]);
        await limiter.hit('invalidExports', 'team:7');
        const spent = await limiter.peek('invalidExports', 'team:7');
        assert.deepEqual([spent.allowed, spent.remaining], [false, 0]);
        assert.ok(spent.resetSeconds >= 1, `a spent budget says when it resets: ${spent.resetSeconds} s`);
        for (let i = 0; i < 3; i++) await limiter.hit('exports', 'team:7');
        await limiter.refund('exports', 'team:7');
        assert.equal((await limiter.hit('exports', 'team:7')).allowed, true);
        assert.equal((await limiter.hit('exports', 'team:7')).allowed, false);
      }));

    test('a key may spend its group budget within the window; the next hit is refused until the window resets', () =>
      withLimiter(async (limiter) => {
        const hits = [];
        for (let i = 0; i < 4; i++) hits.push(await limiter.hit('exports', 'team:1'));
        assert.deepEqual(
          hits.map((h) => [h.allowed, h.limit, h.remaining]),
          [
            [true, 3, 2],
            [true, 3, 1],
            [true, 3, 0],
            [false, 3, 0],
          ],
        );
        for (const hit of hits) assert.ok(hit.resetSeconds >= 0 && hit.resetSeconds <= 1, String(hit.resetSeconds));
        assert.equal(hits[3].resetSeconds, 1);
        await sleep(1_100);
        assert.deepEqual((await limiter.hit('exports', 'team:1')).allowed, true);
      }));

    test('keys and groups keep budgets of their own', () =>
      withLimiter(async (limiter) => {
        for (let i = 0; i < 3; i++) await limiter.hit('exports', 'team:1');
        assert.equal((await limiter.hit('exports', 'team:1')).allowed, false);
        const other = await limiter.hit('exports', 'team:2');
        assert.deepEqual([other.allowed, other.remaining], [true, 2]);
        const group = await limiter.hit('other', 'team:1');
        assert.deepEqual([group.allowed, group.limit, group.remaining], [true, 5, 4]);
      }));

    test('hits made at once are all counted', () =>
      withLimiter(async (limiter) => {
        const hits = await Promise.all(Array.from({ length: 8 }, () => limiter.hit('other', 'ip:1')));
        assert.equal(hits.filter((h) => h.allowed).length, 5);
      }));
  });
}
