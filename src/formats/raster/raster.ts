// The still raster formats (PNG, JPG, WEBP; AVIF in its own folder uses the same helpers): one file per slide, the
// slide's final state drawn once through the pipeline and encoded by the format's encoder.
import type { Canvas } from '@napi-rs/canvas';
import type { DesignSize } from '../../domain/design.schema.js';
import { AppError } from '../../errors.js';
import type { FormatJob, RenderContext, RenderResult } from '../output-format.js';
import { outputDimensions, renderFrame } from '../pipeline.js';

/** The scale check of every raster format: the SPEC §9 side limit, named as the API names the field. */
export function checkScale(size: Pick<DesignSize, 'width' | 'height'>, scale: number): void {
  try {
    outputDimensions(size, scale);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new AppError('VALIDATION_FAILED', `exportSettings.scale: ${error.message}`, {
      details: [{ path: '/exportSettings/scale', in: 'body', message: error.message }],
    });
  }
}

/** Draws the job's slide at its scale and hands the pooled canvas to `encode`, releasing it on every path. */
export async function renderStill<T extends string, R extends { scale: number }>(
  job: FormatJob<T, R>,
  context: RenderContext,
  encode: (canvas: Canvas) => Promise<Uint8Array>,
): Promise<RenderResult> {
  const frame = await renderFrame(job.document, job.sizeIndex, job.slideIndex, {
    scale: job.settings.scale,
    fetcher: context.fetcher,
    skipRejectedSources: job.skipRejectedSources,
  });
  try {
    return { bytes: await encode(frame.canvas) };
  } finally {
    frame.release();
  }
}
