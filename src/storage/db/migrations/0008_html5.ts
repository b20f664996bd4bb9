// HTML5 packages and share links (issue 7).
// - `export_creatives.warnings`: JSON array of the ad-network validator's advice for the file (null: none), and
//   `fallback_key`: the backup JPG delivered beside an HTML5 zip for networks that want it outside the zip.
// - `share_links`: the public token of a preview page (SPEC §7). A design's stable link has no `document` (the page
//   plays the design as it is now); a generated preview stores the changed document itself, so no design is made.
import type { Kysely } from 'kysely';

export function html5() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('export_creatives').addColumn('warnings', 'text').execute();
      await db.schema.alterTable('export_creatives').addColumn('fallback_key', 'text').execute();
      await db.schema
        .createTable('share_links')
        // 128-bit random, base64url: the only secret of a public page.
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'integer', (c) => c.notNull())
        .addColumn('design_hash', 'text', (c) => c.notNull())
        // A generated preview's id and changed document; null for a design's stable link.
        .addColumn('preview_id', 'text')
        .addColumn('document', 'text')
        .addColumn('created_by', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('share_links_design')
        .on('share_links')
        .columns(['design_hash', 'preview_id'])
        .execute();
      await db.schema.createIndex('share_links_preview').on('share_links').column('preview_id').execute();
    },
  };
}
