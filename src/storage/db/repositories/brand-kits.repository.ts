// Brand kits: team-wide, so every query is scoped by team id. Typography and colours are stored as JSON text.
import type { Kysely } from 'kysely';
import type { PageRequest } from '../../../domain/page.js';
import { containsIgnoringCase } from '../contains.js';
import { now } from '../database.js';
import { invalidate } from '../invalidation.js';
import { paginate } from '../paginate.js';
import type { Database } from '../schema.js';

export interface TypographyEntry {
  fontId: number | null;
  fontName: string;
  fontSize: number;
  fontWeight: string;
  type: string;
}

/** A named colour of the kit's palette; hex is `#rrggbb`. */
export interface BrandColor {
  name: string;
  hex: string;
}

export interface BrandKitRow {
  id: number;
  team_id: number;
  name: string;
  typography: TypographyEntry[];
  colors: BrandColor[];
  created_by: number;
  created_at: string;
  updated_at: string;
}

const COLUMNS = ['id', 'team_id', 'name', 'typography', 'colors', 'created_by', 'created_at', 'updated_at'] as const;

type StoredRow = Omit<BrandKitRow, 'typography' | 'colors'> & { typography: string; colors: string };

function fromStored(row: StoredRow): BrandKitRow {
  return {
    ...row,
    typography: JSON.parse(row.typography) as TypographyEntry[],
    colors: JSON.parse(row.colors) as BrandColor[],
  };
}

export function createBrandKitRepository(db: Kysely<Database>) {
  return {
    async findById(teamId: number, id: number): Promise<BrandKitRow | undefined> {
      const row = await db
        .selectFrom('brand_kits')
        .select(COLUMNS)
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && fromStored(row);
    },

    /** The team's kits, each with the number of its VALID assets (the ones a design can use). */
    async list(teamId: number, keyword: string | undefined, page: PageRequest) {
      let query = db
        .selectFrom('brand_kits')
        .select(COLUMNS)
        .select((eb) =>
          eb
            .selectFrom('media')
            .select(eb.fn.countAll<number>().as('n'))
            .whereRef('media.brand_kit_id', '=', 'brand_kits.id')
            .where('media.status', '=', 'VALID')
            .as('asset_count'),
        )
        .where('team_id', '=', teamId);
      if (keyword) query = query.where((eb) => containsIgnoringCase(eb.ref('name'), keyword));
      const result = await paginate<StoredRow & { asset_count: number | null }>(query, page, 'id', {
        NAME: 'name',
        CREATED_AT: 'created_at',
        UPDATED_AT: 'updated_at',
      });
      return {
        ...result,
        nodes: result.nodes.map(({ asset_count, ...row }) => ({
          ...fromStored(row),
          assetCount: Number(asset_count ?? 0),
        })),
      };
    },

    async insert(kit: { teamId: number; name: string; createdBy: number }): Promise<BrandKitRow> {
      const at = now();
      const row = await db
        .insertInto('brand_kits')
        .values({
          team_id: kit.teamId,
          name: kit.name,
          typography: '[]',
          colors: '[]',
          created_by: kit.createdBy,
          created_at: at,
          updated_at: at,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return fromStored(row);
    },

    async rename(
      teamId: number,
      id: number,
      name: string,
      typography?: TypographyEntry[],
      colors?: BrandColor[],
    ): Promise<void> {
      await db
        .updateTable('brand_kits')
        .set({
          name,
          updated_at: now(),
          ...(typography ? { typography: JSON.stringify(typography) } : {}),
          ...(colors ? { colors: JSON.stringify(colors) } : {}),
        })
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
    },

    async delete(teamId: number, id: number): Promise<void> {
      await db.deleteFrom('brand_kits').where('team_id', '=', teamId).where('id', '=', id).execute();
      // Its fonts went with it (on delete cascade).
      invalidate('fonts');
    },

    /** How many projects use the brand kit (a used kit cannot be deleted). */
    async countProjectsUsing(id: number): Promise<number> {
      const row = await db
        .selectFrom('projects')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('brand_kit_id', '=', id)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type BrandKitRepository = ReturnType<typeof createBrandKitRepository>;
