// Insertion order for the job table (issue 14): two groups' first jobs can get the same fair key in the same
// millisecond, and a random id then decided which ran first, so a group that asked earlier could wait a turn longer.
// `seq` counts enqueues; the claim breaks ties on it. It is set at insert from the largest so far (an index lookup);
// two enqueuers racing on PostgreSQL may share a value, which only makes their jobs tie as they did before.
import { type Kysely, sql } from 'kysely';

export function jobOrder() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('jobs')
        .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(sql`0`))
        .execute();
      await db.schema.createIndex('jobs_seq').on('jobs').column('seq').execute();
    },
  };
}
