// Brand kits (SPEC §11): team-wide, managed by Editors and stronger; a kit that a project uses cannot be deleted.
import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import { type PageQuery, pageRequest } from '../domain/page.js';
import { AppError } from '../errors.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import {
  type BrandColor,
  type BrandKitRepository,
  type BrandKitRow,
  createBrandKitRepository,
  type TypographyEntry,
} from '../storage/db/repositories/brand-kits.repository.js';
import { createMediaRepository } from '../storage/db/repositories/media.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { Access } from './access.js';

export interface BrandKitServiceDeps {
  db: Kysely<Database>;
  brandKits: Pick<BrandKitRepository, 'list' | 'insert' | 'rename'>;
  access: Pick<Access, 'requireBrandKit'>;
  /** Where asset files live: a deleted kit's files go with it. */
  blobs: Pick<BlobStore, 'delete'>;
}

/** The brand kit as create and update answer it (SPEC §11). */
export function brandKitOf(row: BrandKitRow) {
  return {
    id: row.id,
    name: row.name,
    teamId: row.team_id,
    createdBy: row.created_by,
    typography: row.typography,
    colors: row.colors,
    createdAt: row.created_at,
  };
}

function inUse(brandKitId: number, projects?: number): AppError {
  const users = projects === undefined || projects === 1 ? 'a project' : `${projects} projects`;
  return new AppError(
    'BRANDKIT_IN_USE',
    `brandkitId: brand kit ${brandKitId} is used by ${users}; ` +
      'assign another brand kit to them first (PUT /v1/projects with assignedBrandKitId)',
  );
}

/** A foreign key refused the delete: a project started using the kit after our check. */
function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23503' || /FOREIGN KEY constraint failed/i.test(String(e?.message));
}

export function createBrandKitService({ db, brandKits, access, blobs }: BrandKitServiceDeps) {
  return {
    async list(actor: Actor, query: PageQuery & { keyword?: string }) {
      const keyword = query.keyword?.trim() || undefined;
      const page = pageRequest(query, { keyword }, { orderBy: 'CREATED_AT', direction: 'DESC' });
      const result = await brandKits.list(actor.teamId, keyword, page);
      return {
        ...result,
        nodes: result.nodes.map((row) => ({
          id: row.id,
          name: row.name,
          teamId: row.team_id,
          createdBy: row.created_by,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
          assetCount: row.assetCount,
          colors: row.colors,
        })),
      };
    },

    async create(actor: Actor, input: { name: string }) {
      const row = await brandKits.insert({ teamId: actor.teamId, name: input.name.trim(), createdBy: actor.userId });
      return { brandKit: brandKitOf(row) };
    },

    async rename(
      actor: Actor,
      input: { brandkitId: number; name: string; typography?: TypographyEntry[]; colors?: BrandColor[] },
    ) {
      const kit = await access.requireBrandKit(actor, input.brandkitId, 'content:write');
      const name = input.name.trim();
      const typography = input.typography;
      // Colours are stored trimmed and with lower-case hex, so the palette compares and renders the same everywhere.
      const colors = input.colors?.map((c) => ({ name: c.name.trim(), hex: c.hex.toLowerCase() }));
      const seen = new Set<string>();
      for (const [index, color] of (colors ?? []).entries()) {
        const key = color.name.toLowerCase();
        if (seen.has(key)) {
          throw new AppError(
            'UNPROCESSABLE',
            `colors[${index}].name: the kit already has a colour named "${color.name}"`,
          );
        }
        seen.add(key);
      }
      // A typography entry may point at a brand font by fontId (seed shape): it must be a face of this team.
      for (const [index, entry] of (typography ?? []).entries()) {
        if (entry.fontId === null) continue;
        const font = await db
          .selectFrom('brand_fonts')
          .select('id')
          .where('team_id', '=', actor.teamId)
          .where('id', '=', entry.fontId)
          .executeTakeFirst();
        if (!font) {
          throw new AppError(
            'UNPROCESSABLE',
            `typography[${index}].fontId: the team has no brand font ${entry.fontId} (GET /v1/brandkit/{id}/fonts lists them)`,
          );
        }
      }
      await brandKits.rename(actor.teamId, kit.id, name, typography, colors);
      return {
        brandKit: brandKitOf({ ...kit, name, typography: typography ?? kit.typography, colors: colors ?? kit.colors }),
      };
    },

    async delete(actor: Actor, brandkitId: number): Promise<void> {
      const kit = await access.requireBrandKit(actor, brandkitId, 'content:write');
      let blobKeys: string[];
      try {
        blobKeys = await db.transaction().execute(async (tx) => {
          const repo = createBrandKitRepository(tx);
          const projects = await repo.countProjectsUsing(kit.id);
          if (projects > 0) throw inUse(kit.id, projects);
          const keys = await createMediaRepository(tx).blobKeysOfBrandKit(kit.id);
          // Brand font files are shared by every face (and kit) that holds the same file: only those no other kit
          // of the team still uses go with this kit.
          const fontKeys = await tx
            .selectFrom('brand_fonts')
            .select('blob_key')
            .distinct()
            .where('brand_kit_id', '=', kit.id)
            .where((eb) =>
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('brand_fonts as other')
                    .select('other.id')
                    .whereRef('other.blob_key', '=', 'brand_fonts.blob_key')
                    .where('other.brand_kit_id', '!=', kit.id),
                ),
              ),
            )
            .execute();
          await repo.delete(actor.teamId, kit.id);
          return [...keys, ...fontKeys.map((row) => row.blob_key)];
        });
      } catch (error) {
        if (isForeignKeyViolation(error)) throw inUse(kit.id);
        throw error;
      }
      // After the commit: a file without a row is only wasted space, a row without its file would be a broken asset.
      await Promise.all(blobKeys.map((key) => blobs.delete(key)));
    },
  };
}

export type BrandKitService = ReturnType<typeof createBrandKitService>;
