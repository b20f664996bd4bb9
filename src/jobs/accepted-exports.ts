// Exports this process accepted and will render itself (the embedded shape), handed from the request that stored them
// to their render jobs, so that a render does not read back the row its own process wrote a moment before (issue 21:
// one statement per export). Only a hint: a miss (another process accepted it, a restart, an entry pushed out) reads
// the row. The fields a render uses never change after the insert; its status may, and is checked where it matters
// (finishing an export is a conditional update).
import { LRUCache } from 'lru-cache';
import type { CreativeRow, ExportRow } from '../storage/db/repositories/exports.repository.js';

/** The one file of an export as its accept stored it. */
export interface AcceptedFile {
  creative: CreativeRow;
  /** Stored as being made: its job was inserted claimed by this process (migration 0025). */
  started: boolean;
}

export interface AcceptedExports {
  /**
   * After the commit that stored the export and its `files` files; `file`: its one file as stored, so that its render
   * does not start it again (being made already) or read it back (waiting).
   */
  remember(row: ExportRow, files: number, file?: AcceptedFile): void;
  /** The one file as its accept stored it, once: the first run of its job takes it; a later run reads the file. */
  takeFile(id: string, creativeId: string): AcceptedFile | undefined;
  /** The row as accepted, if it is still kept. */
  peek(id: string): ExportRow | undefined;
  /** How many files the export makes, if it is still kept (one: its render finishes it in the same statement). */
  files(id: string): number | undefined;
  /** Once the export is finished. */
  forget(id: string): void;
}

/**
 * `max`: exports kept, more than usually wait to render, so that a waiting export is found; `maxBytes`: their
 * documents' characters at most, so that a backlog of large designs holds no more than that.
 */
export function createAcceptedExports(max = 1024, maxBytes = 32 * 1024 * 1024): AcceptedExports {
  const rows = new LRUCache<string, { row: ExportRow; files: number; file?: AcceptedFile }>({
    max,
    maxSize: maxBytes,
    sizeCalculation: ({ row }) => row.document.length + row.settings.length + 1024,
  });
  return {
    remember: (row, files, file) => {
      rows.set(row.id, { row, files, file });
    },
    takeFile: (id, creativeId) => {
      const entry = rows.get(id);
      const file = entry?.file;
      if (!entry || file?.creative.id !== creativeId) return undefined;
      entry.file = undefined;
      return file;
    },
    peek: (id) => rows.get(id)?.row,
    files: (id) => rows.get(id)?.files,
    forget: (id) => {
      rows.delete(id);
    },
  };
}
