// Exports and their creatives (SPEC §6). Every status change is guarded by the status it leaves, so a job that runs
// twice (the queue promises at least once) settles a creative or finishes an export once and only once.
import {
  type Expression,
  type Kysely,
  type OperationNodeSource,
  PostgresAdapter,
  type QueryCreator,
  type Selectable,
  sql,
} from 'kysely';
import type { ErrorCode, ExportFailureCode } from '../../../errors.js';
import { now } from '../database.js';
import {
  ACCEPT_DESIGN_CHANGED,
  ACCEPT_GUARD_FAILED,
  EXPORT_ACCEPT_COLUMNS,
} from '../migrations/0023_export_statements.js';
import { insertRow, prepared, preparedBy } from '../prepared.js';
import type { Database, ExportCreativesTable, ExportsTable } from '../schema.js';

export type ExportRow = Selectable<ExportsTable>;
export type CreativeRow = Selectable<ExportCreativesTable>;

export type ExportStatus = 'pending' | 'inProgress' | 'complete' | 'completeWithError' | 'failed';
export const UNSETTLED: readonly ExportStatus[] = ['pending', 'inProgress'];
/**
 * The same statuses written into the statement: a count of the files in flight across exports reads the partial index
 * of unsettled files (migration 0026), which a planner uses only for a condition it sees, not a bound parameter.
 */
const UNSETTLED_LITERALS = UNSETTLED.map((status) => sql.lit(status));

// The start of every render (built once, issue 21): the file moves to inProgress unless it was settled already, and
// its export is read. The export's own row is not written: whether it is rendering is what its files say
// (export-view.ts), and an UPDATE on SQLite costs about ten times a SELECT (the WAL pages it writes).
const readExport = prepared<{ id: string }, ExportRow>((db, p) =>
  db.selectFrom('exports').selectAll().where('id', '=', p('id')),
);
const startCreative = prepared<{ id: string; at: string }, CreativeRow>((db, p) =>
  db
    .updateTable('export_creatives')
    .set({ status: 'inProgress', updated_at: p('at') })
    .where('id', '=', p('id'))
    .where('status', 'in', UNSETTLED)
    .returningAll(),
);

/**
 * A file settled (built once per outcome, issue 21): its row as settled, and how many files its export makes. Only
 * while it is unsettled, so a job that runs twice settles it once.
 */
const settleStatement = preparedBy<
  'complete' | 'failed',
  Record<string, unknown>,
  CreativeRow & { files: number | string }
>(
  (db, p, status) =>
    db
      .updateTable('export_creatives')
      .set(
        status === 'complete'
          ? {
              status: 'complete',
              blob_key: p('blob_key') as string,
              bytes: p('bytes') as number,
              render_ms: p('render_ms') as number,
              warnings: p('warnings') as string,
              fallback_key: p('fallback_key') as string,
              findings: p('findings') as string,
              progress: p('progress') as number,
              updated_at: p('updated_at') as string,
            }
          : {
              status: 'failed',
              error_code: p('error_code') as string,
              error_message: p('error_message') as string,
              render_ms: p('render_ms') as number,
              findings: p('findings') as string,
              progress: p('progress') as number,
              updated_at: p('updated_at') as string,
            },
      )
      .where('id', '=', p('id') as string)
      .where('status', 'in', UNSETTLED)
      .returningAll()
      .returning((eb) =>
        eb
          .selectFrom('export_creatives as sibling')
          .select((sb) => sb.fn.countAll<number>().as('n'))
          .whereRef('sibling.export_id', '=', 'export_creatives.export_id')
          .as('files'),
      ),
  (status) => status,
);

/** What accepting an export reads (built once, issue 21): see probeForExport. */
const probeStatement = prepared<
  { teamId: number; cacheKey: string },
  { team_id: number | null; n: number | null; cached_id: string | null }
>((db, p) =>
  db
    .selectFrom('export_creatives as c')
    .innerJoin('exports as e', 'e.id', 'c.export_id')
    .select(['e.team_id', (eb) => eb.fn.countAll<number>().as('n'), sql<string | null>`null`.as('cached_id')])
    .where('e.status', 'in', UNSETTLED)
    .where('c.status', 'in', UNSETTLED_LITERALS)
    .groupBy('e.team_id')
    .unionAll(
      db.selectNoFrom((eb) => [
        sql<number>`null`.as('team_id'),
        sql<number>`null`.as('n'),
        eb
          .selectFrom('exports')
          .select('id')
          .where('team_id', '=', p('teamId'))
          .where('cache_key', '=', p('cacheKey'))
          .where('status', '=', 'complete')
          .orderBy('completed_at', 'desc')
          .limit(1)
          .as('cached_id'),
      ]),
    ),
);

/** SQLite: an export, its files and its render jobs, written by the `export_accepts` trigger (migration 0023). */
const acceptStatement = preparedBy<null, Record<string, unknown>, unknown>(
  (_db, p) => {
    const columns = [...EXPORT_ACCEPT_COLUMNS, 'creatives', 'jobs', 'guard'];
    return sql`insert into export_accepts (${sql.join(columns.map((c) => sql.id(c)))}) values (${sql.join(
      columns.map((c) => p(c)),
    )})`;
  },
  () => '',
);

/** An export finished, unless it was already (built once, issue 21). */
const finishStatement = prepared<
  { id: string; status: string; errorLog: string | null; zipKey: string | null; at: string },
  unknown
>((db, p) =>
  db
    .updateTable('exports')
    .set({
      status: p('status'),
      error_log: p('errorLog'),
      zip_key: p('zipKey'),
      updated_at: p('at'),
      completed_at: p('at'),
    })
    .where('id', '=', p('id'))
    .where('status', 'in', UNSETTLED),
);

export type NewExport = Omit<ExportRow, 'status' | 'error_log' | 'zip_key' | 'updated_at' | 'completed_at'>;
export type NewCreative = Omit<
  CreativeRow,
  | 'status'
  | 'blob_key'
  | 'bytes'
  | 'error_code'
  | 'error_message'
  | 'warnings'
  | 'findings'
  | 'fallback_key'
  | 'render_ms'
  | 'progress'
  | 'updated_at'
  | 'created_at'
> & {
  /** insertAtOnce on SQLite: a file whose job its accepting process holds is inserted being made (migration 0025). */
  status?: 'inProgress';
};

export type CreativeOutcome =
  | {
      status: 'complete';
      blobKey: string;
      bytes: number;
      renderMs: number;
      /** HTML5: the validator's advice. */
      warnings?: string[];
      /** HTML5: the backup JPG delivered beside the zip. */
      fallbackKey?: string | null;
      /** What preflight found (formats/preflight/finding.ts), as plain JSON values. */
      findings?: unknown[];
    }
  | { status: 'failed'; code: ErrorCode | ExportFailureCode; message: string; renderMs?: number; findings?: unknown[] };

/**
 * What an export accepted before its reads were answered was built from (migration 0028): the design's revision, and
 * the most files in flight, of every team and of its team, with which it may still be accepted (null: no limit).
 */
export interface AcceptGuard {
  revision: number;
  total: number | null;
  team: number | null;
}

/**
 * insertAtOnce's guard did not hold, and nothing was written: the design is no longer as the guard has it, or (`state`)
 * it is, and the export is cached or a limit is near.
 */
export class AcceptGuardFailed extends Error {
  constructor(readonly reason: 'design' | 'state') {
    super(reason === 'design' ? ACCEPT_DESIGN_CHANGED : ACCEPT_GUARD_FAILED);
  }
}

/**
 * A render job as the `export_accepts` trigger takes it (migration 0023, SQLite): the job table's values that do not
 * depend on the table; the trigger gives it its status, fair key and seq.
 */
export interface JobValues {
  id: string;
  kind: string;
  payload: string;
  max_attempts: number;
  retry_delays: string;
  run_at: string;
  fair_group: string | null;
  created_at: string;
  /** A job inserted already claimed by its accepting process (migration 0025, jobs/local-queue.ts `hold`). */
  status?: 'running';
  attempts?: number;
  lease_until?: string;
  locked_by?: string;
}

/** An export as `export_accepts` stores it (migration 0023), written out in one shape (see insertAtOnce). */
function storedExport(e: NewExport): ExportRow {
  return {
    id: e.id,
    team_id: e.team_id,
    project_id: e.project_id,
    design_id: e.design_id,
    design_hash: e.design_hash,
    new_design_hash: e.new_design_hash,
    created_by: e.created_by,
    type: e.type,
    format: e.format,
    status: 'pending',
    settings: e.settings,
    document: e.document,
    file_stem: e.file_stem,
    is_set: e.is_set,
    webhook_url: e.webhook_url,
    cache_key: e.cache_key,
    error_log: null,
    zip_key: null,
    zip_name: e.zip_name,
    created_at: e.created_at,
    updated_at: e.created_at,
    completed_at: null,
  };
}

/** A file as `export_accepts` stores it: pending, or being made when its job was held (migration 0025). */
function storedCreative(c: NewCreative, at: string): CreativeRow {
  return {
    id: c.id,
    export_id: c.export_id,
    position: c.position,
    size_index: c.size_index,
    size_hash: c.size_hash,
    size_name: c.size_name,
    width: c.width,
    height: c.height,
    slide_number: c.slide_number,
    file_name: c.file_name,
    status: c.status ?? 'pending',
    blob_key: null,
    bytes: null,
    error_code: null,
    error_message: null,
    render_ms: null,
    progress: 0,
    warnings: null,
    findings: null,
    fallback_key: null,
    created_at: at,
    updated_at: at,
  };
}

/** The columns a file's outcome sets (besides `progress` 1 and `updated_at`), as settleCreative writes them. */
export function settledColumns(outcome: CreativeOutcome): Partial<CreativeRow> & { status: 'complete' | 'failed' } {
  return outcome.status === 'complete'
    ? {
        status: 'complete',
        blob_key: outcome.blobKey,
        bytes: outcome.bytes,
        render_ms: outcome.renderMs,
        warnings: outcome.warnings?.length ? JSON.stringify(outcome.warnings) : null,
        fallback_key: outcome.fallbackKey ?? null,
        findings: outcome.findings?.length ? JSON.stringify(outcome.findings) : null,
      }
    : {
        status: 'failed',
        error_code: outcome.code,
        error_message: outcome.message,
        render_ms: outcome.renderMs ?? null,
        findings: outcome.findings?.length ? JSON.stringify(outcome.findings) : null,
      };
}

/** SQLite binds at most 32,766 variables per statement; creatives have 15 columns. */
const CREATIVES_PER_INSERT = 1_000;

/**
 * A statement as the body of a WITH, as it is: embedded in sql`` it would be put in parentheses as a subquery would,
 * which PostgreSQL refuses for an INSERT.
 */
function cte(statement: OperationNodeSource): Expression<Record<string, unknown>> {
  return {
    get expressionType() {
      return undefined;
    },
    toOperationNode: () => statement.toOperationNode(),
  };
}

export function createExportRepository(db: Kysely<Database>) {
  // PostgreSQL writes to several tables in one statement (a data-modifying WITH); SQLite needs a transaction for it.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  function creativeValues(exportRow: NewExport, creatives: NewCreative[]) {
    return creatives.map((c) => ({
      ...c,
      status: 'pending',
      created_at: exportRow.created_at,
      updated_at: exportRow.created_at,
    }));
  }
  return {
    /** Whether insertAtOnce can write an export with this many creatives (within one PostgreSQL statement's binds). */
    insertsAtOnce(creatives: number): boolean {
      return creatives > 0 && creatives <= CREATIVES_PER_INSERT;
    },

    /**
     * The rows of insert() and, with them, the export's render jobs in ONE statement, atomic without a transaction
     * (issue 21: accepting an export). PostgreSQL: `alongside` is another data-modifying statement (the jobs' insert)
     * for the WITH; the rows come back as stored, the creatives as JSON, whose values are those of their columns
     * (text, integers, reals, nulls). SQLite: `alongside` is the jobs' values, and the `export_accepts` trigger
     * (migration 0023) writes all three tables; the rows are answered as that trigger stores them
     * (test/storage/db/export-statements.test.ts reads them back).
     */
    async insertAtOnce(
      exportRow: NewExport,
      creatives: NewCreative[],
      alongside?: OperationNodeSource | JobValues[],
      /**
       * PostgreSQL: more data-modifying statements of the same WITH, before the export's (the design an export with
       * changes makes, its sizes and its event), `idOf` the one whose id is answered as `newDesignId`.
       */
      before?: { statements: ReadonlyArray<readonly [string, OperationNodeSource]>; idOf: string },
      /** SQLite: what must still hold for the rows to be written (migration 0028); else ACCEPT_GUARD_FAILED. */
      guard?: AcceptGuard,
    ): Promise<{ row: ExportRow; creatives: CreativeRow[]; newDesignId?: number }> {
      if (creatives.length === 0 || creatives.length > CREATIVES_PER_INSERT) {
        throw new RangeError(`insertAtOnce: ${creatives.length} creatives cannot be written in one statement`);
      }
      if (!postgres) {
        if (alongside !== undefined && !Array.isArray(alongside)) {
          throw new TypeError('insertAtOnce: on SQLite the jobs come as values, not as a statement');
        }
        // The row as rowsOf built it is bound as it is (its keys are EXPORT_ACCEPT_COLUMNS), and the rows answered
        // are written out in one shape: spreading the rows' twenty-odd columns into new objects sent V8 down its slow
        // property paths, half of this function's cost per export (issue 21, stop 25).
        try {
          await acceptStatement(db, null, exportRow, {
            // Only the columns the trigger reads: a NewCreative is its insert columns exactly.
            creatives: JSON.stringify(creatives),
            jobs: JSON.stringify(alongside ?? []),
            guard: guard ? JSON.stringify(guard) : null,
          });
        } catch (error) {
          const message = (error as Error).message;
          if (guard && message === ACCEPT_DESIGN_CHANGED) throw new AcceptGuardFailed('design');
          if (guard && message === ACCEPT_GUARD_FAILED) throw new AcceptGuardFailed('state');
          throw error;
        }
        return {
          row: storedExport(exportRow),
          creatives: creatives.map((c) => storedCreative(c, exportRow.created_at)),
        };
      }
      if (Array.isArray(alongside)) throw new TypeError('insertAtOnce: on PostgreSQL the jobs come as a statement');
      if (guard) throw new TypeError('insertAtOnce: a guard is checked on SQLite only (migration 0028)');
      let creator = db as QueryCreator<Database>;
      for (const [name, statement] of before?.statements ?? []) {
        // The names are the caller's; nothing typed here reads them.
        creator = creator.with(name, () => cte(statement)) as unknown as QueryCreator<Database>;
      }
      const newDesignId = before
        ? sql<number | null>`(select id from ${sql.table(before.idOf)})`
        : sql<number | null>`null`;
      const { creatives_json, new_design_id, ...row } = await creator
        .with('e', (qc) =>
          qc
            .insertInto('exports')
            .values({ ...exportRow, status: 'pending', updated_at: exportRow.created_at })
            .returningAll(),
        )
        .with('c', (qc) =>
          qc.insertInto('export_creatives').values(creativeValues(exportRow, creatives)).returningAll(),
        )
        // A data-modifying WITH runs whether or not it is read; a plain one that is not read is never evaluated.
        .with('j', () => (alongside ? cte(alongside) : sql`(select 1)`))
        .selectFrom('e')
        .selectAll('e')
        .select(sql<CreativeRow[]>`(select json_agg(c order by c.position) from c)`.as('creatives_json'))
        .select(newDesignId.as('new_design_id'))
        .executeTakeFirstOrThrow();
      const stored = { row: row as ExportRow, creatives: creatives_json };
      return new_design_id === null ? stored : { ...stored, newDesignId: new_design_id };
    },

    /**
     * Inserts the rows and returns them as stored (RETURNING: the answer needs no second read). The export, and the
     * file of a one-file export, go by statements compiled once (issue 21: Kysely's building of these inserts was a
     * tenth of the request's CPU).
     */
    async insert(
      exportRow: NewExport,
      creatives: NewCreative[],
    ): Promise<{ row: ExportRow; creatives: CreativeRow[] }> {
      const values: Record<string, unknown> = { ...exportRow, status: 'pending', updated_at: exportRow.created_at };
      const [row] = (await insertRow(db, { table: 'exports', columns: Object.keys(values), returning: true }, values))
        .rows as ExportRow[];
      if (creatives.length === 1) {
        const [only] = creativeValues(exportRow, creatives) as Record<string, unknown>[];
        const stored = await insertRow(
          db,
          { table: 'export_creatives', columns: Object.keys(only), returning: true },
          only,
        );
        return { row, creatives: stored.rows as CreativeRow[] };
      }
      const stored: CreativeRow[] = [];
      for (let i = 0; i < creatives.length; i += CREATIVES_PER_INSERT) {
        const batch = await db
          .insertInto('export_creatives')
          .values(creativeValues(exportRow, creatives.slice(i, i + CREATIVES_PER_INSERT)))
          .returningAll()
          .execute();
        stored.push(...batch);
      }
      return { row, creatives: stored.sort((a, b) => a.position - b.position) };
    },

    async findById(id: string): Promise<ExportRow | undefined> {
      return db.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** The newest complete export of a team with this cache key. */
    async findCached(teamId: number, cacheKey: string): Promise<ExportRow | undefined> {
      return db
        .selectFrom('exports')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('cache_key', '=', cacheKey)
        .where('status', '=', 'complete')
        .orderBy('completed_at', 'desc')
        .limit(1)
        .executeTakeFirst();
    },

    async creativesOf(exportId: string): Promise<CreativeRow[]> {
      return db
        .selectFrom('export_creatives')
        .selectAll()
        .where('export_id', '=', exportId)
        .orderBy('position', 'asc')
        .execute();
    },

    async findCreative(id: string): Promise<CreativeRow | undefined> {
      return db.selectFrom('export_creatives').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /**
     * pending → inProgress for the creative about to render, in the statement that reads it, and its export as it is
     * (issue 21: one write, not two; the export stays `pending` until it is finished), or as `known` when the file
     * was not settled. The creative only while it is unsettled, so undefined means settled already (or deleted with
     * its export); the export whatever its status.
     */
    async startRendering(
      exportId: string,
      creativeId: string,
      /** The export as this process accepted it (jobs/accepted-exports.ts): not read again. */
      known?: ExportRow,
      /** The file as its accept stored it, being made already (migration 0025): not started again. */
      started?: CreativeRow,
    ): Promise<{ row: ExportRow | undefined; creative: CreativeRow | undefined }> {
      if (known && started) return { row: known, creative: started };
      if (postgres && !known) {
        // A worker of the scaled-out shape: the file started and its export read in one round trip (issue 21). The
        // columns are integer, real and text, which JSON gives back as the same values the driver would.
        const { rows } = await sql<{ export: ExportRow; creative: CreativeRow | null }>`
          with c as (
            update export_creatives set status = 'inProgress', updated_at = ${now()}
            where id = ${creativeId} and status in (${sql.join(UNSETTLED)})
            returning *
          )
          select row_to_json(e) as export, (select row_to_json(c) from c) as creative
          from exports as e where e.id = ${exportId}
        `.execute(db);
        const [found] = rows;
        return { row: found?.export, creative: found?.creative ?? undefined };
      }
      const [creative] = (await startCreative(db, { id: creativeId, at: now() })).rows;
      // A settled (or deleted) file is rare: its export is read as it is now.
      const row = known && creative ? known : (await readExport(db, { id: exportId })).rows[0];
      return { row, creative: row ? creative : undefined };
    },

    /** Marks a file that is not settled yet as being made (a render that took its rows from its job, and runs long). */
    async markStarted(creativeId: string): Promise<void> {
      await startCreative(db, { id: creativeId, at: now() });
    },

    /**
     * Settles a creative that is not settled yet: the row as settled and how many files its export makes (one: the
     * export's files are known without reading them again); undefined when it was settled already.
     */
    async settleCreative(
      id: string,
      outcome: CreativeOutcome,
    ): Promise<{ creative: CreativeRow; files: number } | undefined> {
      const values = settledColumns(outcome);
      const [settled] = (
        await settleStatement(db, outcome.status, { ...values, progress: 1, updated_at: now(), id } as Record<
          string,
          unknown
        >)
      ).rows;
      if (!settled) return undefined;
      const { files, ...creative } = settled;
      return { creative: creative as CreativeRow, files: Number(files) };
    },

    /** How far a creative being made is (0..1); a settled creative keeps its 1. */
    async setProgress(id: string, progress: number): Promise<void> {
      await db
        .updateTable('export_creatives')
        .set({ progress: Math.min(1, Math.max(0, progress)) })
        .where('id', '=', id)
        .where('status', 'in', UNSETTLED)
        .execute();
    },

    async countUnsettled(exportId: string): Promise<number> {
      const row = await db
        .selectFrom('export_creatives')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('export_id', '=', exportId)
        .where('status', 'in', UNSETTLED)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Files of a team's unfinished exports still waiting or rendering: the team's share of the queue (issue 14). */
    async countTeamUnsettled(teamId: number): Promise<number> {
      const row = await db
        .selectFrom('export_creatives as c')
        .innerJoin('exports as e', 'e.id', 'c.export_id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('e.team_id', '=', teamId)
        .where('e.status', 'in', UNSETTLED)
        .where('c.status', 'in', UNSETTLED_LITERALS)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /**
     * Files of unfinished exports still waiting or rendering, per team: what fair turns serve before a team's next
     * file (issue 14: the expected wait).
     */
    /**
     * What accepting an export reads, in one statement (issue 21): the id of the latest complete export of the same
     * request (`cacheKey`), and the files waiting or rendering per team (countUnsettledByTeam).
     */
    async probeForExport(
      teamId: number,
      cacheKey: string,
    ): Promise<{ cachedId: string | null; unsettledByTeam: Map<number, number> }> {
      const { rows } = await probeStatement(db, { teamId, cacheKey });
      let cachedId: string | null = null;
      const unsettledByTeam = new Map<number, number>();
      for (const row of rows) {
        if (row.team_id === null) cachedId = row.cached_id;
        else unsettledByTeam.set(Number(row.team_id), Number(row.n));
      }
      return { cachedId, unsettledByTeam };
    },

    async countUnsettledByTeam(): Promise<Map<number, number>> {
      const rows = await db
        .selectFrom('export_creatives as c')
        .innerJoin('exports as e', 'e.id', 'c.export_id')
        .select(['e.team_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('e.status', 'in', UNSETTLED)
        .where('c.status', 'in', UNSETTLED_LITERALS)
        .groupBy('e.team_id')
        .execute();
      return new Map(rows.map((row) => [Number(row.team_id), Number(row.n)]));
    },

    /** Sets the final status of an export still unsettled; false when another run finished it first. */
    async finish(
      id: string,
      result: { status: ExportStatus; errorLog: string | null; zipKey: string | null },
    ): Promise<boolean> {
      const at = now();
      const updated = await finishStatement(db, {
        id,
        status: result.status,
        errorLog: result.errorLog,
        zipKey: result.zipKey,
        at,
      });
      return Number(updated.numAffectedRows ?? 0) === 1;
    },

    /** Exports not finished yet, oldest first: the recovery sweep makes sure each has its jobs. */
    async unfinished(limit: number, createdBefore: string): Promise<Pick<ExportRow, 'id' | 'team_id'>[]> {
      return db
        .selectFrom('exports')
        .select(['id', 'team_id'])
        .where('status', 'in', UNSETTLED)
        .where('created_at', '<', createdBefore)
        .orderBy('created_at', 'asc')
        .limit(limit)
        .execute();
    },
  };
}

export type ExportRepository = ReturnType<typeof createExportRepository>;
