// Team webhooks, their signing secret, the outbox of events, and the per-team status of ad networks (issue: events).
// The outbox is written in the same transaction as the change it reports when the caller has one; a delivery worker
// (exports issue) reads the pending rows, so nothing is lost when the process stops between a change and its POST.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { withId } from './columns.js';

export function events(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await withId(db.schema.createTable('webhooks'), dialect)
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        // Users are only ever soft-deleted, so the creator keeps a name.
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhooks_team').on('webhooks').columns(['team_id', 'created_at']).execute();

      // One row per action a webhook subscribes to; action ids are those of src/events/catalogue.ts (not a table:
      // the catalogue ships with the code). Who added an action and when is shown per link (seed "Action link").
      await db.schema
        .createTable('webhook_actions')
        .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('action_id', 'integer', (c) => c.notNull())
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_actions_pk', ['webhook_id', 'action_id'])
        .execute();
      // The delivery worker looks up the webhooks of a team subscribed to one action.
      await db.schema.createIndex('webhook_actions_action').on('webhook_actions').column('action_id').execute();

      // The Standard Webhooks signing secret of a team (`whsec_` + base64). Kept readable: signing needs it.
      await db.schema
        .createTable('team_signing_secrets')
        .addColumn('team_id', 'integer', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      // id is the event's UUID, the `id` of its payload (SPEC §8). payload is the JSON text that will be POSTed.
      await db.schema
        .createTable('events_outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .execute();
      // The worker's poll: pending rows whose time has come, oldest first.
      await db.schema
        .createIndex('events_outbox_due')
        .on('events_outbox')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('events_outbox_team')
        .on('events_outbox')
        .columns(['team_id', 'occurred_at'])
        .execute();

      // Only deviations from the default are stored: a network without a row is enabled for the team (SPEC §11).
      await db.schema
        .createTable('ad_network_team_status')
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('ad_network_id', 'integer', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('ad_network_team_status_pk', ['team_id', 'ad_network_id'])
        .execute();
    },
  };
}
