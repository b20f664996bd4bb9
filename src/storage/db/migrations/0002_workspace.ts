// Brand kits, projects, their users and folders (issue: workspace). Designs get their own migration later.
// Deleting a project takes its folders and memberships with it (ON DELETE CASCADE); a brand kit cannot be deleted
// while a project uses it (the foreign key restricts, the service answers 409 before it gets that far).
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { withId } from './columns.js';

export function workspace(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await withId(db.schema.createTable('brand_kits'), dialect)
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        // JSON array of the seed's typography entries.
        .addColumn('typography', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('brand_kits_team').on('brand_kits').column('team_id').execute();

      await withId(db.schema.createTable('projects'), dialect)
        .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('color', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('brand_kit_id', 'integer', (c) => c.notNull().references('brand_kits.id').onDelete('restrict'))
        .addColumn('is_brand_kit_selectable', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('projects_team').on('projects').column('team_id').execute();
      await db.schema.createIndex('projects_brand_kit').on('projects').column('brand_kit_id').execute();

      await db.schema
        .createTable('project_users')
        .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('project_users_pk', ['project_id', 'user_id'])
        .execute();
      // Visibility asks "which projects is this user in?" on every request of an Editor or Viewer.
      await db.schema.createIndex('project_users_user').on('project_users').column('user_id').execute();

      await withId(db.schema.createTable('folders'), dialect)
        .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        // No cascade: deleting a folder moves its subfolders up first (SPEC §11), nothing goes with it.
        .addColumn('parent_id', 'integer', (c) => c.references('folders.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('updated_by', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('folders_project_parent')
        .on('folders')
        .columns(['project_id', 'parent_id'])
        .execute();
      await db.schema.createIndex('folders_parent').on('folders').column('parent_id').execute();
    },
  };
}
