// Placeholder: filled in by the work that owns these tables. Registered already so that parallel work never edits
// migrate.ts.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export function designs(_dialect: Dialect) {
  return {
    async up(_db: Kysely<unknown>) {},
  };
}
