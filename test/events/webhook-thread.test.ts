// The webhook thread (src/events/webhook-thread.ts): calls made on a thread of their own, behind a URL guard built
// there from the service's settings. Checked against a real receiver on 127.0.0.1: the signed request arrives, the
// guard refuses what the settings refuse, a silent receiver times out, and a closed thread gives way to a new one.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { MessagePort } from 'node:worker_threads';
import { Webhook } from 'standardwebhooks';
import { newSigningSecret } from '../../src/events/deliveries.js';
import { USER_AGENT } from '../../src/events/webhook-call.js';
import { startWebhookThread, type WebhookThread } from '../../src/events/webhook-thread.js';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const received: Received[] = [];
let server: http.Server;
let base: string;
const threads: WebhookThread[] = [];

before(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      received.push({ path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString() });
      if (request.url === '/silent') return;
      response.writeHead(request.url === '/gone' ? 410 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const thread of threads) await thread.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function thread(allowPrivateUrls: boolean, timeoutMs = 5_000): WebhookThread {
  const started = startWebhookThread({ allowPrivateUrls, allowedPrivateHosts: [], timeoutMs });
  threads.push(started);
  return started;
}

const body = JSON.stringify({ type: 'export/complete', data: { export: { id: 'e1' } } });

test('a call is signed, sent and answered with the receiver status', async () => {
  const calls = thread(true);
  const secret = newSigningSecret();
  const timestamp = Math.floor(Date.now() / 1000);
  const [ok, gone] = await Promise.all([
    calls.call({ id: 'msg_1', url: `${base}/ok`, payload: body, secret, timestamp }),
    calls.call({ id: 'msg_2', url: `${base}/gone`, payload: body, secret, timestamp }),
  ]);
  assert.deepEqual(ok, { statusCode: 204, error: null, refused: false });
  assert.deepEqual(gone, { statusCode: 410, error: null, refused: false });
  const got = received.find((r) => r.path === '/ok');
  assert.ok(got, 'the receiver got the call');
  assert.equal(got.headers['user-agent'], USER_AGENT);
  assert.equal(got.headers['webhook-id'], 'msg_1');
  assert.equal(got.headers['webhook-timestamp'], String(timestamp));
  assert.deepEqual(new Webhook(secret).verify(got.body, got.headers as Record<string, string>), JSON.parse(body));
});

test("the thread's guard refuses a loopback address unless private URLs are allowed", async () => {
  const before = received.length;
  const refused = await thread(false).call({
    id: 'msg_3',
    url: `${base}/private`,
    payload: body,
    secret: newSigningSecret(),
    timestamp: 1,
  });
  assert.equal(refused.statusCode, null);
  assert.equal(refused.refused, true);
  assert.match(refused.error ?? '', /loopback/);
  assert.equal(received.length, before, 'nothing reached the receiver');
});

test('a receiver that never answers is given up after the time limit', async () => {
  const result = await thread(true, 300).call({
    id: 'msg_4',
    url: `${base}/silent`,
    payload: body,
    secret: newSigningSecret(),
    timestamp: 1,
  });
  assert.deepEqual(result, { statusCode: null, error: 'no answer within 300 ms', refused: false });
});

test('after close, the next call starts a thread again', async () => {
  const calls = thread(true);
  const call = { id: 'msg_5', url: `${base}/ok`, payload: body, secret: newSigningSecret(), timestamp: 1 };
  assert.equal((await calls.call(call)).statusCode, 204);
  await calls.close();
  assert.equal((await calls.call({ ...call, id: 'msg_6' })).statusCode, 204);
});

test('calls posted by another thread on the linked port are made and answered; those meant for an ended thread are not', async () => {
  const links: MessagePort[] = [];
  const calls = startWebhookThread({ allowPrivateUrls: true, allowedPrivateHosts: [], timeoutMs: 5_000 }, (port) =>
    links.push(port),
  );
  threads.push(calls);
  const secret = newSigningSecret();
  const first = calls.expect([{ id: 'msg_7', url: `${base}/linked`, payload: body, secret, timestamp: 1 }]);
  assert.equal(links.length, 1, 'the thread, started for it, gave out its port');
  // The SQLite thread posts it so once the export's finish committed.
  links[0].postMessage(first.message);
  assert.deepEqual(await first.results[0], { statusCode: 204, error: null, refused: false });
  assert.equal(received.filter((r) => r.path === '/linked').length, 1);
  assert.equal(received.find((r) => r.path === '/linked')?.headers['webhook-id'], 'msg_7');

  // A thread that ends fails what it was to make; what was meant for it and arrives at its successor is not made.
  const second = calls.expect([{ id: 'msg_8', url: `${base}/late`, payload: body, secret, timestamp: 1 }]);
  await calls.close();
  assert.equal((await second.results[0]).statusCode, null);
  const third = calls.expect([{ id: 'msg_9', url: `${base}/linked`, payload: body, secret, timestamp: 1 }]);
  assert.equal(links.length, 2, 'a new thread, a new port');
  links[1].postMessage(second.message);
  links[1].postMessage(third.message);
  assert.equal((await third.results[0]).statusCode, 204);
  assert.equal(received.filter((r) => r.path === '/late').length, 0);
  // Cancelled: never posted, forgotten.
  calls.expect([{ id: 'msg_10', url: `${base}/linked`, payload: body, secret, timestamp: 1 }]).cancel();
  for (const port of links) port.close();
});
