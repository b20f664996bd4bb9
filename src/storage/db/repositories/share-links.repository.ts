// Share links (SPEC §7, migration 0008): a design's stable public link and generated previews.
import type { Kysely, Selectable } from 'kysely';
import type { Database, ShareLinksTable } from '../schema.js';

export type ShareLinkRow = Selectable<ShareLinksTable>;

export function createShareLinkRepository(db: Kysely<Database>) {
  return {
    /** The stable link of a design (the row without a preview). */
    async findStable(designHash: string): Promise<ShareLinkRow | undefined> {
      return db
        .selectFrom('share_links')
        .selectAll()
        .where('design_hash', '=', designHash)
        .where('preview_id', 'is', null)
        .executeTakeFirst();
    },

    async findByToken(token: string): Promise<ShareLinkRow | undefined> {
      return db.selectFrom('share_links').selectAll().where('token', '=', token).executeTakeFirst();
    },

    async insert(row: ShareLinkRow): Promise<void> {
      await db.insertInto('share_links').values(row).execute();
    },

    /** The current document and revision of the design a stable link plays; undefined once it is deleted. */
    async designOf(
      hash: string,
    ): Promise<{ document: string; revision: number; name: string; team_id: number; project_id: number } | undefined> {
      return db
        .selectFrom('designs')
        .select(['document', 'revision', 'name', 'team_id', 'project_id'])
        .where('hash', '=', hash)
        .executeTakeFirst();
    },
  };
}
