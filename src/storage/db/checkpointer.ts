// The SQLite file's WAL checkpoints, run on a thread of their own (issue 21). SQLite checkpoints a WAL by itself once
// it holds 1000 pages, in whichever statement's commit crosses that mark: on the event loop, every few hundred
// statements, one commit took 5–50 ms copying the WAL back into the database (commit p50 68 µs, p99 14 ms). The main
// connection sets `wal_autocheckpoint = 0` and this thread, with a connection of its own, checkpoints PASSIVE every
// `everyMs`: a passive checkpoint never waits for, nor blocks, the writer, and the writer restarts the WAL from its
// start once everything in it was copied. `startCheckpointer` is the main thread's side; the thread's is below.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

interface CheckpointerData {
  file: string;
  everyMs: number;
}

export interface Checkpointer {
  /** Checkpoints what is left and ends the thread. */
  stop(): Promise<void>;
}

/**
 * Starts the thread that checkpoints `file`'s WAL. `onExit` runs when the thread ends other than by stop() (it could
 * not open the file, or crashed): the caller gives the checkpoints back to the main connection.
 */
export function startCheckpointer(file: string, everyMs: number, onExit: (error?: Error) => void): Checkpointer {
  const here = new URL(import.meta.url);
  const worker = new Worker(here, { workerData: { file, everyMs } satisfies CheckpointerData });
  // A thread waiting on its timer keeps no process alive: a CLI command that opened the database exits as before.
  worker.unref();
  let stopping = false;
  let failure: Error | undefined;
  worker.on('error', (error) => {
    failure = error;
  });
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      if (!stopping) onExit(failure ?? new Error('the checkpoint thread ended'));
      resolve();
    });
  });
  return {
    async stop() {
      stopping = true;
      // Held alive until it has ended: an unreferenced thread is not waited for, and the await would never settle.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}

/** The thread: checkpoints on a timer, and once more when asked to stop. */
function runThread({ file, everyMs }: CheckpointerData): void {
  const db = new SQLite(file, { fileMustExist: true });
  // The writer may hold its lock for a moment; a passive checkpoint takes what it can and never waits long.
  db.pragma('busy_timeout = 1000');
  const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
  const timer = setInterval(() => {
    try {
      checkpoint.run();
    } catch {
      // SQLITE_BUSY: a checkpoint from another connection is running; the next tick tries again.
    }
  }, everyMs);
  parentPort?.on('message', (message) => {
    if (message !== 'stop') return;
    clearInterval(timer);
    try {
      checkpoint.run();
    } finally {
      db.close();
      parentPort?.close();
    }
  });
}

if (!isMainThread && (workerData as Partial<CheckpointerData> | null)?.file) runThread(workerData as CheckpointerData);
