// Exports and the machinery that finishes them (SPEC §6, §8): the durable job table of the embedded queue, exports
// with one row per expected file (creative), and webhook deliveries with their attempts.
// - `jobs` is the JobQueue of the embedded shape: a queued row is work to do, a running row is held by a lease that
//   its process renews; a row whose lease ran out (the process died) is claimed again. Finished rows stay a day so
//   that enqueueing the same job id twice (a recovery sweep) does not run it twice.
// - `exports` keeps the document it renders: the template may change or be deleted while the export runs.
// - `webhook_deliveries` is one POST to one URL (a team webhook, or the webhookUrl of an export request) retried
//   until it succeeds or is given up; `webhook_delivery_attempts` records each try.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { withId } from './columns.js';

export function exportPipeline(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        // queued | running | done | failed
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        // JSON array of the waits (ms) before the 2nd, 3rd… attempt; the last one repeats.
        .addColumn('retry_delays', 'text', (c) => c.notNull())
        .addColumn('run_at', 'text', (c) => c.notNull())
        .addColumn('lease_until', 'text')
        .addColumn('locked_by', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // The claim: due queued rows of a kind, oldest first; expired leases of running rows.
      await db.schema.createIndex('jobs_due').on('jobs').columns(['kind', 'status', 'run_at']).execute();
      await db.schema.createIndex('jobs_status').on('jobs').columns(['status', 'updated_at']).execute();

      await db.schema
        .createTable('exports')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        // No foreign keys to projects and designs: an export outlives the design it was made from (SPEC §11).
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('design_id', 'integer', (c) => c.notNull())
        .addColumn('design_hash', 'text', (c) => c.notNull())
        // The design an export with changes created; null for POST /v1/export.
        .addColumn('new_design_hash', 'text')
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        // As the request spelled it (`type` of the answer) and normalised (png jpg webp pdf gif mp4 html).
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('document', 'text', (c) => c.notNull())
        // The name files are named after: newDesignName or the design's name.
        .addColumn('file_stem', 'text', (c) => c.notNull())
        .addColumn('is_set', 'integer', (c) => c.notNull())
        .addColumn('webhook_url', 'text')
        .addColumn('cache_key', 'text')
        .addColumn('error_log', 'text')
        .addColumn('zip_key', 'text')
        .addColumn('zip_name', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('completed_at', 'text')
        .execute();
      await db.schema.createIndex('exports_cache').on('exports').columns(['team_id', 'cache_key']).execute();
      await db.schema.createIndex('exports_status').on('exports').columns(['status', 'created_at']).execute();

      await db.schema
        .createTable('export_creatives')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('export_id', 'text', (c) => c.notNull().references('exports.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('size_index', 'integer', (c) => c.notNull())
        .addColumn('size_hash', 'text', (c) => c.notNull())
        .addColumn('size_name', 'text', (c) => c.notNull())
        .addColumn('width', 'integer', (c) => c.notNull())
        .addColumn('height', 'integer', (c) => c.notNull())
        // The slide of a per-slide file; null for a file of the whole size (PDF, animated formats, one-slide sizes).
        .addColumn('slide_number', 'integer')
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text')
        .addColumn('bytes', 'integer')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('render_ms', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('export_creatives_export')
        .on('export_creatives')
        .columns(['export_id', 'position'])
        .execute();

      await db.schema
        .createTable('webhook_deliveries')
        // UUID: the `id` of the payload and the webhook-id header of every attempt.
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        // null for the webhookUrl of an export request; kept (as null) when the webhook is deleted.
        .addColumn('webhook_id', 'integer', (c) => c.references('webhooks.id').onDelete('set null'))
        .addColumn('event_id', 'text')
        .addColumn('export_id', 'text')
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        // pending | succeeded | failed
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_team')
        .on('webhook_deliveries')
        .columns(['team_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();

      await withId(db.schema.createTable('webhook_delivery_attempts'), dialect)
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
        .addColumn('attempted_at', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_delivery_attempts_delivery')
        .on('webhook_delivery_attempts')
        .columns(['delivery_id', 'id'])
        .execute();
    },
  };
}
