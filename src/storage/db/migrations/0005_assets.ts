// Brand kit assets (SPEC §11): media folders, one row per uploaded asset, and one row per upload request.
// The media rows are the durable queue of the asset processor: a row in status PROCESSING is work still to do, and
// `lease_until` keeps two processors (or a retry and a sweep) from fetching the same source at once. An upload row
// counts the assets of one request that are still PROCESSING, so that exactly one of them, the last to settle,
// records brandkit/assetsUploaded. Everything goes with its brand kit (ON DELETE CASCADE).
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { withId } from './columns.js';

export function assets(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await withId(db.schema.createTable('media_folders'), dialect)
        .addColumn('brand_kit_id', 'integer', (c) => c.notNull().references('brand_kits.id').onDelete('cascade'))
        // null at the root of the brand kit.
        .addColumn('parent_id', 'integer', (c) => c.references('media_folders.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('media_folders_brand_kit').on('media_folders').column('brand_kit_id').execute();
      await db.schema.createIndex('media_folders_parent').on('media_folders').column('parent_id').execute();

      await db.schema
        .createTable('media_uploads')
        // UUID: never shown, only ties the assets of one request together.
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('brand_kit_id', 'integer', (c) => c.notNull().references('brand_kits.id').onDelete('cascade'))
        .addColumn('remaining', 'integer', (c) => c.notNull())
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('completed_at', 'text')
        .execute();
      await db.schema.createIndex('media_uploads_brand_kit').on('media_uploads').column('brand_kit_id').execute();

      await withId(db.schema.createTable('media'), dialect)
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('brand_kit_id', 'integer', (c) => c.notNull().references('brand_kits.id').onDelete('cascade'))
        .addColumn('media_folder_id', 'integer', (c) => c.references('media_folders.id').onDelete('set null'))
        .addColumn('upload_id', 'text', (c) => c.notNull().references('media_uploads.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('src', 'text', (c) => c.notNull())
        // null until processed: the type is decided by the content, not by the link.
        .addColumn('type', 'text')
        .addColumn('format', 'text')
        .addColumn('size', 'integer')
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('duration', 'real')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('checksum', 'text')
        .addColumn('blob_key', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_until', 'text')
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // The list: a brand kit's assets, newest first, ties by id.
      await db.schema
        .createIndex('media_brand_kit_created')
        .on('media')
        .columns(['brand_kit_id', 'created_at', 'id'])
        .execute();
      // The processor's sweep looks for PROCESSING rows only; settled rows are the vast majority.
      await db.schema
        .createIndex('media_processing')
        .on('media')
        .column('id')
        .where('status' as never, '=', 'PROCESSING' as never)
        .execute();
      await db.schema.createIndex('media_upload').on('media').column('upload_id').execute();
      await db.schema.createIndex('media_folder').on('media').column('media_folder_id').execute();
    },
  };
}
