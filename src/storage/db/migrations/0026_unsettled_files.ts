// The files still waiting or rendering, indexed apart (issue 21, stop 31): accepting an export counts them per team
// (the team's share of the queue and the expected wait, exports.repository.ts `probeStatement`), and with no index on
// a file's status that count read every file ever exported — on PostgreSQL a sequential scan that took 0.8 ms and 343
// buffers per export after 2,000 exports in the scale bench, and grows with the table. A partial index holds only the
// unsettled files, so the count reads about as many entries as there are files in flight. The queries that count them
// name the statuses as literals (UNSETTLED_LITERALS): a planner uses a partial index only where it can prove the
// query's condition implies the index's, which it cannot from a bound parameter.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

export function unsettledFiles() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('export_creatives_unsettled')
        .on('export_creatives')
        .column('export_id')
        .where(sql.ref('status'), 'in', [sql.lit('pending'), sql.lit('inProgress')])
        .execute();
    },
  };
}
