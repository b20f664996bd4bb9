// The studio (issue 18): passwords, browser sessions, invites and share-page comments.
// - `user_passwords`: a table of its own rather than a column of `users`, so API-only users carry nothing.
// - `sessions`: only the SHA-256 of the cookie's token is kept; `role_id` is the role at sign-in, so a role change
//   ends the session (the lookup compares it with the user's current role).
// - `invites`: only the SHA-256 of the invite token; one use, then `used_at`.
// - `share_comments`: threads (parent_id null), replies, and reviews (kind approve / changes) of a share link.
import type { Kysely } from 'kysely';

export function studio() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('user_passwords')
        .addColumn('user_id', 'integer', (c) => c.primaryKey())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('team_id', 'integer', (c) => c.notNull())
        .addColumn('role_id', 'integer', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
      await db.schema
        .createTable('invites')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('created_by', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema
        .createTable('share_comments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('share_token', 'text', (c) => c.notNull())
        .addColumn('team_id', 'integer', (c) => c.notNull())
        .addColumn('design_hash', 'text', (c) => c.notNull())
        .addColumn('parent_id', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('author', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('size_hash', 'text')
        .addColumn('x', 'real')
        .addColumn('y', 'real')
        .addColumn('resolved', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('share_comments_design')
        .on('share_comments')
        .columns(['design_hash', 'created_at'])
        .execute();
    },
  };
}
