// Finishes exports (docs/architecture.md): one `export.creative` job per file renders it on the render threads and
// stores it; the job that settles the last file enqueues `export.finish`, which zips a set, sets the final status and
// records the events (team webhooks through the outbox, the request's webhookUrl as a delivery) in one transaction.
// Jobs run at least once, so each step checks the state it changes: a settled file is never rendered again and an
// export is finished once. A render that breaks its thread is retried (the queue's attempts), then the file fails
// with RENDER_CRASHED; one past its time budget fails with RENDER_TIMEOUT; a bad media source fails that file with
// SOURCE_REJECTED while the other files of the set still complete. A sweep enqueues whatever an unfinished export
// might be missing (a crash between a commit and its enqueue); enqueueing an existing job id does nothing.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { BroadcastChannel } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import yazl from 'yazl';
import type { DesignDocument } from '../domain/design.schema.js';
import { createParsedDocuments } from '../domain/parsed-documents.js';
import { AppError } from '../errors.js';
import type { WebhookDeliveries } from '../events/deliveries.js';
import { type NewEvent, recordEvent } from '../events/outbox.js';
import type { RenderSettings } from '../formats/export.schema.js';
import type { PreflightMode } from '../formats/output-format.js';
import {
  BlobWriteError,
  findingsOf,
  type RenderCallOptions,
  type RenderPool,
  RenderTimeoutError,
} from '../formats/pool.js';
import type { Finding } from '../formats/preflight/finding.js';
import { PROGRESS_CHANNEL, type ProgressMessage } from '../formats/progress.js';
import { formatOf, type RenderJob } from '../formats/registry.js';
import type { BrandFontPreparer } from '../render/text/brand-fonts.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { ExportFinish } from '../storage/db/repositories/deliveries.repository.js';
import {
  type CreativeOutcome,
  type CreativeRow,
  createExportRepository,
  type ExportRow,
  type ExportStatus,
  settledColumns,
} from '../storage/db/repositories/exports.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { AcceptedExports } from './accepted-exports.js';
import { type ErrorLog, type ExportLinks, presentExport } from './export-view.js';
import { teamGroup } from './fair.js';
import { type Job, type JobPayloads, type JobQueue, renderJobsPerThread } from './job-queue.js';

/**
 * Rows a render job brought stand for the database's only when the job is taken this soon after the accept: a job that
 * waited longer in a backlog reads them, so that an export deleted meanwhile (with its team) is not made. A clock of
 * the worker behind the API's only shortens the wait.
 */
export const ACCEPTED_FRESH_MS = 2_000;
/** A render that takes its rows from its job marks its file as being made after a thread has rendered it this long. */
const MARK_STARTED_AFTER_MS = 200;

export interface ExportProcessorLog {
  error(details: object, message: string): void;
}

export interface ExportProcessorOptions {
  db: Kysely<Database>;
  queue: Pick<JobQueue, 'enqueue' | 'process'>;
  pool: Pick<RenderPool, 'render' | 'renderFiles' | 'threads'>;
  blobs: Pick<BlobStore, 'put' | 'get' | 'localRoot'>;
  links: ExportLinks;
  /** Team brand fonts (issue 17): rewrites the document's families and caches their files here. None: bundled only. */
  brandFonts?: BrandFontPreparer;
  deliveries: Pick<WebhookDeliveries, 'recordWithDeliveries' | 'finishExport' | 'send' | 'kick'>;
  /** Gives a design made by an export with changes its thumbnail from the export's first file (see below). */
  thumbnails?: {
    fromRendered(designHash: string, size: { width: number; height: number }, rendered: Uint8Array): Promise<string>;
    discard(keys: readonly (string | null)[]): Promise<void>;
  };
  /**
   * Sets a thumbnail on a design that has none yet: the design's id and revision, or null when it has one (a change
   * drew it meanwhile).
   */
  setMissingThumbnail?: (designHash: string, key: string) => Promise<{ id: number; revision: number } | null>;
  /**
   * Has the design with this hash get its thumbnail from a design.thumbnail job if it has none: the export's first
   * file failed, or its thumbnail could not be stored, or a run after a crash cannot tell whether it was.
   */
  thumbnailLater?: (designHash: string) => Promise<void>;
  /** Exports this process accepted: their rows are not read again for their renders. None: always read. */
  accepted?: Pick<AcceptedExports, 'peek' | 'files' | 'forget' | 'takeFile'>;
  /** Time budget of one still render (config.renderTimeouts.stillSeconds × 1000). */
  stillBudgetMs: number;
  /** Time budget of one GIF or MP4 render (config.renderTimeouts.videoSeconds × 1000). Default 10 minutes. */
  videoBudgetMs?: number;
  /** How often unfinished exports are checked for missing jobs. Default 60 000; 0 only at start. */
  sweepIntervalMs?: number;
  onRendered?: (format: string, seconds: number) => void;
  onFinished?: (format: string, status: ExportStatus) => void;
  log?: ExportProcessorLog;
}

/** An error of a stage that is not the render (storing the file): reported as such once retries are used up. */
class StorageError extends Error {}

/**
 * Where an export's file is stored: `exports/<the export id's first two hex digits>/<export id>-<name>`. A folder per
 * export made a new directory for every export on local disk (issue 21: ext4's directory allocation was a sixth of a
 * render thread's time on the bench machine); these 256 folders are made once. A creative's row keeps its key, so
 * files stored under the earlier `exports/<export id>/<name>` are found where they are.
 */
export function exportFileKey(exportId: string, name: string): string {
  return `exports/${exportId.slice(0, 2)}/${exportId}-${name}`;
}

/** Final status of an export from its creatives (SPEC §6). */
export function finalStatus(creatives: Pick<CreativeRow, 'status'>[]): ExportStatus {
  const complete = creatives.filter((c) => c.status === 'complete').length;
  if (complete === creatives.length) return 'complete';
  return complete === 0 ? 'failed' : 'completeWithError';
}

/** The errorLog of SPEC §6: null while nothing failed; else the failures, and one code and sentence for them all. */
export function errorLogOf(creatives: CreativeRow[]): ErrorLog | null {
  const failed = creatives.filter((c) => c.status === 'failed');
  if (failed.length === 0) return null;
  const codes = new Set(failed.map((c) => c.error_code));
  const first = failed[0];
  const count =
    failed.length === creatives.length
      ? creatives.length === 1
        ? 'the file failed'
        : `all ${creatives.length} files failed`
      : `${failed.length} of ${creatives.length} files failed`;
  return {
    code: codes.size === 1 ? (first.error_code ?? 'EXPORT_FAILED') : 'EXPORT_FAILED',
    message: `${count}; first: ${first.file_name}: ${first.error_message}`,
    failures: failed.map((c) => ({
      creativeId: c.id,
      sizeHash: c.size_hash,
      slideNumber: c.slide_number,
      code: c.error_code ?? 'EXPORT_FAILED',
      message: c.error_message ?? '',
    })),
  };
}

export function createExportProcessor(options: ExportProcessorOptions) {
  const { db, queue, pool, blobs } = options;
  const repo = createExportRepository(db);
  // Parsed and hashed once per document text, not once per export or per file (createParsedDocuments). Read-only:
  // brand fonts rewrite a copy (font.service.ts), the render threads get a clone. The key names the content, so the
  // exports of one revision share the copy each render thread keeps.
  const documents = createParsedDocuments((text) => ({
    doc: JSON.parse(text) as DesignDocument,
    key: createHash('sha1').update(text).digest('base64url'),
  }));
  let timer: NodeJS.Timeout | null = null;
  let progress: BroadcastChannel | null = null;

  /** GIF and MP4 renders post their progress from the render threads (worker.ts); it is kept on the creative. */
  function listenToProgress(): void {
    progress = new BroadcastChannel(PROGRESS_CHANNEL);
    progress.unref();
    progress.onmessage = (event) => {
      const { id, progress: value } = (event as { data: ProgressMessage }).data;
      repo
        .setProgress(id, value)
        .catch((error) => options.log?.error({ err: error, creativeId: id }, 'export: recording progress failed'));
    };
  }

  function parsed(row: ExportRow): { doc: DesignDocument; key: string } {
    return documents.get(row.document);
  }

  function documentOf(row: ExportRow): DesignDocument {
    return parsed(row).doc;
  }

  /** The key of the document a render thread gets: the stored document's, and the brand families it was given. */
  function documentKeyOf(row: ExportRow, brandFamilies: readonly { name: string }[]): string {
    const { key } = parsed(row);
    return brandFamilies.length === 0 ? key : `${key}:${brandFamilies.map((f) => f.name).join(',')}`;
  }

  /**
   * Finishes an export once none of its files is left to settle. An export that makes no zip (one size) is finished
   * here, in the job that settled its last file (issue 21: a finish job cost four statements and a queue round); a
   * set's zip, and a finish that failed here, get the `export.finish` job with its own retries. Finishing is
   * idempotent (a conditional update in one transaction), so a crash before or after it only repeats it.
   */
  async function finishWhenSettled(
    exportId: string,
    row?: ExportRow,
    settled?: { creative: CreativeRow; files: number },
  ): Promise<void> {
    // An export that makes no zip is finished in place by whichever of its jobs settles last: finishExport reads its
    // files after this job's settle committed, so of two jobs settling at once the later one sees both settled. An
    // export of one file is known whole from its settle (nothing to read again).
    if (row && row.is_set !== 1) {
      try {
        await finishExport(exportId, row, settled?.files === 1 ? [settled.creative] : undefined);
        return;
      } catch (error) {
        options.log?.error({ err: error, exportId }, 'export: finishing in place failed; a finish job retries it');
      }
    } else if ((await repo.countUnsettled(exportId)) !== 0) return;
    await queue.enqueue('export.finish', { exportId }, { jobId: `finish:${exportId}` });
  }

  /**
   * An export of one file is finished by the render that made its file, in the statement that settles the file
   * (issue 21: one statement and one commit fewer per export on SQLite, one round trip fewer on PostgreSQL). Its file
   * count comes from this process's memory of what it accepted, or from the job (a worker of the scaled-out shape).
   * True when that was done here, or found done by another run; false when the caller settles the file and finishes
   * the export as usual (a set, a job that does not say, or a failure of this statement, which wrote nothing).
   */
  async function settleAndFinish(
    row: ExportRow,
    creative: CreativeRow,
    outcome: CreativeOutcome,
    job: Job<'export.creative'>,
    thumbnail?: ExportFinish['thumbnail'],
  ): Promise<boolean> {
    if (row.is_set === 1 || (options.accepted?.files(row.id) ?? job.payload.files) !== 1) return false;
    const settled: CreativeRow = { ...creative, ...settledColumns(outcome), progress: 1 };
    try {
      // The same statement marks this job done where jobs are rows (issue 21, stop 23).
      const inline = job.inline && { id: job.id, instance: job.inline.instance };
      if (await finishExport(row.id, row, [settled], { creativeId: creative.id, outcome }, inline, thumbnail)) {
        job.inline?.settled();
      }
      return true;
    } catch (error) {
      options.log?.error({ err: error, exportId: row.id }, 'export: settling and finishing at once failed; one by one');
      return false;
    }
  }

  function budgetOf(type: string): number {
    return formatOf(type).budget === 'video' ? (options.videoBudgetMs ?? 600_000) : options.stillBudgetMs;
  }

  /** The file of one creative: bytes, or (MP4) a temporary file that the render wrote and the caller removes. */
  /** Team brand fonts: the document's families under the team's internal names, their files on this machine. */
  async function prepareFonts(row: ExportRow) {
    if (!options.brandFonts) return { document: documentOf(row), brandFamilies: [], warnings: [] };
    return options.brandFonts.prepare(row.team_id, row.project_id, documentOf(row));
  }

  async function render(
    row: ExportRow,
    creative: CreativeRow,
    run: RenderCallOptions,
    prepared: Awaited<ReturnType<typeof prepareFonts>>,
  ): Promise<
    | {
        bytes: Uint8Array;
        file?: undefined;
        warnings?: string[];
        backup?: Uint8Array | null;
        findings?: Finding[];
        stored?: { size: number; backup: boolean };
      }
    | {
        file: string;
        bytes?: undefined;
        warnings?: undefined;
        backup?: undefined;
        findings?: Finding[];
        stored?: undefined;
      }
  > {
    const format = formatOf(row.format);
    const {
      allowedSizeHashesOnly: _sizes,
      preflight = 'warn',
      ...settings
    } = JSON.parse(row.settings) as RenderSettings & { preflight?: PreflightMode };
    const job = {
      document: prepared.document as DesignDocument,
      documentKey: documentKeyOf(row, prepared.brandFamilies),
      brandFamilies: prepared.brandFamilies,
      sizeIndex: creative.size_index,
      slideIndex: creative.slide_number ?? 0,
      format: format.type,
      settings,
      progressId: creative.id,
      fileStem: creative.file_name.slice(0, -(format.extension.length + 1)),
      preflight: { mode: preflight, sizeHash: creative.size_hash },
    } as RenderJob;
    if (!format.writesFile) return pool.renderFiles(job, run);
    // Written to a file by the render thread and streamed from there: a 60 s story is never held in memory.
    const file = path.join(os.tmpdir(), `placard-${creative.id}-${randomBytes(4).toString('hex')}.${format.extension}`);
    try {
      const { findings } = await pool.renderFiles({ ...job, out: file }, run);
      return { file, findings };
    } catch (error) {
      await fs.promises.rm(file, { force: true });
      throw error;
    }
  }

  async function renderCreative(job: Job<'export.creative'>): Promise<void> {
    const { exportId, creativeId } = job.payload;
    // Only on the job's first run: a run after a crash of its render starts the file as usual.
    const given = job.attempt === 1 ? fresh(job.payload.accepted) : undefined;
    const known = given?.export ?? options.accepted?.peek(exportId);
    // This process accepted it (the embedded shape): the file as stored, being made already when its job was inserted
    // claimed; a waiting one on the same terms as rows that came with a job (young enough, see `fresh`).
    const kept = !given && job.attempt === 1 ? options.accepted?.takeFile(exportId, creativeId) : undefined;
    const waiting = kept && !kept.started && known && isFresh(known.created_at) ? kept.creative : undefined;
    const { row, creative } = await repo.startRendering(
      exportId,
      creativeId,
      known,
      given?.creative ?? (kept?.started ? kept.creative : waiting),
    );
    if (!row) return; // deleted with its team
    const marking = given || waiting ? startedMark(exportId, creativeId) : undefined;
    try {
      await make(job, row, creative, marking);
    } finally {
      marking?.stop();
    }
  }

  /**
   * A file whose rows came with its job is marked as being made only when a thread has rendered it for a while, long
   * enough for someone to see it (a still of a banner takes a few milliseconds): the answer's stage then says
   * "rendering". Not from when the job is taken: under load it waits longer than that for a thread and for storing.
   */
  function startedMark(exportId: string, creativeId: string) {
    let timer: NodeJS.Timeout | undefined;
    return {
      start() {
        timer = setTimeout(() => {
          repo
            .markStarted(creativeId)
            .catch((error) => options.log?.error({ err: error, exportId }, 'export: marking a file started failed'));
        }, MARK_STARTED_AFTER_MS).unref();
      },
      stop() {
        clearTimeout(timer);
      },
    };
  }

  /** The rows a job brought, while they are young enough to stand for the database's (JobPayloads['export.creative']). */
  function fresh(accepted: JobPayloads['export.creative']['accepted']) {
    return accepted && isFresh(accepted.export.created_at) ? accepted : undefined;
  }

  function isFresh(createdAt: string): boolean {
    return Date.now() - Date.parse(createdAt) < ACCEPTED_FRESH_MS;
  }

  async function make(
    job: Job<'export.creative'>,
    row: ExportRow,
    creative: CreativeRow | undefined,
    marking?: ReturnType<typeof startedMark>,
  ): Promise<void> {
    const { exportId, creativeId } = job.payload;
    if (!creative) {
      // Settled already (a job run again after a crash): finish the export if that was left undone, and the new
      // design's thumbnail, which the crash may have cut short.
      await finishWhenSettled(exportId, row);
      if (makesThumbnail(row)) await thumbnailLater(row);
      return;
    }
    const started = performance.now();
    let output: Awaited<ReturnType<typeof render>>;
    // One key per creative: a retry after a crash writes the same object again.
    const format = formatOf(row.format);
    const key = exportFileKey(exportId, `${creativeId}.${format.extension}`);
    const backupKey = exportFileKey(exportId, `${creativeId}.jpg`);
    // A store on this machine's disk is written by the render thread, which holds the bytes (issue 21); they come back
    // only for the thumbnail an export with changes makes of them.
    const store =
      blobs.localRoot !== undefined && !format.writesFile
        ? {
            root: blobs.localRoot,
            key,
            contentType: format.contentType,
            backupKey,
            keepBytes: row.new_design_hash !== null,
          }
        : undefined;
    // The pool starts the budget when a thread takes the render: time waiting in line never counts against it.
    let fontWarnings: string[] = [];
    try {
      const prepared = await prepareFonts(row);
      fontWarnings = prepared.warnings;
      const run = { budgetMs: budgetOf(row.format), group: teamGroup(row.team_id), store, onStart: marking?.start };
      output = await render(row, creative, run, prepared);
      marking?.stop();
    } catch (error) {
      marking?.stop();
      // What is left is a write to the database: the next job may take this one's place at the threads meanwhile.
      job.slotFree?.();
      if (error instanceof BlobWriteError) {
        throw new StorageError(`storing ${creative.file_name} failed: ${error.message}`, { cause: error });
      }
      const renderMs = Math.round(performance.now() - started);
      let settled: Awaited<ReturnType<typeof repo.settleCreative>>;
      if (error instanceof AppError) {
        settled = await repo.settleCreative(creativeId, {
          status: 'failed',
          code: error.code,
          message: error.message,
          renderMs,
          findings: findingsOf(error),
        });
      } else if (error instanceof RenderTimeoutError) {
        settled = await repo.settleCreative(creativeId, {
          status: 'failed',
          code: 'RENDER_TIMEOUT',
          message: `rendering ${creative.file_name} took longer than its budget of ${budgetOf(row.format) / 1000} s`,
          renderMs,
        });
      } else {
        // The thread crashed (the queue retries, then onExhausted says RENDER_CRASHED), or the pool was closed at
        // shutdown after the queue handed this job back: either way the file is not settled here.
        throw error;
      }
      await finishWhenSettled(exportId, row, settled);
      if (makesThumbnail(row, creative)) await thumbnailLater(row);
      return;
    }
    const renderMs = Math.round(performance.now() - started);
    options.onRendered?.(row.format, renderMs / 1000);
    // The new design's thumbnail is made and stored beside the file, and set with the export's finish where that takes
    // it (PostgreSQL: one statement fewer per export; the webhook waits for a resize that overlaps the file's store).
    const thumbnail = output.bytes && makesThumbnail(row, creative) ? storeThumbnail(row, output.bytes) : undefined;
    const stored = output.stored;
    const fallbackKey = (stored ? stored.backup : output.backup) ? backupKey : null;
    let size: number;
    try {
      if (stored) size = stored.size;
      else {
        const body = output.file === undefined ? output.bytes : fs.createReadStream(output.file);
        ({ size } = await blobs.put(key, body, format.contentType));
        if (fallbackKey && output.backup) await blobs.put(fallbackKey, output.backup, 'image/jpeg');
      }
    } catch (error) {
      // The job's next attempt stores another.
      thumbnail?.then((made) => options.thumbnails?.discard([made]));
      throw new StorageError(`storing ${creative.file_name} failed: ${(error as Error).message}`, { cause: error });
    } finally {
      if (output.file !== undefined) await fs.promises.rm(output.file, { force: true });
    }
    // The file is stored (by the render thread on the local disk): what is left is the outcome's write, and the next
    // job may take this one's place at the threads meanwhile. Not before the store's put: a slow object store would
    // then hold the bytes of ever more files in memory while the threads went on rendering.
    job.slotFree?.();
    const outcome: CreativeOutcome = {
      status: 'complete',
      blobKey: key,
      bytes: size,
      renderMs,
      // Each finding's sentence joins the brand-font and HTML5 validator advice; the findings stay machine-readable.
      warnings: [
        ...fontWarnings,
        ...(output.warnings ?? []),
        ...(output.findings ?? []).map((f) => `${f.code}: ${f.message}`),
      ],
      findings: output.findings,
      fallbackKey,
    };
    const thumbKey = thumbnail ? await thumbnail : null;
    const setWithFinish: ExportFinish['thumbnail'] = thumbKey
      ? { designHash: row.new_design_hash as string, key: thumbKey }
      : undefined;
    if (!(await settleAndFinish(row, creative, outcome, job, setWithFinish))) {
      await finishWhenSettled(exportId, row, await repo.settleCreative(creativeId, outcome));
    }
    if (thumbnail) await settleThumbnail(row, thumbKey, setWithFinish?.set);
  }

  /**
   * Whether this export's file is to become the thumbnail of the design it made (without `creative`: whether one of
   * its files is). Only a still's picture is a thumbnail (a GIF's first frame is the start of its animation, not the
   * final state), and only that of the first slide of the first size.
   */
  function makesThumbnail(row: ExportRow, creative?: Pick<CreativeRow, 'size_index' | 'slide_number'>): boolean {
    if (!options.thumbnails || !options.setMissingThumbnail || !row.new_design_hash) return false;
    if (!formatOf(row.format).thumbnail) return false;
    return !creative || (creative.size_index === 0 && (creative.slide_number ?? 0) === 0);
  }

  /** The design.thumbnail job draws it instead; a failure here is logged (the design then shows no thumbnail). */
  async function thumbnailLater(row: ExportRow): Promise<void> {
    try {
      await options.thumbnailLater?.(row.new_design_hash as string);
    } catch (error) {
      options.log?.error({ err: error, exportId: row.id }, 'export: having the thumbnail drawn failed');
    }
  }

  /**
   * The design an export with changes made gets its thumbnail from the export's picture of its first slide of its
   * first size, resized (about 1 ms) instead of drawn again on the render threads: stored here, its key set by the
   * export's finish or by settleThumbnail. Null when that failed (logged): a design.thumbnail job draws it instead,
   * as it does when that file fails.
   */
  async function storeThumbnail(row: ExportRow, bytes: Uint8Array): Promise<string | null> {
    try {
      return await (options.thumbnails as NonNullable<typeof options.thumbnails>).fromRendered(
        row.new_design_hash as string,
        documentOf(row).sizes[0],
        bytes,
      );
    } catch (error) {
      options.log?.error({ err: error, exportId: row.id }, 'export: thumbnail from the first file failed');
      return null;
    }
  }

  /**
   * After the export's finish: `set` is whether that finish set the stored thumbnail `key` (undefined: it did not try,
   * as on SQLite, or it failed), and a key the design did not take is removed.
   */
  async function settleThumbnail(row: ExportRow, key: string | null, set: boolean | undefined): Promise<void> {
    if (key === null) return thumbnailLater(row);
    try {
      const taken = set ?? (await options.setMissingThumbnail?.(row.new_design_hash as string, key)) !== null;
      if (!taken) await options.thumbnails?.discard([key]);
    } catch (error) {
      // A key stored but not known to be set is left as it is: the design may refer to it.
      options.log?.error({ err: error, exportId: row.id }, 'export: setting the thumbnail failed');
      await thumbnailLater(row);
    }
  }

  async function creativeExhausted(job: Job<'export.creative'>, error: Error): Promise<void> {
    const { exportId, creativeId } = job.payload;
    const creative = await repo.findCreative(creativeId);
    if (!creative) return;
    const storage = error instanceof StorageError;
    await repo.settleCreative(creativeId, {
      status: 'failed',
      code: storage ? 'STORAGE_FAILED' : 'RENDER_CRASHED',
      message: storage
        ? `${error.message} (${job.attempt} attempts)`
        : `rendering ${creative.file_name} crashed the render worker ${job.attempt} times; last error: ${error.message}`,
    });
    await finishWhenSettled(exportId);
    if (creative.size_index === 0 && (creative.slide_number ?? 0) === 0) {
      const row = await repo.findById(exportId);
      if (row && makesThumbnail(row, creative)) await thumbnailLater(row);
    }
  }

  /** Streams the complete files of a set into one zip in the BlobStore; null when no file completed. */
  async function zipOf(row: ExportRow, creatives: CreativeRow[]): Promise<string | null> {
    const complete = creatives.filter((c) => c.status === 'complete' && c.blob_key);
    if (row.is_set !== 1 || complete.length === 0) return null;
    const zip = new yazl.ZipFile();
    const mtime = new Date(row.created_at);
    for (const creative of complete) {
      // Opened one at a time as the zip reaches them: a set of hundreds of files never holds hundreds of handles.
      // Stored, not deflated: PNG, JPG, WEBP and PDF are compressed already.
      zip.addReadStreamLazy(creative.file_name, { mtime, compress: false }, (callback) => {
        blobs.get(creative.blob_key as string).then(
          (blob) =>
            blob ? callback(null, blob.body) : callback(new Error(`${creative.blob_key} is missing`), null as never),
          (error) => callback(error, null as never),
        );
      });
      // An HTML5 backup that the network wants outside the package sits beside that size's zip.
      const fallback = creative.fallback_key;
      if (fallback) {
        zip.addReadStreamLazy(creative.file_name.replace(/\.zip$/, '.jpg'), { mtime, compress: false }, (callback) => {
          blobs.get(fallback).then(
            (blob) => (blob ? callback(null, blob.body) : callback(new Error(`${fallback} is missing`), null as never)),
            (error) => callback(error, null as never),
          );
        });
      }
    }
    zip.end();
    const key = exportFileKey(row.id, 'files.zip');
    await blobs.put(key, zip.outputStream as Readable, 'application/zip');
    return key;
  }

  /**
   * Removes the design a failed export with changes created (issue 15, docs/decisions.md): it was made for the export's
   * files, and none exists. A design someone changed since (its revision moved on) is theirs now and stays. Runs in
   * the transaction that records the failure, so the export's `export/failed` and the design's `design/delete` events
   * come together; answers the thumbnail to discard after the commit.
   */
  async function dropNewDesign(tx: Kysely<Database>, row: ExportRow): Promise<{ thumbKey: string | null } | null> {
    if (!row.new_design_hash) return null;
    const design = await tx
      .selectFrom('designs')
      .select(['id', 'hash', 'name', 'is_template', 'project_id', 'thumb_key'])
      .where('team_id', '=', row.team_id)
      .where('hash', '=', row.new_design_hash)
      .where('revision', '=', 1)
      .where('api_generated', '=', 1)
      .executeTakeFirst();
    if (!design) return null;
    await tx.deleteFrom('designs').where('id', '=', design.id).execute();
    // The node as design.service.ts reports a deleted design.
    const template = {
      id: design.hash,
      name: design.name,
      isTemplate: design.is_template === 1,
      projectId: design.project_id,
      apiGenerated: true,
      thumbUrl: null,
    };
    await recordEvent(tx, { teamId: row.team_id, action: 'design/delete', data: { template } });
    return { thumbKey: design.thumb_key };
  }

  async function finish(job: Job<'export.finish'>): Promise<void> {
    await finishExport(job.payload.exportId);
  }

  /**
   * `known`: the export's row as read before its files settled (its status is checked again when it is finished);
   * `files`: every file of the export, settled, when the caller knows them; `job`: marked done by the finishing
   * statement. True when this call finished the export with `job` marked done.
   */
  async function finishExport(
    exportId: string,
    known?: ExportRow,
    files?: CreativeRow[],
    settle?: ExportFinish['settle'],
    job?: ExportFinish['job'],
    thumbnail?: ExportFinish['thumbnail'],
  ): Promise<boolean> {
    const row = known ?? (await repo.findById(exportId));
    if (!row || (row.status !== 'pending' && row.status !== 'inProgress')) return false;
    const creatives = files ?? (await repo.creativesOf(row.id));
    if (creatives.some((c) => c.status === 'pending' || c.status === 'inProgress')) return false; // a later job finishes it
    const status = finalStatus(creatives);
    const errorLog = errorLogOf(creatives);
    const zipKey = await zipOf(row, creatives);
    const at = new Date().toISOString();
    const finished: ExportRow = {
      ...row,
      status,
      error_log: errorLog ? JSON.stringify(errorLog) : null,
      zip_key: zipKey,
      completed_at: at,
    };
    const view = await presentExport(finished, creatives, options.links);
    const action = status === 'complete' ? 'export/complete' : 'export/failed';
    let dropped: { thumbKey: string | null } | null = null;
    const result = { status, errorLog: finished.error_log, zipKey };
    const event: NewEvent = { teamId: row.team_id, action, data: { export: view } };
    const target = { exportId: row.id, webhookUrl: row.webhook_url };
    // The export's event and every delivery of it (team webhooks, its webhookUrl) are written with its status: in one
    // statement on PostgreSQL, unless a failed export also deletes the design made for it.
    const inTransaction = status === 'failed' && row.new_design_hash !== null;
    const deliveries = inTransaction
      ? await db.transaction().execute(async (tx) => {
          const done = await createExportRepository(tx).finish(row.id, result);
          if (!done) return null;
          dropped = await dropNewDesign(tx, row);
          return options.deliveries.recordWithDeliveries(tx, event, target);
        })
      : await options.deliveries.finishExport({ id: row.id, ...result, settle, job, thumbnail }, event, target);
    if (deliveries === null) return false;
    options.accepted?.forget(row.id);
    options.onFinished?.(row.format, status);
    options.deliveries.send(deliveries);
    // Only the one-statement finish marks the job done.
    const jobDone = !inTransaction && job !== undefined;
    if (!dropped) return jobDone;
    // The design's design/delete event went to the outbox as usual.
    const { thumbKey } = dropped as { thumbKey: string | null };
    if (thumbKey) await options.thumbnails?.discard([thumbKey]);
    options.deliveries
      .kick()
      .catch((error) => options.log?.error({ err: error, exportId: row.id }, 'export: dispatching its events failed'));
    return jobDone;
  }

  async function finishExhausted(job: Job<'export.finish'>, error: Error): Promise<void> {
    options.log?.error({ err: error, exportId: job.payload.exportId }, 'export: finishing failed for good');
    const row = await repo.findById(job.payload.exportId);
    if (!row) return;
    const errorLog: ErrorLog = {
      code: 'EXPORT_FAILED',
      message: `the files were made but the export could not be finished: ${error.message}`,
      failures: [],
    };
    const dropped = await db.transaction().execute(async (tx) => {
      const done = await createExportRepository(tx).finish(row.id, {
        status: 'failed',
        errorLog: JSON.stringify(errorLog),
        zipKey: null,
      });
      return done ? { thumbKey: (await dropNewDesign(tx, row))?.thumbKey ?? null } : null;
    });
    if (!dropped) return;
    options.onFinished?.(row.format, 'failed');
    if (dropped.thumbKey) await options.thumbnails?.discard([dropped.thumbKey]);
  }

  /** Enqueues what unfinished exports created before `before` may be missing (idempotent by job id). */
  async function sweep(before: string): Promise<void> {
    for (const { id, team_id } of await repo.unfinished(500, before)) {
      const creatives = await repo.creativesOf(id);
      const open = creatives.filter((c) => c.status === 'pending' || c.status === 'inProgress');
      if (open.length === 0) {
        await queue.enqueue('export.finish', { exportId: id }, { jobId: `finish:${id}` });
        continue;
      }
      for (const creative of open) {
        await queue.enqueue(
          'export.creative',
          { exportId: id, creativeId: creative.id },
          { jobId: creative.id, group: teamGroup(team_id) },
        );
      }
    }
  }

  return {
    /** Registers the job handlers; call before the queue starts. */
    register(): void {
      queue.process('export.creative', renderCreative, {
        concurrency: Math.max(1, pool.threads * renderJobsPerThread(blobs)),
        onExhausted: creativeExhausted,
      });
      queue.process('export.finish', finish, { concurrency: 2, onExhausted: finishExhausted });
    },

    /** Makes sure every export accepted before now has its jobs, then keeps checking. */
    async start(): Promise<void> {
      listenToProgress();
      await sweep(new Date(Date.now() + 1).toISOString()).catch((error) =>
        options.log?.error({ err: error }, 'export: recovery sweep failed'),
      );
      const interval = options.sweepIntervalMs ?? 60_000;
      if (interval > 0) {
        timer = setInterval(() => {
          sweep(new Date(Date.now() - interval).toISOString()).catch((error) =>
            options.log?.error({ err: error }, 'export: recovery sweep failed'),
          );
        }, interval);
        timer.unref();
      }
    },

    stop(): void {
      if (timer) clearInterval(timer);
      timer = null;
      progress?.close();
      progress = null;
    },
  };
}

export type ExportProcessor = ReturnType<typeof createExportProcessor>;
