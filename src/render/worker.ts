// The worker-thread entry (run by pool.ts through piscina): one still render (a raster file or a PDF) per task. Everything a render caches —
// the fetcher's files, decoded images, canvases, registered fonts — lives in this thread's module state and so stays
// warm across the tasks this thread runs. Errors cross the thread boundary as plain data, because a structured clone
// of an AppError keeps its message but loses its code and status.
import { workerData } from 'node:worker_threads';
import type { DesignDocument } from '../domain/design.schema.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { createAssetFetcher } from './assets.js';
import { type PdfPreset, renderPdf } from './formats/pdf.js';
import { type RasterFormat, renderImage, setRenderFetcher } from './pipeline.js';

export interface RenderJob {
  document: DesignDocument;
  sizeIndex: number;
  /** The slide of a raster file; ignored by PDF, whose pages are `slides`. */
  slideIndex: number;
  format: RasterFormat | 'pdf';
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
}

/** What a worker answers: the file, or the AppError to raise again on the calling thread. */
export type RenderOutcome =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; code: ErrorCode; message: string; details?: ErrorDetail[] };

/** Set by pool.ts when it starts the threads. */
export interface RenderWorkerData {
  allowPrivateUrls: boolean;
}

const data = (workerData ?? {}) as Partial<RenderWorkerData>;
setRenderFetcher(createAssetFetcher({ allowPrivateUrls: data.allowPrivateUrls === true }));

export default async function render(job: RenderJob): Promise<RenderOutcome> {
  try {
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
