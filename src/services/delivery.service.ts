// The record of webhook deliveries (SPEC §8 extension): the team's deliveries with their attempts, newest first, and
// redelivery of one. Another team's delivery does not exist for the caller.

import type { Actor } from '../domain/actor.js';
import { encodeCursor, type PageQuery, pageRequest } from '../domain/page.js';
import { AppError } from '../errors.js';
import { presentDelivery, type WebhookDeliveries } from '../events/deliveries.js';
import type {
  DeliveryFilters,
  DeliveryRepository,
  DeliveryStatus,
} from '../storage/db/repositories/deliveries.repository.js';

export interface DeliveryServiceDeps {
  deliveries: Pick<DeliveryRepository, 'list' | 'attemptsOf'>;
  webhookDeliveries: Pick<WebhookDeliveries, 'redeliver'>;
}

export interface ListDeliveriesQuery extends PageQuery {
  webhookId?: number;
  status?: DeliveryStatus;
}

const BAD_CURSOR = 'cursor: is not a cursor issued by this API; pass the endCursor of the previous page';

/**
 * Delivery ids are UUIDs while the shared cursor carries a numeric id, so the position travels in the key as
 * `[sortKey, id]`. The page is requested as CREATED_AT (a text key) with the real order among the filters, which
 * still binds a cursor to its query.
 */
function deliveryPage(query: ListDeliveriesQuery, filters: DeliveryFilters) {
  const orderBy = query.orderBy ?? 'CREATED_AT';
  const page = pageRequest(
    { ...query, orderBy: 'CREATED_AT' },
    { ...filters, orderBy },
    { orderBy: 'CREATED_AT', direction: 'DESC' },
  );
  let after: { key: string; id: string } | null = null;
  if (page.after) {
    let position: unknown;
    try {
      position = JSON.parse(String(page.after.key));
    } catch {
      throw new AppError('INVALID_CURSOR', BAD_CURSOR);
    }
    if (
      !Array.isArray(position) ||
      position.length !== 2 ||
      typeof position[0] !== 'string' ||
      typeof position[1] !== 'string'
    ) {
      throw new AppError('INVALID_CURSOR', BAD_CURSOR);
    }
    after = { key: position[0], id: position[1] };
  }
  return { ...page, orderBy, after };
}

export function createDeliveryService({ deliveries, webhookDeliveries }: DeliveryServiceDeps) {
  return {
    async list(actor: Actor, query: ListDeliveriesQuery) {
      const filters: DeliveryFilters = { webhookId: query.webhookId, status: query.status };
      const page = deliveryPage(query, filters);
      const result = await deliveries.list(actor.teamId, filters, page);
      const last = result.rows.at(-1);
      return {
        totalCount: result.totalCount,
        nodes: result.rows.map((row) => presentDelivery(row, result.attempts)),
        pageInfo: {
          hasNextPage: result.hasNextPage,
          endCursor: last ? encodeCursor(page.fingerprint, JSON.stringify([result.lastKey, last.id]), 0) : '',
        },
      };
    },

    async redeliver(actor: Actor, id: string) {
      const row = await webhookDeliveries.redeliver(actor.teamId, id);
      if (!row) throw new AppError('NOT_FOUND', `id: no webhook delivery ${id} in this team`);
      return { delivery: presentDelivery(row, await deliveries.attemptsOf([row.id])) };
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
