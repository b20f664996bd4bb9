// Progress of long renders (motion issue): a creative's `progress` goes from 0 to 1 while its file is made, written
// by the job every few percent, so that GET /v1/export/{id} can show how far an MP4 is.
import type { Kysely } from 'kysely';

export function progress() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('export_creatives')
        .addColumn('progress', 'real', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
