// Prometheus metrics (SPEC §12). One registry per app instance so that tests can build many apps in one process.
import client from 'prom-client';
import type { JobKind } from '../../jobs/job-queue.js';
import { roundTrips } from '../../storage/round-trips.js';
import type { App } from '../types.js';

export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'placard_' });
  const httpDuration = new client.Histogram({
    name: 'placard_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const exportRequests = new client.Counter({
    name: 'placard_export_requests_total',
    help: 'Accepted export requests by type, and whether the cache answered them',
    labelNames: ['type', 'cache'] as const,
    registers: [registry],
  });
  const exportsFinished = new client.Counter({
    name: 'placard_exports_total',
    help: 'Exports that reached a final status, by type and status',
    labelNames: ['type', 'status'] as const,
    registers: [registry],
  });
  const renderSeconds = new client.Histogram({
    name: 'placard_render_seconds',
    help: 'Time to render one export file on a render thread, by format',
    labelNames: ['format'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const webhookDeliveries = new client.Counter({
    name: 'placard_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retried, failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const renderUrlRequests = new client.Counter({
    name: 'placard_render_url_requests_total',
    help: 'Render URL requests by outcome (hit, miss, refused) and what answered (etag, memory, store, render, or the refusal status)',
    labelNames: ['outcome', 'source'] as const,
    registers: [registry],
  });
  return {
    registry,
    httpDuration,
    exportRequests,
    exportsFinished,
    renderSeconds,
    webhookDeliveries,
    renderUrlRequests,
  };
}

/** Jobs waiting or running per kind, read from the queue when Prometheus scrapes. */
export function queueDepthGauge(
  metrics: Metrics,
  depth: (kind: JobKind) => Promise<number>,
  kinds: readonly JobKind[],
): void {
  new client.Gauge({
    name: 'placard_queue_depth',
    help: 'Jobs waiting or running, by kind',
    labelNames: ['kind'] as const,
    registers: [metrics.registry],
    async collect() {
      const depths = await Promise.all(kinds.map((kind) => depth(kind)));
      for (const [i, kind] of kinds.entries()) this.set({ kind }, depths[i]);
    },
  });
}

/**
 * The export queue's expected wait (issue 14): seconds to render every export file waiting or rendering, and the
 * render rate it is estimated from (files finished per second over the last minute). NaN while too few files
 * finished in the last minute to tell. Read from the database and the queue when Prometheus scrapes.
 */
export function exportWaitGauges(
  metrics: Metrics,
  wait: { drainMs(): Promise<number | null>; ratePerMs(): Promise<number | null> },
): void {
  new client.Gauge({
    name: 'placard_export_expected_wait_seconds',
    help: 'Seconds to render every export file waiting or rendering, at the render rate of the last minute',
    registers: [metrics.registry],
    async collect() {
      const ms = await wait.drainMs();
      this.set(ms === null ? Number.NaN : ms / 1000);
    },
  });
  new client.Gauge({
    name: 'placard_export_render_rate',
    help: 'Export files finished per second over the last minute',
    registers: [metrics.registry],
    async collect() {
      const perMs = await wait.ratePerMs();
      this.set(perMs === null ? Number.NaN : perMs * 1000);
    },
  });
}

/** SQL statements the process has sent (issue 21: statements per export are a budget, see docs/decisions.md). */
export function sqlStatementsCounter(metrics: Metrics, statements: () => number): void {
  new client.Counter({
    name: 'placard_sql_statements_total',
    help: 'SQL statements sent to the database, transaction begin and commit included',
    registers: [metrics.registry],
    collect() {
      this.reset();
      this.inc(statements());
    },
  });
}

/** Process-wide counters read when scraped: another app in the same process (tests) sees the same totals. */
function tierCounter(registry: client.Registry, name: string, help: string, read: () => number) {
  new client.Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** Redis and object store round trips of the process (issue 21: where an export's time goes, scaled out). */
export function roundTripCounters(metrics: Metrics): void {
  const { redis, s3 } = roundTrips;
  const { registry } = metrics;
  tierCounter(
    registry,
    'placard_redis_commands_total',
    'Redis commands sent, blocking waits excluded',
    () => redis.requests,
  );
  tierCounter(
    registry,
    'placard_redis_round_trips_total',
    'Redis round trips (a pipeline or MULTI is one)',
    () => redis.roundTrips,
  );
  tierCounter(
    registry,
    'placard_redis_seconds_total',
    'Seconds waited for Redis answers, summed over round trips',
    () => redis.ms / 1000,
  );
  tierCounter(registry, 'placard_s3_requests_total', 'Object store HTTP requests, retries included', () => s3.requests);
  tierCounter(
    registry,
    'placard_s3_seconds_total',
    'Seconds waited for object store answers, summed',
    () => s3.ms / 1000,
  );
}

export type Metrics = ReturnType<typeof createMetrics>;

export function metricsPlugin(app: App, { metrics }: { metrics: Metrics }) {
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids in paths must not explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
