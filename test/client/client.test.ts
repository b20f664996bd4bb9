// @placard/client against a real Placard listening on a port (SPEC §2, §3, §4, §6, §8): tokens fetched and refreshed
// after expiry, an export with changes awaited and downloaded (decoded pixels), a 429 retried after its Retry-After,
// a typed error naming the field, pagination over 250 templates, and a real webhook delivery verified and forwarded to
// waitForExport.
import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  createClient,
  type PlacardClient,
  PlacardError,
  verifyWebhook,
  WebhookVerificationError,
} from '@placard/client';
import { Webhook } from 'standardwebhooks';
import type { RenderPool } from '../../src/formats/pool.js';
import { startTestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { assertPixel, decodePng } from '../render/pixels.js';

const banner = {
  name: 'Banner',
  sizes: [
    {
      name: 'Medium Rectangle',
      width: 300,
      height: 250,
      backgroundColor: '#0F172A',
      slides: [
        {
          duration: 5,
          elements: [
            { name: 'panel', type: 'shape', shape: 'rect', fill: '#00FF00', x: 0, y: 100, width: 100, height: 100 },
            {
              name: 'headline',
              type: 'text',
              x: 4,
              y: 4,
              width: 292,
              height: 30,
              text: 'Spring sale',
              fontFamily: 'Inter',
              fontVariant: '700',
              fontSize: 18,
              color: '#FFFFFF',
            },
          ],
        },
      ],
    },
  ],
};

/** Starts a service on a free port whose signed links point at that port, counting requests by method and path. */
async function listening(options: Parameters<typeof startTestApp>[0] = {}) {
  const port = await freePort();
  const seen: Array<{ route: string; status: number; at: number }> = [];
  const t = await startTestApp({
    publicUrl: `http://127.0.0.1:${port}`,
    ...options,
    beforeReady(app) {
      app.addHook('onResponse', async (request, reply) => {
        seen.push({
          route: `${request.method} ${request.url.split('?')[0]}`,
          status: reply.statusCode,
          at: Date.now(),
        });
      });
    },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${port}`;
  const count = (route: string) => seen.filter((s) => s.route === route).length;
  return { t, baseUrl, seen, count };
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer());
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function newProject(client: PlacardClient): Promise<number> {
  const kit = await client.POST('/v1/brandkits/create', { body: { name: 'Kit' } });
  const project = await client.POST('/v1/projects', {
    body: { name: 'Campaigns', brandKitId: kit.response.brandKit.id },
  });
  return project.response.project.id;
}

/** A render pool whose export renders wait while held (thumbnails never wait); the real pool does the work. */
function gatedPool() {
  let real: RenderPool | null = null;
  let held = false;
  let open: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  const wait = (job: { skipRejectedSources?: boolean }) => (held && !job.skipRejectedSources ? gate : undefined);
  const pool = {
    async render(job, o) {
      await wait(job);
      return real!.render(job, o);
    },
    async renderFiles(job, o) {
      await wait(job);
      return real!.renderFiles(job, o);
    },
    get threads() {
      return real?.threads ?? 1;
    },
    queued: () => real?.queued() ?? 0,
    close: async () => {},
  } as RenderPool;
  return {
    pool,
    attach(to: RenderPool) {
      real = to;
    },
    hold() {
      held = true;
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    release() {
      held = false;
      open();
    },
  };
}

describe('client tokens the service expires', () => {
  let s: Awaited<ReturnType<typeof listening>>;
  before(async () => {
    s = await listening({ tokenTtlSeconds: 3 });
  });
  after(() => s.t.close());

  test('a token the service refuses as expired (a clock that is behind) is replaced and the call repeated', async () => {
    const frozen = Date.now();
    const client = createClient({
      baseUrl: s.baseUrl,
      clientId: s.t.owner.clientId,
      clientSecret: s.t.owner.clientSecret,
      now: () => frozen,
    });
    const before = s.count('POST /v1/auth/token');
    const refusedBefore = s.seen.filter((r) => r.route === 'GET /v1/roles' && r.status === 401).length;
    await client.GET('/v1/roles');
    await sleep(3500);
    const roles = await client.GET('/v1/roles');
    assert.equal(roles.response.length, 4);
    assert.equal(s.count('POST /v1/auth/token') - before, 2);
    assert.equal(s.seen.filter((r) => r.route === 'GET /v1/roles' && r.status === 401).length - refusedBefore, 1);
  });
});

describe('client tokens', () => {
  // The service's tokens live an hour here: the expiry the client acts on comes from its own clock, moved by the test,
  // so a slow machine cannot expire a token between two calls.
  let s: Awaited<ReturnType<typeof listening>>;
  before(async () => {
    s = await listening({ tokenTtlSeconds: 3600 });
  });
  after(() => s.t.close());

  test('fetches a token on the first call and a new one once it expires', async () => {
    let clock = Date.now();
    const client = createClient({
      baseUrl: s.baseUrl,
      clientId: s.t.owner.clientId,
      clientSecret: s.t.owner.clientSecret,
      now: () => clock,
    });
    const before = s.count('POST /v1/auth/token');
    const roles = await client.GET('/v1/roles');
    assert.deepEqual(
      roles.response.map((r) => r.name),
      ['Owner', 'Admin', 'Editor', 'Viewer'],
    );
    clock += 3_000_000; // 50 minutes: inside the lifetime and its refresh margin
    await client.GET('/v1/roles');
    assert.equal(s.count('POST /v1/auth/token') - before, 1, 'one token for two calls within its lifetime');
    clock += 600_000; // past the hour
    await client.GET('/v1/roles');
    assert.equal(s.count('POST /v1/auth/token') - before, 2, 'a new token after the first expired');
    assert.equal(s.seen.filter((r) => r.route === 'GET /v1/roles' && r.status === 401).length, 0);
  });

  test('concurrent first calls share one token request', async () => {
    const client = createClient({
      baseUrl: s.baseUrl,
      clientId: s.t.owner.clientId,
      clientSecret: s.t.owner.clientSecret,
    });
    const before = s.count('POST /v1/auth/token');
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.GET('/v1/roles')));
    assert.equal(answers.length, 20);
    assert.ok(answers.every((a) => a.response.length === 4));
    assert.equal(s.count('POST /v1/auth/token') - before, 1);
  });

  test('a wrong secret is a PlacardError with the code INVALID_CREDENTIALS', async () => {
    const client = createClient({ baseUrl: s.baseUrl, clientId: s.t.owner.clientId, clientSecret: 'wrong' });
    await assert.rejects(client.GET('/v1/roles'), (error: unknown) => {
      assert.ok(error instanceof PlacardError);
      assert.equal(error.status, 401);
      assert.equal(error.code, 'INVALID_CREDENTIALS');
      assert.ok(error.requestId);
      return true;
    });
  });

  test('needs credentials or a token', () => {
    assert.throws(() => createClient({ baseUrl: s.baseUrl }), /needs `token`, or `clientId` and `clientSecret`/);
  });
});

describe('client rate limits', () => {
  let s: Awaited<ReturnType<typeof listening>>;
  before(async () => {
    s = await listening({ rateLimit: { enabled: true, other: 3, exports: 3, windowSeconds: 2 } });
  });
  after(() => s.t.close());

  test('a 429 is retried after its Retry-After, and a POST only with the Idempotency-Key the client gave it', async () => {
    const retries: Array<{ status: number; delayMs: number }> = [];
    const client = createClient({ baseUrl: s.baseUrl, token: s.t.owner.token, onRetry: (r) => retries.push(r) });
    for (let i = 0; i < 5; i++) await client.GET('/v1/roles');
    const answers = s.seen.filter((r) => r.route === 'GET /v1/roles');
    assert.equal(answers.filter((r) => r.status === 200).length, 5);
    const refused = answers.filter((r) => r.status === 429);
    assert.ok(refused.length >= 1, 'the limit was reached');
    assert.ok(retries.length >= 1 && retries.every((r) => r.status === 429 && r.delayMs >= 1000));
    // Each refusal was followed by a retry no sooner than the Retry-After the service gave (≥ 1 s here).
    for (const r of refused) {
      const next = answers.find((a) => a.at > r.at);
      assert.ok(next && next.at - r.at >= 900, 'retried after the wait, not at once');
    }

    // A POST without a key of the client's is not repeated: the 429 reaches the caller.
    const bare = createClient({ baseUrl: s.baseUrl, token: s.t.owner.token, idempotencyKeys: false });
    let refusedPost: PlacardError | null = null;
    for (let i = 0; i < 5 && !refusedPost; i++) {
      try {
        await bare.POST('/v1/brandkits/create', { body: { name: `Kit ${i}` } });
      } catch (error) {
        if (error instanceof PlacardError) refusedPost = error;
        else throw error;
      }
    }
    assert.ok(refusedPost, 'a POST was refused');
    assert.equal(refusedPost.status, 429);
    assert.equal(refusedPost.code, 'RATE_LIMITED');
    assert.ok((refusedPost.retryAfter ?? 0) >= 1);

    // With the client's Idempotency-Key, the same POSTs are retried and each creates exactly one brand kit.
    const keyed = createClient({ baseUrl: s.baseUrl, token: s.t.owner.token, onRetry: (r) => retries.push(r) });
    const retriedBefore = retries.length;
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push((await keyed.POST('/v1/brandkits/create', { body: { name: `Keyed ${i}` } })).response.brandKit.id);
    }
    assert.ok(retries.length > retriedBefore, 'a keyed POST was refused and retried');
    assert.equal(new Set(created).size, 5);
    const kits = await keyed.GET('/v1/brandkits', { params: { query: { keyword: 'Keyed', limit: 100 } } });
    assert.equal(kits.response.totalCount, 5, 'no POST acted twice');
  });
});

describe('client exports, pagination and webhooks', () => {
  let s: Awaited<ReturnType<typeof listening>>;
  let client: PlacardClient;
  let projectId: number;
  let templateHash: string;
  const pool = gatedPool();
  let receiver: http.Server;
  let hookUrl: string;
  const deliveries: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  let onDelivery: (d: { headers: IncomingHttpHeaders; body: string }) => void = () => {};

  before(async () => {
    s = await listening({ renderPool: pool.pool });
    pool.attach(s.t.runtime.renderPool);
    client = createClient({ baseUrl: s.baseUrl, clientId: s.t.owner.clientId, clientSecret: s.t.owner.clientSecret });
    projectId = await newProject(client);
    const imported = await client.POST('/v1/templates/import', {
      body: { projectId, name: 'Banner', document: banner as never },
    });
    templateHash = imported.response.template.id;
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        res.writeHead(200).end();
        const delivery = { headers: req.headers, body };
        deliveries.push(delivery);
        onDelivery(delivery);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  after(async () => {
    pool.release();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await s.t.close();
  });

  test('an export with changes is awaited and downloaded, and its pixels show the change', async () => {
    const created = await client.POST('/v1/export-with-changes', {
      body: {
        templateHash,
        type: 'png',
        elementsChanges: [{ elementName: 'panel', changes: [{ attribute: 'BGCOLOR', value: '#FF0000' }] }],
        generalChanges: { backgroundColor: '#0000FF' },
      },
    });
    const progress: string[] = [];
    const done = await client.waitForExport(created.response.export.id, {
      timeoutMs: 30_000,
      onProgress: (status) => progress.push(status.status),
    });
    assert.equal(done.status, 'complete');
    assert.equal(progress.at(-1), 'complete');
    const creative = done.creatives[0];
    assert.ok(creative && 'url' in creative && creative.url);
    const pixels = decodePng(await bytesOf(await client.download(creative.url)));
    assert.equal(pixels.width, 300);
    assertPixel(pixels, 50, 150, [255, 0, 0, 255], 2); // the panel, changed from green to red
    assertPixel(pixels, 250, 200, [0, 0, 255, 255], 2); // the background, changed to blue
  });

  test('a bad element change is a PlacardError naming the field', async () => {
    await assert.rejects(
      client.POST('/v1/export-with-changes', {
        body: {
          templateHash,
          type: 'png',
          elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'TEXTCOLOR', value: 'red' }] }],
        },
      }),
      (error: unknown) => {
        assert.ok(error instanceof PlacardError);
        assert.equal(error.status, 422);
        assert.equal(error.code, 'INVALID_ELEMENT_CHANGE');
        assert.match(error.message, /elementsChanges\[0\]\.changes\[0\]\.value/);
        assert.equal(error.details[0]?.path, '/elementsChanges/0/changes/0/value');
        assert.ok(error.requestId);
        return true;
      },
    );
  });

  test('a waiter gives up after timeoutMs and stops at once when aborted', async () => {
    pool.hold();
    try {
      const created = await client.POST('/v1/export-with-changes', {
        body: {
          templateHash,
          type: 'png',
          elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Timeout' }] }],
        },
      });
      const id = created.response.export.id;
      await assert.rejects(client.waitForExport(id, { timeoutMs: 300 }), { name: 'PlacardTimeoutError' });
      const controller = new AbortController();
      const waiting = client.waitForExport(id, { intervalMs: 60_000, signal: controller.signal });
      controller.abort(new Error('stopped by the caller'));
      await assert.rejects(waiting, /stopped by the caller/);
    } finally {
      pool.release();
    }
  });

  test('iterates every page: 250 templates', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 249; i++) {
      await client.POST('/v1/templates/import', {
        body: { projectId, name: `T${String(i).padStart(3, '0')}`, document: banner as never },
      });
    }
    const pages = s.count('GET /v1/templates');
    for await (const template of client.templates.list({ projectId: String(projectId) as never, limit: 100 })) {
      names.add(template.id);
    }
    assert.equal(names.size, 250);
    assert.equal(s.count('GET /v1/templates') - pages, 3, 'three pages of 100');
    const ordered: string[] = [];
    for await (const template of client.templates.list({ orderBy: 'NAME', orderDirection: 'ASC', limit: 40 })) {
      ordered.push(template.name);
    }
    assert.equal(ordered.length, 250);
    assert.deepEqual(ordered, [...ordered].sort());
  });

  test('a real delivery verifies, a tampered one does not, and it resolves waitForExport early', async () => {
    const secret = (await client.GET('/v1/webhooks/secret')).response.secret;
    await client.POST('/v1/webhooks', { body: { name: 'Client', url: hookUrl, actions: [1, 2] } });
    pool.hold();
    const created = await client.POST('/v1/export-with-changes', {
      body: {
        templateHash,
        type: 'png',
        elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Webhook' }] }],
      },
    });
    const id = created.response.export.id;
    const polls: string[] = [];
    const handed = new Promise<boolean>((resolve) => {
      onDelivery = async ({ headers, body }) => {
        const event = await verifyWebhook(secret, headers, body);
        if (event.data.export?.id === id) resolve(client.handleWebhook(event));
      };
    });
    // Polls once (pending: the render waits), then would sleep a minute: only the forwarded webhook can end it.
    const waiting = client.waitForExport(id, { intervalMs: 60_000, onProgress: (st) => polls.push(st.status) });
    while (polls.length === 0) await sleep(10);
    pool.release();
    assert.ok(['pending', 'inProgress'].includes(polls[0]), `first poll: ${polls[0]}`);
    assert.equal(await handed, true);
    const done = await waiting;
    assert.equal(done.status, 'complete');
    assert.equal(done.id, id);
    assert.equal(s.seen.filter((r) => r.route === `GET /v1/export/${id}`).length, 1, 'one poll: the webhook ended it');

    const delivery = deliveries.find((d) => d.body.includes(id));
    assert.ok(delivery);
    const event = await verifyWebhook(secret, delivery.headers, delivery.body);
    assert.equal(event.action, 'export/complete');
    assert.equal(event.id, delivery.headers['webhook-id']);
    // The reference implementation of Standard Webhooks agrees on the same delivery.
    assert.deepEqual(new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>), event);
    // Bytes verify as well as text; fetch's Headers as well as Node's.
    const asHeaders = new Headers(delivery.headers as Record<string, string>);
    assert.deepEqual(await verifyWebhook(secret, asHeaders, new TextEncoder().encode(delivery.body)), event);

    const refused = (message: RegExp) => (error: unknown) => {
      assert.ok(error instanceof WebhookVerificationError);
      assert.match(error.message, message);
      return true;
    };
    await assert.rejects(
      // One character of the id changed (a UUID ending in 0 gets a 1: replacing 0 by 0 changed nothing, 1 run in 16).
      verifyWebhook(
        secret,
        delivery.headers,
        delivery.body.replace(
          id,
          id.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
        ),
      ),
      refused(/no v1 signature/),
    );
    await assert.rejects(
      verifyWebhook(`whsec_${btoa('another key of 32 bytes, padded.')}`, delivery.headers, delivery.body),
      refused(/no v1 signature/),
    );
    await assert.rejects(
      verifyWebhook(secret, delivery.headers, delivery.body, { now: () => Date.now() + 3_600_000 }),
      refused(/webhook-timestamp/),
    );
    await assert.rejects(verifyWebhook(secret, { 'webhook-id': 'x' }, delivery.body), refused(/missing/));
  });
});

describe('client failures without a 2xx', () => {
  let s: Awaited<ReturnType<typeof listening>>;
  const pool = gatedPool();
  before(async () => {
    s = await listening({ queueLimit: 1, renderPool: pool.pool });
    pool.attach(s.t.runtime.renderPool);
  });
  after(async () => {
    pool.release();
    await s.t.close();
  });

  test('a 503 whose Retry-After is beyond maxDelayMs is thrown at once with its wait', async () => {
    const retries: unknown[] = [];
    const client = createClient({ baseUrl: s.baseUrl, token: s.t.owner.token, onRetry: (r) => retries.push(r) });
    const kit = await client.POST('/v1/brandkits/create', { body: { name: 'Kit' } });
    const project = await client.POST('/v1/projects', { body: { name: 'P', brandKitId: kit.response.brandKit.id } });
    const imported = await client.POST('/v1/templates/import', {
      body: { projectId: project.response.project.id, name: 'Banner', document: banner as never },
    });
    const creativeHash = imported.response.template.id;
    pool.hold();
    try {
      const first = await client.POST('/v1/export', { body: { creativeHash, type: 'png' } });
      await assert.rejects(client.POST('/v1/export', { body: { creativeHash, type: 'webp' } }), (error: unknown) => {
        assert.ok(error instanceof PlacardError);
        assert.equal(error.status, 503);
        assert.equal(error.code, 'UNAVAILABLE');
        assert.equal(error.retryAfter, 60); // the service's "retry in a minute", over the default 30 s cap
        return true;
      });
      assert.deepEqual(retries, []);
      pool.release();
      assert.equal((await client.waitForExport(first.response.export.id, { timeoutMs: 30_000 })).status, 'complete');
    } finally {
      pool.release();
    }
  });

  test('a refused connection is retried for a GET, not for a POST without a key, then is NETWORK_ERROR', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const retries: Array<{ code: string }> = [];
    const options = {
      baseUrl: closed,
      token: 't',
      retry: { baseDelayMs: 1 },
      onRetry: (r: { code: string }) => retries.push(r),
    };
    const client = createClient(options);
    await assert.rejects(client.GET('/v1/roles'), { name: 'PlacardError', status: 0, code: 'NETWORK_ERROR' });
    assert.equal(retries.length, 3);
    assert.ok(retries.every((r) => r.code === 'NETWORK_ERROR'));
    const bare = createClient({ ...options, idempotencyKeys: false });
    await assert.rejects(bare.POST('/v1/brandkits/create', { body: { name: 'Kit' } }), { code: 'NETWORK_ERROR' });
    assert.equal(retries.length, 3, 'the POST was sent once');
  });
});
