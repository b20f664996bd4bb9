// Exports (seed "Exports", SPEC §6): everything that can be checked is checked before the answer, so an invalid
// request creates neither an export nor a design. An accepted export is one row plus one row per expected file,
// written in one transaction (with the new design of an export with changes) together with its render jobs when they
// live in the database, or followed by them after the commit when they live in Redis; the processor
// (jobs/export.processor.ts) finishes it. An identical request whose earlier export completed
// is answered with that export (X-Cache: HIT) and creates nothing.

import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Actor } from '../domain/actor.js';
import { canonicalJson } from '../domain/canonical.js';
import { applyChanges, type ElementChangesInput, type GeneralChangesInput } from '../domain/changes.js';
import type { DesignDocument } from '../domain/design.schema.js';
import { type PlannedFile, planFiles, safeFileStem } from '../domain/export-plan.js';
import { createParsedDocuments } from '../domain/parsed-documents.js';
import { can } from '../domain/permissions.js';
import type { FontLookup } from '../elements/element-kind.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { type WebhookDeliveries, webhookUrlProblem } from '../events/deliveries.js';
import {
  type ExportBody,
  type ExportSettings,
  type ExportWithChangesBody,
  type RenderSettings,
  settingsFor,
} from '../formats/export.schema.js';
import type { OutputFormat } from '../formats/output-format.js';
import { formatOf } from '../formats/registry.js';
import type { AcceptedExports } from '../jobs/accepted-exports.js';
import { type ExportLinks, presentExport } from '../jobs/export-view.js';
import { teamGroup } from '../jobs/fair.js';
import { type JobQueue, thumbnailJobId } from '../jobs/job-queue.js';
import { catalogueFonts } from '../render/text/fonts.js';
import { now } from '../storage/db/database.js';
import {
  type AcceptGuard,
  AcceptGuardFailed,
  type CreativeRow,
  createExportRepository,
  type ExportRow,
  type JobValues,
  type NewCreative,
} from '../storage/db/repositories/exports.repository.js';
import type { Database } from '../storage/db/schema.js';
import { type Access, projectScope } from './access.js';
import type { DesignService, ImportOptions } from './design.service.js';
import { documentOf } from './design.service.js';
import type { ExportWait, QueueEstimate } from './export-wait.js';

export interface ExportServiceDeps {
  db: Kysely<Database>;
  /** The team's brand fonts for FONTFAMILY/FONTVARIANT checks (issue 17). Default: the catalogue only. */
  fonts?: { lookup(teamId: number): Promise<FontLookup> };
  designs: Pick<DesignService, 'requireDesign' | 'importDesign'>;
  access: Pick<Access, 'requireProject' | 'requireFolder' | 'seesProject'>;
  queue: Pick<JobQueue, 'enqueue' | 'depth' | 'transactional'>;
  /** Where this process renders what it accepts: the stored rows, handed to their render jobs. None: not here. */
  accepted?: Pick<AcceptedExports, 'remember'>;
  links: ExportLinks;
  /** Calls the webhookUrl of a cached export again (events/deliveries.ts). */
  deliveries: Pick<WebhookDeliveries, 'deliverExport'>;
  allowPrivateUrls: boolean;
  /** PLACARD_ALLOWED_PRIVATE_HOSTS. Default: none. */
  allowedPrivateHosts?: readonly string[];
  /** Export files waiting or rendering beyond which new exports get 503 (config.queueLimit). */
  queueLimit: number;
  /** Files one team may have waiting or rendering (config.teamFilesInFlight); beyond: 429 TEAM_QUEUE_FULL. */
  teamFilesInFlight?: number;
  /**
   * The expected wait (export-wait.ts): answered with every accepted export, and the ground of the 503 when it passes
   * maxQueueWaitMs. Default: none (no estimate, the count limits alone).
   */
  wait?: Pick<ExportWait, 'estimate' | 'settledRatePerMs'>;
  /** Expected wait beyond which new exports get 503 (config.maxQueueWaitSeconds). Default: none. */
  maxQueueWaitMs?: number;
  /** Counts accepted exports and cache hits (metrics). */
  onAccepted?: (format: string, cache: 'hit' | 'miss') => void;
  /**
   * SQLite (migration 0028): POST /v1/export of a design this process exported before sends its accept, guarded, with
   * its cache probe rather than after it (`speculate`). Default false.
   */
  acceptWithProbe?: boolean;
}

type DesignRow = Awaited<ReturnType<DesignService['requireDesign']>>;

export interface ExportAnswer {
  export: Awaited<ReturnType<typeof presentExport>>;
  cacheHit: boolean;
  /** Where the export stood when accepted; absent for a cache hit (nothing queued) or without an estimator. */
  queue?: QueueEstimate;
}

const seconds = (ms: number) => `${Math.ceil(ms / 1000).toLocaleString('en-US')} s`;

/** A render job that carries its export's rows is remembered ten minutes once done (EnqueueOptions says why). */
const KEEP_COMPLETED_WITH_ROWS_SECONDS = 10 * 60;

/** The cache probe of an export, made with a guessed key (`probeEarly`). */
interface EarlyProbe {
  cacheKey: string;
  found: { cachedId: string | null; unsettledByTeam: Map<number, number> };
}

/** What one accepted request will render. */
interface Plan {
  format: string;
  output: OutputFormat<string, never, unknown>;
  settings: RenderSettings;
  sizes: number[];
}

/** The sizes an export makes (indexes into the document): every size, or those allowedSizeHashesOnly names. */
function chooseSizes(doc: DesignDocument, allowed: readonly string[] | undefined): number[] {
  const all = doc.sizes.map((_, i) => i);
  if (!allowed) return all;
  const details: ErrorDetail[] = [];
  allowed.forEach((hash, i) => {
    if (!doc.sizes.some((size) => size.hash === hash)) {
      details.push({
        path: `/exportSettings/allowedSizeHashesOnly/${i}`,
        in: 'body',
        message: `${hash} is not a size of the design`,
      });
    }
  });
  if (details.length) {
    const known = doc.sizes.map((s) => `${s.hash} (${s.width}x${s.height})`).join(', ');
    const unknown = details.map((d) => d.message.split(' ')[0]).join(', ');
    throw new AppError(
      'UNKNOWN_SIZE_HASH',
      `exportSettings.allowedSizeHashesOnly: ${unknown} ${details.length === 1 ? 'is not a size' : 'are not sizes'} of the design; its sizes: ${known} (GET /v1/templates/{hash}/sizes)`,
      { details },
    );
  }
  const wanted = new Set(allowed);
  return all.filter((i) => wanted.has(doc.sizes[i].hash as string));
}

/** The format's checks that depend on the design (the scale's side limit, a PDF's slides …), for every size. */
function checkSettingsAgainst(doc: DesignDocument, plan: Plan): void {
  for (const sizeIndex of plan.sizes) plan.output.check(doc.sizes[sizeIndex], plan.settings as never);
}

export function createExportService(deps: ExportServiceDeps) {
  const exportsRepo = createExportRepository(deps.db);
  // The design's document, parsed once per stored text and frozen: changes are applied to a copy (applyChanges
  // clones).
  const documents = createParsedDocuments((text) => documentOf({ document: text }));
  function storedDocument(design: { document: string }): DesignDocument {
    return documents.get(design.document);
  }

  function planOf(type: string, settings: ExportSettings | undefined, doc: DesignDocument): Plan {
    // The request schema admits only registered types: formatOf cannot miss here.
    const output = formatOf(type);
    const plan = {
      format: output.type,
      output,
      settings: settingsFor(output, settings),
      sizes: chooseSizes(doc, settings?.allowedSizeHashesOnly),
    };
    checkSettingsAgainst(doc, plan);
    return plan;
  }

  function checkWebhookUrl(url: string | undefined): void {
    if (url === undefined) return;
    const problem = webhookUrlProblem(url, deps.allowPrivateUrls, deps.allowedPrivateHosts);
    if (problem) throw new AppError('UNPROCESSABLE', `webhookUrl: ${problem}`);
  }

  /** Refuses an export the queue cannot take; answers where an accepted one stands. */
  async function checkCapacity(
    teamId: number,
    files: number,
    unsettled?: Map<number, number>,
  ): Promise<QueueEstimate | undefined> {
    // With an estimator, one query gives the team's files, everyone's and the position (issue 21: statements).
    const snapshot = deps.wait ? await deps.wait.estimate(teamId, files, unsettled) : null;
    const teamLimit = deps.teamFilesInFlight;
    if (teamLimit !== undefined) {
      const inFlight = snapshot ? snapshot.teamInFlight : await exportsRepo.countTeamUnsettled(teamId);
      if (inFlight + files > teamLimit) {
        const fmt = (n: number) => n.toLocaleString('en-US');
        throw new AppError(
          'TEAM_QUEUE_FULL',
          files > teamLimit
            ? `this export makes ${fmt(files)} files, more than the team's limit of ${fmt(teamLimit)} files waiting or rendering at once; export fewer sizes or slides per request`
            : `the team has ${fmt(inFlight)} files waiting or rendering and this export adds ${fmt(files)}: the team's limit is ${fmt(teamLimit)} files in flight; retry when some have finished`,
          { headers: { 'Retry-After': '60' } },
        );
      }
    }
    const depth = snapshot ? snapshot.totalInFlight : await deps.queue.depth(['export.creative']);
    if (depth >= deps.queueLimit) {
      throw new AppError(
        'UNAVAILABLE',
        `the export queue is full (${depth} files waiting, limit ${deps.queueLimit}); retry in a minute`,
        { headers: { 'Retry-After': '60' } },
      );
    }
    if (!snapshot) return undefined;
    const estimate: QueueEstimate = { position: snapshot.position, expectedWaitMs: snapshot.expectedWaitMs };
    const limit = deps.maxQueueWaitMs;
    if (estimate.expectedWaitMs !== null && limit !== undefined && estimate.expectedWaitMs > limit) {
      // Retry once the excess has drained, at the rate the estimate assumed.
      const retryAfter = Math.min(3600, Math.max(1, Math.ceil((estimate.expectedWaitMs - limit) / 1000)));
      throw new AppError(
        'UNAVAILABLE',
        `the export queue is too long: this export's ${files.toLocaleString('en-US')} files would be rendered in about ${seconds(estimate.expectedWaitMs)} at the recent render rate, more than the limit of ${seconds(limit)} (PLACARD_MAX_QUEUE_WAIT_SECONDS); retry in ${retryAfter} s`,
        { headers: { 'Retry-After': String(retryAfter) } },
      );
    }
    return estimate;
  }

  function cacheKeyOf(teamId: number, route: string, revision: number, request: Record<string, unknown>): string {
    return createHash('sha256').update(canonicalJson({ route, teamId, revision, request })).digest('hex');
  }

  /**
   * The cache lookup, and the files in flight per team that the capacity check needs on a miss, read together when
   * there is an estimator to use them (issue 21: one statement for both).
   */
  async function probe(
    actor: Actor,
    cacheKey: string,
    early?: Promise<EarlyProbe | null>,
  ): Promise<{ hit: ExportAnswer | null; unsettled: Map<number, number> | undefined }> {
    if (!deps.wait) return { hit: await cached(actor, cacheKey), unsettled: undefined };
    const guessed = early ? await early : null;
    const found =
      guessed?.cacheKey === cacheKey ? guessed.found : await exportsRepo.probeForExport(actor.teamId, cacheKey);
    const row = found.cachedId ? await exportsRepo.findById(found.cachedId) : undefined;
    return { hit: row ? await answerCached(row) : null, unsettled: found.unsettledByTeam };
  }

  /**
   * The revision each design was last exported at, by team and hash: POST /v1/export reads the cache with the key of
   * that revision while it reads the design, in the same message to the database, and reads it again only when the
   * design turned out to have changed since (issue 21: the probe was a round trip of its own after the design's).
   */
  const lastRevision = new Map<string, number>();
  const REVISIONS_KEPT = 10_000;

  /** The probe of POST /v1/export with the key of the design's last known revision; null when there is none. */
  function probeEarly(actor: Actor, body: ExportBody): Promise<EarlyProbe | null> | undefined {
    const revision = lastRevision.get(`${actor.teamId}:${body.creativeHash}`);
    if (revision === undefined || !deps.wait) return undefined;
    let cacheKey: string;
    try {
      const output = formatOf(body.type);
      const settings = settingsFor(output, body.exportSettings);
      cacheKey = exportCacheKey(actor.teamId, revision, body.creativeHash, output.type, settings, body.webhookUrl);
    } catch {
      return undefined; // invalid settings: refused below, after the design is found, as before
    }
    // A failed guess is no failure: the probe is made again with the design's key.
    return exportsRepo.probeForExport(actor.teamId, cacheKey).then(
      (found) => ({ cacheKey, found }),
      () => null,
    );
  }

  /**
   * What POST /v1/export of `design` makes, refused as the request's settings and the document require: its plan, its
   * cache key, its files and (`rows`) the rows that accept it.
   */
  function planExport(actor: Actor, body: ExportBody, design: DesignRow) {
    const doc = storedDocument(design);
    const plan = planOf(body.type, body.exportSettings, doc);
    checkWebhookUrl(body.webhookUrl);
    const cacheKey = exportCacheKey(
      actor.teamId,
      design.revision,
      design.hash,
      plan.format,
      plan.settings,
      body.webhookUrl,
    );
    const files = planFiles(doc, design.name, plan.sizes, plan.output);
    return {
      cacheKey,
      files,
      rows: () =>
        rowsOf({
          files,
          actor,
          type: body.type,
          plan,
          doc,
          docText: design.document,
          sourceDoc: doc,
          projectId: design.project_id,
          designId: design.id,
          designHash: design.hash,
          newDesignHash: null,
          fileStem: design.name,
          webhookUrl: body.webhookUrl,
          cacheKey,
        }),
    };
  }

  /**
   * The design rows POST /v1/export read last, by team and hash, where the accept may go with the probe (SQLite,
   * acceptWithProbe). Their documents are the texts the parsed documents keep, bounded alike.
   */
  const lastDesigns = new LRUCache<string, DesignRow>({
    max: 256,
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (design) => Math.max(1, design.document.length),
  });

  /**
   * POST /v1/export of a design exported before, accepted in the same message to the database as its cache probe
   * (issue 21, stop 38): on SQLite the design's read and the probe were one round trip to the database's thread, and
   * the accept a second, before the answer. Here the export is built from the design row read last and sent, with a
   * guard (migration 0028), beside the probe: it is written only if the design is still at that revision (in the same
   * project, with the same hash), the export is not cached, and the files in flight leave room under every limit, so
   * that nothing is accepted that the usual way would have refused. Null when the usual way goes: no row kept, an
   * actor who sees only some projects or may not export, a request the row's document refuses (refused the usual way,
   * after the design is read), a set of more files than one statement writes, an expected-wait limit whose render
   * rate is not known without a read.
   */
  function speculate(actor: Actor, body: ExportBody) {
    if (!deps.acceptWithProbe || !deps.wait) return null;
    const design = lastDesigns.get(`${actor.teamId}:${body.creativeHash}`);
    if (!design) return null;
    // What requireDesign answers depends on the row alone for an actor who sees every project.
    if (projectScope(actor).memberUserId !== null || !can(actor.roleId, 'export:create')) return null;
    const rate = deps.maxQueueWaitMs === undefined ? null : deps.wait.settledRatePerMs();
    if (rate === undefined) return null;
    let planned: ReturnType<typeof planExport>;
    try {
      planned = planExport(actor, body, design);
    } catch {
      return null;
    }
    const { cacheKey, files } = planned;
    if (!exportsRepo.insertsAtOnce(files.length)) return null;
    // The limits of checkCapacity, as most files in flight: the team's own; every team's, below the queue limit and
    // below the count that the expected wait allows at this rate (its estimate counts at most every file in flight
    // and this export's; one file less, so that rounding never lets through what the estimate would refuse).
    const team = deps.teamFilesInFlight === undefined ? null : deps.teamFilesInFlight - files.length;
    let total = deps.queueLimit - 1;
    if (rate !== null && deps.maxQueueWaitMs !== undefined) {
      total = Math.min(total, Math.floor(deps.maxQueueWaitMs * rate) - files.length - 1);
    }
    if (total < 0 || (team !== null && team < 0)) return null;
    const guard: AcceptGuard = { revision: design.revision, total, team };
    const probe: Promise<EarlyProbe | null> = exportsRepo.probeForExport(actor.teamId, cacheKey).then(
      (found) => ({ cacheKey, found }),
      () => null,
    );
    const rows = planned.rows();
    const accepted = storeAlone(rows.exportRow, rows.creatives, guard).then(
      (stored) => ({ stored, refused: null }),
      (error) => {
        if (error instanceof AcceptGuardFailed) return { stored: null, refused: error.reason };
        throw error;
      },
    );
    return { probe, accepted, files: files.length, design };
  }

  /**
   * Where an export accepted by `speculate` stands: its limits were the guard's, so this refuses nothing (the export
   * is stored); without the probe's counts, or if they cannot be read, the answer goes without.
   */
  async function estimateOnly(
    teamId: number,
    files: number,
    probed: EarlyProbe | null,
  ): Promise<QueueEstimate | undefined> {
    if (!deps.wait || !probed) return undefined;
    try {
      const { position, expectedWaitMs } = await deps.wait.estimate(teamId, files, probed.found.unsettledByTeam);
      return { position, expectedWaitMs };
    } catch {
      return undefined;
    }
  }

  function exportCacheKey(
    teamId: number,
    revision: number,
    hash: string,
    type: string,
    settings: RenderSettings,
    webhookUrl: string | undefined,
  ): string {
    return cacheKeyOf(teamId, 'export', revision, { hash, type, settings, webhookUrl: webhookUrl ?? null });
  }

  /** An earlier complete export of the same request: answered again, its webhookUrl called again. */
  async function cached(actor: Actor, cacheKey: string): Promise<ExportAnswer | null> {
    const row = await exportsRepo.findCached(actor.teamId, cacheKey);
    return row ? answerCached(row) : null;
  }

  async function answerCached(row: ExportRow): Promise<ExportAnswer> {
    const view = await presentExport(row, await exportsRepo.creativesOf(row.id), deps.links);
    if (row.webhook_url) {
      // One statement and a first attempt in this process, as a rendered export's webhook (issue 21: a cache hit
      // with a webhook went through a transaction and a job, seven statements and twice the CPU of one without).
      await deps.deliveries.deliverExport({
        teamId: row.team_id,
        exportId: row.id,
        url: row.webhook_url,
        action: 'export/complete',
        data: { export: view },
      });
    }
    deps.onAccepted?.(row.format, 'hit');
    return { export: view, cacheHit: true };
  }

  /** The export and creative rows of an accepted request; `doc` is what will be rendered (stored with the export). */
  function rowsOf(input: {
    actor: Actor;
    type: string;
    plan: Plan;
    doc: DesignDocument;
    /** `doc` as the design's stored text (it is stored as JSON.stringify made it): not stringified again. */
    docText?: string;
    sourceDoc: DesignDocument;
    projectId: number;
    designId: number;
    designHash: string;
    newDesignHash: string | null;
    fileStem: string;
    webhookUrl: string | undefined;
    cacheKey: string;
    /** planFiles of `doc`, `fileStem` and the plan, when the caller made them already. */
    files?: PlannedFile[];
  }) {
    const id = randomUUID();
    const createdAt = now();
    const files = input.files ?? planFiles(input.doc, input.fileStem, input.plan.sizes, input.plan.output);
    const creatives: NewCreative[] = files.map((file, position) => {
      const size = input.doc.sizes[file.sizeIndex];
      return {
        id: randomUUID(),
        export_id: id,
        position,
        size_index: file.sizeIndex,
        // The hash the request knows the size by: the template's, also for the copy an export with changes makes.
        size_hash: input.sourceDoc.sizes[file.sizeIndex].hash as string,
        size_name: size.name,
        width: size.width,
        height: size.height,
        slide_number: file.slideNumber,
        file_name: file.name,
      };
    });
    return {
      exportRow: {
        id,
        team_id: input.actor.teamId,
        project_id: input.projectId,
        design_id: input.designId,
        design_hash: input.designHash,
        new_design_hash: input.newDesignHash,
        created_by: input.actor.userId,
        type: input.type,
        format: input.plan.format,
        settings: JSON.stringify(input.plan.settings),
        document: input.docText ?? JSON.stringify(input.doc),
        file_stem: input.fileStem,
        is_set: input.doc.sizes.length > 1 ? 1 : 0,
        webhook_url: input.webhookUrl ?? null,
        cache_key: input.cacheKey,
        zip_name: `${safeFileStem(input.fileStem)}.zip`,
        created_at: createdAt,
      },
      creatives,
    };
  }

  function renderJob(exportId: string, teamId: number, creative: Pick<CreativeRow, 'id'>, files: number) {
    // The team is the group that takes turns on the render threads (issue 14: fair between teams).
    return {
      payload: { exportId, creativeId: creative.id, files },
      options: { jobId: creative.id, group: teamGroup(teamId) },
    };
  }

  /**
   * The export's rows and, where jobs live in the database, their render jobs, in the caller's transaction: accepting
   * an export is then one transaction (issue 21). With BullMQ the jobs are enqueued after the commit (answer()).
   */
  async function store(
    tx: Kysely<Database>,
    exportRow: Parameters<ReturnType<typeof createExportRepository>['insert']>[0],
    creatives: Parameters<ReturnType<typeof createExportRepository>['insert']>[1],
  ): Promise<{ row: ExportRow; creatives: CreativeRow[] }> {
    const stored = await createExportRepository(tx).insert(exportRow, creatives);
    const inTable = deps.queue.transactional;
    if (inTable) {
      for (const creative of stored.creatives) {
        const job = renderJob(stored.row.id, stored.row.team_id, creative, stored.creatives.length);
        await inTable.enqueue(tx, 'export.creative', job.payload, job.options);
      }
    }
    return stored;
  }

  /**
   * The export's rows and, where jobs live in the database, their render jobs, in one statement (no begin/commit: 5
   * statements → 1 with the job table, 4 → 1 with BullMQ): PostgreSQL's data-modifying WITH, SQLite's
   * `export_accepts` trigger (migration 0023). A set of more files than one statement takes: one transaction.
   */
  async function storeAlone(
    exportRow: Parameters<ReturnType<typeof createExportRepository>['insert']>[0],
    creatives: Parameters<ReturnType<typeof createExportRepository>['insert']>[1],
    /** What must still hold (SQLite, `speculate`): the caller made sure that the rows go in one statement. */
    guard?: AcceptGuard,
  ): Promise<{ row: ExportRow; creatives: CreativeRow[]; held?: () => void }> {
    const inTable = deps.queue.transactional;
    if (!exportsRepo.insertsAtOnce(creatives.length) || (inTable && !inTable.insertStatement && !inTable.valuesOf)) {
      if (guard) throw new TypeError('storeAlone: a guarded accept is one statement');
      return deps.db.transaction().execute((tx) => store(tx, exportRow, creatives));
    }
    const jobs = creatives.map((creative) => {
      const job = renderJob(exportRow.id, exportRow.team_id, creative, creatives.length);
      return { jobId: job.options.jobId, payload: job.payload };
    });
    const group = { group: teamGroup(exportRow.team_id) };
    const values = inTable?.valuesOf?.('export.creative', jobs, group);
    // An export of one file that this process renders, while a render slot is free and nothing waits: its job is
    // inserted claimed by this process and its file as being made, and the render starts after the commit (issue 21,
    // stop 24: the claim and the file's start were two more writes and round trips before the render).
    const held = values?.length === 1 && deps.accepted ? (inTable?.hold?.('export.creative') ?? null) : null;
    if (held && values) {
      const [v] = values;
      const { claim } = held;
      // Written out rather than spread (issue 21, stop 25: V8's slow property paths).
      const job: JobValues = {
        id: v.id,
        kind: v.kind,
        payload: v.payload,
        max_attempts: v.max_attempts,
        retry_delays: v.retry_delays,
        run_at: v.run_at,
        fair_group: v.fair_group,
        created_at: v.created_at,
        status: claim.status,
        attempts: claim.attempts,
        lease_until: claim.lease_until,
        locked_by: claim.locked_by,
      };
      creatives[0].status = 'inProgress';
      try {
        const stored = await exportsRepo.insertAtOnce(exportRow, creatives, [job], undefined, guard);
        return { ...stored, held: () => held.launch(job) };
      } catch (error) {
        held.release();
        throw error;
      }
    }
    const alongside = inTable?.insertStatement?.('export.creative', jobs, group) ?? values;
    return exportsRepo.insertAtOnce(exportRow, creatives, alongside, undefined, guard);
  }

  async function enqueueRenders(row: ExportRow, creatives: CreativeRow[]): Promise<void> {
    const inTable = deps.queue.transactional;
    if (inTable) {
      inTable.wake('export.creative');
      return;
    }
    for (const creative of creatives) {
      const job = renderJob(row.id, row.team_id, creative, creatives.length);
      // The rows go along with the one job of an export of one file (JobPayloads says why); a set's files would each
      // carry a copy of its document.
      const alone = creatives.length === 1;
      await deps.queue.enqueue(
        'export.creative',
        alone ? { ...job.payload, accepted: { export: row, creative } } : job.payload,
        alone ? { ...job.options, keepCompletedSeconds: KEEP_COMPLETED_WITH_ROWS_SECONDS } : job.options,
      );
    }
  }

  /**
   * `stored`: the rows as inserted (RETURNING), presented without reading them again; `held`: its one job was inserted
   * claimed by this process, and runs now.
   */
  async function answer(
    stored: { row: ExportRow; creatives: CreativeRow[]; held?: () => void },
    queue: QueueEstimate | undefined,
  ): Promise<ExportAnswer> {
    const { row, creatives, held } = stored;
    deps.accepted?.remember(
      row,
      creatives.length,
      creatives.length === 1 ? { creative: creatives[0], started: held !== undefined } : undefined,
    );
    if (held) held();
    else await enqueueRenders(row, creatives);
    const view = await presentExport(row, creatives, deps.links);
    deps.onAccepted?.(row.format, 'miss');
    return { export: view, cacheHit: false, ...(queue ? { queue } : {}) };
  }

  return {
    /** POST /v1/export: an existing design as it is; creates no design. */
    async export(actor: Actor, body: ExportBody): Promise<ExportAnswer> {
      const speculative = speculate(actor, body);
      let early: Promise<EarlyProbe | null> | undefined;
      let design: DesignRow | undefined;
      if (speculative) {
        const [found, outcome] = await Promise.all([speculative.probe, speculative.accepted]);
        if (outcome.stored) return answer(outcome.stored, await estimateOnly(actor.teamId, speculative.files, found));
        // The guard did not hold: the usual way below, with the probe just made, and without reading the design again
        // when the guard found it as kept (the export is cached, or a limit is near: answered so below).
        early = Promise.resolve(found);
        if (outcome.refused === 'state') design = speculative.design;
        // Changed or gone: a deleted design's row is not tried again (the design's read below keeps a found one).
        else lastDesigns.delete(`${actor.teamId}:${body.creativeHash}`);
      }
      early ??= probeEarly(actor, body);
      design ??= await deps.designs.requireDesign(actor, body.creativeHash, 'export:create', 'creativeHash');
      if (lastRevision.size >= REVISIONS_KEPT) lastRevision.clear();
      lastRevision.set(`${actor.teamId}:${design.hash}`, design.revision);
      if (deps.acceptWithProbe) lastDesigns.set(`${actor.teamId}:${design.hash}`, design);
      const { cacheKey, files, rows } = planExport(actor, body, design);
      const { hit, unsettled } = await probe(actor, cacheKey, early);
      if (hit) return hit;
      const queue = await checkCapacity(actor.teamId, files.length, unsettled);
      const { exportRow, creatives } = rows();
      const stored = await storeAlone(exportRow, creatives);
      return answer(stored, queue);
    },

    /** POST /v1/export-with-changes: the template with the changes becomes a new design, which is exported. */
    async exportWithChanges(actor: Actor, body: ExportWithChangesBody): Promise<ExportAnswer> {
      const template = await deps.designs.requireDesign(actor, body.templateHash, 'content:write', 'templateHash');
      const source = storedDocument(template);
      const plan = planOf(body.type, body.exportSettings, source);
      const changed = applyChanges(
        source,
        body.elementsChanges as ElementChangesInput[],
        body.generalChanges as GeneralChangesInput | undefined,
        deps.fonts ? await deps.fonts.lookup(actor.teamId) : catalogueFonts,
      );
      const general = body.generalSettings ?? {};
      const projectId = general.newDesignProjectId ?? template.project_id;
      if (general.newDesignProjectId !== undefined) {
        await deps.access.requireProject(actor, projectId, 'content:write', 'generalSettings.newDesignProjectId');
      }
      if (general.newDesignFolderId !== undefined) {
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
              `project ${projectId} that receives the new design`,
          );
        }
      }
      checkWebhookUrl(body.webhookUrl);
      const name = general.newDesignName?.trim() || `${template.name} (API)`;
      const cacheKey = cacheKeyOf(actor.teamId, 'export-with-changes', template.revision, {
        hash: template.hash,
        type: plan.format,
        settings: plan.settings,
        elementsChanges: body.elementsChanges,
        generalChanges: body.generalChanges ?? {},
        projectId,
        folderId: general.newDesignFolderId ?? null,
        name,
        webhookUrl: body.webhookUrl ?? null,
      });
      const { hit, unsettled } = await probe(actor, cacheKey);
      if (hit) return hit;
      const fileCount = planFiles(changed, name, plan.sizes, plan.output).length;
      const queue = await checkCapacity(actor.teamId, fileCount, unsettled);

      // Filled inside the import's transaction, or by its one statement.
      const created = {} as {
        stored: { row: ExportRow; creatives: CreativeRow[] };
        designId: number;
        revision: number;
      };
      const exportRows = (design: { hash: string; document: DesignDocument }) =>
        rowsOf({
          actor,
          type: body.type,
          plan,
          doc: design.document,
          sourceDoc: source,
          projectId,
          designId: template.id,
          designHash: template.hash,
          newDesignHash: design.hash,
          fileStem: name,
          webhookUrl: body.webhookUrl,
          cacheKey,
        });
      const inTable = deps.queue.transactional;
      // The design, its sizes and event, the export, its files and (job table) their jobs in one statement where the
      // database takes it (design.service.ts decides: PostgreSQL, no folder to lock).
      const atOnce: ImportOptions['atOnce'] =
        exportsRepo.insertsAtOnce(fileCount) && (!inTable || inTable.insertStatement)
          ? async (design) => {
              const { exportRow, creatives } = exportRows(design);
              const jobs = creatives.map((creative) => {
                const job = renderJob(exportRow.id, exportRow.team_id, creative, creatives.length);
                return { jobId: job.options.jobId, payload: job.payload };
              });
              const alongside = inTable?.insertStatement?.('export.creative', jobs, {
                group: teamGroup(exportRow.team_id),
              });
              const { newDesignId, ...stored } = await exportsRepo.insertAtOnce(exportRow, creatives, alongside, {
                statements: design.statements,
                idOf: design.idOf,
              });
              Object.assign(created, { stored, designId: newDesignId, revision: 1 });
            }
          : undefined;
      await deps.designs.importDesign(
        actor,
        {
          projectId,
          folderId: general.newDesignFolderId,
          name,
          apiGenerated: true,
          // The template's size hashes are its own: the new design's sizes get fresh ones in the first round of
          // their check instead of the second (one statement fewer).
          document: { ...changed, name, sizes: changed.sizes.map(({ hash: _taken, ...size }) => size) },
        },
        {
          thumbnail: 'later',
          atOnce,
          // The template's project: its visibility and the actor's right to write were checked with the template.
          ...(general.newDesignProjectId === undefined ? { project: { id: template.project_id } } : {}),
          within: async (tx, design) => {
            const { exportRow, creatives } = exportRows({ hash: design.row.hash, document: design.document });
            Object.assign(created, {
              stored: await store(tx, exportRow, creatives),
              designId: design.row.id,
              revision: design.row.revision,
            });
          },
        },
      );
      // A format whose file can be a thumbnail hands its first file to the design (export.processor.ts), which has
      // the job drawn only when that file fails or its thumbnail cannot be stored. Issue 21, stop 30: a job delayed a
      // minute for that case, cancelled by every export that did make it, was three of the scaled-out shape's nine
      // Redis round trips per export (the add, the wake-up of the thumbnail workers' blocking pop, the removal).
      if (!plan.output.thumbnail) {
        await deps.queue.enqueue(
          'design.thumbnail',
          { designId: created.designId, revision: created.revision },
          { jobId: thumbnailJobId(created.designId, created.revision) },
        );
      }
      return answer(created.stored, queue);
    },

    /** GET /v1/export/{id}: visible when its project is; fresh links on every call. */
    async get(actor: Actor, exportId: string) {
      const row = await exportsRepo.findById(exportId);
      if (!row || row.team_id !== actor.teamId || !(await deps.access.seesProject(actor, row.project_id))) {
        throw new AppError('NOT_FOUND', `exportId: export ${exportId} does not exist or is not visible to the caller`);
      }
      return presentExport(row, await exportsRepo.creativesOf(row.id), deps.links);
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;
