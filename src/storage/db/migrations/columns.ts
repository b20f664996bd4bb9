// Column definitions whose spelling differs between SQLite and PostgreSQL.
import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Adds an auto-incrementing integer `id` primary key. SQLite needs AUTOINCREMENT so that the id of a deleted row
 * is never handed out again (a webhook or user id must not come back as somebody else); PostgreSQL uses a sequence.
 */
export function withId<T extends string>(table: CreateTableBuilder<T, never>, dialect: Dialect) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
