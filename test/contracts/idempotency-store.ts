// The IdempotencyStore contract (STYLE 7): the in-process store and the Redis one run this same suite. Lifetimes are
// shortened by the opener so that expiry is observed for real, with short waits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IdempotencyStore, IdempotencyTtls, StoredResponse } from '../../src/http/plugins/idempotency.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const response: StoredResponse = { status: 200, contentType: 'application/json; charset=utf-8', body: '{"a":1}' };

export function idempotencyStoreContract(
  name: string,
  open: (ttls?: IdempotencyTtls) => Promise<{ store: IdempotencyStore; close(): Promise<void> }>,
) {
  describe(`IdempotencyStore contract: ${name}`, () => {
    const withStore = async (fn: (store: IdempotencyStore) => Promise<void>, ttls?: IdempotencyTtls) => {
      const { store, close } = await open(ttls);
      try {
        await fn(store);
      } finally {
        await close();
      }
    };

    test('a new key is claimed, then in flight, then done with its response', () =>
      withStore(async (store) => {
        assert.deepEqual(await store.begin('k', 'fp'), { state: 'new' });
        assert.deepEqual(await store.begin('k', 'fp'), { state: 'in-flight' });
        await store.complete('k', response);
        assert.deepEqual(await store.begin('k', 'fp'), { state: 'done', response });
      }));

    test('a replayed body is the stored body to the byte: slashes, escapes, non-ASCII, empty arrays', () =>
      withStore(async (store) => {
        const body = JSON.stringify({
          url: 'https://x.test/a/b',
          text: 'Ünïcode ✓ 😀 "q" \\ \n\t',
          list: [],
          n: 1.5e-7,
        });
        const tricky: StoredResponse = { status: 201, contentType: 'application/json; charset=utf-8', body };
        await store.begin('k', 'fp');
        await store.complete('k', tricky);
        assert.deepEqual(await store.begin('k', 'fp'), { state: 'done', response: tricky });
      }));

    test('another fingerprint is a mismatch, in flight or done', () =>
      withStore(async (store) => {
        await store.begin('k', 'fp');
        assert.deepEqual(await store.begin('k', 'other'), { state: 'mismatch' });
        await store.complete('k', response);
        assert.deepEqual(await store.begin('k', 'other'), { state: 'mismatch' });
      }));

    test('of claims made at once on one key, exactly one is new', () =>
      withStore(async (store) => {
        const results = await Promise.all(Array.from({ length: 10 }, () => store.begin('race', 'fp')));
        assert.equal(results.filter((r) => r.state === 'new').length, 1);
        assert.equal(results.filter((r) => r.state === 'in-flight').length, 9);
      }));

    test('abandon releases the claim at once; complete after abandon stores nothing', () =>
      withStore(async (store) => {
        await store.begin('k', 'fp');
        await store.abandon('k');
        await store.complete('k', response);
        assert.deepEqual(await store.begin('k', 'other'), { state: 'new' });
      }));

    test('keys are independent', () =>
      withStore(async (store) => {
        await store.begin('a', 'fp');
        await store.complete('a', response);
        assert.deepEqual(await store.begin('b', 'fp'), { state: 'new' });
        assert.deepEqual(await store.begin('a', 'fp'), { state: 'done', response });
      }));

    test('a claim never completed frees the key after the in-flight lifetime; a response after the replay one', () =>
      withStore(
        async (store) => {
          await store.begin('stuck', 'fp');
          await store.begin('kept', 'fp');
          await store.complete('kept', response);
          assert.deepEqual(await store.begin('stuck', 'fp'), { state: 'in-flight' });
          await sleep(250);
          assert.deepEqual(await store.begin('stuck', 'other'), { state: 'new' });
          assert.deepEqual(await store.begin('kept', 'fp'), { state: 'done', response });
          await sleep(500);
          assert.deepEqual(await store.begin('kept', 'other'), { state: 'new' });
        },
        { inFlightTtlMs: 150, replayTtlMs: 500 },
      ));
  });
}
