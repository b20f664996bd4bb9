// Teams, users and API credentials (issue: platform).
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { withId } from './columns.js';

export function platform(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await withId(db.schema.createTable('teams'), dialect)
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await withId(db.schema.createTable('users'), dialect)
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('role_id', 'integer', (c) => c.notNull())
        .addColumn('profile_picture', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      // An email is unique among the live users of a team, whatever its letter case; deleted users keep theirs.
      await db.schema
        .createIndex('users_team_email_live')
        .on('users')
        .expression(sql`team_id, lower(email)`)
        .unique()
        .where(sql.ref('deleted_at'), 'is', null)
        .execute();

      await withId(db.schema.createTable('api_credentials'), dialect)
        .addColumn('client_id', 'text', (c) => c.notNull().unique())
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('created_by', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .execute();
      await db.schema.createIndex('api_credentials_team').on('api_credentials').column('team_id').execute();
    },
  };
}
