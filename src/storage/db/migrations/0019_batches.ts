// Batches (issue 22): one template, many rows, each row rendered with its own changes. `batches` keeps what the
// request fixed (the template's document at submit, the settings, the mapping), so the template may change while the
// batch runs; `batch_rows` keeps every accepted row with its changes, so nothing accepted is lost across restarts.
// Row status: pending → running (handed to the queue) → succeeded | failed | skipped, or cancelled while pending.
// Every transition is an UPDATE guarded by the status it leaves: a row job that runs twice settles its row once.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { withId } from './columns.js';

export function batches(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await withId(db.schema.createTable('batches'), dialect)
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        // No foreign keys to projects and designs: a batch outlives its template, as an export does.
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('design_id', 'integer', (c) => c.notNull())
        .addColumn('design_hash', 'text', (c) => c.notNull())
        .addColumn('design_revision', 'integer', (c) => c.notNull())
        .addColumn('document', 'text', (c) => c.notNull())
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('settings', 'text', (c) => c.notNull())
        // JSON array of the size indexes rendered.
        .addColumn('sizes', 'text', (c) => c.notNull())
        .addColumn('general_settings', 'text', (c) => c.notNull())
        .addColumn('mapping', 'text', (c) => c.notNull())
        .addColumn('columns', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('row_key', 'text')
        .addColumn('on_findings', 'text', (c) => c.notNull())
        .addColumn('create_designs', 'integer', (c) => c.notNull())
        .addColumn('webhook_url', 'text')
        .addColumn('notify_row_failures', 'integer', (c) => c.notNull())
        .addColumn('naming', 'text')
        // pending | running | complete | completeWithError | failed | cancelled
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('row_count', 'integer', (c) => c.notNull())
        // Counts the retries: the finish job's id carries it, so a batch retried is finished again.
        .addColumn('generation', 'integer', (c) => c.notNull())
        .addColumn('zip_key', 'text')
        .addColumn('results_key', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      // GET /v1/batches (a team's, newest first); the sweep and the pump (a team's open batches).
      await db.schema.createIndex('batches_team').on('batches').columns(['team_id', 'created_at']).execute();
      await db.schema.createIndex('batches_open').on('batches').columns(['finished_at', 'team_id']).execute();

      await withId(db.schema.createTable('batch_rows'), dialect)
        .addColumn('batch_id', 'integer', (c) => c.notNull().references('batches.id').onDelete('cascade'))
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        // 1-based line of the file where the row starts (null for JSON rows).
        .addColumn('line', 'integer')
        .addColumn('row_values', 'text', (c) => c.notNull())
        // JSON array of {elementName, attribute, value}; null when the row's values could not be mapped.
        .addColumn('changes', 'text')
        // sha256 of the template, revision, type, settings and the row's changes: the same key is the same files.
        .addColumn('cache_key', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('findings', 'text')
        // JSON array of {sizeHash, name, width, height, blobKey, bytes}.
        .addColumn('files', 'text')
        .addColumn('cached', 'integer', (c) => c.notNull())
        // The design the row created (createDesigns); set in the import's transaction, so it is made once.
        .addColumn('design_hash', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('batch_rows_position')
        .on('batch_rows')
        .columns(['batch_id', 'idx'])
        .unique()
        .execute();
      // The pump (next pending rows of a batch) and the counts by status.
      await db.schema
        .createIndex('batch_rows_status')
        .on('batch_rows')
        .columns(['batch_id', 'status', 'idx'])
        .execute();
      // Files made for the same variant before (the cache across rows and re-runs of an edited feed).
      await db.schema.createIndex('batch_rows_cache').on('batch_rows').columns(['cache_key', 'status']).execute();
    },
  };
}
