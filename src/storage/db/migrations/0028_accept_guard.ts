// An export accepted in the same message as its reads (issue 21, stop 38): on SQLite, POST /v1/export read its design
// and probed its cache and queue in one round trip to the database thread, and only then sent its accept in a second.
// The export service now sends the accept with the probe when it knows the design from an earlier export
// (export.service.ts `speculate`), with a `guard`: what the accept was built from, which the `export_accepts` trigger
// checks before it writes (0023, ACCEPT_GUARD). A guard that does not hold aborts the statement, nothing is written,
// and the service goes the way it went before. The view gains the column; rows without a guard are inserted as before.
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { createExportAccepts, EXPORT_ACCEPT_COLUMNS } from './0023_export_statements.js';

export function acceptGuard(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await sql`drop trigger export_accepts_insert`.execute(db);
      await sql`drop view export_accepts`.execute(db);
      await sql
        .raw(
          `create view export_accepts (${EXPORT_ACCEPT_COLUMNS.join(', ')}, creatives, jobs, guard) as
           select ${EXPORT_ACCEPT_COLUMNS.map(() => 'null').join(', ')}, null, null, null where 0`,
        )
        .execute(db);
      await createExportAccepts(db, { held: true, guard: true });
    },
  };
}
