// The one Redis connection of a scaled-out process, shared by the BullMQ queues, the rate limiter and the idempotency
// store. `maxRetriesPerRequest: null` is what BullMQ requires: a command waits for Redis to come back instead of
// failing after a few retries, so a Redis restart pauses the workers rather than failing their jobs.
import { type Command, Redis } from 'ioredis';
import { AppError } from '../errors.js';
import { roundTrips } from './round-trips.js';

export type RedisClient = Redis;

/** Commands that wait on the server until something arrives: idle time, not work (storage/round-trips.ts). */
const BLOCKING = new Set([
  'blpop',
  'brpop',
  'brpoplpush',
  'blmove',
  'blmpop',
  'bzpopmin',
  'bzpopmax',
  'bzmpop',
  'wait',
]);

type SendCommand = (this: Redis, command: Command, stream?: object) => unknown;

/**
 * Counts every command of every connection of this process into `roundTrips.redis`. ioredis has no command hook, so
 * its public `sendCommand` is wrapped once on the prototype: BullMQ's own duplicates of the shared connection are
 * counted too. A round trip is a wait that begins on an idle connection: commands sent while others are still
 * unanswered (a pipeline, a MULTI, calls made together with Promise.all) share it, as they share the wire; commands
 * awaited one after the other are one round trip each. Its time is the time the connection is busy.
 */
function countCommands() {
  const prototype = Redis.prototype as unknown as { sendCommand: SendCommand; countedByPlacard?: true };
  if (prototype.countedByPlacard) return;
  prototype.countedByPlacard = true;
  const send = prototype.sendCommand;
  const connections = new WeakMap<Redis, { outstanding: number; busySince: number }>();
  const tally = roundTrips.redis;
  prototype.sendCommand = function (this: Redis, command: Command, stream?: object) {
    const name = command.name.toLowerCase();
    if (BLOCKING.has(name) || (name.startsWith('x') && command.args.some((a) => String(a).toUpperCase() === 'BLOCK'))) {
      tally.blocking += 1;
      return send.call(this, command, stream);
    }
    tally.requests += 1;
    tally.byCommand.set(name, (tally.byCommand.get(name) ?? 0) + 1);
    let connection = connections.get(this);
    if (!connection) {
      connection = { outstanding: 0, busySince: 0 };
      connections.set(this, connection);
    }
    const state = connection;
    if (state.outstanding === 0) {
      tally.roundTrips += 1;
      state.busySince = performance.now();
    }
    state.outstanding += 1;
    const settled = () => {
      state.outstanding -= 1;
      if (state.outstanding === 0) tally.ms += performance.now() - state.busySince;
    };
    command.promise.then(settled, settled);
    return send.call(this, command, stream);
  };
}
countCommands();

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
