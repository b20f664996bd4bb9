// Prometheus metrics (SPEC §12). One registry per app instance so that tests can build many apps in one process.
import client from 'prom-client';
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
  return { registry, httpDuration };
}

export type Metrics = ReturnType<typeof createMetrics>;

export function metricsPlugin(app: App, { metrics }: { metrics: Metrics }) {
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: ids in paths must not explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}
