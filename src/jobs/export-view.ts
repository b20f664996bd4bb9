// An export as GET /v1/export/{id} answers it and as webhooks carry it (SPEC §6, §8): plain creatives for a
// single-size design, one set entry with a zip for a design set. Download links are signed afresh on every call.
import type { Static } from 'typebox';
import type { Export, ExportErrorLog } from '../formats/export.schema.js';
import type { Finding } from '../formats/preflight/finding.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { CreativeRow, ExportRow } from '../storage/db/repositories/exports.repository.js';

export type ErrorLog = NonNullable<Static<typeof ExportErrorLog>>;

export interface ExportLinks {
  blobs: Pick<BlobStore, 'signedUrl'>;
  /** SPEC §6: 1 hour by default (config.urlTtlSeconds). */
  ttlSeconds: number;
}

type Stage = Export['stage'];

/**
 * The seed knows `pending` and `complete`: a client polling "while pending" stopped early on `inProgress`. The
 * stored status keeps the finer step; the answer says `pending` until the end and puts the step in `stage`.
 */
function seedStatus(status: string): Export['status'] {
  return status === 'inProgress' ? 'pending' : (status as Export['status']);
}

function creativeStage(status: string): Stage {
  return status === 'pending' ? 'queued' : status === 'inProgress' ? 'rendering' : 'done';
}

/**
 * An unfinished export's stage is its files': queued while none has started, rendering while any is waiting or
 * rendering, storing once all are settled and the export is being finished (its zip, its event). The stored status
 * stays `pending` until the end (issue 21: marking the export inProgress was a write per render); rows written
 * `inProgress` by earlier versions read the same.
 */
function exportStage(row: ExportRow, creatives: CreativeRow[]): Stage {
  if (row.status !== 'pending' && row.status !== 'inProgress') return 'done';
  if (creatives.every((c) => c.status === 'pending')) return row.status === 'pending' ? 'queued' : 'rendering';
  return creatives.some((c) => c.status === 'pending' || c.status === 'inProgress') ? 'rendering' : 'storing';
}

/** Three decimals: enough for a progress bar, stable in answers. */
const round = (n: number) => Math.round(n * 1000) / 1000;

export async function presentExport(row: ExportRow, creatives: CreativeRow[], links: ExportLinks): Promise<Export> {
  const sign = (key: string | null, fileName: string | null) =>
    key === null
      ? Promise.resolve(null)
      : links.blobs.signedUrl(key, { ttlSeconds: links.ttlSeconds, fileName: fileName ?? undefined });
  const fallbackUrls = await Promise.all(
    creatives.map((c) =>
      c.status === 'complete' && c.fallback_key ? sign(c.fallback_key, c.file_name.replace(/\.zip$/, '.jpg')) : null,
    ),
  );
  /** HTML5 extensions: the validator's advice and the backup beside the zip, only where there are some. */
  const html5 = (c: CreativeRow, i: number) => ({
    ...(c.warnings ? { warnings: JSON.parse(c.warnings) as string[] } : {}),
    ...(c.findings ? { findings: JSON.parse(c.findings) as Finding[] } : {}),
    ...(fallbackUrls[i] ? { fallbackUrl: fallbackUrls[i] } : {}),
  });
  const urls = await Promise.all(
    creatives.map((c) => (c.status === 'complete' ? sign(c.blob_key, c.file_name) : Promise.resolve(null))),
  );
  const base = {
    id: row.id,
    type: row.type,
    status: seedStatus(row.status),
    stage: exportStage(row, creatives),
    errorLog: row.error_log === null ? null : (JSON.parse(row.error_log) as ErrorLog),
    progress: creatives.length ? round(creatives.reduce((sum, c) => sum + c.progress, 0) / creatives.length) : 1,
    templateHash: row.design_hash,
    newDesignHash: row.new_design_hash,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
  if (row.is_set !== 1) {
    return {
      ...base,
      creatives: creatives.map((c, i) => ({
        id: c.id,
        status: seedStatus(c.status),
        stage: creativeStage(c.status),
        url: urls[i],
        progress: round(c.progress),
        ...html5(c, i),
      })),
    };
  }
  return {
    ...base,
    creatives: [
      {
        zipUrl: await sign(row.zip_key, row.zip_name),
        creatives: creatives.map((c, i) => ({
          status: seedStatus(c.status),
          stage: creativeStage(c.status),
          url: urls[i],
          id: c.id,
          size: { name: c.size_name, width: c.width, height: c.height, measureUnit: 'px' },
          slideNumber: c.slide_number,
          progress: round(c.progress),
          ...html5(c, i),
        })),
      },
    ],
  };
}
