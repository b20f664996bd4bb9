// Fetches the sources of uploaded brand kit assets in the background (SPEC §9, §11), as `asset.fetch` jobs of the
// JobQueue, so both deployment shapes run it where every other job runs (the worker role, or `all`). The media rows
// stay the truth: a PROCESSING row is work to do, and start() (the recovery sweep) enqueues a job for every such row
// under an idempotent job id, so nothing accepted is lost when a process stops or crashes between the commit and the
// enqueue. A job fetches through the guarded fetcher (SSRF guard, share links refused, type by content, the caps of
// §9), stores the file in the BlobStore and settles its row exactly once: VALID, INVALID with the fetcher's reason, or
// ERROR once the queue has used its attempts on failures that are not the source's fault. The asset that settles last
// in its upload records brandkit/assetsUploaded, in the transaction that settles it.
import type { Kysely } from 'kysely';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/outbox.js';
import type { Job, JobQueue } from '../jobs/job-queue.js';
import type { AssetFetcher, FetchedMedia } from '../render/media/assets.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import {
  createMediaRepository,
  type MediaOutcome,
  type MediaRow,
} from '../storage/db/repositories/media.repository.js';
import type { Database } from '../storage/db/schema.js';
import { type AssetQueue, createMediaPresenter, fileNameFor } from './asset.service.js';

export { fileNameFor };

export interface AssetProcessorLog {
  error(details: object, message: string): void;
}

export interface AssetProcessorOptions {
  db: Kysely<Database>;
  queue: Pick<JobQueue, 'enqueue' | 'process'>;
  blobs: Pick<BlobStore, 'put' | 'delete' | 'signedUrl'>;
  fetcher: Pick<AssetFetcher, 'fetch'>;
  /** Lifetime of the links in the brandkit/assetsUploaded payload. */
  urlTtlSeconds: number;
  /** Sources fetched at once in this process. Default 4. */
  concurrency?: number;
  /** Attempts of one source before it ends in ERROR (failures that are not the source's fault). Default 3. */
  maxAttempts?: number;
  /** Wait before the 2nd, 3rd… attempt; the last value repeats. Default [2 000, 10 000] ms. */
  retryDelaysMs?: readonly number[];
  log?: AssetProcessorLog;
}

export interface AssetProcessor extends AssetQueue {
  /** Registers the `asset.fetch` handler on the queue; call before the queue starts, where jobs run. */
  register(): void;
  /** The recovery sweep: enqueues a job for every PROCESSING row (a no-op for rows whose job the queue holds). */
  start(): Promise<void>;
}

/** A failure that is not the source's fault; `reason` is what a client may read (the detail stays in the log). */
class AssetFailure extends Error {
  constructor(
    readonly reason: string,
    cause: unknown,
  ) {
    super(reason, { cause });
  }
}

const SWEEP_BATCH = 500;
const jobIdOf = (mediaId: number) => `asset:${mediaId}`;

export function createAssetProcessor(options: AssetProcessorOptions): AssetProcessor {
  const { db, blobs, fetcher, queue } = options;
  const maxAttempts = options.maxAttempts ?? 3;
  const retryDelaysMs = options.retryDelaysMs ?? [2_000, 10_000];
  const present = createMediaPresenter({ blobs, urlTtlSeconds: options.urlTtlSeconds });
  const repo = createMediaRepository(db);
  const nowIso = () => new Date().toISOString();

  /** Settles the row and, when it was the last of its upload, records the event, all in one transaction. */
  async function settle(row: MediaRow, outcome: MediaOutcome): Promise<boolean> {
    return db.transaction().execute(async (tx) => {
      const media = createMediaRepository(tx);
      if (!(await media.settle(row.id, outcome))) return false;
      const upload = await media.settleOneOfUpload(row.upload_id);
      if (upload) {
        const assets = await Promise.all((await media.listByUpload(row.upload_id)).map(present));
        await recordEvent(tx, {
          teamId: upload.teamId,
          action: 'brandkit/assetsUploaded',
          data: { brandKit: { id: upload.brandKitId, name: upload.brandKitName }, assets },
        });
      }
      return true;
    });
  }

  /** Logs the failure, notes it on the row (a client listing assets sees the attempt) and lets the queue retry. */
  async function failed(row: MediaRow, job: Job<'asset.fetch'>, error: unknown, what: string): Promise<AssetFailure> {
    options.log?.error({ err: error, mediaId: row.id, attempt: job.attempt }, `asset processor: ${what}`);
    const reason = `${row.src}: ${what} because of an internal error`;
    await repo.release(row.id, nowIso(), `${reason}; attempt ${job.attempt} of ${job.maxAttempts}`);
    return new AssetFailure(reason, error);
  }

  async function fetchOne(job: Job<'asset.fetch'>): Promise<void> {
    const at = nowIso();
    // Counts the attempt on the row; the queue holds the lease of the job, so the row's lease ends at once.
    const row = await repo.claim(job.payload.mediaId, at, at);
    if (!row) return; // settled meanwhile, or deleted with its brand kit
    let media: FetchedMedia;
    try {
      media = await fetcher.fetch(row.src, { shareLinks: 'refuse' });
    } catch (error) {
      if (error instanceof AppError && error.code === 'SOURCE_REJECTED') {
        await settle(row, { status: 'INVALID', error: error.message });
        return;
      }
      throw await failed(row, job, error, 'the file could not be fetched');
    }
    // One object per asset; a retry writes the same key again.
    const key = `assets/${row.brand_kit_id}/${row.hash}.${media.format}`;
    try {
      await blobs.put(key, media.bytes, media.mimeType);
    } catch (error) {
      throw await failed(row, job, error, 'the file could not be stored');
    }
    const settled = await settle(row, {
      status: 'VALID',
      type: media.kind,
      format: media.format,
      size: media.bytes.length,
      width: media.width ?? null,
      height: media.height ?? null,
      duration: media.durationSeconds ?? null,
      checksum: media.sha256,
      blob_key: key,
      file_name: fileNameFor(row.file_name, row.name, media.format),
      error: null,
    });
    // The row was settled elsewhere or deleted with its brand kit: the file belongs to nobody.
    if (!settled) await blobs.delete(key);
  }

  /** The queue has used the job's attempts: the last one failed, or its process died while it ran. */
  async function exhausted(job: Job<'asset.fetch'>, error: Error): Promise<void> {
    const row = await repo.findById(job.payload.mediaId);
    if (row?.status !== 'PROCESSING') return;
    const reason =
      error instanceof AssetFailure
        ? `${error.reason} (${row.attempts} attempts); upload it again`
        : `${row.src}: processing was interrupted; upload it again`;
    await settle(row, { status: 'ERROR', error: reason });
  }

  async function enqueue(mediaIds: readonly number[]): Promise<void> {
    for (const mediaId of mediaIds) {
      await queue.enqueue('asset.fetch', { mediaId }, { jobId: jobIdOf(mediaId), maxAttempts, retryDelaysMs });
    }
  }

  return {
    enqueue,

    register() {
      queue.process('asset.fetch', fetchOne, { concurrency: options.concurrency ?? 4, onExhausted: exhausted });
    },

    async start() {
      for (let after = 0; ; ) {
        const ids = await repo.processingIds(after, SWEEP_BATCH);
        await enqueue(ids);
        if (ids.length < SWEEP_BATCH) return;
        after = ids[ids.length - 1];
      }
    },
  };
}
