// The two files of a batch (issue 22): one zip of every row's files and the results CSV (a line per row). Both are
// written by the batch.finish job into the BlobStore and streamed by the API on demand; rows are read a page at a
// time and files opened one at a time as the zip reaches them, so a batch of 100 000 rows is never held in memory.
import { PassThrough, type Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import yazl from 'yazl';
import { safeFileStem } from '../domain/export-plan.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { BatchRepository, BatchRow, BatchRowRow, RowFile } from '../storage/db/repositories/batches.repository.js';
import { filesOf } from './batch-view.js';
import type { ExportLinks } from './export-view.js';

const PAGE = 1000;

/** The placeholders a `naming` pattern may use, besides the row's columns. */
export const NAMING_PLACEHOLDERS = ['key', 'index', 'name', 'width', 'height', 'ext', 'sizeName'] as const;

/** Default `<rowKey>/<name>-<W>x<H>.<ext>`, where the file's own name is already `<name>-<W>x<H>.<ext>`. */
export function zipPathOf(
  batch: Pick<BatchRow, 'naming'>,
  row: Pick<BatchRowRow, 'key' | 'idx' | 'row_values'>,
  file: RowFile,
): string {
  const ext = file.name.split('.').pop() ?? '';
  if (!batch.naming) return `${safeFileStem(row.key)}/${file.name}`;
  const values = JSON.parse(row.row_values) as Record<string, string>;
  const vars: Record<string, string> = {
    ...values,
    key: row.key,
    index: String(row.idx),
    name: file.name.replace(/\.[^.]+$/, ''),
    width: String(file.width),
    height: String(file.height),
    ext,
    sizeName: file.name,
  };
  // Each segment is made safe on its own: a value cannot climb out of the zip with `..` or a slash.
  const path = batch.naming
    .replace(/\{(\w+)\}/g, (_, name: string) => vars[name] ?? '')
    .split('/')
    .map((segment) => safeFileStem(segment) || '_')
    .join('/');
  return path.endsWith(`.${ext}`) ? path : `${path}.${ext}`;
}

async function* rowsOf(repo: Pick<BatchRepository, 'rowsAfter'>, batchId: number): AsyncGenerator<BatchRowRow> {
  let after = 0;
  for (;;) {
    const page = await repo.rowsAfter(batchId, after, PAGE);
    for (const row of page) yield row;
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}

/** A zip of every file of the batch's succeeded rows; stored, not deflated (PNG, JPG, WEBP, PDF are compressed). */
export async function batchZip(
  batch: BatchRow,
  repo: Pick<BatchRepository, 'rowsAfter'>,
  blobs: Pick<BlobStore, 'get'>,
): Promise<Readable> {
  const zip = new yazl.ZipFile();
  const mtime = new Date(batch.created_at);
  const taken = new Set<string>();
  for await (const row of rowsOf(repo, batch.id)) {
    if (row.status !== 'succeeded') continue;
    for (const file of filesOf(row)) {
      let name = zipPathOf(batch, row, file);
      // A naming pattern may give two files one path: the later gets " (2)" rather than overwriting it.
      for (let n = 2; taken.has(name); n++) name = zipPathOf(batch, row, file).replace(/(\.[^./]+)$/, ` (${n})$1`);
      taken.add(name);
      zip.addReadStreamLazy(name, { mtime, compress: false }, (callback) => {
        blobs.get(file.blobKey).then(
          (blob) =>
            blob ? callback(null, blob.body) : callback(new Error(`${file.blobKey} is missing`), null as never),
          (error) => callback(error, null as never),
        );
      });
    }
  }
  zip.end();
  return zip.outputStream as Readable;
}

/** The results CSV: a line per row with its key, status, files (zip paths and signed links), error and findings. */
export function batchResultsCsv(
  batch: BatchRow,
  repo: Pick<BatchRepository, 'rowsAfter'>,
  links: ExportLinks,
): Readable {
  const out = new PassThrough();
  const csv = stringify({
    header: true,
    columns: ['index', 'key', 'status', 'files', 'urls', 'errorCode', 'error', 'findings'],
  });
  csv.pipe(out);
  (async () => {
    for await (const row of rowsOf(repo, batch.id)) {
      const files = row.status === 'succeeded' ? filesOf(row) : [];
      const urls = await Promise.all(
        files.map((f) => links.blobs.signedUrl(f.blobKey, { ttlSeconds: links.ttlSeconds, fileName: f.name })),
      );
      const findings = row.findings ? (JSON.parse(row.findings) as { code?: string; message?: string }[]) : [];
      const line = {
        index: row.idx,
        key: row.key,
        status: row.status,
        files: files.map((f) => zipPathOf(batch, row, f)).join(' '),
        urls: urls.join(' '),
        errorCode: row.error_code ?? '',
        error: row.error_message ?? '',
        findings: findings.map((f) => `${f.code}: ${f.message}`).join('; '),
      };
      // Respect backpressure: a 100 000-line CSV is written as the reader takes it.
      if (!csv.write(line)) await new Promise((resolve) => csv.once('drain', resolve));
    }
    csv.end();
  })().catch((error) => out.destroy(error as Error));
  return out;
}
