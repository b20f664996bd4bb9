// Progress of long renders crosses from the render threads to the thread that owns the export on a BroadcastChannel
// of this name: messages `{ id, progress }` with the creative id and 0..1. (worker.ts posts, export.processor.ts
// listens; kept apart so that the listener does not import the worker's module, which sets up a fetcher.)
export const PROGRESS_CHANNEL = 'placard-render-progress';

/**
 * Cancellation of a render, from the pool to the render threads: messages `{ id }` with the job's `cancelId`. A thread
 * that is terminated cannot reap the child processes it started (each thread's event loop reaps only its own
 * children), so the pool first asks the render to stop and terminates the thread only if it does not stop in time.
 */
export const CANCEL_CHANNEL = 'placard-render-cancel';

export interface CancelMessage {
  id: string;
}

export interface ProgressMessage {
  id: string;
  progress: number;
}
