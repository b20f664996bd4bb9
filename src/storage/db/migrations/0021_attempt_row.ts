// Recording a webhook attempt in one statement on SQLite too (issue 21; PostgreSQL does it with a data-modifying
// WITH, which SQLite lacks): the delivery keeps its last attempt in `last_*` columns, and a trigger inserts the
// attempt's row when the count moves, inside the same UPDATE, so the count and the history still change together.
// PostgreSQL sets the columns as well (the same UPDATE) but inserts the row in its WITH; it gets no trigger.
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

export function attemptRow(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('webhook_deliveries').addColumn('last_attempted_at', 'text').execute();
      await db.schema.alterTable('webhook_deliveries').addColumn('last_status_code', 'integer').execute();
      await db.schema.alterTable('webhook_deliveries').addColumn('last_error', 'text').execute();
      await db.schema.alterTable('webhook_deliveries').addColumn('last_duration_ms', 'integer').execute();
      if (dialect !== 'sqlite') return;
      await sql`
        create trigger webhook_deliveries_attempt after update of attempt_count on webhook_deliveries
        when new.attempt_count > old.attempt_count and new.last_attempted_at is not null
        begin
          insert into webhook_delivery_attempts (delivery_id, attempted_at, status_code, error, duration_ms)
          values (new.id, new.last_attempted_at, new.last_status_code, new.last_error, new.last_duration_ms);
        end`.execute(db);
    },
  };
}
