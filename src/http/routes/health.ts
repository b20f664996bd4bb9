// Liveness, readiness and metrics; no authentication, no rate limit (load balancers and Prometheus poll them).
import { Type } from 'typebox';
import type { Metrics } from '../plugins/metrics.js';
import type { App } from '../types.js';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

/**
 * A dependency that does not answer within this time is down for readiness: a Redis client that retries its
 * connection held /readyz for 15 s, longer than any load balancer waits.
 */
export const READINESS_TIMEOUT_MS = 1000;

function withinLimit(check: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
  });
  return Promise.race([check(), limit]).finally(() => clearTimeout(timer));
}

export function healthRoutes(app: App, deps: { checks: ReadinessCheck[]; metrics: Metrics; isClosing: () => boolean }) {
  const tags = ['Operations'];
  app.get('/healthz', {
    config: { public: true },
    schema: { tags, summary: 'The process is alive', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  const Readiness = Type.Object({
    status: Type.String({ enum: ['ready', 'unavailable'] }),
    checks: Type.Record(
      Type.String(),
      Type.String({ description: '"ok" or the reason the dependency is unreachable' }),
    ),
  });
  app.get('/readyz', {
    config: { public: true },
    schema: { tags, summary: 'Every dependency is reachable', response: { 200: Readiness, 503: Readiness } },
    handler: async (_request, reply) => {
      const checks: Record<string, string> = {};
      await Promise.all(
        deps.checks.map(async ({ name, check }) => {
          try {
            await withinLimit(check);
            checks[name] = 'ok';
          } catch (error) {
            // The reason goes to the log; the public answer says only which dependency is down.
            _request.log.warn({ err: error, dependency: name }, 'readiness check failed');
            checks[name] = 'unreachable';
          }
        }),
      );
      if (deps.isClosing()) checks.process = 'shutting down';
      const ready = Object.values(checks).every((v) => v === 'ok');
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
    },
  });

  app.get('/metrics', {
    config: { public: true },
    schema: { tags, summary: 'Prometheus metrics', hide: true },
    handler: async (_request, reply) => {
      reply.header('content-type', deps.metrics.registry.contentType);
      return deps.metrics.registry.metrics();
    },
  });
}
