// Versions of a design: snapshots of its whole document. Call `insert` inside the transaction that holds the design's
// row (DesignRepository.lock), so that two versions of one design never take the same number.

import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { now } from '../database.js';
import type { Database, DesignVersionsTable } from '../schema.js';

/** A row as selected: the table's columns with their select types (one definition, in schema.ts). */
export type DesignVersionRow = Selectable<DesignVersionsTable>;

/** A version with the name and picture of the user who saved it. */
export type DesignVersionView = Omit<DesignVersionRow, 'document'> & {
  created_by_name: string;
  created_by_picture: string | null;
};

const COLUMNS = [
  'id',
  'design_id',
  'number',
  'version_name',
  'document',
  'size_hash',
  'automatic',
  'created_by',
  'created_at',
  'updated_at',
] as const;

export function createDesignVersionRepository(db: Kysely<Database>) {
  return {
    async insert(version: {
      designId: number;
      name: string;
      document: string;
      sizeHash: string;
      automatic: boolean;
      userId: number;
    }): Promise<DesignVersionRow> {
      const last = await db
        .selectFrom('design_versions')
        .select((eb) => eb.fn.max('number').as('n'))
        .where('design_id', '=', version.designId)
        .executeTakeFirst();
      const at = now();
      return db
        .insertInto('design_versions')
        .values({
          id: randomUUID(),
          design_id: version.designId,
          number: Number(last?.n ?? 0) + 1,
          version_name: version.name,
          document: version.document,
          size_hash: version.sizeHash,
          automatic: version.automatic ? 1 : 0,
          created_by: version.userId,
          created_at: at,
          updated_at: at,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
    },

    /** The versions of a design, newest first. */
    async list(designId: number): Promise<DesignVersionView[]> {
      return db
        .selectFrom('design_versions as v')
        .innerJoin('users as u', 'u.id', 'v.created_by')
        .select(COLUMNS.filter((c) => c !== 'document').map((c) => `v.${c}` as const))
        .select(['u.name as created_by_name', 'u.profile_picture as created_by_picture'])
        .where('v.design_id', '=', designId)
        .orderBy('v.number', 'desc')
        .execute();
    },

    async find(designId: number, id: string): Promise<DesignVersionRow | undefined> {
      return db
        .selectFrom('design_versions')
        .select(COLUMNS)
        .where('design_id', '=', designId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Renames a version of the design; false when the design has no such version. */
    async rename(designId: number, id: string, name: string): Promise<boolean> {
      const result = await db
        .updateTable('design_versions')
        .set({ version_name: name, updated_at: now() })
        .where('design_id', '=', designId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

export type DesignVersionRepository = ReturnType<typeof createDesignVersionRepository>;
