// Brand kit colours (issue 18: "brand kits with colours"). The seed shows a project's `color` and a kit's
// `typography` but no palette; the kit's colours are an extension stored like typography, as JSON text
// (an array of {name, hex}), so no join is needed to answer a kit.
import { type Kysely, sql } from 'kysely';

export function brandColors() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('brand_kits')
        .addColumn('colors', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
        .execute();
    },
  };
}
