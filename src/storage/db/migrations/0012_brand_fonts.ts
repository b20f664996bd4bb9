// Brand fonts (issue 17): one row per face a team uploaded to one of its brand kits. A TrueType collection gives one
// row per face and a variable font one row per named instance (same file, its `variation` coordinates). Files live in
// the BlobStore, content-addressed per team (`blob_key`); rows go with their brand kit (ON DELETE CASCADE).
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { withId } from './columns.js';

export function brandFonts(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await withId(db.schema.createTable('brand_fonts'), dialect)
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('brand_kit_id', 'integer', (c) => c.notNull().references('brand_kits.id').onDelete('cascade'))
        .addColumn('family', 'text', (c) => c.notNull())
        // lower(family): the lookup key, the same on SQLite and PostgreSQL.
        .addColumn('family_key', 'text', (c) => c.notNull())
        .addColumn('variant', 'text', (c) => c.notNull())
        .addColumn('style', 'text', (c) => c.notNull())
        .addColumn('weight', 'integer', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('glyph_count', 'integer', (c) => c.notNull())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('postscript_name', 'text')
        // 1 when OS/2 fsType allows embedding a subset of the font in a document (PDF, HTML5).
        .addColumn('embeddable', 'integer', (c) => c.notNull())
        .addColumn('fs_type', 'integer', (c) => c.notNull())
        // JSON object of axis tag → value for a variable font's named instance; null for a static face.
        .addColumn('variation', 'text')
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('checksum', 'text', (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        // The link it was fetched from; null for a multipart upload.
        .addColumn('src', 'text')
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      // One face per family and variant in a kit; the same face may be in several kits of a team.
      await db.schema
        .createIndex('brand_fonts_kit_face')
        .on('brand_fonts')
        .columns(['brand_kit_id', 'family_key', 'variant'])
        .unique()
        .execute();
      await db.schema
        .createIndex('brand_fonts_team_family')
        .on('brand_fonts')
        .columns(['team_id', 'family_key'])
        .execute();
    },
  };
}
