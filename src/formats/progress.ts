// Progress of long renders crosses from the render threads to the thread that owns the export on a BroadcastChannel
// of this name: messages `{ id, progress }` with the creative id and 0..1. (worker.ts posts, export.processor.ts
// listens; kept apart so that the listener does not import the worker's module, which sets up a fetcher.)
export const PROGRESS_CHANNEL = 'placard-render-progress';

export interface ProgressMessage {
  id: string;
  progress: number;
}
