// Batches (issue 22): one template, many rows. Everything that concerns the whole request is checked before anything
// is stored — the template (visible, content:write), the type and settings (the formats registry, as exports), the
// rows (parsed whole: a bad file is refused with its line), the mapping (compiled against the columns: a missing
// column is refused naming it and the columns found; its elements and attributes exist in the template), the row key
// — and then the batch and every row are stored in one transaction. A row whose own values cannot be mapped is stored
// failed with its reason: one bad row never fails the batch. Rows render in the background (jobs/batch.processor.ts).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import {
  BATCH_LIMITS,
  parseDelimitedRows,
  parseFeedXml,
  type RowTable,
  rowsFromJson,
  sniffRowFormat,
} from '../domain/batch/rows.js';
import {
  type CompiledMapping,
  compileMapping,
  type MappingEntry,
  RowValueError,
  rowContentHash,
  rowKeyOf,
} from '../domain/batch/template.js';
import { canonicalJson } from '../domain/canonical.js';
import { validateChanges } from '../domain/changes.js';
import type { DesignDocument } from '../domain/design.schema.js';
import { type PageQuery, pageRequest } from '../domain/page.js';
import type { FontLookup } from '../elements/element-kind.js';
import { AppError } from '../errors.js';
import { webhookUrlProblem } from '../events/deliveries.js';
import { type ExportSettings, settingsFor } from '../formats/export.schema.js';
import type { RenderPool } from '../formats/pool.js';
import { sortFindings } from '../formats/preflight/finding.js';
import { chosenSizes } from '../formats/preflight/variant.js';
import { formatOf } from '../formats/registry.js';
import { groupChanges } from '../jobs/batch.processor.js';
import { batchResultsCsv, batchZip, NAMING_PLACEHOLDERS } from '../jobs/batch-files.js';
import { presentBatch, presentBatchRow } from '../jobs/batch-view.js';
import type { ExportLinks } from '../jobs/export-view.js';
import { teamGroup } from '../jobs/fair.js';
import { catalogueFonts } from '../render/text/fonts.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { type Dialect, now } from '../storage/db/database.js';
import { paginate } from '../storage/db/paginate.js';
import {
  type BatchRow,
  type BatchRowRow,
  createBatchRepository,
  type NewBatchRow,
} from '../storage/db/repositories/batches.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { Access } from './access.js';
import type { DesignService } from './design.service.js';
import { documentOf } from './design.service.js';
import type { RenderUrlService } from './render-url.service.js';

/** The request, whichever way its rows came (JSON, CSV text, a feed URL, or the `file` part of a form). */
export interface BatchInput {
  templateHash: string;
  type: string;
  exportSettings?: ExportSettings;
  generalSettings?: { newDesignProjectId?: number; newDesignFolderId?: number; newDesignName?: string };
  createDesigns?: boolean;
  webhookUrl?: string;
  notifyRowFailures?: boolean;
  mapping: MappingEntry[];
  rowKey?: string;
  onFindings?: 'render' | 'skip' | 'fail';
  naming?: string;
  rows?: Record<string, string | number | boolean | null>[];
  csv?: string;
  feedUrl?: string;
  file?: { bytes: Buffer; contentType?: string; fileName?: string };
}

export interface BatchServiceDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  designs: Pick<DesignService, 'requireDesign'>;
  access: Pick<Access, 'seesProject' | 'visibleProjectIds' | 'requireProject' | 'requireFolder'>;
  fonts?: { lookup(teamId: number): Promise<FontLookup> };
  links: ExportLinks;
  blobs: Pick<BlobStore, 'get' | 'signedUrl'>;
  /** Hands a batch's first rows to the queue, or finishes it when none is left (jobs/batch.processor.ts). */
  started(batchId: number, teamId: number): Promise<void>;
  /** Fetches and parses a feed URL (services/batch-source.ts). */
  fetchFeed?: (url: string, field: string) => Promise<RowTable>;
  /** Signs the preview's render URLs. */
  renderUrls?: Pick<RenderUrlService, 'createUrl'>;
  /** The preview's findings: preflight of one variant on a render thread (RenderPool.preflight), not on the API's. */
  preflight?: Pick<RenderPool, 'preflight'>;
  allowPrivateUrls: boolean;
  allowedPrivateHosts?: readonly string[];
}

/** Rows the preview renders and preflights. */
export const PREVIEW_ROWS = 10;

const ROW_VALUE_ERROR = 'INVALID_ROW_VALUE';

export function createBatchService(deps: BatchServiceDeps) {
  const repo = createBatchRepository(deps.db, deps.dialect);

  async function tableOf(input: BatchInput): Promise<{ table: RowTable; source: string }> {
    const given = (['rows', 'csv', 'feedUrl', 'file'] as const).filter((k) => input[k] !== undefined);
    if (given.length !== 1) {
      throw new AppError(
        'VALIDATION_FAILED',
        given.length === 0
          ? 'rows: the rows are missing; give exactly one of rows (JSON), csv (text), feedUrl, or a multipart `file` part'
          : `${given.join(', ')}: give exactly one of rows, csv, feedUrl or a file part, not ${given.length}`,
      );
    }
    if (input.rows) return { table: rowsFromJson(input.rows, { field: 'rows' }), source: 'rows' };
    if (input.csv !== undefined) return { table: parseDelimitedRows(input.csv, { field: 'csv' }), source: 'csv' };
    if (input.file) {
      const { bytes, contentType } = input.file;
      const kind = sniffRowFormat(contentType, bytes.subarray(0, 4096));
      if (kind === null) {
        throw new AppError(
          'UNPROCESSABLE',
          `file: is neither CSV/TSV text nor an RSS/Atom feed (content type ${contentType ?? 'none'})`,
        );
      }
      const table =
        kind === 'xml'
          ? parseFeedXml(bytes, { field: 'file' })
          : parseDelimitedRows(bytes, { field: 'file', delimiter: kind === 'tsv' ? '\t' : undefined });
      return { table, source: 'file' };
    }
    if (!deps.fetchFeed) throw new AppError('UNPROCESSABLE', 'feedUrl: feeds cannot be fetched by this service');
    return { table: await deps.fetchFeed(input.feedUrl as string, 'feedUrl'), source: 'feed' };
  }

  function checkWebhookUrl(url: string | undefined): void {
    if (url === undefined) return;
    const problem = webhookUrlProblem(url, deps.allowPrivateUrls, deps.allowedPrivateHosts);
    if (problem) throw new AppError('UNPROCESSABLE', `webhookUrl: ${problem}`);
  }

  function checkNaming(naming: string | undefined, columns: string[]): void {
    if (naming === undefined) return;
    const known = new Set<string>([...NAMING_PLACEHOLDERS, ...columns]);
    for (const [, name] of naming.matchAll(/\{(\w+)\}/g)) {
      if (!known.has(name)) {
        throw new AppError(
          'UNPROCESSABLE',
          `naming: unknown placeholder {${name}}; known: ${[...known].map((k) => `{${k}}`).join(', ')}`,
        );
      }
    }
  }

  /**
   * Each mapped element exists in the template and takes its attribute: checked with a row's values (the first that
   * maps), entry by entry, so that an element error is the mapping's (the whole request) and a value error stays
   * with its row.
   */
  function checkElements(doc: DesignDocument, compiled: CompiledMapping, table: RowTable, fonts: FontLookup): void {
    let sample: { elementName: string; attribute: string; value: string }[] | null = null;
    for (const row of table.rows.slice(0, 100)) {
      try {
        sample = compiled.changesFor(row.values);
        break;
      } catch (error) {
        if (!(error instanceof RowValueError)) throw error;
      }
    }
    if (!sample) return; // no row maps: each fails on its own
    sample.forEach((change, i) => {
      try {
        validateChanges(doc, groupChanges([change]), undefined, fonts);
      } catch (error) {
        if (
          error instanceof AppError &&
          (error.code === 'UNKNOWN_ELEMENT' || error.code === 'ATTRIBUTE_NOT_APPLICABLE')
        ) {
          throw new AppError(error.code, `mapping[${i}]: ${error.message.replace(/^elementsChanges[^:]*: /, '')}`);
        }
      }
    });
  }

  /** Checks the whole request; what submit stores and preview shows. */
  async function prepare(actor: Actor, input: BatchInput) {
    const design = await deps.designs.requireDesign(actor, input.templateHash, 'content:write', 'templateHash');
    const doc = documentOf(design);
    // The request schema admits only registered types: formatOf cannot miss here.
    const output = formatOf(input.type);
    const settings = settingsFor(output, input.exportSettings);
    const sizes = chosenSizes(doc, input.exportSettings?.allowedSizeHashesOnly, 'exportSettings.allowedSizeHashesOnly');
    for (const size of sizes) output.check(doc.sizes[size], settings as never);
    checkWebhookUrl(input.webhookUrl);
    // createDesigns: where each row's design goes, checked as export-with-changes checks it.
    const general = input.generalSettings ?? {};
    const projectId = general.newDesignProjectId ?? design.project_id;
    if (input.createDesigns && general.newDesignProjectId !== undefined) {
      await deps.access.requireProject(actor, projectId, 'content:write', 'generalSettings.newDesignProjectId');
    }
    if (input.createDesigns && general.newDesignFolderId !== undefined) {
      const folder = await deps.access.requireFolder(
        actor,
        general.newDesignFolderId,
        'read',
        'generalSettings.newDesignFolderId',
      );
      if (folder.project_id !== projectId) {
        throw new AppError(
          'UNPROCESSABLE',
          `generalSettings.newDesignFolderId: folder ${folder.id} belongs to project ${folder.project_id}, not to ` +
            `project ${projectId} that receives the new designs`,
        );
      }
    }
    const { table, source } = await tableOf(input);
    if (table.rows.length > BATCH_LIMITS.maxRows) {
      throw new AppError(
        'UNPROCESSABLE',
        `rows: ${table.rows.length} rows, more than the limit of ${BATCH_LIMITS.maxRows} rows per batch`,
      );
    }
    const compiled = compileMapping(input.mapping, table.columns, { field: 'mapping' });
    const fonts = deps.fonts ? await deps.fonts.lookup(actor.teamId) : catalogueFonts;
    checkElements(doc, compiled, table, fonts);
    checkNaming(input.naming, table.columns);
    const keys = rowKeyOf(table, input.rowKey, 'rowKey');
    return { design, doc, output, settings, sizes, table, source, compiled, keys, fonts, projectId };
  }

  async function requireBatch(actor: Actor, id: number): Promise<BatchRow> {
    const batch = await repo.findById(id);
    if (!batch || batch.team_id !== actor.teamId || !(await deps.access.seesProject(actor, batch.project_id))) {
      throw new AppError('NOT_FOUND', `id: batch ${id} does not exist or is not visible to the caller`);
    }
    return batch;
  }

  async function view(batch: BatchRow) {
    return presentBatch(batch, await repo.counts(batch.id), deps.links);
  }

  return {
    /** POST /v1/batches: stored whole, or refused whole; answered once every row is stored. */
    async submit(actor: Actor, input: BatchInput) {
      const p = await prepare(actor, input);
      const createdAt = now();
      const settingsJson = JSON.stringify(p.settings);
      const rows: NewBatchRow[] = p.table.rows.map((row, idx) => {
        const base = { idx, key: p.keys[idx], line: row.line ?? null, row_values: JSON.stringify(row.values) };
        try {
          const changes = p.compiled.changesFor(row.values);
          // The same template, revision, output and changes make the same files: the key of the cache of rows.
          const cacheKey = createHash('sha256')
            .update(
              canonicalJson({
                teamId: actor.teamId,
                hash: p.design.hash,
                revision: p.design.revision,
                format: p.output.type,
                settings: settingsJson,
                sizes: p.sizes,
                name: p.design.name,
                // A row skipped or failed for its findings is not the same outcome as one rendered with them.
                onFindings: input.onFindings ?? 'render',
                content: rowContentHash(changes),
              }),
            )
            .digest('hex');
          return {
            ...base,
            changes: JSON.stringify(changes),
            cache_key: cacheKey,
            status: 'pending',
            findings: null,
            error_code: null,
            error_message: null,
          };
        } catch (error) {
          if (!(error instanceof RowValueError)) throw error;
          return {
            ...base,
            changes: null,
            cache_key: null,
            status: 'failed',
            findings: null,
            error_code: ROW_VALUE_ERROR,
            error_message: error.message,
          };
        }
      });
      const batch = await deps.db.transaction().execute((tx) =>
        repo.insert(
          tx,
          {
            team_id: actor.teamId,
            project_id: p.design.project_id,
            design_id: p.design.id,
            design_hash: p.design.hash,
            design_revision: p.design.revision,
            document: JSON.stringify(p.doc),
            created_by: actor.userId,
            type: input.type,
            format: p.output.type,
            settings: settingsJson,
            sizes: JSON.stringify(p.sizes),
            general_settings: JSON.stringify({
              ...(input.generalSettings ?? {}),
              fileStem: p.design.name,
              projectId: p.projectId,
            }),
            mapping: JSON.stringify(input.mapping),
            columns: JSON.stringify(p.table.columns),
            source: p.source,
            row_key: input.rowKey ?? null,
            on_findings: input.onFindings ?? 'render',
            create_designs: input.createDesigns ? 1 : 0,
            webhook_url: input.webhookUrl ?? null,
            notify_row_failures: input.notifyRowFailures ? 1 : 0,
            naming: input.naming ?? null,
            row_count: rows.length,
            created_at: createdAt,
            updated_at: createdAt,
          },
          rows,
        ),
      );
      await deps.started(batch.id, actor.teamId);
      return view((await repo.findById(batch.id)) ?? batch);
    },

    /** POST /v1/batches/preview: the same checks, nothing stored; the first rows with their findings and images. */
    async preview(actor: Actor, input: BatchInput) {
      const p = await prepare(actor, input);
      const rows = await Promise.all(
        p.table.rows.slice(0, PREVIEW_ROWS).map(async (row, index) => {
          const base = { index, key: p.keys[index] };
          let changes: { elementName: string; attribute: string; value: string }[];
          try {
            changes = p.compiled.changesFor(row.values);
          } catch (error) {
            if (!(error instanceof RowValueError)) throw error;
            return {
              ...base,
              changes: [],
              findings: [],
              imageUrl: null,
              error: { code: ROW_VALUE_ERROR, message: error.message },
            };
          }
          const elementsChanges = groupChanges(changes);
          try {
            const report = deps.preflight
              ? await deps.preflight.preflight(
                  {
                    document: p.doc,
                    request: { elementsChanges, type: input.type, exportSettings: input.exportSettings as never },
                    brandFamilies: [],
                  },
                  { group: teamGroup(actor.teamId) },
                )
              : { findings: [] };
            const image = deps.renderUrls
              ? await deps.renderUrls.createUrl(actor, {
                  templateHash: p.design.hash,
                  format: 'png',
                  size: p.doc.sizes[p.sizes[0]].hash as string,
                  elementsChanges,
                  expiresAt: new Date(Date.now() + deps.links.ttlSeconds * 1000).toISOString(),
                })
              : null;
            return {
              ...base,
              changes,
              findings: sortFindings(report.findings),
              imageUrl: image?.url ?? null,
              error: null,
            };
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            return {
              ...base,
              changes,
              findings: [],
              imageUrl: null,
              error: { code: error.code, message: error.message },
            };
          }
        }),
      );
      return { columns: p.table.columns, rowCount: p.table.rows.length, rows };
    },

    async get(actor: Actor, id: number) {
      return view(await requireBatch(actor, id));
    },

    async list(actor: Actor, query: PageQuery) {
      const page = pageRequest(query, {}, { orderBy: 'CREATED_AT', direction: 'DESC' });
      const projects = await deps.access.visibleProjectIds(actor);
      if (projects.length === 0) return { totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: '' } };
      const found = await paginate<BatchRow>(
        deps.db
          .selectFrom('batches')
          .selectAll('batches')
          .where('team_id', '=', actor.teamId)
          .where('project_id', 'in', projects),
        page,
        'batches.id',
        { NAME: 'batches.design_hash', CREATED_AT: 'batches.created_at', UPDATED_AT: 'batches.updated_at' },
      );
      return { ...found, nodes: await Promise.all(found.nodes.map(view)) };
    },

    async rows(actor: Actor, id: number, query: PageQuery & { status?: string }) {
      const batch = await requireBatch(actor, id);
      const page = pageRequest(query, { id, status: query.status ?? null }, { orderBy: 'ID', direction: 'ASC' });
      let q = deps.db.selectFrom('batch_rows').selectAll('batch_rows').where('batch_id', '=', batch.id);
      if (query.status) q = q.where('status', '=', query.status);
      const found = await paginate<BatchRowRow>(q, page, 'batch_rows.id', {
        NAME: 'batch_rows.key',
        CREATED_AT: 'batch_rows.updated_at',
        UPDATED_AT: 'batch_rows.updated_at',
      });
      return { ...found, nodes: await Promise.all(found.nodes.map((row) => presentBatchRow(row, deps.links))) };
    },

    /** Pending rows are cancelled; rows already running finish and keep their files. */
    async cancel(actor: Actor, id: number) {
      const batch = await requireBatch(actor, id);
      if (!(await repo.cancel(batch.id))) {
        throw new AppError(
          'UNPROCESSABLE',
          `id: batch ${id} has ended (${batch.status}); only a running batch can be cancelled`,
        );
      }
      await deps.started(batch.id, actor.teamId);
      return view((await repo.findById(batch.id)) as BatchRow);
    },

    /** Failed rows only: pending again, the batch running again until they settle. */
    async retry(actor: Actor, id: number) {
      const batch = await requireBatch(actor, id);
      if (batch.status === 'cancelled') {
        throw new AppError('UNPROCESSABLE', `id: batch ${id} was cancelled; submit it again instead`);
      }
      const retried = await repo.retry(batch.id);
      if (retried > 0) await deps.started(batch.id, actor.teamId);
      return { batch: await view((await repo.findById(batch.id)) as BatchRow), retried };
    },

    async resultsCsv(actor: Actor, id: number): Promise<{ body: Readable; fileName: string }> {
      const batch = await requireBatch(actor, id);
      return { body: batchResultsCsv(batch, repo, deps.links), fileName: `batch-${batch.id}-results.csv` };
    },

    async zip(actor: Actor, id: number): Promise<{ body: Readable; fileName: string }> {
      const batch = await requireBatch(actor, id);
      return { body: await batchZip(batch, repo, deps.blobs), fileName: `batch-${batch.id}.zip` };
    },
  };
}

export type BatchService = ReturnType<typeof createBatchService>;
