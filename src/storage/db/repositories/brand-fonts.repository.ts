// Brand fonts: one row per uploaded face (migration 0012). Lookups by team serve rendering and the font lists; a face
// is unique per brand kit, family and variant.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { PageRequest } from '../../../domain/page.js';
import { now } from '../database.js';
import { invalidate } from '../invalidation.js';
import { paginate } from '../paginate.js';
import type { BrandFontsTable, Database } from '../schema.js';

export type BrandFontRow = Selectable<BrandFontsTable>;
export type NewBrandFont = Omit<Insertable<BrandFontsTable>, 'id' | 'created_at' | 'family_key'>;

export function createBrandFontRepository(db: Kysely<Database>) {
  return {
    async insert(font: NewBrandFont): Promise<BrandFontRow> {
      return db
        .insertInto('brand_fonts')
        .values({ ...font, family_key: font.family.toLowerCase(), created_at: now() })
        .returningAll()
        .executeTakeFirstOrThrow()
        .finally(() => invalidate('fonts'));
    },

    async findFace(brandKitId: number, family: string, variant: string): Promise<BrandFontRow | undefined> {
      return db
        .selectFrom('brand_fonts')
        .selectAll()
        .where('brand_kit_id', '=', brandKitId)
        .where('family_key', '=', family.toLowerCase())
        .where('variant', '=', variant)
        .executeTakeFirst();
    },

    async findInTeam(teamId: number, fontId: number): Promise<BrandFontRow | undefined> {
      return db
        .selectFrom('brand_fonts')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('id', '=', fontId)
        .executeTakeFirst();
    },

    async list(brandKitId: number, page: PageRequest) {
      const query = db.selectFrom('brand_fonts').selectAll().where('brand_kit_id', '=', brandKitId);
      return paginate<BrandFontRow>(query, page, 'id', {
        NAME: 'family',
        CREATED_AT: 'created_at',
        UPDATED_AT: 'created_at',
      });
    },

    /** Every face of the team, oldest first; `families` (lower-cased) narrows it. */
    async ofTeam(teamId: number, families?: string[]): Promise<BrandFontRow[]> {
      if (families && families.length === 0) return [];
      let query = db.selectFrom('brand_fonts').selectAll().where('team_id', '=', teamId);
      if (families) query = query.where('family_key', 'in', families);
      return query.orderBy('id', 'asc').execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('brand_fonts').where('id', '=', id).execute();
      invalidate('fonts');
    },

    /** Whether any face still points at a stored file (one file serves every instance of a variable font). */
    async blobInUse(blobKey: string): Promise<boolean> {
      const row = await db
        .selectFrom('brand_fonts')
        .select('id')
        .where('blob_key', '=', blobKey)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

export type BrandFontRepository = ReturnType<typeof createBrandFontRepository>;
