// Preflight (issue 20): `export_creatives.findings`, the JSON array of what preflight found for the file (null: none
// or preflight off), kept for complete and failed files alike (a PREFLIGHT_FAILED file lists why).
import type { Kysely } from 'kysely';

export function preflight() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('export_creatives').addColumn('findings', 'text').execute();
    },
  };
}
