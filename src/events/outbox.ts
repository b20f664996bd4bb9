// Recording an event: one pending row in the outbox per event, with the payload of SPEC §8 already built, so that
// deliveries (signing, retries, fan-out to the team's webhooks) can happen later and survive a restart.
// Pass the transaction of the change being reported when there is one: then the event exists if and only if the
// change committed.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { now } from '../storage/db/database.js';
import { createEventRepository } from '../storage/db/repositories/events.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { ActionName } from './catalogue.js';

/** What a webhook receives (SPEC §8). `data` holds the objects of the event under their resource names. */
export interface EventPayload {
  /** UUID of the event; also the `webhook-id` header of its deliveries. */
  id: string;
  action: ActionName;
  teamId: number;
  occurredAt: string;
  data: Record<string, unknown>;
}

export interface NewEvent {
  teamId: number;
  action: ActionName;
  /** JSON-serialisable: it is stored as text and sent as is. */
  data: Record<string, unknown>;
}

/** The event's payload, occurring now, with a new id. */
export function eventPayload(event: NewEvent): EventPayload {
  return {
    id: randomUUID(),
    action: event.action,
    teamId: event.teamId,
    occurredAt: now(),
    data: event.data,
  };
}

/** As recordEvent, the insert not run: for a statement that writes the event with other rows (issue 21). */
export function eventStatement(db: Kysely<Database>, event: NewEvent) {
  const payload = eventPayload(event);
  const statement = createEventRepository(db).insertStatement({
    id: payload.id,
    teamId: payload.teamId,
    action: payload.action,
    payload: JSON.stringify(payload),
    occurredAt: payload.occurredAt,
  });
  return { payload, statement };
}

/**
 * Writes the event to the outbox as a pending row due at once, and returns its payload. `dispatched`: the caller
 * inserts the event's deliveries in the same transaction (events/deliveries.ts, recordWithDeliveries).
 */
export async function recordEvent(
  db: Kysely<Database>,
  event: NewEvent,
  options: { dispatched?: boolean } = {},
): Promise<EventPayload> {
  const payload = eventPayload(event);
  await createEventRepository(db).insert({
    id: payload.id,
    teamId: payload.teamId,
    action: payload.action,
    payload: JSON.stringify(payload),
    occurredAt: payload.occurredAt,
    dispatched: options.dispatched,
  });
  return payload;
}
