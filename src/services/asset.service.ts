// Brand kit assets and media folders (seed "Brand kit assets", SPEC §9, §11). An upload only records the sources:
// every asset is answered in status PROCESSING and the asset processor (asset-processor.ts) fetches them after the
// transaction commits. Assets of a brand kit are team-wide like the kit: Editors and stronger upload, every role lists.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import { pageRequest } from '../domain/page.js';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/outbox.js';
import type { AssetFetcher, MediaFormat, MediaKind } from '../render/media/assets.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { BrandKitRow } from '../storage/db/repositories/brand-kits.repository.js';
import {
  createMediaRepository,
  type MediaFolderRow,
  type MediaRepository,
  type MediaRow,
} from '../storage/db/repositories/media.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { Access } from './access.js';

/** Signs the download links of VALID assets; `url` stays null until then. */
export function createMediaPresenter(deps: { blobs: Pick<BlobStore, 'signedUrl'>; urlTtlSeconds: number }) {
  return async (row: MediaRow) => ({
    id: row.id,
    hash: row.hash,
    name: row.name,
    fileName: row.file_name,
    type: row.type as MediaKind | null,
    format: row.format as MediaFormat | null,
    size: row.size,
    width: row.width,
    height: row.height,
    duration: row.duration,
    status: row.status as 'PROCESSING' | 'VALID' | 'INVALID' | 'ERROR',
    url:
      row.status === 'VALID' && row.blob_key
        ? await deps.blobs.signedUrl(row.blob_key, { ttlSeconds: deps.urlTtlSeconds, fileName: row.file_name })
        : null,
    src: row.src,
    checksum: row.checksum,
    mediaFolderId: row.media_folder_id,
    createdAt: row.created_at,
    createdBy: row.created_by,
    error: row.error,
  });
}

export type MediaPresenter = ReturnType<typeof createMediaPresenter>;

function mediaFolderOf(row: MediaFolderRow) {
  return {
    id: row.id,
    brandkitId: row.brand_kit_id,
    name: row.name,
    parentId: row.parent_id,
    createdAt: row.created_at,
  };
}

/** The last path segment of the link, decoded, without characters a file system or a header would refuse. */
export function fileNameFromUrl(src: string): string {
  let segment = '';
  try {
    segment = new URL(src).pathname.split('/').filter(Boolean).at(-1) ?? '';
    segment = decodeURIComponent(segment);
  } catch {
    // An undecodable segment keeps its percent-encoded spelling.
  }
  const cleaned = segment
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '')
    .replace(/[/\\:*?"<>|]/g, '_')
    .replace(/^[\s.]+|[\s.]+$/g, '')
    .slice(0, 200);
  return cleaned || 'asset';
}

/** The file name without its extension ("logo.png" → "logo"). */
export function nameFromFileName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}

/** The extensions a format may carry in a file name; another one is replaced by the format's own. */
const EXTENSIONS: Record<string, readonly string[]> = { jpg: ['jpg', 'jpeg'], mov: ['mov', 'qt'] };

/** The uploaded file name with the extension of what it turned out to be ("banner" served as PNG → "banner.png"). */
export function fileNameFor(fileName: string, name: string, format: string): string {
  const dot = fileName.lastIndexOf('.');
  const extension = dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
  return (EXTENSIONS[format] ?? [format]).includes(extension) ? fileName : `${name}.${format}`;
}

/** A foreign key refused the insert: the brand kit (or the folder, with it) was deleted after the lookup. */
function deletedMeanwhile(error: unknown, brandkitId: number): unknown {
  const e = error as { code?: string; message?: string };
  if (e?.code === '23503' || /FOREIGN KEY constraint failed/i.test(String(e?.message))) {
    return new AppError('NOT_FOUND', `brandkitId: brand kit ${brandkitId} was deleted by another request meanwhile`);
  }
  return error;
}

/** Whoever fetches the recorded sources; told after every upload commits. */
/** Where accepted uploads go: one background job per asset (services/asset-processor.ts). */
export interface AssetQueue {
  enqueue(mediaIds: readonly number[]): Promise<void>;
}

export interface AssetServiceDeps {
  db: Kysely<Database>;
  media: Pick<MediaRepository, 'list' | 'findFolderInTeam' | 'insertFolder' | 'listFolders'>;
  access: Pick<Access, 'requireBrandKit'>;
  blobs: Pick<BlobStore, 'signedUrl' | 'put' | 'delete'>;
  urlTtlSeconds: number;
  queue: AssetQueue;
  /** Checks files uploaded from disk against the rules a fetched source meets (type by content, SPEC §9 caps). */
  inspector: Pick<AssetFetcher, 'inspect'>;
}

/** Files one multipart upload may carry (each is held in memory until it is checked and stored). */
export const MAX_ASSET_FILES_PER_UPLOAD = 10;

/** A file of a multipart upload, read whole; `truncated` when it passed the route's byte limit. */
export interface UploadedFile {
  fileName: string;
  bytes: Buffer;
  truncated: boolean;
}

export interface ListAssetsInput {
  first?: number;
  cursor?: string;
  parentId?: number;
  search?: string;
  mediaFormat?: string;
  mediaType?: string;
}

export function createAssetService({ db, media, access, blobs, urlTtlSeconds, queue, inspector }: AssetServiceDeps) {
  const present = createMediaPresenter({ blobs, urlTtlSeconds });

  /**
   * A media folder of the kit. One of no brand kit of the team is a 404; one of another kit of the team is `other`:
   * a 422 where the folder is a destination (it exists, but cannot hold this kit's assets), a 404 where it is a filter.
   */
  async function requireMediaFolder(
    actor: Actor,
    kit: BrandKitRow,
    folderId: number,
    field: string,
    other: 'UNPROCESSABLE' | 'NOT_FOUND',
  ): Promise<MediaFolderRow> {
    const folder = await media.findFolderInTeam(actor.teamId, folderId);
    if (!folder) throw new AppError('NOT_FOUND', `${field}: media folder ${folderId} does not exist in this team`);
    if (folder.brand_kit_id !== kit.id) {
      throw new AppError(
        other,
        `${field}: media folder ${folderId} belongs to brand kit ${folder.brand_kit_id}, not to brand kit ${kit.id}`,
      );
    }
    return folder;
  }

  return {
    async upload(actor: Actor, input: { brandkitId: number; mediaFolderId?: number; sources: string[] }) {
      const kit = await access.requireBrandKit(actor, input.brandkitId, 'content:write');
      const folderId =
        input.mediaFolderId === undefined
          ? null
          : (await requireMediaFolder(actor, kit, input.mediaFolderId, 'mediaFolderId', 'UNPROCESSABLE')).id;
      const rows = await db
        .transaction()
        .execute((tx) =>
          createMediaRepository(tx).insertUpload(
            { id: randomUUID(), teamId: actor.teamId, brandKitId: kit.id, createdBy: actor.userId },
            input.sources.map((src) => {
              const fileName = fileNameFromUrl(src);
              return {
                teamId: actor.teamId,
                brandKitId: kit.id,
                mediaFolderId: folderId,
                name: nameFromFileName(fileName),
                fileName,
                src,
                createdBy: actor.userId,
              };
            }),
          ),
        )
        .catch((error) => {
          throw deletedMeanwhile(error, kit.id);
        });
      // After the commit: the job must find its row. Should this fail, the rows stay PROCESSING and the recovery sweep
      // of the next start enqueues them.
      await queue.enqueue(rows.map((row) => row.id));
      return { assets: await Promise.all(rows.map(present)) };
    },

    /**
     * Files uploaded from disk (multipart). Unlike links, the bytes are here already: each file is checked now and
     * its asset is answered settled (VALID, or INVALID with the reason), so nothing waits for the background queue.
     * The rows are inserted and settled in one transaction, so no PROCESSING row of a file is ever visible (the
     * recovery sweep would try to fetch its `upload:` source). brandkit/assetsUploaded is recorded as for links.
     */
    async uploadFiles(
      actor: Actor,
      input: { brandkitId: number; mediaFolderId?: number },
      files: readonly UploadedFile[],
      maxBytes: number,
    ) {
      const kit = await access.requireBrandKit(actor, input.brandkitId, 'content:write');
      const folderId =
        input.mediaFolderId === undefined
          ? null
          : (await requireMediaFolder(actor, kit, input.mediaFolderId, 'mediaFolderId', 'UNPROCESSABLE')).id;
      if (files.length === 0) {
        throw new AppError('VALIDATION_FAILED', 'file: at least one `file` part holding an image, audio or video');
      }
      const checked = await Promise.all(
        files.map(async (file) => {
          if (file.truncated) {
            return { file, error: `${file.fileName}: is larger than the ${maxBytes / 1024 / 1024} MB a file may have` };
          }
          try {
            return { file, media: await inspector.inspect(file.fileName, file.bytes) };
          } catch (error) {
            if (error instanceof AppError && error.code === 'SOURCE_REJECTED') return { file, error: error.message };
            throw error;
          }
        }),
      );
      const stored: string[] = [];
      try {
        const rows = await db.transaction().execute(async (tx) => {
          const repo = createMediaRepository(tx);
          const inserted = await repo.insertUpload(
            { id: randomUUID(), teamId: actor.teamId, brandKitId: kit.id, createdBy: actor.userId },
            checked.map(({ file }) => ({
              teamId: actor.teamId,
              brandKitId: kit.id,
              mediaFolderId: folderId,
              name: nameFromFileName(file.fileName),
              fileName: file.fileName,
              src: `upload:${file.fileName}`,
              createdBy: actor.userId,
            })),
          );
          let last: Awaited<ReturnType<typeof repo.settleOneOfUpload>> = null;
          for (const [index, row] of inserted.entries()) {
            const { media: file, error } = checked[index];
            if (!file) {
              await repo.settle(row.id, { status: 'INVALID', error: error ?? null });
            } else {
              const key = `assets/${kit.id}/${row.hash}.${file.format}`;
              // Stored before the commit: a file without a row (a rollback) is only wasted space.
              await blobs.put(key, file.bytes, file.mimeType);
              stored.push(key);
              await repo.settle(row.id, {
                status: 'VALID',
                type: file.kind,
                format: file.format,
                size: file.bytes.length,
                width: file.width ?? null,
                height: file.height ?? null,
                duration: file.durationSeconds ?? null,
                checksum: file.sha256,
                blob_key: key,
                file_name: fileNameFor(row.file_name, row.name, file.format),
                error: null,
              });
            }
            last = (await repo.settleOneOfUpload(row.upload_id)) ?? last;
          }
          const settled = await repo.listByUpload(inserted[0].upload_id);
          const assets = await Promise.all(settled.map(present));
          if (last) {
            await recordEvent(tx, {
              teamId: last.teamId,
              action: 'brandkit/assetsUploaded',
              data: { brandKit: { id: last.brandKitId, name: last.brandKitName }, assets },
            });
          }
          return assets;
        });
        return { assets: rows };
      } catch (error) {
        await Promise.all(stored.map((key) => blobs.delete(key).catch(() => undefined)));
        throw deletedMeanwhile(error, kit.id);
      }
    },

    async list(actor: Actor, brandkitId: number, query: ListAssetsInput) {
      const kit = await access.requireBrandKit(actor, brandkitId, 'read', 'id');
      if (query.parentId !== undefined) await requireMediaFolder(actor, kit, query.parentId, 'parentId', 'NOT_FOUND');
      const search = query.search?.trim() || undefined;
      const filters = {
        mediaFolderId: query.parentId,
        search,
        format: query.mediaFormat,
        type: query.mediaType,
      };
      const page = pageRequest(
        { limit: query.first, cursor: query.cursor },
        { brandkitId: kit.id, ...filters },
        { orderBy: 'CREATED_AT', direction: 'DESC' },
      );
      const result = await media.list(kit.id, filters, page);
      return { ...result, nodes: await Promise.all(result.nodes.map(present)) };
    },

    async createFolder(actor: Actor, input: { brandkitId: number; name: string; parentId?: number }) {
      const kit = await access.requireBrandKit(actor, input.brandkitId, 'content:write');
      const parentId =
        input.parentId === undefined
          ? null
          : (await requireMediaFolder(actor, kit, input.parentId, 'parentId', 'UNPROCESSABLE')).id;
      const row = await media
        .insertFolder({ brandKitId: kit.id, parentId, name: input.name.trim(), createdBy: actor.userId })
        .catch((error) => {
          throw deletedMeanwhile(error, kit.id);
        });
      return { mediaFolder: mediaFolderOf(row) };
    },

    async listFolders(actor: Actor, brandkitId: number) {
      const kit = await access.requireBrandKit(actor, brandkitId, 'read', 'id');
      return (await media.listFolders(kit.id)).map(mediaFolderOf);
    },
  };
}

export type AssetService = ReturnType<typeof createAssetService>;
