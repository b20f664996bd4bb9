// Fetches the sources of uploaded brand kit assets in the background (SPEC §9, §11). The media rows are the queue:
// a PROCESSING row is work to do, so nothing accepted is lost when the process stops or crashes; start() picks up
// every such row. A row is claimed with a lease before its source is fetched (two processors never fetch one row at
// once), fetched through the guarded fetcher (SSRF guard, share links refused, type by content, the caps of §9),
// stored in the BlobStore and settled exactly once: VALID, INVALID with the fetcher's reason, or ERROR after a
// bounded number of attempts for failures that are not the source's fault. The asset that settles last in its
// upload records brandkit/assetsUploaded, in the transaction that settles it.
import type { Kysely } from 'kysely';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/outbox.js';
import type { AssetFetcher, FetchedMedia } from '../render/media/assets.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import {
  createMediaRepository,
  type MediaOutcome,
  type MediaRow,
} from '../storage/db/repositories/media.repository.js';
import type { Database } from '../storage/db/schema.js';
import { type AssetQueue, createMediaPresenter } from './asset.service.js';

export interface AssetProcessorLog {
  error(details: object, message: string): void;
}

export interface AssetProcessorOptions {
  db: Kysely<Database>;
  blobs: Pick<BlobStore, 'put' | 'delete' | 'signedUrl'>;
  fetcher: Pick<AssetFetcher, 'fetch'>;
  /** Lifetime of the links in the brandkit/assetsUploaded payload. */
  urlTtlSeconds: number;
  /** Sources fetched at once. Default 4. */
  concurrency?: number;
  /** Claims of one row before it ends in ERROR (failures that are not the source's fault). Default 3. */
  maxAttempts?: number;
  /** Wait before the 2nd, 3rd… attempt; the last value repeats. Default [2 000, 10 000] ms. */
  retryDelaysMs?: readonly number[];
  /** How long a claim holds a row: longer than one fetch (15 s), probe (10 s) and store. Default 2 minutes. */
  leaseMs?: number;
  /** How often the table is swept for rows this process was not told about (other processes, expired leases). */
  sweepIntervalMs?: number;
  /** Clock in milliseconds. Default Date.now. */
  now?: () => number;
  log?: AssetProcessorLog;
}

export interface AssetProcessor extends AssetQueue {
  /** Picks up every PROCESSING row now and keeps watching the table until stop(). */
  start(): void;
  /** Looks for new work at once (an upload committed). */
  kick(): void;
  /** Resolves when nothing is being fetched, queued, or waiting for a retry in this process. */
  idle(): Promise<void>;
  /** Takes no new rows, waits for the ones being fetched; rows not started stay PROCESSING for the next start. */
  stop(): Promise<void>;
}

/** The extensions a format may carry in a file name; another one is replaced by the format's own. */
const EXTENSIONS: Record<string, readonly string[]> = { jpg: ['jpg', 'jpeg'], mov: ['mov', 'qt'] };

/** The uploaded file name with the extension of what it turned out to be ("banner" served as PNG → "banner.png"). */
export function fileNameFor(fileName: string, name: string, format: string): string {
  const dot = fileName.lastIndexOf('.');
  const extension = dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
  return (EXTENSIONS[format] ?? [format]).includes(extension) ? fileName : `${name}.${format}`;
}

const SWEEP_BATCH = 500;

export function createAssetProcessor(options: AssetProcessorOptions): AssetProcessor {
  const { db, blobs, fetcher } = options;
  const concurrency = options.concurrency ?? 4;
  const maxAttempts = options.maxAttempts ?? 3;
  const retryDelays = options.retryDelaysMs ?? [2_000, 10_000];
  const leaseMs = options.leaseMs ?? 2 * 60_000;
  const clock = options.now ?? Date.now;
  const present = createMediaPresenter({ blobs, urlTtlSeconds: options.urlTtlSeconds });
  const repo = createMediaRepository(db);
  const iso = (ms: number) => new Date(ms).toISOString();

  let started = false;
  let stopping = false;
  const pending: number[] = [];
  /** Ids queued or being processed here, so that a sweep does not queue them twice. */
  const known = new Set<number>();
  let running = 0;
  let sweeping: Promise<void> | null = null;
  let sweepAgain = false;
  let moreWaiting = false;
  let interval: NodeJS.Timeout | null = null;
  const retries = new Set<NodeJS.Timeout>();
  let waiters: (() => void)[] = [];

  function isIdle() {
    return !sweeping && pending.length === 0 && running === 0 && retries.size === 0;
  }

  function notify() {
    if (!isIdle()) return;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  }

  function sweep(): void {
    if (!started || stopping) return;
    if (sweeping) {
      sweepAgain = true;
      return;
    }
    sweeping = (async () => {
      do {
        sweepAgain = false;
        const ids = await repo.claimable(iso(clock()), SWEEP_BATCH);
        for (const id of ids) {
          if (known.has(id)) continue;
          known.add(id);
          pending.push(id);
        }
        // A full batch means more rows wait: the next sweep runs once these are done (see pump).
        moreWaiting = ids.length === SWEEP_BATCH;
        pump();
      } while (sweepAgain && !stopping);
    })()
      .catch((error) => options.log?.error({ err: error }, 'asset processor: looking for work failed'))
      .finally(() => {
        sweeping = null;
        notify();
      });
  }

  function pump() {
    while (!stopping && running < concurrency && pending.length > 0) {
      const id = pending.shift()!;
      running += 1;
      processOne(id)
        .catch((error) => options.log?.error({ err: error, mediaId: id }, 'asset processor: processing failed'))
        .finally(() => {
          running -= 1;
          known.delete(id);
          pump();
          if (moreWaiting && pending.length === 0 && running === 0) {
            moreWaiting = false;
            sweep();
          }
          notify();
        });
    }
  }

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

  /** A failure that is not the source's fault: try again later, or give up with ERROR after maxAttempts. */
  async function failed(row: MediaRow, error: unknown, what: string) {
    options.log?.error({ err: error, mediaId: row.id, attempt: row.attempts }, `asset processor: ${what}`);
    const message = `${row.src}: ${what} because of an internal error`;
    if (row.attempts >= maxAttempts) {
      await settle(row, { status: 'ERROR', error: `${message} (${row.attempts} attempts); upload it again` });
      return;
    }
    const delay = retryDelays[Math.min(row.attempts - 1, retryDelays.length - 1)] ?? 0;
    await repo.release(row.id, iso(clock() + delay), `${message}; attempt ${row.attempts} of ${maxAttempts}`);
    if (stopping) return; // the next start (or another process) takes it after the delay
    const timer = setTimeout(() => {
      retries.delete(timer);
      if (!stopping && !known.has(row.id)) {
        known.add(row.id);
        pending.push(row.id);
        pump();
      }
      notify();
    }, delay);
    retries.add(timer);
  }

  async function processOne(id: number) {
    const at = clock();
    const row = await repo.claim(id, iso(at), iso(at + leaseMs));
    if (!row) return; // settled meanwhile, or another processor holds it
    if (row.attempts > maxAttempts) {
      // Every earlier claim ended without settling: the process stopped or crashed while fetching this source.
      await settle(row, {
        status: 'ERROR',
        error: `${row.src}: processing was interrupted ${row.attempts - 1} times; upload it again`,
      });
      return;
    }
    let media: FetchedMedia;
    try {
      media = await fetcher.fetch(row.src, { shareLinks: 'refuse' });
    } catch (error) {
      if (error instanceof AppError && error.code === 'SOURCE_REJECTED') {
        await settle(row, { status: 'INVALID', error: error.message });
        return;
      }
      await failed(row, error, 'the file could not be fetched');
      return;
    }
    // One object per asset; a retry writes the same key again.
    const key = `assets/${row.brand_kit_id}/${row.hash}.${media.format}`;
    try {
      await blobs.put(key, media.bytes, media.mimeType);
    } catch (error) {
      await failed(row, error, 'the file could not be stored');
      return;
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

  return {
    start() {
      if (started) return;
      started = true;
      stopping = false;
      if (options.sweepIntervalMs !== 0) {
        interval = setInterval(sweep, options.sweepIntervalMs ?? 30_000);
        interval.unref();
      }
      sweep();
    },

    kick: sweep,

    idle() {
      if (isIdle()) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },

    async stop() {
      if (!started) return;
      stopping = true;
      if (interval) clearInterval(interval);
      interval = null;
      for (const timer of retries) clearTimeout(timer);
      retries.clear();
      // Queued rows were never claimed: they stay PROCESSING without a lease, ready for the next start.
      for (const id of pending.splice(0)) known.delete(id);
      notify();
      await new Promise<void>((resolve) => {
        if (isIdle()) resolve();
        else waiters.push(resolve);
      });
      started = false;
      stopping = false;
    },
  };
}
