// The SQLite file's WAL checkpoints, run on a thread of their own (issue 21). SQLite checkpoints a WAL by itself once
// it holds 1000 pages, in whichever statement's commit crosses that mark: on the event loop, every few hundred
// statements, one commit took 5–50 ms copying the WAL back into the database (commit p50 68 µs, p99 14 ms), and a
// write that did no checkpoint still cost about twice what it does without them. The main connection sets
// `wal_autocheckpoint = 0`, and a thread with a connection of its own checkpoints PASSIVE every `everyMs`: a passive
// checkpoint never waits for, nor blocks, the writer. The writer restarts the WAL from its start only when it finds
// everything in it copied as it begins a write, which under steady writes a checkpoint on another connection never
// leaves it (the WAL grew to 2.2 GB in a three-minute benchmark, and every read got slower with it): when the thread
// reports a WAL longer than `RESTART_PAGES`, the main connection checkpoints once itself, between two of its own
// statements, copying only the few pages written since the thread's checkpoint, and its next write restarts the WAL.
// The thread is a one-thread piscina pool, as the render threads are: piscina loads this module in
// it (also from the sources under tsx, where a thread's own entry module is not transpiled).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { Piscina } from 'piscina';

/**
 * The WAL length (pages; 16 MiB of 4 KiB pages) past which the main connection checkpoints once itself, so that the
 * WAL restarts. SQLite's own checkpoints on commit come every 1000 pages.
 */
export const RESTART_PAGES = 4096;

interface CheckpointTask {
  file: string;
  /** The last checkpoint: the thread's connection is closed after it. */
  close?: boolean;
}

export interface Checkpointer {
  /** Checkpoints what is left and ends the thread. */
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  everyMs: number;
  /**
   * The WAL is longer than RESTART_PAGES after a checkpoint of the thread: the caller checkpoints once on the main
   * connection. The next call waits for the promise.
   */
  restart: () => Promise<void>;
  /**
   * Runs once when a checkpoint fails for any reason but a busy database (the thread could not open the file, or
   * died): the checkpoints stop, and the caller gives them back to the main connection.
   */
  onFailure: (error: Error) => void;
}

/** Checkpoints `file`'s WAL on a thread every `everyMs`. */
export function startCheckpointer(file: string, options: CheckpointerOptions): Checkpointer {
  const { everyMs, restart, onFailure } = options;
  const here = fileURLToPath(import.meta.url);
  const pool = new Piscina<CheckpointTask, number>({
    filename: path.join(path.dirname(here), `checkpointer${path.extname(here)}`),
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: Number.POSITIVE_INFINITY,
  });
  let running: Promise<void> | null = null;
  let failed: Promise<void> | null = null;
  const timer = setInterval(() => {
    // A slow checkpoint is not queued behind: the next tick looks again.
    if (running || failed) return;
    running = pool
      .run({ file })
      .then(async (pages) => {
        if (pages > RESTART_PAGES) await restart();
      })
      .catch((error: unknown) => {
        clearInterval(timer);
        // The thread goes at once; stop() only waits for it.
        failed = pool.destroy().catch(() => undefined);
        onFailure(error instanceof Error ? error : new Error(`SQLite checkpoint thread: ${String(error)}`));
      })
      .finally(() => {
        running = null;
      });
  }, everyMs);
  // Checkpoints keep no process alive: a CLI command that opened the database ends as before.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      if (failed) {
        await failed;
        return;
      }
      await pool.run({ file, close: true }).catch(() => undefined);
      await pool.destroy();
    },
  };
}

/** The thread's connections, one per database file. */
const connections = new Map<string, { db: SQLite.Database; checkpoint: SQLite.Statement }>();

/** Runs on the thread (piscina's task): one passive checkpoint of `file`; the pages in its WAL (-1: busy). */
export default function checkpoint({ file, close }: CheckpointTask): number {
  let connection = connections.get(file);
  try {
    if (!connection) {
      const db = new SQLite(file, { fileMustExist: true });
      // The writer holds its lock for a moment at most; a passive checkpoint takes what it can.
      db.pragma('busy_timeout = 1000');
      connection = { db, checkpoint: db.prepare('pragma wal_checkpoint(PASSIVE)') };
      connections.set(file, connection);
    }
    let { log } = connection.checkpoint.get() as { busy: number; log: number; checkpointed: number };
    // A long WAL: once more at once, copying what came in during the first, so that the main connection's own
    // checkpoint (the restart) has only the last few pages to copy.
    if (log > RESTART_PAGES) ({ log } = connection.checkpoint.get() as { log: number });
    return log;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    // SQLITE_BUSY: a checkpoint by another connection is running; the next tick tries again.
    if (code === 'SQLITE_BUSY') return -1;
    // A plain Error: better-sqlite3's SqliteError loses its message on the way to the main thread.
    throw new Error(`checkpointing ${file}: ${code ? `${code}: ` : ''}${message ?? String(error)}`);
  } finally {
    if (close && connection) {
      connection.db.close();
      connections.delete(file);
    }
  }
}
