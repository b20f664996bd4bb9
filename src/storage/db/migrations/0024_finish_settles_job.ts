// The render that finishes an export of one file also marks its own job done, in the statement that finishes the export
// (issue 21, stop 23): on SQLite the job's settle was a write and a commit of its own after the finish, the sixth of an
// export's writes at c=1. `export_finishes` (0023) takes the job's id and the instance holding it; the trigger marks
// the job done only while that instance holds it, as the queue's own settle does. PostgreSQL does the same in its
// finishing statement (deliveries.repository.ts).
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { createExportFinishes } from './0023_export_statements.js';

export function finishSettlesJob(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await sql`drop trigger export_finishes_insert`.execute(db);
      await sql`drop view export_finishes`.execute(db);
      await createExportFinishes(db, { job: true });
    },
  };
}
