// The worker-thread entry (run by pool.ts through piscina): one file per task — a raster file, a PDF, a GIF, or an MP4
// (written to `out` and streamed by the caller from there, never held whole in memory). Everything a render caches —
// the fetcher's files, decoded images, canvases, registered fonts — lives in this thread's module state and so stays
// warm across the tasks this thread runs. Errors cross the thread boundary as plain data, because a structured clone
// of an AppError keeps its message but loses its code and status.
import fs from 'node:fs/promises';
import { BroadcastChannel, workerData } from 'node:worker_threads';
import type { DesignDocument } from '../domain/design.schema.js';
import { loopCount, sizeDuration } from '../domain/timeline.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { type AnimationFrame, animationFrames, audioTracksOf } from './animation.js';
import { createAssetFetcher } from './assets.js';
import { encodeGif, type GifPreset } from './formats/gif.js';
import { encodeMp4, resolveFfmpeg } from './formats/mp4.js';
import { type PdfPreset, renderPdf } from './formats/pdf.js';
import {
  frameOf,
  outputDimensions,
  type RasterFormat,
  renderFetcher,
  renderImage,
  setRenderFetcher,
} from './pipeline.js';
import { PROGRESS_CHANNEL, type ProgressMessage } from './progress.js';
import { ffmpegBinary } from './video-frame.js';

export interface RenderJob {
  document: DesignDocument;
  sizeIndex: number;
  /** The slide of a raster file; ignored by PDF, whose pages are `slides`. */
  slideIndex: number;
  format: RasterFormat | 'pdf' | 'gif' | 'mp4';
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
}

/** Frames per second of the animated GIF presets: highQuality plays smoothly, optimized trades frames for bytes. */
export const GIF_FPS: Readonly<Record<GifPreset, number>> = { highQuality: 20, optimized: 10, static: 1 };

/** What a worker answers: the file, or the AppError to raise again on the calling thread. */
export type RenderOutcome =
  | { ok: true; bytes: Uint8Array }
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

async function renderGif(job: RenderJob): Promise<Uint8Array> {
  const preset = job.gifPreset ?? 'highQuality';
  const [size] = frameOf(job.document, job.sizeIndex, 0);
  const { width, height } = outputDimensions(size, job.scale);
  const fps = GIF_FPS[preset];
  const frames = animationFrames(job.document, job.sizeIndex, {
    fps,
    scale: job.scale,
    // static: one frame, which frameTimes makes the final state.
    durationSeconds: preset === 'static' ? 0 : sizeDuration(size),
    ffmpeg: await ffmpegBinary(data.ffmpegPath),
    fetcher: renderFetcher(),
    onProgress: progressReporter(job.progressId),
  });
  async function* withDelays(source: AsyncIterable<AnimationFrame>) {
    for await (const frame of source) yield { rgba: frame.rgba, delayMs: (frame.repeat * 1000) / fps };
  }
  return encodeGif(withDelays(frames), { width, height, preset, loop: loopCount(job.document) });
}

async function renderMp4(job: RenderJob): Promise<void> {
  if (!job.out) throw new Error('an mp4 render needs the file to write (out)');
  const ffmpegPath = await resolveFfmpeg(data.ffmpegPath ?? null);
  const fps = job.fps ?? 30;
  const [size] = frameOf(job.document, job.sizeIndex, 0);
  const { width, height } = outputDimensions(size, job.scale);
  const durationSeconds = sizeDuration(size);
  const onProgress = progressReporter(job.progressId);
  const fetcher = renderFetcher();
  const audio = await audioTracksOf(job.document, job.sizeIndex, fetcher);
  try {
    await encodeMp4({
      ffmpegPath,
      out: job.out,
      width,
      height,
      fps,
      durationSeconds,
      frames: animationFrames(job.document, job.sizeIndex, { fps, scale: job.scale, ffmpeg: ffmpegPath, fetcher }),
      audio: audio.tracks,
      onProgress: onProgress && ((written) => onProgress(written, Math.max(1, Math.round(durationSeconds * fps)))),
    });
  } finally {
    await Promise.all(audio.files.map((file) => fs.rm(file, { force: true })));
  }
}

export default async function render(job: RenderJob): Promise<RenderOutcome> {
  try {
    if (job.format === 'mp4') {
      await renderMp4(job);
      return { ok: true, bytes: new Uint8Array(0) };
    }
    if (job.format === 'gif') return { ok: true, bytes: await renderGif(job) };
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
