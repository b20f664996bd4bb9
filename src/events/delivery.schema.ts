// A webhook delivery as GET /v1/webhook-deliveries answers it (SPEC §8). It lives with the deliveries that present it;
// http/schemas/webhooks.ts re-exports it for the routes and the OpenAPI document.
import { Type } from 'typebox';
import { Nullable, Timestamp } from '../domain/schema-primitives.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

export const DeliveryAttempt = Type.Object({
  attemptedAt: Timestamp,
  statusCode: Nullable(Type.Integer({ description: 'HTTP status of the answer; null on a network error' })),
  error: Nullable(Type.String({ description: 'Network error or timeout' })),
  durationMs: Type.Integer({ minimum: 0 }),
});

export const Delivery = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Also the webhook-id header and the id of the payload' }),
  webhookId: Nullable(Type.Integer({ description: 'null for the webhookUrl of an export request' })),
  action: Type.String({ description: 'e.g. export/complete' }),
  url: Type.String(),
  status: Type.Enum([...DELIVERY_STATUSES], {
    description:
      'pending while a (re)try is scheduled, succeeded on a 2xx, failed once retries are given up, cancelled when its webhook was deleted or given another URL',
  }),
  attempts: Type.Array(DeliveryAttempt),
  nextAttemptAt: Nullable(Timestamp),
  createdAt: Timestamp,
});
