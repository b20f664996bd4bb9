import type { DeliveryService } from '../../services/delivery.service.js';
import type { WebhookService } from '../../services/webhook.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import {
  CreateWebhookBody,
  DeleteWebhookBody,
  DeliveryParams,
  DeliveryResponse,
  ListDeliveriesQuery,
  ListDeliveriesResponse,
  ListWebhookActionsResponse,
  ListWebhooksResponse,
  UpdateWebhookBody,
  WebhookResponse,
  WebhookSecretResponse,
} from '../schemas/webhooks.js';
import type { App } from '../types.js';

const tags = ['Team webhooks'];

export function webhooksRoutes(
  app: App,
  { webhooks, deliveries }: { webhooks: WebhookService; deliveries: DeliveryService },
) {
  app.get('/v1/webhooks', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'List the webhooks of the team',
      response: { 200: ListWebhooksResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN') },
    },
    handler: async (request) => ({ response: await webhooks.list(actorOf(request)) }),
  });

  app.post('/v1/webhooks', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Create a webhook',
      description:
        'Deliveries are signed as Standard Webhooks do it (webhook-id, webhook-timestamp, webhook-signature) with ' +
        'the secret of GET /v1/webhooks/secret, and retried with backoff for about 8 hours.',
      body: CreateWebhookBody,
      response: {
        200: WebhookResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', ...POST_ERRORS, 'UNPROCESSABLE'),
      },
    },
    handler: async (request) => ({ response: await webhooks.create(actorOf(request), request.body) }),
  });

  app.put('/v1/webhooks', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Update a webhook',
      body: UpdateWebhookBody,
      response: {
        200: WebhookResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'UNPROCESSABLE'),
      },
    },
    handler: async (request) => ({ response: await webhooks.update(actorOf(request), request.body) }),
  });

  app.delete('/v1/webhooks', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Delete a webhook',
      body: DeleteWebhookBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request) => {
      await webhooks.delete(actorOf(request), request.body.webhookId);
      return { response: { status: 'success' as const } };
    },
  });

  app.get('/v1/webhookActions', {
    // The catalogue is the same for every team and says nothing about the team's webhooks.
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the actions a webhook can subscribe to',
      description: 'Extension.',
      response: { 200: ListWebhookActionsResponse, ...errors(...AUTHED_ERRORS) },
    },
    handler: async () => ({ response: webhooks.actions() }),
  });

  app.get('/v1/webhooks/secret', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'The signing secret of the team webhooks',
      description: 'Extension.',
      response: { 200: WebhookSecretResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN') },
    },
    handler: async (request) => ({ response: await webhooks.secret(actorOf(request)) }),
  });

  app.post('/v1/webhooks/secret/rotate', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Replace the signing secret of the team webhooks',
      description: 'Extension. Deliveries made after the rotation are signed with the new secret only.',
      response: { 200: WebhookSecretResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', ...POST_ERRORS) },
    },
    handler: async (request) => ({ response: await webhooks.rotateSecret(actorOf(request)) }),
  });

  app.get('/v1/webhooks/deliveries', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'List webhook deliveries and their attempts',
      description:
        'Extension. Covers team webhooks and the webhookUrl of export requests. Default order: CREATED_AT DESC; ' +
        'NAME orders by action.',
      querystring: ListDeliveriesQuery,
      response: {
        200: ListDeliveriesResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'INVALID_CURSOR'),
      },
    },
    handler: async (request) => ({ response: await deliveries.list(actorOf(request), request.query) }),
  });

  app.post('/v1/webhooks/deliveries/:id/redeliver', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Deliver a delivery again',
      description: 'Extension. Schedules one more attempt at once, with the same payload and webhook-id.',
      params: DeliveryParams,
      response: {
        200: DeliveryResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS),
      },
    },
    handler: async (request) => ({ response: await deliveries.redeliver(actorOf(request), request.params.id) }),
  });
}
