import { BroadcastChannel, workerData } from 'node:worker_threads';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { type AssetFetcher, createAssetFetcher } from '../render/media/assets.js';
import { requireEmbeddable, useBrandFamilies } from '../render/text/brand-fonts.js';
import { renderFetcher, setRenderFetcher } from './pipeline.js';
import { PROGRESS_CHANNEL, type ProgressMessage } from './progress.js';
import { formatOf, type RenderJob, renderJob } from './registry.js';

export type { RenderJob } from './registry.js';

/** What a worker answers: the file, or the AppError to raise again on the calling thread. */
export type RenderOutcome =
  | { ok: true; bytes: Uint8Array; warnings?: string[]; backup?: Uint8Array | null }
  | { ok: false; code: ErrorCode; message: string; details?: ErrorDetail[] };

/** Set by pool.ts when it starts the threads. */
export interface RenderWorkerData {
  allowPrivateUrls: boolean;
  /** FFMPEG_PATH, when configured. */
  ffmpegPath?: string | null;
}

const data = (workerData ?? {}) as Partial<RenderWorkerData>;
setRenderFetcher(createAssetFetcher({ allowPrivateUrls: data.allowPrivateUrls === true }));

/** Fetchers with a shorter budget (RenderJobBase.fetchTimeoutMs), one per budget, each with its cache, kept warm. */
const budgetFetchers = new Map<number, AssetFetcher>();
function budgetFetcher(timeoutMs: number): AssetFetcher {
  const known = budgetFetchers.get(timeoutMs);
  const fetcher =
    known ??
    createAssetFetcher({ allowPrivateUrls: data.allowPrivateUrls === true, timeoutMs, cacheBytes: 32 * 1024 * 1024 });
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

export default async function render(job: RenderJob): Promise<RenderOutcome> {
  try {
    // biome-ignore lint/correctness/useHookAtTopLevel: not a React hook; it sets the brand fonts of this thread for this job.
    useBrandFamilies(job.brandFamilies);
    const { embedsFonts } = formatOf(job.format);
    if (embedsFonts) requireEmbeddable(job.brandFamilies, embedsFonts);
    const { bytes, warnings, backup } = await renderJob(job, {
      fetcher: job.fetchTimeoutMs === undefined ? renderFetcher() : budgetFetcher(job.fetchTimeoutMs),
      ffmpegPath: data.ffmpegPath,
      onProgress: progressReporter(job.progressId),
    });
    return { ok: true, bytes, warnings, backup };
  } catch (error) {
    if (error instanceof AppError) {
      return { ok: false, code: error.code, message: error.message, details: error.details };
    }
    throw error;
  }
}
