// Renders batches (issue 22). A batch hands its rows to the queue a few at a time: at most `rowsInFlight` of a
// team's rows are running at once, and each chunk that settles hands over the next ones (pump), so a batch of 100 000
// rows never floods the queue and the fair turns of the queue and the render pool (by team, issue 14) let other
// teams' exports, and the team's own single exports, through beside it. Rows go in chunks of consecutive positions
// (chunkSizeOf): one `batch.row` job renders every file of every row of its chunk (the template with the row's
// changes, preflight first on the render thread; the chunk's renders are all handed to the pool at once) and settles
// the chunk's rows in one transaction with UPDATEs guarded by `running`, so a job that runs twice settles each row
// once. Per chunk, not per row: the claim, the job, its queue writes, the settling commit, the pump and the check for
// the batch's end (issue 22: the per-row writes made a batch 2.4–3.8× slower than rendering its rows in a loop). The
// job that settles the last row enqueues `batch.finish`, which writes the zip and the results CSV and sends
// batch/completed. A sweep at start and every minute re-enqueues the jobs of running chunks (their ids are the
// chunk's, so enqueueing one the queue holds does nothing) and pumps open batches (a crash between a commit and an
// enqueue); a dead worker's job comes back through its lease.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { applyChanges, type ElementChangesInput } from '../domain/changes.js';
import type { DesignDocument } from '../domain/design.schema.js';
import { planFiles } from '../domain/export-plan.js';
import type { FontLookup } from '../elements/element-kind.js';
import { AppError } from '../errors.js';
import type { WebhookDeliveries } from '../events/deliveries.js';
import { recordEvent } from '../events/outbox.js';
import type { RenderSettings } from '../formats/export.schema.js';
import { findingsOf, type RenderPool, RenderTimeoutError } from '../formats/pool.js';
import { formatOf, type RenderJob } from '../formats/registry.js';
import type { BrandFontPreparer } from '../render/text/brand-fonts.js';
import { catalogueFonts } from '../render/text/fonts.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { Dialect } from '../storage/db/database.js';
import {
  type BatchRow,
  type BatchRowRow,
  type BatchStatus,
  createBatchRepository,
  type RowFile,
  type RowOutcome,
} from '../storage/db/repositories/batches.repository.js';
import type { Database } from '../storage/db/schema.js';
import { batchResultsCsv, batchZip } from './batch-files.js';
import { presentBatch, presentBatchRow } from './batch-view.js';
import type { ExportLinks } from './export-view.js';
import { teamGroup } from './fair.js';
import { type Job, type JobQueue, renderJobsPerThread } from './job-queue.js';

export interface BatchProcessorOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  queue: Pick<JobQueue, 'enqueue' | 'process'>;
  pool: Pick<RenderPool, 'renderFiles' | 'threads'>;
  blobs: Pick<BlobStore, 'put' | 'get' | 'signedUrl' | 'localRoot'>;
  links: ExportLinks;
  deliveries: Pick<WebhookDeliveries, 'insertExportDelivery' | 'enqueue' | 'kick'>;
  brandFonts?: BrandFontPreparer;
  /** The team's fonts for FONTFAMILY changes (brand kit fonts). Default: the catalogue. */
  fonts?: { lookup(teamId: number): Promise<FontLookup> };
  /** config.batchRowsInFlight: a team's rows running at once. */
  rowsInFlight: number;
  stillBudgetMs: number;
  videoBudgetMs?: number;
  /** How often open batches are checked for rows without a job. Default 60 000; 0 only at start. */
  sweepIntervalMs?: number;
  /**
   * createDesigns: makes the row's design (apiGenerated) from its changed document. Calls `claim` inside the import's
   * transaction with the new hash; when it answers false (an earlier run of the job made the design) the import must
   * roll back. Throws an AppError that fails the row (a project no longer writable, …).
   */
  createDesign?: (
    batch: Omit<BatchRow, 'document'>,
    row: BatchRowRow,
    document: DesignDocument,
    claim: (tx: Kysely<Database>, hash: string) => Promise<boolean>,
  ) => Promise<void>;
  onRowSettled?: (status: string) => void;
  log?: { error(details: object, message: string): void };
}

/** Rows of a chunk at most; fewer when the rows in flight are few, so that several chunks render at once. */
export const ROWS_PER_JOB = 4;

/**
 * The rows of one job: a quarter of the rows in flight (four chunks render at once, one settling while the others
 * render), at most ROWS_PER_JOB so a crash repeats little, at least one.
 */
export function chunkSizeOf(rowsInFlight: number): number {
  return Math.max(1, Math.min(ROWS_PER_JOB, Math.floor(rowsInFlight / 4)));
}

/**
 * The job id of a chunk (positions [chunk·size, (chunk+1)·size)) in a generation of its batch: a chunk's pending rows
 * are claimed together once per generation, and a retry starts a new generation (the queue keeps finished ids a day).
 */
export function chunkJobId(batchId: number, generation: number, chunk: number): string {
  return `batch-rows:${batchId}:${generation}:${chunk}`;
}

/** Final status of a batch from its row counts: skipped rows are what the batch asked for, not errors. */
export function batchFinalStatus(
  current: string,
  counts: { succeeded: number; failed: number; skipped: number },
): BatchStatus {
  if (current === 'cancelled') return 'cancelled';
  if (counts.failed === 0) return 'complete';
  return counts.succeeded + counts.skipped === 0 ? 'failed' : 'completeWithError';
}

/** The flat changes of a mapped row, as export-with-changes takes them (grouped by element, in first-seen order). */
export function groupChanges(flat: { elementName: string; attribute: string; value: string }[]): ElementChangesInput[] {
  const byName = new Map<string, { attribute: string; value: string }[]>();
  for (const c of flat) {
    const list = byName.get(c.elementName) ?? [];
    list.push({ attribute: c.attribute, value: c.value });
    byName.set(c.elementName, list);
  }
  return [...byName].map(([elementName, changes]) => ({ elementName, changes }));
}

/** A batch without its document (read once per batch into the processor's cache). */
type BatchHead = Omit<BatchRow, 'document'>;

/** What every row of a chunk shares, read once per chunk. */
interface ChunkContext {
  source: DesignDocument;
  fonts: FontLookup;
  /** Files of earlier rows with the same cache keys as rows of the chunk. */
  cached: Map<string, string>;
  /** Whether the template itself uses a brand font (each row's document is then prepared on its own). */
  brandFamilies: boolean;
}

export function createBatchProcessor(options: BatchProcessorOptions) {
  const { db, queue, pool, blobs } = options;
  const repo = createBatchRepository(db, options.dialect);
  // Every row of a batch starts from the same document: parse it once per batch.
  const documents = new LRUCache<number, DesignDocument>({ max: 32 });
  let timer: NodeJS.Timeout | null = null;

  /** The batch's template document, read and parsed once per batch (not with every row). */
  async function documentOf(batch: BatchHead): Promise<DesignDocument> {
    let doc = documents.get(batch.id);
    if (!doc) {
      doc = JSON.parse((await repo.documentOf(batch.id)) ?? 'null') as DesignDocument;
      documents.set(batch.id, doc);
    }
    return doc;
  }

  function budgetOf(format: string): number {
    return formatOf(format).budget === 'video' ? (options.videoBudgetMs ?? 600_000) : options.stillBudgetMs;
  }

  const chunkSize = chunkSizeOf(options.rowsInFlight);

  /** Enqueues the job of each chunk among `rows` (running rows of one batch); a job the queue holds is left as it is. */
  async function enqueueChunks(
    batch: { id: number; team_id: number; generation: number },
    rows: readonly { id: number; idx: number }[],
  ): Promise<void> {
    const leaders = new Map<number, number>();
    for (const row of rows) {
      const chunk = Math.floor(row.idx / chunkSize);
      if (!leaders.has(chunk)) leaders.set(chunk, row.id);
    }
    for (const [chunk, rowId] of leaders) {
      await queue.enqueue(
        'batch.row',
        // rowId: a row of the chunk; the job renders every running row of the chunk it is in.
        { batchId: batch.id, rowId },
        { jobId: chunkJobId(batch.id, batch.generation, chunk), group: teamGroup(batch.team_id) },
      );
    }
  }

  /** Hands free places of the team's in-flight rows to its open batches, oldest batch first, a chunk at a time. */
  async function pump(teamId: number): Promise<void> {
    for (const batch of await repo.open(teamId)) {
      if (batch.status !== 'pending' && batch.status !== 'running') continue;
      const claimed = await repo.claimChunks(batch.id, teamId, options.rowsInFlight, chunkSize);
      if (claimed.rows.length > 0) await enqueueChunks({ ...batch, generation: claimed.generation }, claimed.rows);
    }
  }

  async function chunkContext(batch: BatchHead, rows: readonly BatchRowRow[]): Promise<ChunkContext> {
    const source = await documentOf(batch);
    const keys = rows.map((row) => row.cache_key).filter((key): key is string => key !== null);
    const [fonts, cached, prepared] = await Promise.all([
      options.fonts ? options.fonts.lookup(batch.team_id) : catalogueFonts,
      repo.cachedFiles(keys, batch.team_id),
      options.brandFonts?.prepare(batch.team_id, batch.project_id, source),
    ]);
    return { source, fonts, cached, brandFamilies: (prepared?.brandFamilies.length ?? 0) > 0 };
  }

  async function finishWhenSettled(batch: BatchHead): Promise<void> {
    if (await repo.hasUnsettled(batch.id)) return;
    await queue.enqueue(
      'batch.finish',
      { batchId: batch.id },
      { jobId: `batch-finish:${batch.id}:${batch.generation}` },
    );
  }

  /** Renders every file of the row; AppErrors of the row (a bad value, an image that 404s, preflight) settle it. */
  async function outcomeOf(batch: BatchHead, row: BatchRowRow, chunk: ChunkContext): Promise<RowOutcome> {
    if (row.cache_key) {
      const files = chunk.cached.get(row.cache_key);
      if (files) return { status: 'succeeded', files: JSON.parse(files) as RowFile[], findings: null, cached: true };
    }
    const format = formatOf(batch.format);
    const source = chunk.source;
    let doc: DesignDocument;
    const changes = groupChanges(JSON.parse(row.changes ?? '[]'));
    try {
      doc = applyChanges(source, changes, undefined, chunk.fonts);
    } catch (error) {
      if (error instanceof AppError)
        return { status: 'failed', code: error.code, message: error.message, findings: null };
      throw error;
    }
    // The families a document uses change only with FONTFAMILY: without one, the row uses the template's, and when
    // none of those is a brand font the document goes to the thread as it is (no statement per row).
    const changesFamilies = changes.some((e) => e.changes.some((c) => c.attribute === 'FONTFAMILY'));
    const prepared =
      options.brandFonts && (chunk.brandFamilies || changesFamilies)
        ? await options.brandFonts.prepare(batch.team_id, batch.project_id, doc)
        : { document: doc, brandFamilies: [], warnings: [] };
    const { allowedSizeHashesOnly: _sizes, ...settings } = JSON.parse(batch.settings) as RenderSettings;
    const sizes = JSON.parse(batch.sizes) as number[];
    const stem = JSON.parse(batch.general_settings).fileStem as string;
    const planned = planFiles(doc, stem, sizes, format);
    // render: every finding is listed; skip and fail: a size with an error finding is not made (PREFLIGHT_FAILED).
    const mode = batch.on_findings === 'render' ? 'warn' : 'fail';
    const files: RowFile[] = [];
    const findings: unknown[] = [];
    try {
      for (const [i, file] of planned.entries()) {
        const size = doc.sizes[file.sizeIndex];
        const job = {
          document: prepared.document as DesignDocument,
          brandFamilies: prepared.brandFamilies,
          sizeIndex: file.sizeIndex,
          slideIndex: file.slide ?? 0,
          format: format.type,
          settings,
          fileStem: file.name.slice(0, -(format.extension.length + 1)),
          preflight: { mode, sizeHash: source.sizes[file.sizeIndex].hash as string },
        } as RenderJob;
        const run = { budgetMs: budgetOf(batch.format), group: teamGroup(batch.team_id) };
        const key = `batches/${batch.id}/${row.id}-${i}.${format.extension}`;
        let stored: { size: number };
        if (format.writesFile) {
          const out = path.join(
            os.tmpdir(),
            `placard-b${row.id}-${randomBytes(4).toString('hex')}.${format.extension}`,
          );
          try {
            const result = await pool.renderFiles({ ...job, out }, run);
            findings.push(...(result.findings ?? []));
            stored = await blobs.put(key, fs.createReadStream(out), format.contentType);
          } finally {
            await fs.promises.rm(out, { force: true });
          }
        } else {
          const result = await pool.renderFiles(job, run);
          findings.push(...(result.findings ?? []));
          stored = await blobs.put(key, result.bytes, format.contentType);
        }
        files.push({
          sizeHash: source.sizes[file.sizeIndex].hash as string,
          name: file.name,
          width: size.width,
          height: size.height,
          blobKey: key,
          bytes: stored.size,
        });
      }
    } catch (error) {
      if (error instanceof AppError) {
        const found = [...findings, ...(findingsOf(error) ?? [])];
        if (error.code === 'PREFLIGHT_FAILED' && batch.on_findings === 'skip') {
          return { status: 'skipped', code: error.code, message: error.message, findings: found };
        }
        return { status: 'failed', code: error.code, message: error.message, findings: found };
      }
      if (error instanceof RenderTimeoutError) {
        return {
          status: 'failed',
          code: 'RENDER_TIMEOUT',
          message: `rendering row ${row.key} took longer than its budget of ${budgetOf(batch.format) / 1000} s`,
          findings,
        };
      }
      throw error; // a crashed thread: the queue retries, then rowExhausted says RENDER_CRASHED
    }
    return { status: 'succeeded', files, findings, cached: false };
  }

  /** Settles the chunk's rows in one commit, tells about failed ones when asked, then pumps and checks the end. */
  async function settle(batch: BatchHead, outcomes: { row: BatchRowRow; outcome: RowOutcome }[]): Promise<void> {
    const settled = await repo.settleRows(outcomes.map(({ row, outcome }) => ({ rowId: row.id, outcome })));
    for (const { row, outcome } of outcomes) {
      if (!settled.has(row.id)) continue;
      options.onRowSettled?.(outcome.status);
      if (outcome.status === 'failed' && batch.notify_row_failures === 1 && batch.webhook_url) {
        await notifyRowFailed(batch, batch.webhook_url, row.id);
      }
    }
    await pump(batch.team_id);
    await finishWhenSettled(batch);
  }

  async function notifyRowFailed(batch: BatchHead, url: string, rowId: number): Promise<void> {
    const after = await repo.findRow(rowId);
    if (!after) return;
    const view = await presentBatchRow(after, options.links);
    const id = await db.transaction().execute((tx) =>
      options.deliveries.insertExportDelivery(tx, {
        teamId: batch.team_id,
        exportId: `batch:${batch.id}`,
        url,
        action: 'batch/row.failed',
        data: { batchId: batch.id, row: view },
      }),
    );
    await options.deliveries.enqueue([id]);
  }

  /** createDesigns: the row's design, made once (the claim in the import's transaction), before the row settles. */
  async function withDesign(
    batch: BatchHead,
    row: BatchRowRow,
    chunk: ChunkContext,
    outcome: RowOutcome,
  ): Promise<RowOutcome> {
    if (outcome.status !== 'succeeded' || batch.create_designs !== 1 || row.design_hash || !options.createDesign) {
      return outcome;
    }
    try {
      const doc = applyChanges(chunk.source, groupChanges(JSON.parse(row.changes ?? '[]')), undefined, chunk.fonts);
      await options.createDesign(batch, row, doc, (tx, hash) =>
        createBatchRepository(tx, options.dialect).claimDesign(tx, row.id, hash),
      );
      return outcome;
    } catch (error) {
      if (error instanceof AppError) {
        return { status: 'failed', code: error.code, message: error.message, findings: outcome.findings };
      }
      throw error;
    }
  }

  /** The batch and the rows of the job's chunk still running (the chunk of the row the payload names). */
  async function chunkOf(job: Job<'batch.row'>): Promise<{ batch: BatchHead; rows: BatchRowRow[] } | null> {
    const { batchId, rowId } = job.payload;
    const [batch, row] = await Promise.all([repo.findHead(batchId), repo.findRow(rowId)]);
    if (!batch || !row) return null; // deleted with its team
    const start = Math.floor(row.idx / chunkSize) * chunkSize;
    return { batch, rows: await repo.runningBetween(batch.id, start, start + chunkSize) };
  }

  async function renderChunk(job: Job<'batch.row'>): Promise<void> {
    const found = await chunkOf(job);
    if (!found) return;
    const { batch, rows } = found;
    if (rows.length === 0) {
      // Settled by an earlier run of this job: what it would have done after settling.
      await pump(batch.team_id);
      await finishWhenSettled(batch);
      return;
    }
    if (batch.status === 'cancelled') {
      // Handed to the queue before the cancel, not started yet: they end cancelled instead of rendering.
      await settle(
        batch,
        rows.map((row) => ({
          row,
          outcome: {
            status: 'cancelled',
            code: 'CANCELLED',
            message: 'the batch was cancelled before this row rendered',
            findings: null,
          },
        })),
      );
      return;
    }
    const chunk = await chunkContext(batch, rows);
    // Every render of the chunk goes to the pool at once: the pool's gate and its team turns decide what runs.
    const results = await Promise.allSettled(
      rows.map(async (row) => withDesign(batch, row, chunk, await outcomeOf(batch, row, chunk))),
    );
    // The renders are over and their files stored: the next chunk may take this one's place at the threads while its
    // outcomes are written.
    job.slotFree?.();
    const outcomes = results.flatMap((result, i) =>
      result.status === 'fulfilled' ? [{ row: rows[i], outcome: result.value }] : [],
    );
    await settle(batch, outcomes);
    // A crashed render thread (not an error of the row): the job is retried with the rows left running, and
    // rowsExhausted says RENDER_CRASHED when its attempts are used.
    const crashed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (crashed) throw crashed.reason;
  }

  async function rowsExhausted(job: Job<'batch.row'>, error: Error): Promise<void> {
    const found = await chunkOf(job);
    if (!found) return;
    await settle(
      found.batch,
      found.rows.map((row) => ({
        row,
        outcome: {
          status: 'failed',
          code: 'RENDER_CRASHED',
          message: `rendering row ${row.key} crashed the render worker ${job.attempt} times; last error: ${error.message}`,
          findings: null,
        },
      })),
    );
  }

  async function finish(job: Job<'batch.finish'>): Promise<void> {
    const batch = await repo.findById(job.payload.batchId);
    if (!batch || batch.finished_at !== null) return;
    if (await repo.hasUnsettled(batch.id)) return; // a later row's job finishes it
    const counts = await repo.counts(batch.id);
    const status = batchFinalStatus(batch.status, counts);
    const suffix = `${batch.id}-${batch.generation}`;
    let zipKey: string | null = null;
    if (counts.succeeded > 0) {
      zipKey = `batches/${batch.id}/batch-${suffix}.zip`;
      await blobs.put(zipKey, await batchZip(batch, repo, blobs), 'application/zip');
    }
    const resultsKey = `batches/${batch.id}/results-${suffix}.csv`;
    await blobs.put(resultsKey, batchResultsCsv(batch, repo, options.links), 'text/csv; charset=utf-8');
    const at = new Date().toISOString();
    const view = await presentBatch(
      { ...batch, status, zip_key: zipKey, results_key: resultsKey, finished_at: at, updated_at: at },
      counts,
      options.links,
    );
    const deliveryIds = await db.transaction().execute(async (tx) => {
      const done = await repo.finish(tx, batch.id, batch.generation, { status, zipKey, resultsKey });
      if (!done) return null;
      await recordEvent(tx, { teamId: batch.team_id, action: 'batch/completed', data: { batch: view } });
      if (!batch.webhook_url) return [];
      return [
        await options.deliveries.insertExportDelivery(tx, {
          teamId: batch.team_id,
          exportId: `batch:${batch.id}`,
          url: batch.webhook_url,
          action: 'batch/completed',
          data: { batch: view },
        }),
      ];
    });
    if (deliveryIds === null) return;
    documents.delete(batch.id);
    await options.deliveries.enqueue(deliveryIds);
    options.deliveries
      .kick()
      .catch((error) => options.log?.error({ err: error, batchId: batch.id }, 'batch: dispatching its events failed'));
    // The team's next batch gets the places this one leaves.
    await pump(batch.team_id);
  }

  /** Re-enqueues the jobs of running chunks and pumps every open batch (all idempotent by job id). */
  async function sweep(): Promise<void> {
    const running = new Map<number, { id: number; idx: number }[]>();
    for (const row of await repo.running(10_000)) {
      const list = running.get(row.batch_id) ?? [];
      list.push(row);
      running.set(row.batch_id, list);
    }
    for (const [batchId, rows] of running) {
      const batch = await repo.findHead(batchId);
      if (batch) await enqueueChunks(batch, rows);
    }
    const teams = new Set<number>();
    for (const batch of await repo.open()) {
      teams.add(batch.team_id);
      const full = await repo.findHead(batch.id);
      if (full) await finishWhenSettled(full);
    }
    for (const team of teams) await pump(team);
  }

  return {
    /**
     * A batch was stored, cancelled or retried (the service calls it after the commit): hands its first rows to the
     * queue, or finishes it at once when no row is left to render.
     */
    async started(batchId: number, teamId: number): Promise<void> {
      await pump(teamId);
      const batch = await repo.findHead(batchId);
      if (batch) await finishWhenSettled(batch);
    },

    register(): void {
      queue.process('batch.row', renderChunk, {
        concurrency: Math.max(1, pool.threads * renderJobsPerThread(blobs)),
        onExhausted: rowsExhausted,
      });
      queue.process('batch.finish', finish, {
        concurrency: 1,
        onExhausted: async (job, error) =>
          options.log?.error({ err: error, batchId: job.payload.batchId }, 'batch: finishing failed for good'),
      });
    },

    async start(): Promise<void> {
      await sweep().catch((error) => options.log?.error({ err: error }, 'batch: recovery sweep failed'));
      const interval = options.sweepIntervalMs ?? 60_000;
      if (interval > 0) {
        timer = setInterval(() => {
          sweep().catch((error) => options.log?.error({ err: error }, 'batch: recovery sweep failed'));
        }, interval);
        timer.unref();
      }
    },

    stop(): void {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

export type BatchProcessor = ReturnType<typeof createBatchProcessor>;
