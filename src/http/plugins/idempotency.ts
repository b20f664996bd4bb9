// Idempotency-Key on POST (SPEC §6): the same key with the same body within 24 hours replays the first response;
// with another body it is a 409. Records live behind an interface: in process now, in Redis when scaled out.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { canonicalJson } from '../../domain/canonical.js';
import { AppError } from '../../errors.js';
import type { RedisClient } from '../../storage/redis.js';
import type { App } from '../types.js';

export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
}

export type BeginResult =
  | { state: 'new' }
  | { state: 'in-flight' }
  | { state: 'mismatch' }
  | { state: 'done'; response: StoredResponse };

export interface IdempotencyStore {
  /** Claims `key` for a request with this fingerprint, or reports what an earlier request with the key left. */
  begin(key: string, fingerprint: string): Promise<BeginResult>;
  complete(key: string, response: StoredResponse): Promise<void>;
  /** Releases a claim whose request did not produce a response worth replaying (5xx, aborted). */
  abandon(key: string): Promise<void>;
}

export const REPLAY_TTL_MS = 24 * 3600 * 1000;
/** A claim whose request never finished (a crash) stops blocking the key after this long. */
export const IN_FLIGHT_TTL_MS = 5 * 60 * 1000;

interface MemoryRecord {
  fingerprint: string;
  response: StoredResponse | null;
  expiresAt: number;
}

export interface IdempotencyTtls {
  /** Default REPLAY_TTL_MS. */
  replayTtlMs?: number;
  /** Default IN_FLIGHT_TTL_MS. */
  inFlightTtlMs?: number;
}

export function createMemoryIdempotencyStore(
  clock: () => number = Date.now,
  { replayTtlMs = REPLAY_TTL_MS, inFlightTtlMs = IN_FLIGHT_TTL_MS }: IdempotencyTtls = {},
): IdempotencyStore {
  const records = new Map<string, MemoryRecord>();
  function sweep() {
    const t = clock();
    for (const [key, record] of records) if (record.expiresAt <= t) records.delete(key);
  }
  return {
    async begin(key, fingerprint) {
      if (records.size > 10_000) sweep();
      const record = records.get(key);
      if (!record || record.expiresAt <= clock()) {
        records.set(key, { fingerprint, response: null, expiresAt: clock() + inFlightTtlMs });
        return { state: 'new' };
      }
      if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
      return record.response ? { state: 'done', response: record.response } : { state: 'in-flight' };
    },
    async complete(key, response) {
      const record = records.get(key);
      if (record) Object.assign(record, { response, expiresAt: clock() + replayTtlMs });
    },
    async abandon(key) {
      records.delete(key);
    },
  };
}

interface RedisRecord {
  fingerprint: string;
  response: StoredResponse | null;
}

/**
 * A completion in one round trip (issue 21), where a GET and a SET were two in a row: the record's response is set,
 * its fingerprint kept and its time to live renewed, only if the record still exists (an abandoned claim stays gone).
 */
const COMPLETE_SCRIPT = `
local found = redis.call('GET', KEYS[1])
if not found then return 0 end
local record = cjson.decode(found)
record.response = cjson.decode(ARGV[1])
redis.call('SET', KEYS[1], cjson.encode(record), 'PX', ARGV[2], 'XX')
return 1`;

interface CompleteCommand {
  /** COMPLETE_SCRIPT, sent by its SHA-1 (ioredis defineCommand). */
  placardIdempotencyComplete(key: string, response: string, ttlMs: number): Promise<number>;
}

/**
 * Records in Redis, shared by every API process: a claim is one `SET NX PX` (of two processes, one wins), and Redis
 * expires records itself. A completion only replaces a record that still exists (`XX`): an abandoned claim stays gone.
 */
export function createRedisIdempotencyStore(
  redis: RedisClient,
  prefix: string,
  { replayTtlMs = REPLAY_TTL_MS, inFlightTtlMs = IN_FLIGHT_TTL_MS }: IdempotencyTtls = {},
): IdempotencyStore {
  const keyOf = (key: string) => `${prefix}:idempotency:${key}`;
  if (!('placardIdempotencyComplete' in redis)) {
    redis.defineCommand('placardIdempotencyComplete', { numberOfKeys: 1, lua: COMPLETE_SCRIPT });
  }
  return {
    async begin(key, fingerprint) {
      const claim = JSON.stringify({ fingerprint, response: null } satisfies RedisRecord);
      // Twice at most: a record that expires between the failed claim and the read leaves the key free again.
      for (let round = 0; round < 2; round++) {
        if ((await redis.set(keyOf(key), claim, 'PX', inFlightTtlMs, 'NX')) === 'OK') return { state: 'new' };
        const found = await redis.get(keyOf(key));
        if (found === null) continue;
        const record = JSON.parse(found) as RedisRecord;
        if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
        return record.response ? { state: 'done', response: record.response } : { state: 'in-flight' };
      }
      return { state: 'in-flight' };
    },
    async complete(key, response) {
      await (redis as RedisClient & CompleteCommand).placardIdempotencyComplete(
        keyOf(key),
        JSON.stringify(response),
        replayTtlMs,
      );
    },
    async abandon(key) {
      await redis.del(keyOf(key));
    },
  };
}

const KEY_RULE = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
  }
}

export function idempotencyPlugin(app: App, { store }: { store: IdempotencyStore }) {
  app.decorateRequest('idempotencyKey', null);

  // Callback hooks that pass a request without a key at once: as async hooks they cost every request three promises
  // and three microtask turns (issue 21).
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST' || request.headers['idempotency-key'] === undefined) return done();
    // A replayed answer is sent by begin(): the hook then must not go on (Fastify's rule for callback hooks).
    begin(request, reply).then((replied) => {
      if (!replied) done();
    }, done);
  });

  /** Whether the stored answer of the key was sent again. */
  async function begin(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const sent = request.headers['idempotency-key'];
    if (typeof sent !== 'string' || !KEY_RULE.test(sent)) {
      throw new AppError('VALIDATION_FAILED', 'Idempotency-Key header: must be 1 to 255 printable ASCII characters', {
        details: [{ path: '/idempotency-key', in: 'headers', message: 'must be 1 to 255 printable ASCII characters' }],
      });
    }
    const scope = request.actor ? `team:${request.actor.teamId}` : `ip:${request.ip}`;
    const key = `${scope}:${sent}`;
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`)
      .digest('base64url');
    const found = await store.begin(key, fingerprint);
    if (found.state === 'mismatch') {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        `Idempotency-Key "${sent}" was already used with another request within 24 hours`,
      );
    }
    if (found.state === 'in-flight') {
      throw new AppError(
        'IDEMPOTENCY_KEY_IN_USE',
        `a request with Idempotency-Key "${sent}" is still being processed; retry shortly`,
        {
          headers: { 'Retry-After': '1' },
        },
      );
    }
    if (found.state === 'done') {
      reply.header('Idempotent-Replayed', 'true').header('content-type', found.response.contentType);
      reply
        .code(found.response.status)
        .serializer((x: unknown) => x as string)
        .send(found.response.body);
      return true;
    }
    request.idempotencyKey = key;
    return false;
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const key = request.idempotencyKey;
    if (!key) return done(null, payload);
    request.idempotencyKey = null;
    const stored =
      reply.statusCode >= 500 || typeof payload !== 'string'
        ? store.abandon(key)
        : store.complete(key, {
            status: reply.statusCode,
            contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
            body: payload,
          });
    stored.then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  });

  // A request that never reached onSend (client gone, crash in a hook) must not block its key.
  app.addHook('onResponse', (request, _reply, done) => {
    if (!request.idempotencyKey) return done();
    store.abandon(request.idempotencyKey).then(() => done(), done);
  });
}
