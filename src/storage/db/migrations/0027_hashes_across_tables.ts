// A design's hash and its sizes' hashes are one namespace (design versions and render URLs find a design by either):
// a new hash must be in neither table. Each table's unique index refuses a hash of its own kind; on PostgreSQL these
// triggers refuse one of the other kind, with the same error (unique_violation, naming the table), so that a new design
// whose hashes are all fresh and random is inserted without checking them first and started again on the rare
// collision (issue 21, stop 33: the check was a statement and a round trip of every export with changes). SQLite
// checks them in the import's transaction as before (design.service.ts `assignSizeHashes`).
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

export function hashesAcrossTables(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`
        create function placard_hash_is_free() returns trigger language plpgsql as $$
        begin
          if (tg_table_name = 'designs' and exists (select 1 from design_sizes where hash = new.hash))
            or (tg_table_name = 'design_sizes' and exists (select 1 from designs where hash = new.hash)) then
            raise exception 'hash % is taken', new.hash using errcode = 'unique_violation', table = tg_table_name;
          end if;
          return new;
        end
        $$
      `.execute(db);
      for (const table of ['designs', 'design_sizes']) {
        await sql`
          create trigger ${sql.id(`${table}_hash_is_free`)} before insert on ${sql.table(table)}
          for each row execute function placard_hash_is_free()
        `.execute(db);
      }
    },
  };
}
