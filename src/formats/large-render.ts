// Very large renders (issue 14: memory returns). A canvas's pixels read out for an encoder live in a buffer whose
// native memory (the canvas surface itself: @napi-rs/canvas hands out a view of it) goes back only when the thread's
// garbage collector runs that buffer's finalizer — which an idle render thread never does, and which a terminated
// thread skips altogether: a 16000x16000 PNG left a service 1 GB larger for good, on a kept thread or an ended one.
// So a very large render runs on a thread of its own (pool.ts), which collects its garbage before it answers and is
// ended once it has: everything it held goes back. Measured in test/formats/large-render-memory.test.ts.
import v8 from 'node:v8';
import vm from 'node:vm';
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

let gc: (() => void) | null = null;

/**
 * Runs the collector of this thread a few times, event-loop turns apart, so that the memory of the buffers a render dropped goes back now. Node gives no collector to call without
 * --expose-gc, which a service cannot count on being started with; the flag set at run time exposes `gc` in a new
 * context (the documented V8 way), without changing how anything else runs.
 */
export async function collectGarbage(): Promise<void> {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  // Native finalizers run from the event loop after a collection, and each gives its buffer's external memory back.
  // So collect and wait a short turn until that memory stops falling: at least three rounds (one turn of setImmediate
  // was not always enough, and a thread ended with a finalizer pending keeps its memory), more while a starved thread
  // is still finalizing (a fixed three rounds left 1 GB behind once on a loaded CI machine), and never more than 50.
  let external = process.memoryUsage().external;
  for (let round = 0; round < 50; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = process.memoryUsage().external;
    const falling = now < external - 1024 * 1024;
    external = now;
    if (round >= 2 && !falling) return;
  }
}
