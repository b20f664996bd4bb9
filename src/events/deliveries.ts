// Webhook deliveries (SPEC §8): the dispatcher turns each outbox event into one delivery per subscribed team webhook
// in the transaction that marks the event dispatched; a `webhook.deliver` job POSTs each delivery, signed as Standard
// Webhooks does, through the SSRF guard, and the queue retries it with backoff until a 2xx or the last attempt.
// Deliveries are rows, so a crash loses nothing: the sweep enqueues again what a crash left without a job.
import { randomBytes, randomUUID } from 'node:crypto';
import type { MessagePort } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import { ALLOWED_PRIVATE_HOSTS_SETTING } from '../config.js';
import { type EnqueueOptions, type Job, type JobQueue, retryDelayAfter } from '../jobs/job-queue.js';
import { createUrlGuard, forbiddenAddressReason, privateAllowance, type UrlGuard } from '../net/url-guard.js';
import { TopicCache } from '../storage/db/invalidation.js';
import {
  createDeliveryRepository,
  type DeliveryAttemptRow,
  type DeliveryRepository,
  type DeliveryRow,
  type DeliveryStatus,
  type ExportFinish,
  type NewDelivery,
  type OutboxEvent,
} from '../storage/db/repositories/deliveries.repository.js';
import { createWebhookRepository } from '../storage/db/repositories/webhooks.repository.js';
import type { Database } from '../storage/db/schema.js';
import { type ActionName, WEBHOOK_ACTIONS } from './catalogue.js';
import type { Delivery } from './delivery.schema.js';
import { type EventPayload, eventPayload, type NewEvent, recordEvent } from './outbox.js';
import { type AttemptResult, createWebhookCaller } from './webhook-call.js';
import { startWebhookThread } from './webhook-thread.js';

export type DeliveryNode = Static<typeof Delivery>;
export type DeliveryOutcome = 'succeeded' | 'retried' | 'failed';

/** About 10 s, 1 min, 5 min, 30 min, 2 h, 6 h (SPEC §8): seven attempts over about 8.5 hours. */
export const DEFAULT_DELIVERY_RETRY_DELAYS_MS: readonly number[] = [
  10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000,
];

/** The sweep leaves alone what is less late than this: a job waiting out its jitter is not lost. */
const OVERDUE_MS = 120_000;
/**
 * A delivery never tried this long after it was due (past the attempt's time limit) lost the process that was making
 * its first attempt in process: the sweep gives it a job. A job that holds it already is not run twice (same job id).
 */
const UNTRIED_GRACE_MS = 20_000;
const BATCH = 100;
/** An event whose dispatch failed (it stays pending) is tried again after this. */
const DISPATCH_RETRY_MS = 60_000;

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes (the HMAC-SHA256 key). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Why `url` can never receive a delivery, judged without DNS (request time): not http(s), or a host that is literally
 * a private, loopback or link-local address or localhost. Null when it may be tried; the guard checks the resolved
 * addresses again at each attempt.
 */
export function webhookUrlProblem(
  url: string,
  allowPrivateUrls: boolean,
  allowedPrivateHosts: readonly string[] = [],
): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `uses ${parsed.protocol.replace(/:$/, '')}; webhooks are POSTed to http:// or https:// URLs only`;
  }
  if (allowPrivateUrls) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (privateAllowance(allowedPrivateHosts)(host, host)) return null;
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return `points at ${host}, a loopback host name; webhooks must reach a public address (or a host listed in ${ALLOWED_PRIVATE_HOSTS_SETTING})`;
  }
  const reason = forbiddenAddressReason(host);
  // 'not an IP address' means a host name: only its resolution can tell, at delivery time.
  if (reason && reason !== 'not an IP address') {
    return `points at ${host}, ${reason}; webhooks must reach a public address (or a host listed in ${ALLOWED_PRIVATE_HOSTS_SETTING})`;
  }
  return null;
}

/** A delivery as GET /v1/webhooks/deliveries shows it. */
export function presentDelivery(row: DeliveryRow, attempts: readonly DeliveryAttemptRow[]): DeliveryNode {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    action: row.action,
    url: row.url,
    status: row.status as DeliveryStatus,
    attempts: attempts
      .filter((a) => a.delivery_id === row.id)
      .map((a) => ({
        attemptedAt: a.attempted_at,
        statusCode: a.status_code,
        error: a.error,
        durationMs: a.duration_ms,
      })),
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
  };
}

export interface DeliveriesLog {
  error(details: object, message: string): void;
}

export interface WebhookDeliveriesOptions {
  db: Kysely<Database>;
  queue: Pick<JobQueue, 'enqueue' | 'process'>;
  /** Let deliveries reach private, loopback and link-local addresses (PLACARD_ALLOW_PRIVATE_URLS, tests). */
  allowPrivateUrls: boolean;
  /** PLACARD_ALLOWED_PRIVATE_HOSTS. Default: none. */
  allowedPrivateHosts?: readonly string[];
  /** Waits before the 2nd, 3rd… attempt; attempts in all are one more. Default DEFAULT_DELIVERY_RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
  /** One attempt, from DNS to the end of the answer's head. Default 10 000 ms. */
  timeoutMs?: number;
  /** How often the outbox is polled for due events besides kick(). Default 1 000 ms. */
  dispatchIntervalMs?: number;
  /**
   * How often pending deliveries that are overdue by 2 minutes, or never tried and older than the attempt's time
   * limit and 20 s, are enqueued again. Default 15 000 ms.
   */
  sweepIntervalMs?: number;
  /** Jobs of deliveries run at once in this process. Default 8. */
  concurrency?: number;
  /** Clock in milliseconds. Default Date.now. */
  now?: () => number;
  /** Called once per attempt that settles or reschedules a delivery (the webhook_deliveries metric). */
  onOutcome?: (outcome: DeliveryOutcome) => void;
  log?: DeliveriesLog;
  /** The SSRF guard. Default: createUrlGuard({ allowPrivateUrls }). */
  guard?: UrlGuard;
  /**
   * Make the calls on a thread of their own (webhook-thread.ts; the service does), started on the first call. Not
   * with `guard`, which stays in this process. Default false: in this process.
   */
  thread?: boolean;
  /**
   * With `thread`, on SQLite: links the database's thread to the webhook thread (the dialect's `link`), so that an
   * export's finish hands its first attempts to the webhook thread as it commits, without a round trip through the
   * event loop (issue 21, stop 37).
   */
  linkDatabase?: (port: MessagePort) => void;
}

export interface ExportDelivery {
  teamId: number;
  exportId: string;
  url: string;
  action: ActionName;
  /** JSON-serialisable: `data` of the payload (`{ export }`). */
  data: Record<string, unknown>;
}

export interface WebhookDeliveries {
  /** Registers the `webhook.deliver` handler; call before the queue starts. */
  register(): void;
  /** Starts the outbox dispatcher and the sweep (and runs each once at once). */
  start(): void;
  /** Stops both and waits for a dispatch or sweep under way; jobs belong to the queue. */
  stop(): Promise<void>;
  /** Dispatches due outbox events now (call after committing events); resolves when that pass is done. */
  kick(): Promise<void>;
  /** Inserts a delivery to an export's webhookUrl in the caller's transaction; enqueue its id after the commit. */
  insertExportDelivery(tx: Kysely<Database>, delivery: ExportDelivery): Promise<string>;
  /**
   * Inserts a delivery to an export's webhookUrl on its own (one statement) and hands it to `send`: a cached export's
   * webhook is called as a rendered one's is, with no job unless its first attempt fails.
   */
  deliverExport(delivery: ExportDelivery): Promise<void>;
  /**
   * Records an event in the caller's transaction together with its deliveries: one per team webhook that listens to
   * it, and one to `webhookUrl` when given (an export's). The event is stored dispatched, so the outbox dispatcher
   * never reads it (issue 21: three statements and a pass less per export). Hand the answer to `send` after the
   * commit.
   */
  recordWithDeliveries(
    tx: Kysely<Database>,
    event: NewEvent,
    target?: { exportId: string; webhookUrl: string | null },
  ): Promise<NewDelivery[]>;
  /**
   * Sets an export's final status (only while it is unsettled) with its event and the event's deliveries, as
   * recordWithDeliveries writes them; null, and nothing written, when another run finished the export first. On
   * PostgreSQL one statement (issue 21). Hand the answer to `send`: the deliveries whose first attempts are still to
   * be made (on SQLite with `linkDatabase`, those of the finish went to the webhook thread as it committed).
   */
  finishExport(
    finish: ExportFinish,
    event: NewEvent,
    target: { exportId: string; webhookUrl: string | null },
  ): Promise<NewDelivery[] | null>;
  /**
   * Makes the first attempt of deliveries just committed, in this process and without a job while fewer than
   * `concurrency` are under way (a job for each of the others). An attempt that fails gets its retries as jobs; a
   * crash before an attempt is recorded leaves a pending delivery that the sweep enqueues. A process that does not
   * run the deliveries (not started: an API process of the scaled-out shape) enqueues them all.
   */
  send(rows: readonly NewDelivery[]): void;
  /** Enqueues the first attempt of these deliveries (after the commit that inserted them). */
  enqueue(ids: readonly string[]): Promise<void>;
  /** Pending again with one attempt at once; undefined when the team has no such delivery. */
  redeliver(teamId: number, id: string): Promise<DeliveryRow | undefined>;
  /** Resolves once no outbox event and no delivery is pending and due (tests). */
  idle(): Promise<void>;
}

/** A call made by another thread (`callsAhead`): when it was handed over, and its outcome. */
interface MadeCall {
  started: number;
  startedAt: number;
  result: Promise<AttemptResult>;
}

/** The attempt failed; thrown so that the queue retries the job. */
export class DeliveryAttemptFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryAttemptFailed';
  }
}

export function createWebhookDeliveries(options: WebhookDeliveriesOptions): WebhookDeliveries {
  const { db, queue } = options;
  const delays = options.retryDelaysMs ?? DEFAULT_DELIVERY_RETRY_DELAYS_MS;
  const maxAttempts = delays.length + 1;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.now ?? Date.now;
  const guard =
    options.guard ??
    createUrlGuard({
      allowPrivateUrls: options.allowPrivateUrls,
      allowedPrivateHosts: options.allowedPrivateHosts,
    });
  const callHere = createWebhookCaller(guard, timeoutMs);
  // The calls go to a thread of their own (webhook-thread.ts), which builds the same guard from the same settings; a
  // guard given here (the tests' fake DNS) cannot go there, and its calls are made in this process.
  const webhookThread =
    options.thread && !options.guard
      ? startWebhookThread(
          {
            allowPrivateUrls: options.allowPrivateUrls,
            allowedPrivateHosts: options.allowedPrivateHosts ?? [],
            timeoutMs,
          },
          options.linkDatabase,
        )
      : null;
  const repo = createDeliveryRepository(db);
  const webhooks = createWebhookRepository(db);
  const iso = (ms: number) => new Date(ms).toISOString();
  // Read for every export's event and every attempt, changed by hand a few times a year: kept per process until a
  // webhook, its actions or the secret change (storage/db/invalidation.ts), so a rotation or a new subscriber still
  // applies from the next event on (issue 21: two statements per export).
  const secrets = new TopicCache<number, string>('webhooks', { max: 10_000, ttlMs: 10 * 60_000 });
  const subscribed = new TopicCache<string, Array<{ id: number; url: string }>>('webhooks', {
    max: 10_000,
    ttlMs: 10 * 60_000,
  });

  let stopped = false;
  // Set by start(): a process that never starts the deliveries (the scaled-out shape's API) gives first attempts to
  // the queue rather than making them itself.
  let firstAttemptsHere = false;
  let dispatchTimer: NodeJS.Timeout | null = null;
  let sweepTimer: NodeJS.Timeout | null = null;
  let dispatching: Promise<void> = Promise.resolve();
  let queuedPass: Promise<void> | null = null;
  let sweeping: Promise<void> = Promise.resolve();

  /** Deliveries whose first attempt runs in this process now (the sweep leaves them alone). */
  const sending = new Map<string, Promise<void>>();
  const concurrency = options.concurrency ?? 8;

  /** A delivery that has used `done` attempts gets the attempts and waits it has left. */
  function jobOptions(id: string, done = 0): EnqueueOptions {
    return {
      jobId: `delivery:${id}`,
      maxAttempts: Math.max(1, maxAttempts - done),
      retryDelaysMs: done === 0 || delays.length === 0 ? delays : delays.slice(Math.min(done, delays.length - 1)),
    };
  }

  async function enqueueFirst(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await queue.enqueue('webhook.deliver', { deliveryId: id }, jobOptions(id));
    }
  }

  /**
   * Claims the event and inserts a delivery per hook in one transaction; returns their ids (none if not claimed).
   * The subscribers were read before the claim (cached, as for an export's event): an event no webhook of the team
   * listens to (most of them) is claimed with the others of its pass instead (dispatchPass).
   */
  async function dispatchEvent(event: OutboxEvent, hooks: Array<{ id: number; url: string }>): Promise<string[]> {
    return db.transaction().execute(async (tx) => {
      const txRepo = createDeliveryRepository(tx);
      if (!(await txRepo.claimEvent(event.id))) return [];
      const payload = JSON.parse(event.payload) as Record<string, unknown>;
      const at = iso(clock());
      const rows: NewDelivery[] = hooks.map((hook) => {
        const id = randomUUID();
        return {
          id,
          teamId: event.team_id,
          webhookId: hook.id,
          eventId: event.id,
          exportId: null,
          action: event.action,
          url: hook.url,
          // Spreading keeps `id` first: the receiver sees the payload of SPEC §8 with the delivery's id.
          payload: JSON.stringify({ ...payload, id }),
          at,
        };
      });
      await txRepo.insert(rows);
      return rows.map((r) => r.id);
    });
  }

  async function dispatchPass(): Promise<void> {
    for (;;) {
      const events = await repo.dueEvents(iso(clock()), BATCH);
      // Events that no webhook of their team listens to: claimed together after the loop, in one statement (issue
      // 21: two statements per event under load, when a pass finds several).
      const unheard: string[] = [];
      for (const event of events) {
        let ids: string[];
        try {
          const hooks = await subscribersOf(event.team_id, event.action, repo);
          if (hooks.length === 0) {
            unheard.push(event.id);
            continue;
          }
          ids = await dispatchEvent(event, hooks);
        } catch (error) {
          options.log?.error({ err: error, eventId: event.id }, 'webhook deliveries: dispatching an event failed');
          // Postponed so that one bad event cannot keep the loop from the others.
          await repo.postponeEvent(event.id, iso(clock() + DISPATCH_RETRY_MS)).catch(() => undefined);
          continue;
        }
        // A failed enqueue is found again by the sweep: the deliveries are committed and pending.
        await enqueueFirst(ids).catch((error) =>
          options.log?.error({ err: error, eventId: event.id }, 'webhook deliveries: enqueueing failed'),
        );
      }
      // A failure leaves them pending for the next pass (the poll), rather than this loop reading them again.
      if (unheard.length > 0) await repo.claimEvents(unheard);
      if (events.length < BATCH) return;
    }
  }

  function kick(): Promise<void> {
    if (stopped) return dispatching;
    if (queuedPass) return queuedPass;
    const pass = dispatching.then(async () => {
      queuedPass = null;
      await dispatchPass().catch((error) =>
        options.log?.error({ err: error }, 'webhook deliveries: reading the outbox failed'),
      );
    });
    queuedPass = pass;
    dispatching = pass;
    return pass;
  }

  async function sweep(): Promise<void> {
    const rows = await repo.overdue(iso(clock() - OVERDUE_MS), 500, iso(clock() - timeoutMs - UNTRIED_GRACE_MS));
    for (const row of rows) {
      if (sending.has(row.id)) continue; // its first attempt is under way here
      // The same job id as the first enqueue: a job the queue still holds is not run twice.
      await queue.enqueue('webhook.deliver', { deliveryId: row.id }, jobOptions(row.id, row.attempt_count));
    }
  }

  function runSweep(): void {
    if (stopped) return;
    sweeping = sweeping.then(() =>
      sweep().catch((error) => options.log?.error({ err: error }, 'webhook deliveries: the sweep failed')),
    );
  }

  function secretOf(teamId: number): Promise<string> {
    return secrets.get(teamId, async () => {
      const row = (await webhooks.findSecret(teamId)) ?? (await webhooks.ensureSecret(teamId, newSigningSecret()));
      return row.secret;
    });
  }

  async function post(row: Pick<DeliveryRow, 'id' | 'url' | 'payload'>, secret: string): Promise<AttemptResult> {
    const call = { id: row.id, url: row.url, payload: row.payload, secret, timestamp: Math.floor(clock() / 1000) };
    return webhookThread ? webhookThread.call(call) : callHere(call);
  }

  async function deliver(job: Job<'webhook.deliver'>): Promise<void> {
    const row = await repo.find(job.payload.deliveryId);
    // Settled already (or gone with its team): a duplicate or late job has nothing to do.
    if (row?.status !== 'pending') return;
    const failure = await attempt(row, job.attempt >= job.maxAttempts);
    if (failure) throw failure;
  }

  /**
   * One attempt at a pending delivery: POSTs it, records the attempt, and settles the delivery or records when the
   * next attempt is due. Answers the failure that a later attempt should follow; null when the delivery is settled.
   */
  async function attempt(
    row: Pick<DeliveryRow, 'id' | 'team_id' | 'url' | 'payload'>,
    last: boolean,
    made?: MadeCall,
  ): Promise<DeliveryAttemptFailed | null> {
    const started = made?.started ?? clock();
    const startedAt = made?.startedAt ?? performance.now();
    const result = await (made?.result ?? secretOf(row.team_id).then((secret) => post(row, secret)));
    const succeeded = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const count = await repo.recordAttempt(
      {
        delivery_id: row.id,
        attempted_at: iso(started),
        status_code: result.statusCode,
        error: result.error,
        duration_ms: Math.max(0, Math.round(performance.now() - startedAt)),
      },
      succeeded ? iso(clock()) : undefined,
    );
    const at = iso(clock());
    if (succeeded) {
      options.onOutcome?.('succeeded');
      return null;
    }
    if (result.refused || last) {
      if (await repo.markFailed(row.id, at)) options.onOutcome?.('failed');
      return null;
    }
    await repo.scheduleRetry(row.id, iso(clock() + retryDelayAfter(count, delays)), at);
    options.onOutcome?.('retried');
    return new DeliveryAttemptFailed(
      result.statusCode === null
        ? `delivery ${row.id}: ${result.error}`
        : `delivery ${row.id}: the receiver answered ${result.statusCode}`,
    );
  }

  async function firstAttempt(row: NewDelivery, made?: MadeCall): Promise<void> {
    let failure: DeliveryAttemptFailed | null;
    try {
      failure = await attempt(
        { id: row.id, team_id: row.teamId, url: row.url, payload: row.payload },
        maxAttempts <= 1,
        made,
      );
    } catch (error) {
      // Not recorded (the database failed): a job makes the attempt again, as if it had never been made here.
      options.log?.error({ err: error, deliveryId: row.id }, 'webhook deliveries: a first attempt failed');
      await enqueueFirst([row.id]);
      return;
    }
    if (!failure) return;
    // The attempts left, as jobs; the first of them after the wait that scheduleRetry recorded.
    await queue.enqueue(
      'webhook.deliver',
      { deliveryId: row.id },
      { ...jobOptions(row.id, 1), delayMs: retryDelayAfter(1, delays) },
    );
  }

  /** The delivery of an export's event to its webhookUrl, as its own row (no event in the outbox). */
  function exportDelivery(delivery: ExportDelivery): NewDelivery {
    const id = randomUUID();
    const at = iso(clock());
    return {
      id,
      teamId: delivery.teamId,
      webhookId: null,
      eventId: null,
      exportId: delivery.exportId,
      action: delivery.action,
      url: delivery.url,
      payload: JSON.stringify({
        id,
        action: delivery.action,
        teamId: delivery.teamId,
        occurredAt: at,
        data: delivery.data,
      }),
      at,
    };
  }

  function send(rows: readonly NewDelivery[]): void {
    for (const row of rows) {
      if (!firstAttemptsHere || stopped || sending.size >= concurrency) {
        enqueueFirst([row.id]).catch((error) =>
          options.log?.error({ err: error, deliveryId: row.id }, 'webhook deliveries: enqueueing failed'),
        );
        continue;
      }
      const done = firstAttempt(row)
        .catch((error) =>
          options.log?.error({ err: error, deliveryId: row.id }, 'webhook deliveries: a first attempt failed'),
        )
        .finally(() => sending.delete(row.id));
      sending.set(row.id, done);
    }
  }

  /** The team webhooks listening to the action (cached per process, see `subscribed`). */
  async function subscribersOf(
    teamId: number,
    action: string,
    reader: DeliveryRepository,
  ): Promise<Array<{ id: number; url: string }>> {
    const def = WEBHOOK_ACTIONS.find((a) => a.name === action);
    return def ? subscribed.get(`${teamId}:${def.id}`, () => reader.subscribers(teamId, def.id)) : [];
  }

  /** One delivery per hook, as dispatchEvent makes them, and one to an export's webhookUrl when given. */
  function deliveriesOf(
    event: NewEvent,
    payload: EventPayload,
    hooks: ReadonlyArray<{ id: number; url: string }>,
    target?: { exportId: string; webhookUrl: string | null },
  ): NewDelivery[] {
    const rows: NewDelivery[] = hooks.map((hook) => {
      const id = randomUUID();
      return {
        id,
        teamId: event.teamId,
        webhookId: hook.id,
        eventId: payload.id,
        exportId: null,
        action: event.action,
        url: hook.url,
        // As dispatchEvent makes them: the event's payload with the delivery's id first.
        payload: JSON.stringify({ ...payload, id }),
        at: payload.occurredAt,
      };
    });
    if (target?.webhookUrl) {
      const id = randomUUID();
      rows.push({
        id,
        teamId: event.teamId,
        webhookId: null,
        eventId: null,
        exportId: target.exportId,
        action: event.action,
        url: target.webhookUrl,
        payload: JSON.stringify({
          id,
          action: event.action,
          teamId: event.teamId,
          occurredAt: payload.occurredAt,
          data: event.data,
        }),
        at: payload.occurredAt,
      });
    }
    return rows;
  }

  async function recordWithDeliveries(
    tx: Kysely<Database>,
    event: NewEvent,
    target?: { exportId: string; webhookUrl: string | null },
  ): Promise<NewDelivery[]> {
    const txRepo = createDeliveryRepository(tx);
    const hooks = await subscribersOf(event.teamId, event.action, txRepo);
    const payload = await recordEvent(tx, event, { dispatched: true });
    const rows = deliveriesOf(event, payload, hooks, target);
    // One statement for all of them.
    await txRepo.insert(rows);
    return rows;
  }

  async function finishExport(
    finish: ExportFinish,
    event: NewEvent,
    target: { exportId: string; webhookUrl: string | null },
  ): Promise<NewDelivery[] | null> {
    // Read before the write, as a cached read would be: a webhook created meanwhile gets the next event.
    const hooks = await subscribersOf(event.teamId, event.action, repo);
    const payload = eventPayload(event);
    const rows = deliveriesOf(event, payload, hooks, target);
    const ahead = await callsAhead(event.teamId, rows);
    let done: boolean | 'forwarded';
    try {
      done = await repo.finishExport(
        finish,
        {
          id: payload.id,
          teamId: payload.teamId,
          action: payload.action,
          payload: JSON.stringify(payload),
          occurredAt: payload.occurredAt,
        },
        rows,
        ahead?.message,
      );
    } catch (error) {
      ahead?.cancel();
      throw error;
    }
    if (done !== 'forwarded') ahead?.cancel();
    if (!done) return null;
    if (done !== 'forwarded' || !ahead) return rows;
    ahead.start();
    return [];
  }

  /**
   * The first attempts of an export's deliveries, made as the finish that inserts them commits: the SQLite thread
   * posts them to the webhook thread (webhook-thread.ts, `expect`), and the event loop no longer wakes to pass them on
   * (issue 21, stop 37). Their places among the first attempts under way here are taken now, so that a sweep leaves
   * them alone and stop() waits for them. Null when they go as usual, through `send` after the commit: no link, not
   * started, too many under way.
   */
  async function callsAhead(teamId: number, rows: readonly NewDelivery[]) {
    if (!webhookThread || !options.linkDatabase || rows.length === 0) return null;
    if (!firstAttemptsHere || stopped || sending.size + rows.length > concurrency) return null;
    const secret = await secretOf(teamId);
    // Checked again: other first attempts may have started while the secret was read.
    if (stopped || sending.size + rows.length > concurrency) return null;
    const timestamp = Math.floor(clock() / 1000);
    const expected = webhookThread.expect(
      rows.map((row) => ({ id: row.id, url: row.url, payload: row.payload, secret, timestamp })),
    );
    const started = clock();
    const startedAt = performance.now();
    const ends = rows.map((row) => {
      let end = () => {};
      sending.set(
        row.id,
        new Promise<void>((resolve) => {
          end = resolve;
        }),
      );
      return end;
    });
    const release = () => {
      for (const [i, row] of rows.entries()) {
        sending.delete(row.id);
        ends[i]();
      }
    };
    return {
      message: expected.message,
      cancel() {
        expected.cancel();
        release();
      },
      start() {
        for (const [i, row] of rows.entries()) {
          firstAttempt(row, { started, startedAt, result: expected.results[i] })
            .catch((error) =>
              options.log?.error({ err: error, deliveryId: row.id }, 'webhook deliveries: a first attempt failed'),
            )
            .finally(() => {
              sending.delete(row.id);
              ends[i]();
            });
        }
      },
    };
  }

  return {
    register() {
      queue.process('webhook.deliver', deliver, {
        concurrency,
        // Its process died during the last attempt, or the attempt could not be recorded.
        onExhausted: async (job) => {
          try {
            if (await repo.markFailed(job.payload.deliveryId, iso(clock()))) options.onOutcome?.('failed');
          } catch (error) {
            options.log?.error({ err: error, deliveryId: job.payload.deliveryId }, 'webhook deliveries: giving up');
          }
        },
      });
    },

    start() {
      stopped = false;
      firstAttemptsHere = true;
      void kick();
      runSweep();
      dispatchTimer = setInterval(() => void kick(), options.dispatchIntervalMs ?? 1_000);
      sweepTimer = setInterval(runSweep, options.sweepIntervalMs ?? 15_000);
      dispatchTimer.unref();
      sweepTimer.unref();
    },

    async stop() {
      stopped = true;
      if (dispatchTimer) clearInterval(dispatchTimer);
      if (sweepTimer) clearInterval(sweepTimer);
      dispatchTimer = null;
      sweepTimer = null;
      await Promise.all([dispatching, sweeping, ...sending.values()]);
      await webhookThread?.close();
    },

    kick,
    recordWithDeliveries,
    finishExport,
    send,

    async insertExportDelivery(tx, delivery) {
      const row = exportDelivery(delivery);
      await createDeliveryRepository(tx).insert([row]);
      return row.id;
    },

    async deliverExport(delivery) {
      const row = exportDelivery(delivery);
      await repo.insert([row]);
      send([row]);
    },

    enqueue: enqueueFirst,

    async redeliver(teamId, id) {
      const row = await repo.reopen(teamId, id, iso(clock()));
      if (!row) return undefined;
      // One attempt: a person asked for it and watches the list; the count keeps each redelivery its own job.
      await queue.enqueue(
        'webhook.deliver',
        { deliveryId: id },
        { jobId: `redeliver:${id}:${row.attempt_count}`, maxAttempts: 1 },
      );
      return row;
    },

    async idle() {
      for (;;) {
        await dispatching;
        const at = iso(clock());
        if (await repo.hasDueEvents(at)) await kick();
        else if (!(await repo.hasDue(at))) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}
