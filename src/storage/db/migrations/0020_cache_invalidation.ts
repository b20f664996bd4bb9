// Per-process caches are told about writes by PostgreSQL itself (issue 21, storage/db/invalidation.ts): these
// triggers notify the topic a write touches at commit, whichever process or tool wrote, cascades included. Only the
// columns a cached answer reads fire (a credential's last_used_at changes on every token and must not). SQLite is one
// process's file: there the writer's own `invalidate` is enough, and nothing is created.
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

const TRIGGERS: Array<{ table: string; events: string; topic: string }> = [
  { table: 'api_credentials', events: 'update of user_id, team_id or delete', topic: 'auth' },
  { table: 'users', events: 'update of role_id, team_id, name, deleted_at or delete', topic: 'auth' },
  { table: 'webhooks', events: 'insert or update or delete', topic: 'webhooks' },
  { table: 'webhook_actions', events: 'insert or update or delete', topic: 'webhooks' },
  // A team's first secret is no change: no process can hold one for that team before it exists.
  { table: 'team_signing_secrets', events: 'update or delete', topic: 'webhooks' },
  { table: 'brand_fonts', events: 'insert or update or delete', topic: 'fonts' },
];

export function cacheInvalidation(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`
        create or replace function placard_invalidate() returns trigger language plpgsql as $$
        begin
          perform pg_notify('placard_invalidate', tg_argv[0]);
          return null;
        end $$`.execute(db);
      for (const { table, events, topic } of TRIGGERS) {
        await sql
          .raw(
            `create trigger ${table}_invalidate after ${events} on ${table} ` +
              `for each statement execute function placard_invalidate('${topic}')`,
          )
          .execute(db);
      }
    },
  };
}
