// An unfinished export's `stage` comes from its files (issue 21): a render no longer writes its export's row, which
// stays `pending` until it is finished, so queued / rendering / storing must read the same as when the export was
// marked inProgress (and rows of earlier versions, still marked so, must read as before).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { presentExport } from '../../src/jobs/export-view.js';
import type { CreativeRow, ExportRow } from '../../src/storage/db/repositories/exports.repository.js';

const links = { blobs: { signedUrl: async (key: string) => `https://files.test/${key}` }, ttlSeconds: 60 };
const at = '2026-11-29T00:00:00.000Z';

function exportRow(status: string): ExportRow {
  return {
    id: 'e1',
    team_id: 1,
    project_id: 1,
    design_id: 1,
    design_hash: 'd1',
    new_design_hash: null,
    created_by: 1,
    type: 'jpg',
    format: 'jpg',
    status,
    settings: '{}',
    document: '{}',
    file_stem: 'Banner',
    is_set: 0,
    webhook_url: null,
    cache_key: null,
    error_log: null,
    zip_key: null,
    zip_name: null,
    created_at: at,
    updated_at: at,
    completed_at: status === 'complete' ? at : null,
  };
}

function creative(id: string, status: string): CreativeRow {
  return {
    id,
    export_id: 'e1',
    position: 0,
    size_index: 0,
    size_hash: 's1',
    size_name: 'MPU',
    width: 300,
    height: 250,
    slide_number: null,
    file_name: `${id}.jpg`,
    status,
    blob_key: status === 'complete' ? `exports/e1/${id}.jpg` : null,
    bytes: null,
    error_code: null,
    error_message: null,
    render_ms: null,
    progress: status === 'complete' ? 1 : 0,
    warnings: null,
    findings: null,
    fallback_key: null,
    created_at: at,
    updated_at: at,
  };
}

async function stageOf(status: string, files: string[]): Promise<string> {
  const view = await presentExport(
    exportRow(status),
    files.map((s, i) => creative(`c${i}`, s)),
    links,
  );
  return view.stage;
}

test('a pending export is queued, rendering or storing as its files are', async () => {
  assert.equal(await stageOf('pending', ['pending', 'pending']), 'queued');
  assert.equal(await stageOf('pending', ['inProgress', 'pending']), 'rendering');
  assert.equal(await stageOf('pending', ['complete', 'pending']), 'rendering');
  assert.equal(await stageOf('pending', ['complete', 'failed']), 'storing');
});

test('an export marked inProgress by an earlier version reads as it did', async () => {
  assert.equal(await stageOf('inProgress', ['pending']), 'rendering');
  assert.equal(await stageOf('inProgress', ['inProgress']), 'rendering');
  assert.equal(await stageOf('inProgress', ['complete']), 'storing');
});

test('a finished export is done, and says pending to the seed until then', async () => {
  assert.equal(await stageOf('complete', ['complete']), 'done');
  const view = await presentExport(exportRow('inProgress'), [creative('c0', 'inProgress')], links);
  assert.equal(view.status, 'pending');
});
