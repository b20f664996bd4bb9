// Webhook deliveries against a real HTTP receiver on 127.0.0.1: Standard Webhooks signatures verified by the
// `standardwebhooks` package, retries until a 2xx or the last attempt with every attempt recorded, the SSRF guard's
// refusal recorded without a retry, outbox fan-out to subscribed webhooks only, once even with two dispatchers, export
// deliveries, redelivery and the sweep. The queue is an in-memory JobQueue fake with the contract's retry semantics.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_ACTIONS } from '../../src/events/catalogue.js';
import {
  createWebhookDeliveries,
  type DeliveryOutcome,
  newSigningSecret,
  type WebhookDeliveriesOptions,
  webhookUrlProblem,
} from '../../src/events/deliveries.js';
import { recordEvent } from '../../src/events/outbox.js';
import { signPayload, USER_AGENT } from '../../src/events/webhook-call.js';
import {
  type EnqueueOptions,
  type Job,
  type JobHandler,
  type JobKind,
  type JobPayloads,
  type JobQueue,
  type ProcessOptions,
  retryDelayAfter,
} from '../../src/jobs/job-queue.js';
import { createTeamService } from '../../src/services/team.service.js';
import { createDeliveryRepository } from '../../src/storage/db/repositories/deliveries.repository.js';
import { createWebhookRepository } from '../../src/storage/db/repositories/webhooks.repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface Enqueued {
  kind: JobKind;
  payload: unknown;
  options: EnqueueOptions;
}

/** The JobQueue contract in memory: jobId dedupe (finished jobs stay held), retries after the delays, onExhausted. */
function fakeQueue() {
  // biome-ignore lint/suspicious/noExplicitAny: one map holds the handlers of every kind
  const registered = new Map<JobKind, { handler: JobHandler<any>; options: ProcessOptions<any> }>();
  const held = new Set<string>();
  const enqueued: Enqueued[] = [];
  const runs: Array<{ id: string; attempt: number; maxAttempts: number }> = [];

  function schedule(job: Job, delays: readonly number[], waitMs: number) {
    setTimeout(async () => {
      const entry = registered.get(job.kind);
      if (!entry) throw new Error(`no handler for ${job.kind}`);
      runs.push({ id: job.id, attempt: job.attempt, maxAttempts: job.maxAttempts });
      try {
        await entry.handler(job);
      } catch (error) {
        if (job.attempt < job.maxAttempts) {
          schedule({ ...job, attempt: job.attempt + 1 }, delays, retryDelayAfter(job.attempt, delays));
        } else {
          await entry.options.onExhausted?.(job, error as Error);
        }
      }
    }, waitMs);
  }

  const queue: Pick<JobQueue, 'enqueue' | 'process'> = {
    async enqueue<K extends JobKind>(kind: K, payload: JobPayloads[K], options: EnqueueOptions = {}) {
      enqueued.push({ kind, payload, options });
      const id = options.jobId ?? randomUUID();
      if (held.has(id)) return;
      held.add(id);
      const job: Job = { id, kind, payload, attempt: 1, maxAttempts: options.maxAttempts ?? 3 };
      schedule(job, options.retryDelaysMs ?? [1_000, 5_000], options.delayMs ?? 0);
    },
    process<K extends JobKind>(kind: K, handler: JobHandler<K>, options: ProcessOptions<K>) {
      registered.set(kind, { handler, options });
    },
  };
  return { queue, enqueued, runs, registered };
}

type Behaviour = (request: http.IncomingMessage, response: http.ServerResponse) => void;

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1 answering each path as told (200 when not told). */
async function startReceiver() {
  const behaviours = new Map<string, Behaviour>();
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const behaviour = behaviours.get(path);
      if (behaviour) behaviour(request, response);
      else response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** Answers these statuses in turn, then the last one for ever. */
    answer(path: string, ...statuses: number[]) {
      let n = 0;
      behaviours.set(path, (_req, res) => {
        const status = statuses[Math.min(n++, statuses.length - 1)];
        res.writeHead(status, { 'content-type': 'text/plain' }).end('x'.repeat(10_000));
      });
    },
    /** Never answers (the timeout). */
    hang(path: string) {
      behaviours.set(path, () => undefined);
    },
    received: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('webhook deliveries', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const started: Array<{ stop(): Promise<void> }> = [];

  before(async () => {
    t = await startTestApp();
    // The app runs a dispatcher and a queue of its own on this database; closed, they cannot take the events that
    // these tests hand to their own instances. The runtime (the database) stays open until t.close().
    await t.app.close();
    receiver = await startReceiver();
  });
  after(async () => {
    for (const d of started) await d.stop();
    await receiver.close();
    await t.close();
  });

  const db = () => t.runtime.db.kysely;
  const repo = () => createDeliveryRepository(db());

  function setup(options: Partial<WebhookDeliveriesOptions> = {}) {
    const fake = fakeQueue();
    const outcomes: DeliveryOutcome[] = [];
    const deliveries = createWebhookDeliveries({
      db: db(),
      queue: fake.queue,
      allowPrivateUrls: true,
      retryDelaysMs: [50, 50, 50],
      onOutcome: (o) => outcomes.push(o),
      ...options,
    });
    deliveries.register();
    started.push(deliveries);
    return { deliveries, outcomes, ...fake };
  }

  let teams = 0;
  async function team(name: string) {
    const email = `owner${++teams}@${name.toLowerCase()}.test`;
    const owner = await createTeamService(db()).createTeam({ name, ownerEmail: email });
    return { teamId: owner.teamId, userId: owner.userId };
  }

  async function webhook(owner: { teamId: number; userId: number }, url: string, actionIds: number[]) {
    return createWebhookRepository(db()).insert({
      teamId: owner.teamId,
      name: url,
      url,
      createdBy: owner.userId,
      actionIds,
    });
  }

  async function deliveriesOf(teamId: number) {
    return db()
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('team_id', '=', teamId)
      .orderBy('webhook_id')
      .execute();
  }

  async function settled(id: string) {
    return waitFor(`delivery ${id} to settle`, async () => {
      const row = await repo().find(id);
      return row && row.status !== 'pending' ? row : undefined;
    });
  }

  test('signPayload signs as Standard Webhooks does: the package verifies it and computes the same', () => {
    const secret = newSigningSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ id: 'msg_1', action: 'design/create', data: { naïve: 'ü' } });
    const ts = Math.floor(Date.now() / 1000);
    const signature = signPayload(secret, 'msg_1', ts, body);
    assert.equal(signature, new Webhook(secret).sign('msg_1', new Date(ts * 1000), body));
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signature };
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(secret).verify(`${body} `, headers), /No matching signature/);
  });

  test('webhookUrlProblem refuses other schemes and literal private hosts without DNS, unless private is allowed', () => {
    const cases: Array<[string, RegExp | null]> = [
      ['https://hooks.example.com/x', null],
      ['http://93.184.216.34/x', null],
      ['https://internal.corp/x', null],
      ['ftp://example.com/x', /^uses ftp; webhooks are POSTed to http:\/\/ or https:\/\/ URLs only$/],
      ['not a url', /^is not a valid URL$/],
      ['http://127.0.0.1:8080/x', /^points at 127\.0\.0\.1, a loopback address; webhooks must reach a public/],
      ['http://2130706433/x', /^points at 127\.0\.0\.1, a loopback address/],
      ['http://10.1.2.3/x', /^points at 10\.1\.2\.3, a private address/],
      ['http://169.254.169.254/latest', /^points at 169\.254\.169\.254, a link-local address/],
      ['http://[::1]/x', /^points at ::1, a loopback address/],
      ['http://[::ffff:192.168.0.1]/x', /^points at ::ffff:c0a8:1, an IPv4-mapped private address/],
      ['http://localhost:3000/x', /^points at localhost, a loopback host name/],
      ['http://api.LOCALHOST/x', /^points at api\.localhost, a loopback host name/],
    ];
    for (const [url, expected] of cases) {
      const problem = webhookUrlProblem(url, false);
      if (expected === null) assert.equal(problem, null, url);
      else assert.match(problem ?? '', expected, url);
    }
    assert.equal(webhookUrlProblem('http://127.0.0.1/x', true), null);
    assert.match(webhookUrlProblem('ftp://127.0.0.1/x', true) ?? '', /^uses ftp/);
  });

  test('an event is delivered, signed, to each subscribed webhook and to no other', async () => {
    const owner = await team('Fanout');
    const { secret } = await createWebhookRepository(db()).ensureSecret(owner.teamId, newSigningSecret());
    const a = await webhook(owner, receiver.url('/fan/a'), [3, 4]);
    const b = await webhook(owner, receiver.url('/fan/b'), [3]);
    await webhook(owner, receiver.url('/fan/unsubscribed'), [1, 2]);
    const { deliveries, outcomes, enqueued } = setup();

    const event = await recordEvent(db(), {
      teamId: owner.teamId,
      action: 'design/create',
      data: { design: { id: 7 } },
    });
    await deliveries.kick();

    const rows = await deliveriesOf(owner.teamId);
    assert.deepEqual(
      rows.map((r) => [r.webhook_id, r.event_id, r.export_id, r.action]),
      [
        [a, event.id, null, 'design/create'],
        [b, event.id, null, 'design/create'],
      ],
    );
    assert.deepEqual(
      enqueued.map((e) => [e.kind, e.payload, e.options]),
      rows.map((r) => [
        'webhook.deliver',
        { deliveryId: r.id },
        { jobId: `delivery:${r.id}`, maxAttempts: 4, retryDelaysMs: [50, 50, 50] },
      ]),
    );
    const outbox = await db().selectFrom('events_outbox').selectAll().where('id', '=', event.id).executeTakeFirst();
    assert.equal(outbox?.status, 'dispatched');

    for (const [row, path] of [
      [rows[0], '/fan/a'],
      [rows[1], '/fan/b'],
    ] as const) {
      const done = await settled(row.id);
      assert.equal(done.status, 'succeeded');
      assert.equal(done.next_attempt_at, null);
      const [got] = receiver.received(path);
      assert.match(row.id, UUID_V4);
      assert.notEqual(row.id, event.id);
      assert.equal(got.headers['webhook-id'], row.id);
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['user-agent'], USER_AGENT);
      assert.match(String(got.headers['webhook-timestamp']), /^\d{10}$/);
      assert.equal(got.body, row.payload);
      // The payload of SPEC §8 with the delivery's own id, verified with the team's secret.
      const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
      assert.deepEqual(verified, { ...event, id: row.id });
      assert.deepEqual(Object.keys(verified as object), ['id', 'action', 'teamId', 'occurredAt', 'data']);
      const attempts = await repo().attemptsOf([row.id]);
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0].status_code, 200);
      assert.equal(attempts[0].error, null);
      assert.match(attempts[0].attempted_at, ISO_MS);
    }
    assert.deepEqual(receiver.received('/fan/unsubscribed'), []);
    assert.deepEqual(outcomes, ['succeeded', 'succeeded']);
  });

  test('an event no webhook subscribes to is marked dispatched and delivered nowhere', async () => {
    const owner = await team('Nobody');
    await webhook(owner, receiver.url('/nobody'), [1]);
    const { deliveries, enqueued } = setup();
    const event = await recordEvent(db(), { teamId: owner.teamId, action: 'project/create', data: {} });
    await deliveries.kick();
    const outbox = await db().selectFrom('events_outbox').selectAll().where('id', '=', event.id).executeTakeFirst();
    assert.equal(outbox?.status, 'dispatched');
    assert.deepEqual(await deliveriesOf(owner.teamId), []);
    assert.deepEqual(enqueued, []);

    // Several such events in one pass: the subscribers are read once per action (cached), the events claimed
    // together (issue 21: it was two statements per event).
    const more = [];
    for (let i = 0; i < 6; i++) {
      const action = i % 2 ? 'project/create' : 'project/delete';
      more.push(await recordEvent(db(), { teamId: owner.teamId, action, data: {} }));
    }
    const before = t.runtime.db.statements();
    await deliveries.kick();
    const statements = t.runtime.db.statements() - before;
    assert.ok(statements <= 4, `${statements} statements: the due events, two subscriber reads, one claim`);
    const rows = await db()
      .selectFrom('events_outbox')
      .select(['status', 'attempts'])
      .where(
        'id',
        'in',
        more.map((e) => e.id),
      )
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.status, r.attempts]),
      more.map(() => ['dispatched', 1]),
    );
  });

  test('two dispatchers on one outbox row make one delivery per webhook', async () => {
    const owner = await team('Twice');
    await webhook(owner, receiver.url('/twice/a'), [9]);
    await webhook(owner, receiver.url('/twice/b'), [9]);
    const one = setup();
    const two = setup();
    for (let i = 0; i < 5; i++) {
      await recordEvent(db(), { teamId: owner.teamId, action: 'user/create', data: { user: { id: i } } });
    }
    await Promise.all([one.deliveries.kick(), two.deliveries.kick(), one.deliveries.kick(), two.deliveries.kick()]);
    const rows = await deliveriesOf(owner.teamId);
    assert.equal(rows.length, 10);
    const perEvent = new Map<string, number[]>();
    for (const r of rows) perEvent.set(r.event_id!, [...(perEvent.get(r.event_id!) ?? []), r.webhook_id!]);
    assert.equal(perEvent.size, 5);
    for (const hooks of perEvent.values()) assert.equal(new Set(hooks).size, 2);
    assert.equal(one.enqueued.length + two.enqueued.length, 10);
    // The claim itself: a row already dispatched is not claimed again.
    const [first] = rows;
    assert.equal(await repo().claimEvent(first.event_id!), false);
    for (const r of rows) await settled(r.id);
  });

  test('500, 500, then 200: three attempts recorded in order and the delivery succeeds', async () => {
    const owner = await team('Flaky');
    receiver.answer('/flaky', 500, 500, 200);
    await webhook(owner, receiver.url('/flaky'), [4]);
    const { deliveries, outcomes, runs } = setup();
    await recordEvent(db(), { teamId: owner.teamId, action: 'design/update', data: {} });
    await deliveries.kick();
    const [row] = await deliveriesOf(owner.teamId);
    const done = await settled(row.id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.attempt_count, 3);
    const attempts = await repo().attemptsOf([row.id]);
    assert.deepEqual(
      attempts.map((a) => [a.status_code, a.error]),
      [
        [500, null],
        [500, null],
        [200, null],
      ],
    );
    for (const a of attempts) assert.ok(a.duration_ms >= 0 && a.duration_ms < 5_000);
    assert.ok(attempts[0].attempted_at <= attempts[1].attempted_at);
    assert.deepEqual(outcomes, ['retried', 'retried', 'succeeded']);
    assert.deepEqual(
      runs.map((r) => r.attempt),
      [1, 2, 3],
    );
    // Same id on every attempt: a receiver can deduplicate.
    const ids = receiver.received('/flaky').map((r) => r.headers['webhook-id']);
    assert.deepEqual(ids, [row.id, row.id, row.id]);
  });

  test('a receiver that always fails: failed after maxAttempts, every attempt listed, retries scheduled between', async () => {
    const owner = await team('Down');
    receiver.answer('/down', 503);
    await webhook(owner, receiver.url('/down'), [5]);
    const { deliveries, outcomes } = setup({ retryDelaysMs: [300, 50, 50] });
    await recordEvent(db(), { teamId: owner.teamId, action: 'design/delete', data: {} });
    await deliveries.kick();
    const [row] = await deliveriesOf(owner.teamId);
    // Between the first and second attempt the expected retry time is shown.
    const waiting = await waitFor('the first retry to be scheduled', async () => {
      // The attempt is counted before its retry is scheduled (two writes): wait for both, or under load the poll can
      // read the row in between, with the first due time still on it.
      const r = await repo().find(row.id);
      return r && r.attempt_count === 1 && r.next_attempt_at! > r.updated_at ? r : undefined;
    });
    assert.equal(waiting.status, 'pending');
    const retryIn = Date.parse(waiting.next_attempt_at!) - Date.parse(waiting.updated_at);
    assert.ok(retryIn >= 290 && retryIn <= 310, `next attempt in ${retryIn} ms`);

    const done = await settled(row.id);
    assert.equal(done.status, 'failed');
    assert.equal(done.next_attempt_at, null);
    assert.equal(done.attempt_count, 4);
    const attempts = await repo().attemptsOf([row.id]);
    assert.deepEqual(
      attempts.map((a) => a.status_code),
      [503, 503, 503, 503],
    );
    assert.deepEqual(outcomes, ['retried', 'retried', 'retried', 'failed']);
    assert.equal(receiver.received('/down').length, 4);
  });

  test('a network error and a timeout are attempts with the error and no status code', async () => {
    const owner = await team('Network');
    receiver.hang('/hang');
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await webhook(owner, receiver.url('/hang'), [6]);
    await webhook(owner, `http://127.0.0.1:${deadPort}/nobody-home`, [6]);
    const { deliveries } = setup({ retryDelaysMs: [], timeoutMs: 200 });
    await recordEvent(db(), { teamId: owner.teamId, action: 'project/create', data: {} });
    await deliveries.kick();
    const [hung, refused] = await deliveriesOf(owner.teamId);
    assert.equal((await settled(hung.id)).status, 'failed');
    assert.equal((await settled(refused.id)).status, 'failed');
    const [timedOut] = await repo().attemptsOf([hung.id]);
    assert.deepEqual([timedOut.status_code, timedOut.error], [null, 'no answer within 200 ms']);
    assert.ok(timedOut.duration_ms >= 150, `${timedOut.duration_ms} ms`);
    const [unreachable] = await repo().attemptsOf([refused.id]);
    assert.equal(unreachable.status_code, null);
    assert.match(unreachable.error ?? '', /ECONNREFUSED/);
  });

  test('a private URL with private URLs refused: one attempt with the reason, failed, no retry, nothing sent', async () => {
    const owner = await team('Private');
    await webhook(owner, receiver.url('/private'), [7]);
    const { deliveries, outcomes, runs } = setup({ allowPrivateUrls: false });
    await recordEvent(db(), { teamId: owner.teamId, action: 'project/delete', data: {} });
    await deliveries.kick();
    const [row] = await deliveriesOf(owner.teamId);
    const done = await settled(row.id);
    assert.equal(done.status, 'failed');
    const attempts = await repo().attemptsOf([row.id]);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0].status_code, null);
    assert.match(
      attempts[0].error ?? '',
      /^http:\/\/127\.0\.0\.1:\d+\/private: points at 127\.0\.0\.1, a loopback address \(an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS\)$/,
    );
    assert.deepEqual(outcomes, ['failed']);
    assert.equal(runs.length, 1);
    assert.deepEqual(receiver.received('/private'), []);
  });

  test('an export delivery: inserted in the caller transaction, enqueued after commit, payload of SPEC §8', async () => {
    const owner = await team('Export');
    const { secret } = await createWebhookRepository(db()).ensureSecret(owner.teamId, newSigningSecret());
    const { deliveries, enqueued } = setup();
    const exportId = randomUUID();
    const data = { export: { id: exportId, status: 'complete' } };
    const id = await db()
      .transaction()
      .execute((tx) =>
        deliveries.insertExportDelivery(tx, {
          teamId: owner.teamId,
          exportId,
          url: receiver.url('/export'),
          action: 'export/complete',
          data,
        }),
      );
    assert.equal(enqueued.length, 0);
    await deliveries.enqueue([id]);
    assert.deepEqual(enqueued[0].options, { jobId: `delivery:${id}`, maxAttempts: 4, retryDelaysMs: [50, 50, 50] });
    const done = await settled(id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual([done.webhook_id, done.event_id, done.export_id], [null, null, exportId]);
    const [got] = receiver.received('/export');
    const payload = JSON.parse(got.body);
    assert.deepEqual(Object.keys(payload), ['id', 'action', 'teamId', 'occurredAt', 'data']);
    assert.deepEqual(
      { ...payload, occurredAt: '' },
      { id, action: 'export/complete', teamId: owner.teamId, occurredAt: '', data },
    );
    assert.match(payload.occurredAt, ISO_MS);
    assert.ok(new Webhook(secret).verify(got.body, got.headers as Record<string, string>));
  });

  test('finishExport writes the status, the event and its deliveries once; a second finish writes nothing', async () => {
    const owner = await team('Finish');
    const hook = await webhook(owner, receiver.url('/team'), [
      WEBHOOK_ACTIONS.find((a) => a.name === 'export/complete')?.id ?? 0,
    ]);
    const { deliveries } = setup();
    const exportId = randomUUID();
    const at = new Date().toISOString();
    await db()
      .insertInto('exports')
      .values({
        id: exportId,
        team_id: owner.teamId,
        project_id: 1,
        design_id: 1,
        design_hash: 'h',
        new_design_hash: null,
        created_by: owner.userId,
        type: 'jpg',
        format: 'jpg',
        status: 'inProgress',
        settings: '{}',
        document: '{}',
        file_stem: 'f',
        is_set: 0,
        webhook_url: receiver.url('/export'),
        cache_key: null,
        error_log: null,
        zip_key: null,
        zip_name: null,
        created_at: at,
        updated_at: at,
        completed_at: null,
      })
      .execute();
    const finish = { id: exportId, status: 'complete' as const, errorLog: null, zipKey: 'z' };
    const event = { teamId: owner.teamId, action: 'export/complete' as const, data: { export: { id: exportId } } };
    const target = { exportId, webhookUrl: receiver.url('/export') };
    const rows = (await deliveries.finishExport(finish, event, target)) ?? [];
    assert.deepEqual(rows.map((r) => r.webhookId).sort(), [hook, null].sort());
    // Another run that finishes it again (at least once): nothing more is written.
    assert.equal(await deliveries.finishExport({ ...finish, status: 'failed' }, event, target), null);
    const row = await db().selectFrom('exports').selectAll().where('id', '=', exportId).executeTakeFirstOrThrow();
    assert.deepEqual([row.status, row.zip_key], ['complete', 'z']);
    assert.equal(row.completed_at, row.updated_at);
    const events = await db().selectFrom('events_outbox').selectAll().where('team_id', '=', owner.teamId).execute();
    assert.equal(events.length, 1);
    assert.deepEqual([events[0].status, events[0].attempts], ['dispatched', 1]);
    assert.equal(JSON.parse(events[0].payload).id, events[0].id);
    const stored = await deliveriesOf(owner.teamId);
    assert.deepEqual(stored.map((d) => d.id).sort(), rows.map((r) => r.id).sort());
    for (const d of stored) {
      const mine = rows.find((r) => r.id === d.id);
      assert.deepEqual(
        [d.status, d.attempt_count, d.payload, d.url, d.event_id, d.export_id, d.next_attempt_at, d.created_at],
        ['pending', 0, mine?.payload, mine?.url, mine?.eventId, mine?.exportId, mine?.at, mine?.at],
      );
    }
    assert.equal(stored.find((d) => d.webhook_id === hook)?.event_id, events[0].id);
  });

  // The service's wiring on SQLite (app.ts): the database linked to the webhook thread. PostgreSQL has no link.
  test('on SQLite, a finish hands its first attempts to the webhook thread as it commits: one call each, recorded', {
    skip: process.env.DATABASE_URL ? 'SQLite only: PostgreSQL has no link' : false,
  }, async () => {
    const owner = await team('Ahead');
    const hook = await webhook(owner, receiver.url('/ahead-team'), [
      WEBHOOK_ACTIONS.find((a) => a.name === 'export/complete')?.id ?? 0,
    ]);
    const { deliveries, outcomes, enqueued } = setup({ thread: true, linkDatabase: t.runtime.db.link });
    deliveries.start();
    const exportId = randomUUID();
    const at = new Date().toISOString();
    await db()
      .insertInto('exports')
      .values({
        id: exportId,
        team_id: owner.teamId,
        project_id: 1,
        design_id: 1,
        design_hash: 'h',
        new_design_hash: null,
        created_by: owner.userId,
        type: 'jpg',
        format: 'jpg',
        status: 'inProgress',
        settings: '{}',
        document: '{}',
        file_stem: 'f',
        is_set: 0,
        webhook_url: receiver.url('/ahead'),
        cache_key: null,
        error_log: null,
        zip_key: null,
        zip_name: null,
        created_at: at,
        updated_at: at,
        completed_at: null,
      })
      .execute();
    const finish = { id: exportId, status: 'complete' as const, errorLog: null, zipKey: 'z' };
    const event = { teamId: owner.teamId, action: 'export/complete' as const, data: { export: { id: exportId } } };
    const target = { exportId, webhookUrl: receiver.url('/ahead') };
    // Nothing is left to `send`: both first attempts went with the finish.
    assert.deepEqual(await deliveries.finishExport(finish, event, target), []);
    const stored = await deliveriesOf(owner.teamId);
    assert.equal(stored.length, 2);
    for (const { id } of stored) assert.equal((await settled(id)).status, 'succeeded');
    const secret = (await createWebhookRepository(db()).findSecret(owner.teamId))?.secret as string;
    for (const path of ['/ahead', '/ahead-team']) {
      const calls = receiver.received(path);
      assert.equal(calls.length, 1, `one call to ${path}`);
      const mine = stored.find((d) => d.url === receiver.url(path));
      assert.equal(calls[0].headers['webhook-id'], mine?.id);
      assert.ok(new Webhook(secret).verify(calls[0].body, calls[0].headers as Record<string, string>));
    }
    assert.ok(stored.some((d) => d.webhook_id === hook));
    const attempts = await db()
      .selectFrom('webhook_delivery_attempts')
      .select(['delivery_id', 'status_code'])
      .where(
        'delivery_id',
        'in',
        stored.map((d) => d.id),
      )
      .execute();
    assert.deepEqual(
      attempts.map((a) => a.status_code),
      [200, 200],
    );
    assert.deepEqual(outcomes, ['succeeded', 'succeeded']);
    assert.equal(enqueued.length, 0, 'no job: the attempts were made here');
    // A second finish of the same export writes nothing and calls nothing.
    assert.equal(await deliveries.finishExport({ ...finish, status: 'failed' }, event, target), null);
    await deliveries.stop();
    assert.equal(receiver.received('/ahead').length, 1);
  });

  test('redeliver: pending again, one attempt at once with its own job id, same webhook-id, new signature time', async () => {
    const owner = await team('Again');
    receiver.answer('/again', 410);
    await webhook(owner, receiver.url('/again'), [11]);
    const { deliveries, enqueued, outcomes } = setup({ retryDelaysMs: [] });
    await recordEvent(db(), { teamId: owner.teamId, action: 'shareLink/create', data: {} });
    await deliveries.kick();
    const [row] = await deliveriesOf(owner.teamId);
    assert.equal((await settled(row.id)).status, 'failed');

    receiver.answer('/again', 204);
    const reopened = await deliveries.redeliver(owner.teamId, row.id);
    assert.equal(reopened?.status, 'pending');
    assert.match(reopened?.next_attempt_at ?? '', ISO_MS);
    assert.deepEqual(enqueued.at(-1)?.options, { jobId: `redeliver:${row.id}:1`, maxAttempts: 1 });
    const done = await settled(row.id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(
      (await repo().attemptsOf([row.id])).map((a) => a.status_code),
      [410, 204],
    );
    assert.deepEqual(outcomes, ['failed', 'succeeded']);
    assert.deepEqual(
      receiver.received('/again').map((r) => r.headers['webhook-id']),
      [row.id, row.id],
    );

    assert.equal(await deliveries.redeliver(owner.teamId + 1_000, row.id), undefined);
    assert.equal(await deliveries.redeliver(owner.teamId, randomUUID()), undefined);
  });

  test('the sweep enqueues a pending delivery left without a job (a crash between commit and enqueue)', async () => {
    const owner = await team('Sweep');
    const { deliveries, enqueued } = setup({ dispatchIntervalMs: 60_000, sweepIntervalMs: 60_000 });
    const lost = await db()
      .transaction()
      .execute((tx) =>
        deliveries.insertExportDelivery(tx, {
          teamId: owner.teamId,
          exportId: randomUUID(),
          url: receiver.url('/swept'),
          action: 'export/failed',
          data: {},
        }),
      );
    const recent = await db()
      .transaction()
      .execute((tx) =>
        deliveries.insertExportDelivery(tx, {
          teamId: owner.teamId,
          exportId: randomUUID(),
          url: receiver.url('/not-yet'),
          action: 'export/failed',
          data: {},
        }),
      );
    const threeMinutesAgo = new Date(Date.now() - 180_000).toISOString();
    await db()
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: threeMinutesAgo })
      .where('id', '=', lost)
      .execute();

    deliveries.start();
    assert.equal((await settled(lost)).status, 'succeeded');
    const swept = enqueued.filter((e) => (e.payload as { deliveryId: string }).deliveryId === lost);
    assert.deepEqual(
      swept.map((e) => e.options.jobId),
      [`delivery:${lost}`],
    );
    // Less than 2 minutes late: its job may simply be waiting, so the sweep leaves it alone.
    assert.equal(enqueued.filter((e) => (e.payload as { deliveryId: string }).deliveryId === recent).length, 0);
    await deliveries.stop();
    // Settled so that idle() of later tests does not wait for it.
    await repo().markFailed(recent, new Date().toISOString());
  });

  test('the dispatcher loop picks up events without a kick; idle() waits until nothing is due', async () => {
    const owner = await team('Loop');
    await webhook(owner, receiver.url('/loop'), [12]);
    const { deliveries } = setup({ dispatchIntervalMs: 20 });
    deliveries.start();
    await recordEvent(db(), { teamId: owner.teamId, action: 'designVersion/create', data: {} });
    await waitFor('the loop to dispatch', async () => (await deliveriesOf(owner.teamId)).length === 1);
    await deliveries.idle();
    const [row] = await deliveriesOf(owner.teamId);
    assert.equal(row.status, 'succeeded');
    await deliveries.stop();
  });

  test('onExhausted gives up a delivery still pending (its process died during the last attempt)', async () => {
    const owner = await team('Died');
    const { deliveries, registered, outcomes } = setup();
    const id = await db()
      .transaction()
      .execute((tx) =>
        deliveries.insertExportDelivery(tx, {
          teamId: owner.teamId,
          exportId: randomUUID(),
          url: receiver.url('/died'),
          action: 'export/complete',
          data: {},
        }),
      );
    const onExhausted = registered.get('webhook.deliver')?.options.onExhausted;
    const job: Job<'webhook.deliver'> = {
      id: `delivery:${id}`,
      kind: 'webhook.deliver',
      payload: { deliveryId: id },
      attempt: 4,
      maxAttempts: 4,
    };
    await onExhausted?.(job, new Error('interrupted'));
    assert.equal((await repo().find(id))?.status, 'failed');
    // Settled already: a second call changes nothing and reports nothing.
    await onExhausted?.(job, new Error('interrupted'));
    assert.deepEqual(outcomes, ['failed']);
  });
});
