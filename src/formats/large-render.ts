// Very large renders (issue 14: memory returns). What a render of a canvas over 64 MiB leaves behind (the buffer
// `canvas.data()` hands the PNG encoder: a copy of the surface, freed only by its finalizer) goes back only when the
// thread's garbage collector gets round to it — which an idle render thread never does: a 16000x16000 PNG left a
// service 1 GB larger for good. So a very large render runs on a thread of its own (pool.ts), ended once it has
// answered: the thread's teardown frees every buffer it still holds, and Skia's allocator gives that memory back to
// the system at once (render/native-memory.ts). Measured in test/formats/large-render-memory.test.ts.
import type { RenderJob } from './registry.js';

/**
 * A render whose canvas passes this many bytes (4 per output pixel) runs on a thread of its own that ends with it.
 * 64 MiB is a 4096x4096 canvas, the largest the canvas pool keeps (render/canvas-pool.ts): below it, a warm thread
 * and its pooled canvases are worth more than the memory.
 */
export const LARGE_RENDER_BYTES = 64 * 1024 * 1024;

/** The bytes of the canvas a job draws on: its size at its scale (`settings.scale` of the formats that have one). */
export function canvasBytesOf(job: Pick<RenderJob, 'document' | 'sizeIndex' | 'settings'>): number {
  const size = job.document.sizes[job.sizeIndex];
  if (!size) return 0;
  const scale = (job.settings as { scale?: unknown }).scale;
  const factor = typeof scale === 'number' && scale > 0 ? scale : 1;
  return Math.max(1, Math.round(size.width * factor)) * Math.max(1, Math.round(size.height * factor)) * 4;
}

export function isLargeRender(job: Pick<RenderJob, 'document' | 'sizeIndex' | 'settings'>): boolean {
  return canvasBytesOf(job) > LARGE_RENDER_BYTES;
}
