// Brand kit assets (media), their upload requests and media folders. Media rows double as the asset processor's
// durable queue: claim() takes a PROCESSING row for a while (its lease), settle() ends it exactly once.
import { randomInt } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { PageRequest } from '../../../domain/page.js';
import { containsIgnoringCase } from '../contains.js';
import { now } from '../database.js';
import { paginate } from '../paginate.js';
import type { Database, MediaFoldersTable, MediaTable } from '../schema.js';

export type MediaRow = Selectable<MediaTable>;
export type MediaFolderRow = Selectable<MediaFoldersTable>;
export type MediaStatus = 'PROCESSING' | 'VALID' | 'INVALID' | 'ERROR';

const HASH_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** 7 random lowercase alphanumerics, the form of every hash of the service (SPEC §1). */
function randomHash(): string {
  let hash = '';
  for (let i = 0; i < 7; i++) hash += HASH_ALPHABET[randomInt(HASH_ALPHABET.length)];
  return hash;
}

export interface NewMedia {
  teamId: number;
  brandKitId: number;
  mediaFolderId: number | null;
  name: string;
  fileName: string;
  src: string;
  createdBy: number;
}

export interface MediaFilters {
  mediaFolderId?: number;
  search?: string;
  format?: string;
  type?: string;
}

/** What a processor writes when it settles a row; every other column keeps its value. */
export type MediaOutcome = Partial<
  Pick<
    MediaRow,
    'type' | 'format' | 'size' | 'width' | 'height' | 'duration' | 'checksum' | 'blob_key' | 'file_name' | 'error'
  >
> & { status: Exclude<MediaStatus, 'PROCESSING'> };

export function createMediaRepository(db: Kysely<Database>) {
  /** Hashes not used yet: a collision among 36^7 values is rare, but the unique index would turn it into a 500. */
  async function freshHashes(count: number): Promise<string[]> {
    const hashes = new Set<string>();
    while (hashes.size < count) {
      const candidates = Array.from({ length: count - hashes.size }, randomHash).filter((h) => !hashes.has(h));
      const taken = candidates.length
        ? await db.selectFrom('media').select('hash').where('hash', 'in', candidates).execute()
        : [];
      const used = new Set(taken.map((r) => r.hash));
      for (const hash of candidates) if (!used.has(hash)) hashes.add(hash);
    }
    return [...hashes];
  }

  return {
    /** An upload request and its assets, all PROCESSING, in the order given. */
    async insertUpload(
      upload: { id: string; teamId: number; brandKitId: number; createdBy: number },
      media: NewMedia[],
    ) {
      const at = now();
      await db
        .insertInto('media_uploads')
        .values({
          id: upload.id,
          team_id: upload.teamId,
          brand_kit_id: upload.brandKitId,
          remaining: media.length,
          created_by: upload.createdBy,
          created_at: at,
        })
        .execute();
      const hashes = await freshHashes(media.length);
      return db
        .insertInto('media')
        .values(
          media.map((m, i) => ({
            hash: hashes[i],
            team_id: m.teamId,
            brand_kit_id: m.brandKitId,
            media_folder_id: m.mediaFolderId,
            upload_id: upload.id,
            name: m.name,
            file_name: m.fileName,
            src: m.src,
            type: null,
            format: null,
            size: null,
            width: null,
            height: null,
            duration: null,
            status: 'PROCESSING',
            error: null,
            checksum: null,
            blob_key: null,
            attempts: 0,
            lease_until: null,
            created_by: m.createdBy,
            created_at: at,
            updated_at: at,
          })),
        )
        .returningAll()
        .execute()
        .then((rows) => rows.sort((a, b) => a.id - b.id));
    },

    /** The stored files of every asset of a brand kit (to delete them with the kit). */
    async blobKeysOfBrandKit(brandKitId: number): Promise<string[]> {
      const rows = await db
        .selectFrom('media')
        .select('blob_key')
        .where('brand_kit_id', '=', brandKitId)
        .where('blob_key', 'is not', null)
        .execute();
      return rows.map((r) => r.blob_key as string);
    },

    async findById(id: number): Promise<MediaRow | undefined> {
      return db.selectFrom('media').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async listByUpload(uploadId: string): Promise<MediaRow[]> {
      return db.selectFrom('media').selectAll().where('upload_id', '=', uploadId).orderBy('id', 'asc').execute();
    },

    async list(brandKitId: number, filters: MediaFilters, page: PageRequest) {
      let query = db.selectFrom('media').selectAll().where('brand_kit_id', '=', brandKitId);
      if (filters.mediaFolderId !== undefined) query = query.where('media_folder_id', '=', filters.mediaFolderId);
      if (filters.search) {
        const search = filters.search;
        query = query.where((eb) => containsIgnoringCase(eb.ref('name'), search));
      }
      if (filters.format) query = query.where('format', '=', filters.format);
      if (filters.type) query = query.where('type', '=', filters.type);
      return paginate<MediaRow>(query, page, 'id', {
        NAME: 'name',
        CREATED_AT: 'created_at',
        UPDATED_AT: 'updated_at',
      });
    },

    /** Ids of PROCESSING rows after `afterId`, in id order: the recovery sweep of the asset jobs pages through them. */
    async processingIds(afterId: number, limit: number): Promise<number[]> {
      const rows = await db
        .selectFrom('media')
        .select('id')
        .where('status', '=', 'PROCESSING')
        .where('id', '>', afterId)
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    /**
     * Takes a PROCESSING row until `leaseUntil` and counts the attempt; the row, or undefined when it is settled or
     * another processor holds it. The conditional update is the lock: of two claims, one changes the row.
     */
    async claim(id: number, at: string, leaseUntil: string): Promise<MediaRow | undefined> {
      const result = await db
        .updateTable('media')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), lease_until: leaseUntil, updated_at: at }))
        .where('id', '=', id)
        .where('status', '=', 'PROCESSING')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return undefined;
      return db.selectFrom('media').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Lets another claim take the row after `retryAt` (a retry after an unexpected failure). */
    async release(id: number, retryAt: string, error: string): Promise<void> {
      await db
        .updateTable('media')
        .set({ lease_until: retryAt, error, updated_at: now() })
        .where('id', '=', id)
        .where('status', '=', 'PROCESSING')
        .execute();
    },

    /** Ends a PROCESSING row; false when it was settled already or is gone (its brand kit was deleted). */
    async settle(id: number, outcome: MediaOutcome): Promise<boolean> {
      const result = await db
        .updateTable('media')
        .set({ ...outcome, lease_until: null, updated_at: now() })
        .where('id', '=', id)
        .where('status', '=', 'PROCESSING')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * One asset of the upload settled; the upload's team and brand kit when it was the last, else null. The decrement
     * takes the upload row's lock, so of two assets settling at once exactly one sees zero.
     */
    async settleOneOfUpload(
      uploadId: string,
    ): Promise<{ teamId: number; brandKitId: number; brandKitName: string } | null> {
      const row = await db
        .updateTable('media_uploads')
        .set((eb) => ({ remaining: eb('remaining', '-', 1) }))
        .where('id', '=', uploadId)
        .where('remaining', '>', 0)
        .returning(['remaining', 'team_id', 'brand_kit_id'])
        .executeTakeFirst();
      if (!row || Number(row.remaining) !== 0) return null;
      await db.updateTable('media_uploads').set({ completed_at: now() }).where('id', '=', uploadId).execute();
      const kit = await db
        .selectFrom('brand_kits')
        .select('name')
        .where('id', '=', row.brand_kit_id)
        .executeTakeFirstOrThrow();
      return { teamId: row.team_id, brandKitId: row.brand_kit_id, brandKitName: kit.name };
    },

    /** A media folder of a brand kit of the team, or undefined. */
    async findFolderInTeam(teamId: number, id: number): Promise<MediaFolderRow | undefined> {
      return db
        .selectFrom('media_folders as f')
        .innerJoin('brand_kits as k', 'k.id', 'f.brand_kit_id')
        .selectAll('f')
        .where('k.team_id', '=', teamId)
        .where('f.id', '=', id)
        .executeTakeFirst();
    },

    async insertFolder(folder: {
      brandKitId: number;
      parentId: number | null;
      name: string;
      createdBy: number;
    }): Promise<MediaFolderRow> {
      return db
        .insertInto('media_folders')
        .values({
          brand_kit_id: folder.brandKitId,
          parent_id: folder.parentId,
          name: folder.name,
          created_by: folder.createdBy,
          created_at: now(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** Every media folder of the brand kit, by name (case-insensitive), ties by id. */
    async listFolders(brandKitId: number): Promise<MediaFolderRow[]> {
      return db
        .selectFrom('media_folders')
        .selectAll()
        .where('brand_kit_id', '=', brandKitId)
        .orderBy((eb) => eb.fn('lower', [eb.ref('name')]), 'asc')
        .orderBy('id', 'asc')
        .execute();
    },
  };
}

export type MediaRepository = ReturnType<typeof createMediaRepository>;
