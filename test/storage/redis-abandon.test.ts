// SIGTERM of an API whose Redis went down (issue 15): commands wait for Redis forever (maxRetriesPerRequest: null),
// so the stop must fail them at once. A TCP relay in front of the shared Redis plays the outage.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { abandonRedis, openRedis, type RedisClient } from '../../src/storage/redis.js';

const REDIS = { host: '127.0.0.1', port: 6379 };
let relay: net.Server;
const sockets = new Set<net.Socket>();
let redis: RedisClient | undefined;

before(async () => {
  relay = net.createServer((client) => {
    const upstream = net.connect(REDIS.port, REDIS.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
});

after(() => {
  redis?.disconnect();
  for (const s of sockets) s.destroy();
  relay.close();
});

test('abandonRedis fails the commands waiting for a Redis that went down, with UNAVAILABLE, at once', async (t) => {
  const probe = net.connect(REDIS.port, REDIS.host);
  const reachable = await new Promise<boolean>((resolve) => {
    probe.once('connect', () => resolve(true)).once('error', () => resolve(false));
  });
  probe.destroy();
  assert.ok(reachable, `this test needs Redis on ${REDIS.host}:${REDIS.port} (apt-get install redis-server)`);

  const { port } = relay.address() as net.AddressInfo;
  redis = openRedis(`redis://127.0.0.1:${port}`);
  redis.on('error', () => {});
  assert.equal(await redis.ping(), 'PONG');

  // The outage: the relay stops accepting and drops its connections; ioredis keeps reconnecting.
  relay.close();
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => redis?.once('reconnecting', resolve));
  assert.notEqual(redis.status, 'ready');

  let settled = false;
  const waiting = redis.get('p15b:any').finally(() => {
    settled = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(settled, false, 'the command waits for Redis (maxRetriesPerRequest: null)');

  abandonRedis(redis, 'Redis is unreachable and the process is stopping');
  // Without the flush the command would wait forever: fail the test instead of hanging it.
  let guard: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new Error('the waiting command was not failed by abandonRedis')), 10_000);
  });
  await assert.rejects(Promise.race([waiting, stuck]), (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'UNAVAILABLE');
    assert.match(error.message, /Redis is unreachable/);
    return true;
  });
  clearTimeout(guard);
  t.diagnostic(`status after abandon: ${redis.status}`);
});
