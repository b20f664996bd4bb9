// The event outbox (SPEC §8). Rows are written by src/events/outbox.ts, inside the caller's transaction when it has
// one; the delivery worker of the exports issue reads the pending ones and fans them out to the team's webhooks.
import type { Kysely } from 'kysely';
import { insertRow } from '../prepared.js';
import type { Database } from '../schema.js';

export interface OutboxRow {
  id: string;
  team_id: number;
  action: string;
  payload: string;
  occurred_at: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
}

const COLUMNS = ['id', 'team_id', 'action', 'payload', 'occurred_at', 'status', 'attempts', 'next_attempt_at'] as const;

interface NewEvent {
  id: string;
  teamId: number;
  action: string;
  payload: string;
  occurredAt: string;
  dispatched?: boolean;
}

function outboxRow(event: NewEvent) {
  return {
    id: event.id,
    team_id: event.teamId,
    action: event.action,
    payload: event.payload,
    occurred_at: event.occurredAt,
    status: event.dispatched ? 'dispatched' : 'pending',
    attempts: event.dispatched ? 1 : 0,
    next_attempt_at: event.occurredAt,
  };
}

export function createEventRepository(db: Kysely<Database>) {
  return {
    /**
     * A pending row, due at once; or (`dispatched`) one whose deliveries the caller inserts in the same transaction,
     * so the dispatcher never reads it (issue 21).
     */
    async insert(event: NewEvent) {
      // Compiled once (issue 21): every export's event goes through here.
      const row = outboxRow(event);
      await insertRow(db, { table: 'events_outbox', columns: Object.keys(row), returning: false }, row);
    },

    /** The insert of `insert`, not run: for a statement that writes it with other rows. */
    insertStatement(event: NewEvent) {
      return db.insertInto('events_outbox').values(outboxRow(event));
    },

    /** Events of a team, oldest first (ties broken by id, which is random, so only for a stable order). */
    async listByTeam(teamId: number): Promise<OutboxRow[]> {
      return db
        .selectFrom('events_outbox')
        .select(COLUMNS)
        .where('team_id', '=', teamId)
        .orderBy('occurred_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },
  };
}

export type EventRepository = ReturnType<typeof createEventRepository>;
