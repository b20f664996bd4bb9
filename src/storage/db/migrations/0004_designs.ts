// Designs, the hashes of their sizes, and their versions (issue: templates).
// - designs: one row per design (design set); the design document is JSON text, `revision` counts content changes
//   (the export cache keys on it). A project's designs go with it; a folder is never deleted with designs in it
//   (the service moves them up to the parent first), so folder_id restricts.
// - design_sizes: the size hashes of each design's current document. Size hashes are unique across the service and
//   live in their own table so that a size hash finds its design with one indexed lookup (design versions accept
//   either kind of hash).
// - design_versions: snapshots of the whole document; `number` orders them within a design (newest = highest) where
//   timestamps can tie.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { withId } from './columns.js';

export function designs(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await withId(db.schema.createTable('designs'), dialect)
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('folder_id', 'integer', (c) => c.references('folders.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('is_template', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('api_generated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('document', 'text', (c) => c.notNull())
        .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('thumb_key', 'text')
        // Users are only ever soft-deleted, so creator and last editor keep a name.
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('updated_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // The list filters by visible project and sorts by updated_at (its default order) or another key.
      await db.schema
        .createIndex('designs_project_updated')
        .on('designs')
        .columns(['project_id', 'updated_at'])
        .execute();
      await db.schema.createIndex('designs_team_updated').on('designs').columns(['team_id', 'updated_at']).execute();
      await db.schema.createIndex('designs_folder').on('designs').column('folder_id').execute();

      await db.schema
        .createTable('design_sizes')
        .addColumn('hash', 'text', (c) => c.primaryKey())
        .addColumn('design_id', 'integer', (c) => c.notNull().references('designs.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('design_sizes_design').on('design_sizes').column('design_id').execute();

      await db.schema
        .createTable('design_versions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('design_id', 'integer', (c) => c.notNull().references('designs.id').onDelete('cascade'))
        .addColumn('number', 'integer', (c) => c.notNull())
        .addColumn('version_name', 'text', (c) => c.notNull())
        .addColumn('document', 'text', (c) => c.notNull())
        .addColumn('size_hash', 'text', (c) => c.notNull())
        .addColumn('automatic', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('design_versions_design_number', ['design_id', 'number'])
        .execute();
    },
  };
}
