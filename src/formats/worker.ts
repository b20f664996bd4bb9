import { BroadcastChannel, workerData } from 'node:worker_threads';
import type { DesignDocument } from '../domain/design.schema.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { createAssetFetcher } from '../render/media/assets.js';
import { renderGif, renderMp4 } from './animated.js';
import type { GifPreset } from './gif/gif.js';
import { packageHtml5 } from './html5/package.js';
import type { Html5Settings } from './html5/settings.js';
import { type PdfPreset, renderPdf } from './pdf/pdf.js';
import { type RasterFormat, renderFetcher, renderImage, setRenderFetcher } from './pipeline.js';
import { PROGRESS_CHANNEL, type ProgressMessage } from './progress.js';

export interface RenderJob {
  document: DesignDocument;
  sizeIndex: number;
  /** The slide of a raster file; ignored by PDF, whose pages are `slides`. */
  slideIndex: number;
  format: RasterFormat | 'pdf' | 'gif' | 'mp4' | 'html';
  /** PDF: default PDF_STANDARD. */
  pdfPreset?: PdfPreset;
  /** PDF: the slides to make pages of; default all. */
  slides?: number[];
  /** Default 1. */
  scale?: number;
  /** jpg and webp, 1..100; default 90. */
  quality?: number;
  /** See FrameOptions.skipRejectedSources. Default false. */
  skipRejectedSources?: boolean;
  /** GIF: default highQuality. */
  gifPreset?: GifPreset;
  /** MP4: frames per second, 1..60; default 30. */
  fps?: number;
  /** MP4: the file to write (the answer then carries no bytes). Required for mp4. */
  out?: string;
  /**
   * Long renders (MP4, GIF) post `{ id, progress }` (0..1) on the BroadcastChannel PROGRESS_CHANNEL (progress.ts) every few
   * percent, so the export can show how far it is.
   */
  progressId?: string;
  /** HTML: the export settings of the package (network, quality, click tag …). */
  html5?: Html5Settings;
  /** HTML: the zip's file name without `.zip`, checked against the network's name rules. */
  zipName?: string;
}

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
    const animated = {
      fetcher: renderFetcher(),
      ffmpegPath: data.ffmpegPath,
      scale: job.scale,
      onProgress: progressReporter(job.progressId),
    };
    if (job.format === 'mp4') {
      if (!job.out) throw new Error('an mp4 render needs the file to write (out)');
      await renderMp4(job.document, job.sizeIndex, job.out, { ...animated, fps: job.fps });
      return { ok: true, bytes: new Uint8Array(0) };
    }
    if (job.format === 'html') {
      const pkg = await packageHtml5(job.document, job.sizeIndex, job.html5, {
        zipName: job.zipName,
        fetcher: renderFetcher(),
      });
      return { ok: true, bytes: pkg.zip, warnings: pkg.warnings, backup: pkg.backup };
    }
    if (job.format === 'gif') {
      return {
        ok: true,
        bytes: await renderGif(job.document, job.sizeIndex, job.gifPreset ?? 'highQuality', animated),
      };
    }
    const bytes =
      job.format === 'pdf'
        ? await renderPdf(job.document, job.sizeIndex, { preset: job.pdfPreset, slides: job.slides })
        : await renderImage(job.document, job.sizeIndex, job.slideIndex, {
            format: job.format,
            scale: job.scale,
            quality: job.quality,
            skipRejectedSources: job.skipRejectedSources,
          });
    return { ok: true, bytes };
  } catch (error) {
    if (error instanceof AppError) {
      return { ok: false, code: error.code, message: error.message, details: error.details };
    }
    throw error;
  }
}
