// A batch as GET /v1/batches/{id} answers it and as its batch/completed webhook carries it (issue 22); a row as
// GET /v1/batches/{id}/rows lists it. Download links are signed afresh on every call.

import type { Finding } from '../formats/preflight/finding.js';
import type {
  BatchRow,
  BatchRowRow,
  BatchStatus,
  RowFile,
  RowStatus,
} from '../storage/db/repositories/batches.repository.js';
import type { ExportLinks } from './export-view.js';

export interface BatchView {
  id: number;
  status: BatchStatus;
  templateHash: string;
  type: string;
  rowCount: number;
  counts: Record<RowStatus, number>;
  progress: number;
  zipUrl: string | null;
  resultsUrl: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface BatchRowView {
  index: number;
  key: string;
  line: number | null;
  status: RowStatus;
  cached: boolean;
  /** The design the row created (createDesigns), else null. */
  designHash: string | null;
  findings: Finding[];
  files: { sizeHash: string; name: string; width: number; height: number; bytes: number; url: string }[];
  error: { code: string; message: string } | null;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export async function presentBatch(
  row: BatchRow,
  counts: Record<RowStatus, number>,
  links: ExportLinks,
): Promise<BatchView> {
  const settled = counts.succeeded + counts.failed + counts.skipped + counts.cancelled;
  const sign = (key: string | null, fileName: string) =>
    key === null ? Promise.resolve(null) : links.blobs.signedUrl(key, { ttlSeconds: links.ttlSeconds, fileName });
  return {
    id: row.id,
    status: row.status as BatchStatus,
    templateHash: row.design_hash,
    type: row.type,
    rowCount: row.row_count,
    counts,
    progress: row.row_count ? round(settled / row.row_count) : 1,
    zipUrl: row.finished_at ? await sign(row.zip_key, `batch-${row.id}.zip`) : null,
    resultsUrl: row.finished_at ? await sign(row.results_key, `batch-${row.id}-results.csv`) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

export function filesOf(row: Pick<BatchRowRow, 'files'>): RowFile[] {
  return row.files ? (JSON.parse(row.files) as RowFile[]) : [];
}

export async function presentBatchRow(row: BatchRowRow, links: ExportLinks): Promise<BatchRowView> {
  const files = filesOf(row);
  return {
    index: row.idx,
    key: row.key,
    line: row.line,
    status: row.status as RowStatus,
    cached: row.cached === 1,
    designHash: row.design_hash ?? null,
    findings: row.findings ? (JSON.parse(row.findings) as Finding[]) : [],
    files: await Promise.all(
      files.map(async (f) => ({
        sizeHash: f.sizeHash,
        name: f.name,
        width: f.width,
        height: f.height,
        bytes: f.bytes,
        url: await links.blobs.signedUrl(f.blobKey, { ttlSeconds: links.ttlSeconds, fileName: f.name }),
      })),
    ),
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
  };
}
