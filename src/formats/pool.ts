// Renders off the event loop (ARCHITECTURE: a render never runs on the event-loop thread): a fixed pool of worker
// threads (piscina) running worker.ts, sized by config.renderThreads. Threads stay up for the life of the pool, so
// each keeps its fonts, decoded images and canvases warm. The same code runs from src under tsx (tests, the bench)
// and from dist: the worker file is the sibling of this module with this module's own extension.
// First: Skia's allocator reads its options when the native library loads (render/native-memory.ts).
import '../render/native-memory.js';
import '@napi-rs/canvas';
// sharp and Skia are loaded here, on the main thread, before any worker: glibc unloads a shared library when the last
// thread that loaded it exits, and unloading libvips while another thread still uses it crashes the process (sharp
// documents this for worker threads). Loading them here keeps both resident for the life of the process.
import 'sharp';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { AppError } from '../errors.js';
import { FontFileError, type ParsedFontFile } from '../render/text/brand-font-file.js';
import { isLargeRender } from './large-render.js';
import type { Finding } from './preflight/finding.js';
import type { PreflightReport } from './preflight/preflight.js';
import { CANCEL_CHANNEL, type CancelMessage } from './progress.js';
import { createThreadGate } from './thread-gate.js';
import type {
  PostedRenderJob,
  RenderJob,
  RenderOutcome,
  RenderWorkerData,
  StoreTarget,
  TaskOutcome,
  ThreadTask,
} from './worker.js';

export type { RenderJob, StoreTarget } from './worker.js';

export interface RenderPoolOptions {
  /** Worker threads (config.renderThreads). */
  threads: number;
  /** Let media URLs reach private addresses (config.allowPrivateUrls; tests). */
  allowPrivateUrls: boolean;
  /** config.allowedPrivateHosts. */
  allowedPrivateHosts?: readonly string[];
  /** FFMPEG_PATH (config.ffmpegPath): a system ffmpeg preferred over the bundled one. */
  ffmpegPath?: string | null;
}

/** Options of one render. */
export interface RenderCallOptions {
  /** Aborts the render whether it waits for a thread or runs (rejects with an error named AbortError). */
  signal?: AbortSignal;
  /**
   * Time budget of the render alone: it starts when a thread takes the render, never while it waits in line for one
   * (SPEC §6), and a render past it rejects with RenderTimeoutError. Default: none.
   */
  budgetMs?: number;
  /** Who the render is for (a team): when renders wait for a thread, groups take turns. Default: none. */
  group?: string;
  /** Background work (thumbnails): a thread goes to it only when no other render waits. Default false. */
  low?: boolean;
  /**
   * The thread stores the file itself in a BlobStore on this machine's disk before answering (StoreTarget), for
   * formats that answer bytes (not `writesFile`): the answer then has `stored`, and its bytes only with `keepBytes`.
   * A failed write rejects with BlobWriteError. Default: the bytes are answered, and the caller stores them.
   */
  store?: StoreTarget;
  /** Called when a thread takes the render (its wait in line is over). */
  onStart?: () => void;
}

/** Options of a task other than a render: who it is for (groups take turns with renders). */
export interface TaskCallOptions {
  group?: string;
}

/** The render thread made the file and could not store it (RenderCallOptions.store): the disk failed, not the render. */
export class BlobWriteError extends Error {
  override name = 'BlobWriteError';
}

/** A render ran past its budget (counted from the moment a thread took it). */
export class RenderTimeoutError extends Error {
  override name = 'RenderTimeoutError';
  constructor(readonly budgetMs: number) {
    super(`the render ran past its budget of ${budgetMs / 1000} s`);
  }
}

export interface RenderPool {
  /**
   * The encoded file of one slide of one size (or a PDF of a size); AppErrors (SOURCE_REJECTED, VALIDATION_FAILED)
   * keep their code. Aborting `signal` stops the thread running the render (a render past its time budget cannot be
   * interrupted any other way) and rejects with an error named AbortError; a thread that dies rejects with its error.
   */
  render(job: RenderJob, options?: RenderCallOptions): Promise<Uint8Array>;
  /** As `render`, with what an HTML5 package brings besides its zip: the validator's warnings and a backup JPG. */
  renderFiles(job: RenderJob, options?: RenderCallOptions): Promise<RenderedFiles>;
  /**
   * An uploaded font file read on a thread (fontkit's parse and checks, variable instances made static): a file that
   * is no usable font rejects with FontFileError and its reason. `threadId` is the thread that read it.
   */
  readFont(bytes: Buffer, fileName: string, options?: TaskCallOptions): Promise<ParsedFontFile & { threadId: number }>;
  /** Preflight of a variant on a thread (formats/preflight/variant.ts); request errors keep their code and details. */
  preflight(
    task: Omit<Extract<ThreadTask, { task: 'preflight' }>, 'task'>,
    options?: TaskCallOptions,
  ): Promise<PreflightReport & { threadId: number }>;
  readonly threads: number;
  /** Renders queued and not started. */
  queued(): number;
  /** Waits for running renders, then stops the threads. */
  /**
   * Stops the threads once running renders end; `force` ends them at once (at shutdown, after the job queue has waited
   * its grace period and handed unfinished jobs back, a long MP4 must not hold the exit).
   */
  close(options?: { force?: boolean }): Promise<void>;
}

/** worker.ts next to this file when running from src (tsx), worker.js when running from dist. */
export interface RenderedFiles {
  bytes: Uint8Array;
  warnings: string[];
  /** The backup image to deliver beside the file (HTML5 packages for networks that want it outside the zip). */
  backup: Uint8Array | null;
  /** What preflight found (exports run it on the render thread before the render). */
  findings?: Finding[];
  /** With RenderCallOptions.store: the file is stored (its size), and its backup too when there was one. */
  stored?: { size: number; backup: boolean };
}

const FINDINGS = Symbol('findings');

/** The findings a failed render carried (PREFLIGHT_FAILED lists why; other failures may carry some too). */
export function findingsOf(error: AppError): Finding[] | undefined {
  return (error as AppError & { [FINDINGS]?: Finding[] })[FINDINGS];
}

/**
 * How long a cancelled render has to stop by itself (killing and reaping its ffmpeg) before its thread is terminated.
 * A still render busy drawing does not look at its signal, and is terminated after this wait.
 */
export const CANCEL_GRACE_MS = 2_000;

export function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return path.join(path.dirname(here), `worker${path.extname(here)}`);
}

/**
 * The signal that ends a render's thread (piscina terminates the thread when it fires). Piscina takes an emitter with
 * `aborted` as well as an AbortSignal: an AbortController per render, whose EventTarget listener piscina adds and
 * removes, cost the event loop more than the rest of the hand-over to the thread (issue 21, stop 25).
 */
class TerminateSignal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = abortError();
    this.emit('abort');
  }
}

/** What a cancelled render rejects with, whichever way it stopped. */
function abortError(): Error {
  return Object.assign(new Error('The render was cancelled'), { name: 'AbortError' });
}

export function createRenderPool(options: RenderPoolOptions): RenderPool {
  const threads = Math.max(1, Math.floor(options.threads));
  const workerData: RenderWorkerData = {
    allowPrivateUrls: options.allowPrivateUrls,
    allowedPrivateHosts: options.allowedPrivateHosts ?? [],
    ffmpegPath: options.ffmpegPath ?? null,
  };
  const piscina = new Piscina<(PostedRenderJob & { cancelId: string }) | ThreadTask, RenderOutcome | TaskOutcome>({
    filename: workerFile(),
    minThreads: threads,
    maxThreads: threads,
    // Threads are never retired for idleness: their caches are the point of keeping them.
    idleTimeout: Number.POSITIVE_INFINITY,
    // Nobody reads piscina's run and wait histograms (the service has its own render metrics).
    recordTiming: false,
    workerData,
  });
  /** A thread for one very large render (large-render.ts), ended once it is done so its memory goes back. */
  const oneShot = () => {
    const own = new Piscina<(PostedRenderJob & { cancelId: string }) | ThreadTask, RenderOutcome | TaskOutcome>({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: 1,
      recordTiming: false,
      workerData,
    });
    oneShots.add(own);
    return own;
  };
  /** One-shot threads still rendering: close() ends them with the pool's. */
  const oneShots = new Set<
    Piscina<(PostedRenderJob & { cancelId: string }) | ThreadTask, RenderOutcome | TaskOutcome>
  >();
  // Renders are handed to piscina only when a thread is free, so that a render's budget can start when it starts:
  // piscina's own queue gives no signal when a task leaves it.
  const gate = createThreadGate(threads);
  const cancels = new BroadcastChannel(CANCEL_CHANNEL);
  cancels.unref();
  /** A short task (no budget, no cancelling): it waits for a thread like a render, in its group's turn. */
  async function runTask(task: ThreadTask, options: TaskCallOptions = {}) {
    const release = await gate.acquire(undefined, options.group, false);
    let outcome: TaskOutcome;
    try {
      outcome = (await piscina.run(task)) as TaskOutcome;
    } finally {
      release();
    }
    if (outcome.ok) return outcome;
    if (outcome.code === 'FONT_FILE') throw new FontFileError(outcome.message);
    throw new AppError(outcome.code, outcome.message, outcome.details ? { details: outcome.details } : {});
  }
  return {
    threads,
    async readFont(bytes, fileName, options) {
      const outcome = await runTask({ task: 'readFont', bytes, fileName }, options);
      const font = outcome.font!;
      // Structured cloning hands back Uint8Arrays: the faces' files are Buffers again for the BlobStore and hashing.
      const faces = font.faces.map((face) => ({
        ...face,
        bytes: Buffer.from(face.bytes.buffer, face.bytes.byteOffset, face.bytes.byteLength),
      }));
      return { ...font, faces, threadId: outcome.threadId };
    },
    async preflight(task, options) {
      const outcome = await runTask({ task: 'preflight', ...task }, options);
      return { ...outcome.report!, threadId: outcome.threadId };
    },
    async render(job, options = {}) {
      return (await this.renderFiles(job, options)).bytes;
    },
    async renderFiles(job, options = {}) {
      const release = await gate.acquire(options.signal, options.group, options.low);
      options.onStart?.();
      // A plain timer, cleared when the render ends: AbortSignal.timeout's timer stays and fires long after a 5 ms
      // render, building a DOMException with its stack each time (issue 21: a measurable part of the event loop's CPU).
      let timedOut = false;
      const budget =
        options.budgetMs !== undefined
          ? setTimeout(() => {
              timedOut = true;
              cancel();
            }, options.budgetMs).unref()
          : undefined;
      // Cancelling is two steps: ask the render to stop (it kills and reaps its ffmpeg), then terminate its thread
      // if it has not stopped within CANCEL_GRACE_MS.
      const cancelId = randomUUID();
      const terminate = new TerminateSignal();
      let grace: NodeJS.Timeout | undefined;
      let cancelling = false;
      const cancel = () => {
        if (cancelling) return;
        cancelling = true;
        cancels.postMessage({ id: cancelId } satisfies CancelMessage);
        grace = setTimeout(() => terminate.abort(), CANCEL_GRACE_MS);
      };
      options.signal?.addEventListener('abort', cancel, { once: true });
      // The gate's slot covers the one-shot thread too: never more renders at once than `threads`.
      const own = isLargeRender(job) ? oneShot() : null;
      let outcome: RenderOutcome;
      try {
        // A keyed document goes by its key first; a thread that does not keep it answers so, and gets it whole. A
        // one-shot thread (a very large render) keeps nothing: it gets the document at once.
        const runner = own ?? piscina;
        const keyed = job.documentKey !== undefined && own === null;
        const store = options.store;
        outcome = (await runner.run(
          { ...job, document: keyed ? undefined : job.document, cancelId, store },
          { signal: terminate },
        )) as RenderOutcome;
        if (!outcome.ok && 'missingDocument' in outcome) {
          outcome = (await runner.run({ ...job, cancelId, store }, { signal: terminate })) as RenderOutcome;
        }
        if (cancelling || options.signal?.aborted) throw abortError();
      } catch (error) {
        if (timedOut && !options.signal?.aborted) throw new RenderTimeoutError(options.budgetMs as number);
        if (options.signal?.aborted) throw abortError();
        throw error;
      } finally {
        options.signal?.removeEventListener('abort', cancel);
        clearTimeout(budget);
        clearTimeout(grace);
        // Ended before the slot is free, so two very large renders never hold their memory at once.
        if (own) {
          oneShots.delete(own);
          await own.destroy();
        }
        release();
      }
      if (outcome.ok) {
        return {
          bytes: outcome.bytes,
          warnings: outcome.warnings ?? [],
          backup: outcome.backup ?? null,
          findings: outcome.findings ?? [],
          ...(outcome.stored ? { stored: outcome.stored } : {}),
        };
      }
      if ('storeFailed' in outcome) throw new BlobWriteError(outcome.storeFailed);
      if ('missingDocument' in outcome) throw new Error('a render thread lost the document it was just sent');
      const error = new AppError(outcome.code, outcome.message, outcome.details ? { details: outcome.details } : {});
      if (outcome.findings?.length) Object.assign(error, { [FINDINGS]: outcome.findings });
      throw error;
    },
    queued: () => gate.waiting() + piscina.queueSize,
    // destroy() terminates the threads; close({ force }) rejects the tasks but waits (30 s) for a thread whose render
    // still runs to end.
    close: async (closeOptions) => {
      cancels.close();
      const all = [piscina, ...oneShots];
      await Promise.all(all.map((p) => (closeOptions?.force ? p.destroy() : p.close())));
    },
  };
}
