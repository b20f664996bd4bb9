// An export accepted by the process that will render it, while a render slot of that process is free and no render
// job is waiting, is inserted with its render job already claimed by that process and its file already being made
// (issue 21, stop 24): the claim and the file's start were two more writes, each a round trip to SQLite's thread and
// a commit, between the accept and the render. `export_accepts` (0023) takes the job's claim (`status`, `attempts`,
// `lease_until`, `locked_by`) and the file's `status` from their values; values without them are inserted as before.
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { createExportAccepts } from './0023_export_statements.js';

export function acceptHoldsJob(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await sql`drop trigger export_accepts_insert`.execute(db);
      await createExportAccepts(db, { held: true });
    },
  };
}
