// Placeholder: filled in by the issue that owns these tables (workspace: projects, brand kits, folders, designs;
// events: webhooks, outbox, ad network status). Registered already so that parallel work never edits migrate.ts.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export function workspace(_dialect: Dialect) {
  return {
    async up(_db: Kysely<unknown>) {},
  };
}
