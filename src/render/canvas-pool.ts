// Canvases reused per thread and size. A canvas's native memory is freed only when the garbage collector gets round
// to it, so a fresh canvas per render let one process reach 1.65 GB where reuse held 124 MB (ARCHITECTURE "Measured
// facts"). A render takes a canvas, and gives it back once its pixels have been read or encoded; a reused canvas is
// reset (pixels cleared, state and transform back to defaults) before it is handed out again.
import { type Canvas, createCanvas } from '@napi-rs/canvas';

export interface CanvasPoolOptions {
  /** Idle canvases kept per size. Default 2: one rendering while the previous frame encodes. */
  perSize?: number;
  /** Idle canvases kept in all; the size used longest ago gives its canvases up first. Default 8. */
  total?: number;
  /**
   * Bytes of pixels (4 per pixel) the idle canvases may hold in all; the size used longest ago goes first. Default
   * 256 MiB: a count alone let a thread keep gigabytes after a few 16000x16000 exports (issue 14).
   */
  maxIdleBytes?: number;
  /**
   * A canvas larger than this is never kept: its surface is shrunk to 1x1 on release, so its memory goes back at once
   * instead of whenever the garbage collector gets to it. Default 64 MiB (a 4096x4096 canvas).
   */
  maxPooledCanvasBytes?: number;
}

export interface CanvasPool {
  acquire(width: number, height: number): Canvas;
  /** Hands a canvas back; the caller must not touch it afterwards. */
  release(canvas: Canvas): void;
  /** Idle canvases held, for tests and metrics. */
  idle(): number;
  /** Bytes of pixels the idle canvases hold, for tests and metrics. */
  idleBytes(): number;
  /** Canvases created since the pool started, for tests and metrics. */
  created(): number;
}

export function createCanvasPool(options: CanvasPoolOptions = {}): CanvasPool {
  const perSize = options.perSize ?? 2;
  const total = options.total ?? 8;
  const maxIdleBytes = options.maxIdleBytes ?? 256 * 1024 * 1024;
  const maxPooledCanvasBytes = options.maxPooledCanvasBytes ?? 64 * 1024 * 1024;
  const bytesOf = (canvas: Canvas) => canvas.width * canvas.height * 4;
  let heldBytes = 0;
  /** Gives a canvas's pixel memory back now: resizing replaces the native surface. */
  const shrink = (canvas: Canvas) => {
    canvas.width = 1;
    canvas.height = 1;
  };
  // Map order is recency of use: a size moves to the end whenever a canvas of it is released.
  const idle = new Map<string, Canvas[]>();
  let held = 0;
  let created = 0;
  const key = (width: number, height: number) => `${width}x${height}`;

  return {
    acquire(width, height) {
      const list = idle.get(key(width, height));
      const canvas = list?.pop();
      if (canvas) {
        held--;
        heldBytes -= bytesOf(canvas);
        canvas.getContext('2d').reset();
        return canvas;
      }
      created++;
      return createCanvas(width, height);
    },
    release(canvas) {
      if (bytesOf(canvas) > maxPooledCanvasBytes) {
        shrink(canvas);
        return;
      }
      const k = key(canvas.width, canvas.height);
      const list = idle.get(k) ?? [];
      idle.delete(k);
      idle.set(k, list);
      if (list.length >= perSize) return;
      list.push(canvas);
      held++;
      heldBytes += bytesOf(canvas);
      for (const [size, canvases] of idle) {
        if (held <= total && heldBytes <= maxIdleBytes) break;
        held -= canvases.length;
        for (const dropped of canvases) {
          heldBytes -= bytesOf(dropped);
          shrink(dropped);
        }
        idle.delete(size);
      }
    },
    idle: () => held,
    idleBytes: () => heldBytes,
    created: () => created,
  };
}

/** The pool of this thread (module state is per worker thread). */
export const canvasPool: CanvasPool = createCanvasPool();
