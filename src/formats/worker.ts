import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import type { DesignDocument } from '../domain/design.schema.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { type AssetFetcher, createAssetFetcher } from '../render/media/assets.js';
import { FontFileError, type ParsedFontFile, readFontFile } from '../render/text/brand-font-file.js';
// Aliased: not a React hook, whatever its name says to the linter.
import {
  type BrandFamily,
  useBrandFamilies as registerBrandFamilies,
  requireEmbeddable,
} from '../render/text/brand-fonts.js';
import { catalogueFonts } from '../render/text/fonts.js';
import { writeBlobFileSync } from '../storage/blobs/local-disk.js';
import { renderFetcher, setRenderFetcher } from './pipeline.js';
import { type Finding, sortFindings } from './preflight/finding.js';
import { type PreflightReport, preflightSize } from './preflight/preflight.js';
import { PREFLIGHT_FETCH_TIMEOUT_MS, preflightVariant, type VariantRequest } from './preflight/variant.js';
import { CANCEL_CHANNEL, type CancelMessage, PROGRESS_CHANNEL, type ProgressMessage } from './progress.js';
import { formatOf, type RenderJob, renderJob } from './registry.js';

export type { RenderJob } from './registry.js';

/**
 * Where the thread stores the file it made, in a BlobStore on this machine's disk (BlobStore.localRoot), before it
 * answers: the bytes then never cross to the event loop, nor do its file calls run there (issue 21).
 */
export interface StoreTarget {
  /** BlobStore.localRoot. */
  root: string;
  key: string;
  contentType: string;
  /** Where the backup image goes when the format makes one (HTML5); stored as image/jpeg. */
  backupKey?: string;
  /** Answer the bytes too (the caller makes a thumbnail of them). Default false: the answer carries none. */
  keepBytes?: boolean;
}

/** What a worker answers: the file, or the AppError to raise again on the calling thread. */
export type RenderOutcome =
  | {
      ok: true;
      /** Empty when the thread stored the file (`stored`) and was not asked to keep the bytes. */
      bytes: Uint8Array;
      warnings?: string[];
      backup?: Uint8Array | null;
      findings?: Finding[];
      /** The job had a StoreTarget: the file (and its backup, if any) is in place. */
      stored?: { size: number; backup: boolean };
    }
  | { ok: false; code: ErrorCode; message: string; details?: ErrorDetail[]; findings?: Finding[] }
  /** The job named its document by key only and this thread does not keep it: the pool sends it again, whole. */
  | { ok: false; missingDocument: true }
  /** The file was made, and storing it failed (the disk): a storage failure, not the render's. */
  | { ok: false; storeFailed: string };

/** A job as the pool posts it: a job with a documentKey may leave its document out. */
export type PostedRenderJob = Omit<RenderJob, 'document'> & { document?: RenderJob['document']; store?: StoreTarget };

/**
 * Work other than a render that must not run on the event loop (ARCHITECTURE), done by the same threads: reading an
 * uploaded font file (fontkit's parse and checks, HarfBuzz's instancing of a variable font's named instances), and
 * preflight of a variant (the layout, font chain and media of a render, without drawing). `task` tells them apart
 * from a RenderJob, which has none.
 */
export type ThreadTask =
  | { task: 'readFont'; bytes: Uint8Array; fileName: string }
  | { task: 'preflight'; document: DesignDocument; request: VariantRequest; brandFamilies?: BrandFamily[] };

/** What a ThreadTask answers; a font file that is refused answers its reason, never a thrown error. */
export type TaskOutcome =
  | { ok: true; threadId: number; font?: ParsedFontFile; report?: PreflightReport }
  | { ok: false; code: ErrorCode | 'FONT_FILE'; message: string; details?: ErrorDetail[] };

/** Set by pool.ts when it starts the threads. */
export interface RenderWorkerData {
  allowPrivateUrls: boolean;
  allowedPrivateHosts?: readonly string[];
  /** FFMPEG_PATH, when configured. */
  ffmpegPath?: string | null;
}

const data = (workerData ?? {}) as Partial<RenderWorkerData>;
setRenderFetcher(
  createAssetFetcher({
    allowPrivateUrls: data.allowPrivateUrls === true,
    allowedPrivateHosts: data.allowedPrivateHosts ?? [],
  }),
);

/** Fetchers with a shorter budget (RenderJobBase.fetchTimeoutMs), one per budget, each with its cache, kept warm. */
const budgetFetchers = new Map<number, AssetFetcher>();
function budgetFetcher(timeoutMs: number): AssetFetcher {
  const known = budgetFetchers.get(timeoutMs);
  const fetcher =
    known ??
    createAssetFetcher({
      allowPrivateUrls: data.allowPrivateUrls === true,
      allowedPrivateHosts: data.allowedPrivateHosts ?? [],
      timeoutMs,
      cacheBytes: 32 * 1024 * 1024,
    });
  budgetFetchers.set(timeoutMs, fetcher);
  return fetcher;
}

let progressChannel: BroadcastChannel | undefined;

/** A reporter that posts at most every 2% (and the end), so a 1 800-frame video sends ~50 messages, not 1 800. */
function progressReporter(id: string | undefined): ((done: number, total: number) => void) | undefined {
  if (!id) return undefined;
  progressChannel ??= new BroadcastChannel(PROGRESS_CHANNEL);
  const channel = progressChannel;
  let sent = 0;
  return (done, total) => {
    const progress = total > 0 ? Math.min(1, done / total) : 1;
    if (progress - sent < 0.02 && progress < 1) return;
    sent = progress;
    channel.postMessage({ id, progress } satisfies ProgressMessage);
  };
}

/** PREFLIGHT_FAILED for a file whose findings include errors, listing them. */
function refused(findings: Finding[]): RenderOutcome {
  const errors = findings.filter((f) => f.severity === 'error');
  return {
    ok: false,
    code: 'PREFLIGHT_FAILED',
    message: `preflight found ${errors.length} error${errors.length === 1 ? '' : 's'} (exportSettings.preflight is fail): ${errors.map((f) => `${f.code}: ${f.message}`).join('; ')}`,
    findings,
  };
}

/**
 * Preflight of the file about to be made (issue 20): its size, and its slide when the format makes one file per slide,
 * at the format's output scale. On this thread, before the render, so the layouts and images it measures are the ones
 * the render then draws from this thread's caches.
 */
async function preflightOf(job: RenderJob): Promise<Finding[]> {
  if (!job.preflight || job.preflight.mode === 'off') return [];
  const format = formatOf(job.format);
  const sizeHashes: string[] = [];
  sizeHashes[job.sizeIndex] = job.preflight.sizeHash;
  const scale = format.outputScale?.(job.settings as never) ?? 1;
  const slides = format.files === 'perSlide' ? [job.slideIndex] : undefined;
  const key = `${job.sizeIndex}|${slides?.[0] ?? 'all'}|${scale}|${job.preflight.sizeHash}`;
  let byKey = preflights.get(job.document);
  const known = byKey?.get(key);
  if (known && known.until > Date.now()) return known.findings;
  const findings = await preflightSize(job.document, job.sizeIndex, {
    fetcher: renderFetcher(),
    scale,
    slides,
    sizeHashes,
  });
  // A source that could not be fetched or was refused may be back at the next export: asked again then.
  if (!findings.some((f) => f.code === 'SOURCE_UNREACHABLE' || f.code === 'SOURCE_REJECTED')) {
    if (!byKey) {
      byKey = new Map();
      preflights.set(job.document, byKey);
    }
    byKey.set(key, { findings, until: Date.now() + PREFLIGHT_KEPT_MS });
  }
  return findings;
}

/**
 * The findings of a document this thread keeps (`documents`, below: the same object for every export of its key), per
 * size, slide, scale and size hash (issue 21, stop 29: preflight was an eighth of a render thread's time per export at
 * c=16, the same findings each time for the exports of one revision). Kept for a minute: an image that changed at its
 * URL is seen again as the image cache sees it. Dropped with the document.
 */
const preflights = new WeakMap<object, Map<string, { findings: Finding[]; until: number }>>();
const PREFLIGHT_KEPT_MS = 60_000;

/**
 * Documents this thread was sent, by key (issue 21): the files of an export, and the exports of one revision, render
 * the same document, and cloning it into every job cost the main thread a tenth of an export's CPU. Bounded by count:
 * documents are small next to the images and canvases this thread keeps.
 */
const documents = new LRUCache<string, RenderJob['document']>({ max: 64 });

/** Renders of this thread that can be cancelled, by cancelId. */
const cancellable = new Map<string, AbortController>();
let cancelChannel: BroadcastChannel | undefined;

/** The signal that aborts when the pool posts this render's cancelId (the channel opens on the first use). */
function cancelSignal(id: string | undefined): AbortSignal | undefined {
  if (!id) return undefined;
  if (!cancelChannel) {
    cancelChannel = new BroadcastChannel(CANCEL_CHANNEL);
    cancelChannel.onmessage = (event) => cancellable.get((event as { data: CancelMessage }).data.id)?.abort();
    // The pool keeps the thread alive; the channel must not keep it from stopping.
    cancelChannel.unref();
  }
  const controller = new AbortController();
  cancellable.set(id, controller);
  return controller.signal;
}

async function runTask(task: ThreadTask): Promise<TaskOutcome> {
  try {
    if (task.task === 'readFont') {
      const font = await readFontFile(
        Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength),
        task.fileName,
      );
      return { ok: true, threadId, font };
    }
    registerBrandFamilies(task.brandFamilies);
    const report = await preflightVariant(task.document, task.request, {
      fonts: catalogueFonts,
      fetcher: budgetFetcher(PREFLIGHT_FETCH_TIMEOUT_MS),
    });
    return { ok: true, threadId, report };
  } catch (error) {
    if (error instanceof FontFileError) return { ok: false, code: 'FONT_FILE', message: error.message };
    if (error instanceof AppError) {
      return { ok: false, code: error.code, message: error.message, details: error.details };
    }
    throw error;
  }
}

export default function render(job: PostedRenderJob): Promise<RenderOutcome>;
export default function render(job: ThreadTask): Promise<TaskOutcome>;
export default async function render(job: PostedRenderJob | ThreadTask): Promise<RenderOutcome | TaskOutcome> {
  if ('task' in job) return runTask(job);
  return renderOne(job);
}

const NO_BYTES = new Uint8Array(0);

/** Stores the file (and its backup) where the job said, then answers what was stored instead of the bytes. */
function stored(
  target: StoreTarget,
  bytes: Uint8Array,
  warnings: string[] | undefined,
  backup: Uint8Array | null | undefined,
  findings: Finding[],
): RenderOutcome {
  try {
    const { size } = writeBlobFileSync(target.root, target.key, bytes, target.contentType);
    const withBackup = backup != null && target.backupKey !== undefined;
    if (withBackup) writeBlobFileSync(target.root, target.backupKey as string, backup, 'image/jpeg');
    return {
      ok: true,
      bytes: target.keepBytes ? bytes : NO_BYTES,
      warnings,
      findings,
      stored: { size, backup: withBackup },
    };
  } catch (error) {
    return { ok: false, storeFailed: error instanceof Error ? error.message : String(error) };
  }
}

async function renderOne(posted: PostedRenderJob): Promise<RenderOutcome> {
  let document = posted.document;
  if (posted.documentKey !== undefined) {
    if (document) documents.set(posted.documentKey, document);
    else document = documents.get(posted.documentKey);
  }
  if (!document) return { ok: false, missingDocument: true };
  const job = { ...posted, document } as RenderJob;
  let findings: Finding[] = [];
  try {
    registerBrandFamilies(job.brandFamilies);
    const { embedsFonts } = formatOf(job.format);
    if (embedsFonts) requireEmbeddable(job.brandFamilies, embedsFonts);
    // After the brand fonts: they are part of the font chain preflight measures.
    findings = await preflightOf(job);
    const fail = job.preflight?.mode === 'fail';
    if (fail && findings.some((f) => f.severity === 'error')) return refused(findings);
    const result = await renderJob(job, {
      fetcher: job.fetchTimeoutMs === undefined ? renderFetcher() : budgetFetcher(job.fetchTimeoutMs),
      ffmpegPath: data.ffmpegPath,
      onProgress: progressReporter(job.progressId),
      signal: cancelSignal(job.cancelId),
    });
    findings = [...findings, ...(result.findings ?? [])];
    // A finding only the made file shows (HTML5_WEIGHT): the file exists, but `fail` still refuses to deliver it.
    if (fail && findings.some((f) => f.severity === 'error')) return refused(findings);
    const { bytes, warnings, backup } = result;
    if (posted.store) return stored(posted.store, bytes, warnings, backup, sortFindings(findings));
    return { ok: true, bytes, warnings, backup, findings: sortFindings(findings) };
  } catch (error) {
    if (error instanceof AppError) {
      return {
        ok: false,
        code: error.code,
        message: error.message,
        details: error.details,
        findings: findings.length ? findings : undefined,
      };
    }
    throw error;
  } finally {
    if (job.cancelId) cancellable.delete(job.cancelId);
  }
}
