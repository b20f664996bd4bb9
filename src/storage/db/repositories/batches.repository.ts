// Batches and their rows (issue 22). Every status change of a row is an UPDATE guarded by the status it leaves, so a
// row job that runs twice (the queue promises at least once) settles its row once; a batch is finished by the one
// UPDATE that finds it unfinished.
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { now } from '../database.js';
import type { BatchesTable, BatchRowsTable, Database } from '../schema.js';

export type BatchRow = Selectable<BatchesTable>;
export type BatchRowRow = Selectable<BatchRowsTable>;
export type BatchStatus = 'pending' | 'running' | 'complete' | 'completeWithError' | 'failed' | 'cancelled';
export type RowStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';
export const ROW_STATUSES: readonly RowStatus[] = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled'];

export type NewBatch = Omit<BatchRow, 'id' | 'status' | 'generation' | 'zip_key' | 'results_key' | 'finished_at'>;
export type NewBatchRow = Omit<
  BatchRowRow,
  'id' | 'batch_id' | 'attempts' | 'cached' | 'files' | 'updated_at' | 'design_hash'
>;

/** One file of a settled row. */
export interface RowFile {
  sizeHash: string;
  name: string;
  width: number;
  height: number;
  blobKey: string;
  bytes: number;
}

export type RowOutcome =
  | { status: 'succeeded'; files: RowFile[]; findings: unknown[] | null; cached: boolean }
  | { status: 'failed' | 'skipped' | 'cancelled'; code: string; message: string; findings: unknown[] | null };

/** SQLite binds at most 32,766 variables per statement; a row has 10 columns. */
const ROWS_PER_INSERT = 500;

export function createBatchRepository(db: Kysely<Database>, dialect: Dialect) {
  return {
    /** The batch and all its rows, in the caller's transaction. */
    async insert(tx: Kysely<Database>, batch: NewBatch, rows: NewBatchRow[]): Promise<BatchRow> {
      const stored = await tx
        .insertInto('batches')
        .values({ ...batch, status: 'pending', generation: 0 })
        .returningAll()
        .executeTakeFirstOrThrow();
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        await tx
          .insertInto('batch_rows')
          .values(
            rows.slice(i, i + ROWS_PER_INSERT).map((r) => ({
              ...r,
              batch_id: stored.id,
              attempts: 0,
              cached: 0,
              files: null,
              updated_at: batch.created_at,
            })),
          )
          .execute();
      }
      return stored;
    },

    findById(id: number): Promise<BatchRow | undefined> {
      return db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
    },

    findRow(id: number): Promise<BatchRowRow | undefined> {
      return db.selectFrom('batch_rows').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Rows of a batch by position, `after` the given row id (pages of the zip and results CSV). */
    rowsAfter(batchId: number, afterId: number, limit: number): Promise<BatchRowRow[]> {
      return db
        .selectFrom('batch_rows')
        .selectAll()
        .where('batch_id', '=', batchId)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    async counts(batchId: number): Promise<Record<RowStatus, number>> {
      const found = await db
        .selectFrom('batch_rows')
        .select(['status', sql<number>`count(*)`.as('n')])
        .where('batch_id', '=', batchId)
        .groupBy('status')
        .execute();
      const counts = Object.fromEntries(ROW_STATUSES.map((s) => [s, 0])) as Record<RowStatus, number>;
      for (const { status, n } of found) counts[status as RowStatus] = Number(n);
      return counts;
    },

    /**
     * Hands whole chunks of this batch's pending rows to the caller, by position, marking them running, as long as
     * the team's rows in flight (running) stay within `limit`: a chunk is the rows of positions
     * [k·chunkSize, (k+1)·chunkSize), rendered by one job (jobs/batch.processor.ts). A chunk's pending rows are always
     * claimed together, so a chunk is claimed once per generation of the batch and its job id can name it. The team's
     * row is locked on PostgreSQL so that two processes finishing rows of the same team do not both fill the same
     * free places (SQLite serialises writers anyway).
     */
    async claimChunks(
      batchId: number,
      teamId: number,
      limit: number,
      chunkSize: number,
    ): Promise<{ generation: number; rows: Pick<BatchRowRow, 'id' | 'attempts' | 'idx'>[] }> {
      const none = { generation: 0, rows: [] };
      return db.transaction().execute(async (tx) => {
        if (dialect === 'postgres') {
          await tx.selectFrom('teams').select('id').where('id', '=', teamId).forUpdate().execute();
        }
        const inFlight = await tx
          .selectFrom('batch_rows')
          .innerJoin('batches', 'batches.id', 'batch_rows.batch_id')
          .select(sql<number>`count(*)`.as('n'))
          .where('batches.team_id', '=', teamId)
          .where('batches.finished_at', 'is', null)
          .where('batch_rows.status', '=', 'running')
          .executeTakeFirst();
        const free = limit - Number(inFlight?.n ?? 0);
        if (free <= 0) return none;
        const batch = await tx
          .selectFrom('batches')
          .select(['status', 'generation'])
          .where('id', '=', batchId)
          .executeTakeFirst();
        if (!batch || (batch.status !== 'pending' && batch.status !== 'running')) return none;
        // One row past the free places: it tells whether the last chunk read is whole.
        const pending = await tx
          .selectFrom('batch_rows')
          .select(['id', 'idx'])
          .where('batch_id', '=', batchId)
          .where('status', '=', 'pending')
          .orderBy('idx')
          .limit(free + 1)
          .execute();
        const chunkOf = (idx: number) => Math.floor(idx / chunkSize);
        const ids: number[] = [];
        for (let i = 0; i < pending.length && i < free; ) {
          const chunk = chunkOf(pending[i].idx);
          let end = i;
          while (end < pending.length && chunkOf(pending[end].idx) === chunk) end += 1;
          // The chunk's rows go together or not at all: a chunk that reaches the extra row read may go on past it.
          if (end - i > free - ids.length) break;
          for (let j = i; j < end; j++) ids.push(pending[j].id);
          i = end;
        }
        if (ids.length === 0) return none;
        const at = now();
        const claimed = await tx
          .updateTable('batch_rows')
          .set({ status: 'running', updated_at: at })
          .where('id', 'in', ids)
          .where('status', '=', 'pending')
          .returning(['id', 'attempts', 'idx'])
          .execute();
        if (batch.status === 'pending' && claimed.length) {
          await tx
            .updateTable('batches')
            .set({ status: 'running', updated_at: at })
            .where('id', '=', batchId)
            .where('status', '=', 'pending')
            .execute();
        }
        // The generation the chunks were claimed in names their jobs (read in this transaction: a retry bumps it).
        return { generation: batch.generation, rows: claimed };
      });
    },

    /** The running rows of a batch at positions [fromIdx, toIdx): a chunk's rows its job has still to settle. */
    runningBetween(batchId: number, fromIdx: number, toIdx: number): Promise<BatchRowRow[]> {
      return db
        .selectFrom('batch_rows')
        .selectAll()
        .where('batch_id', '=', batchId)
        .where('idx', '>=', fromIdx)
        .where('idx', '<', toIdx)
        .where('status', '=', 'running')
        .orderBy('idx')
        .execute();
    },

    /** Rows running in open batches: the sweep enqueues their jobs again (a no-op while a job holds the id). */
    running(limit: number): Promise<Pick<BatchRowRow, 'id' | 'batch_id' | 'attempts' | 'idx'>[]> {
      return db
        .selectFrom('batch_rows')
        .innerJoin('batches', 'batches.id', 'batch_rows.batch_id')
        .select(['batch_rows.id', 'batch_rows.batch_id', 'batch_rows.attempts', 'batch_rows.idx'])
        .where('batches.finished_at', 'is', null)
        .where('batch_rows.status', '=', 'running')
        .orderBy('batch_rows.id')
        .limit(limit)
        .execute();
    },

    /** Unfinished batches, oldest first (the sweep pumps them; a team's next batch waits for the one before). */
    open(teamId?: number): Promise<Pick<BatchRow, 'id' | 'team_id' | 'status' | 'generation'>[]> {
      let q = db
        .selectFrom('batches')
        .select(['id', 'team_id', 'status', 'generation'])
        .where('finished_at', 'is', null);
      if (teamId !== undefined) q = q.where('team_id', '=', teamId);
      return q.orderBy('id').limit(1000).execute();
    },

    /**
     * Files of succeeded rows with the same cache keys (the same template, revision, settings and changes), by key:
     * one statement for a chunk's rows.
     */
    async cachedFiles(cacheKeys: string[], teamId: number): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      if (cacheKeys.length === 0) return found;
      const rows = await db
        .selectFrom('batch_rows')
        .innerJoin('batches', 'batches.id', 'batch_rows.batch_id')
        .select(['batch_rows.cache_key', 'batch_rows.files'])
        .where('batch_rows.cache_key', 'in', cacheKeys)
        .where('batch_rows.status', '=', 'succeeded')
        .where('batches.team_id', '=', teamId)
        .execute();
      for (const row of rows) if (row.cache_key && row.files) found.set(row.cache_key, row.files);
      return found;
    },

    /** Records the design a row created, in the import's transaction; false when an earlier run created one. */
    async claimDesign(tx: Kysely<Database>, rowId: number, hash: string): Promise<boolean> {
      const result = await tx
        .updateTable('batch_rows')
        .set({ design_hash: hash })
        .where('id', '=', rowId)
        .where('design_hash', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * Settles running rows, in one transaction (one commit for a chunk's rows); answers the ids it settled — a row
     * settled already (a second run of its job) is left as it is and not among them.
     */
    async settleRows(outcomes: { rowId: number; outcome: RowOutcome }[]): Promise<Set<number>> {
      const settled = new Set<number>();
      if (outcomes.length === 0) return settled;
      const at = now();
      await db.transaction().execute(async (tx) => {
        for (const { rowId, outcome } of outcomes) {
          const set =
            outcome.status === 'succeeded'
              ? {
                  status: 'succeeded',
                  files: JSON.stringify(outcome.files),
                  findings: outcome.findings?.length ? JSON.stringify(outcome.findings) : null,
                  cached: outcome.cached ? 1 : 0,
                  error_code: null,
                  error_message: null,
                }
              : {
                  status: outcome.status,
                  findings: outcome.findings?.length ? JSON.stringify(outcome.findings) : null,
                  error_code: outcome.code,
                  error_message: outcome.message,
                };
          const result = await tx
            .updateTable('batch_rows')
            .set({ ...set, attempts: sql<number>`attempts + 1`, updated_at: at })
            .where('id', '=', rowId)
            .where('status', '=', 'running')
            .executeTakeFirst();
          if (Number(result.numUpdatedRows) === 1) settled.add(rowId);
        }
      });
      return settled;
    },

    /**
     * Cancels the pending rows and the batch; false when the batch was finished already. Rows already handed to the
     * queue end cancelled when their job starts (jobs/batch.processor.ts); a row already rendering finishes.
     */
    async cancel(batchId: number): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        const at = now();
        const done = await tx
          .updateTable('batches')
          .set({ status: 'cancelled', updated_at: at })
          .where('id', '=', batchId)
          .where('status', 'in', ['pending', 'running'])
          .executeTakeFirst();
        if (Number(done.numUpdatedRows) !== 1) return false;
        await tx
          .updateTable('batch_rows')
          .set({ status: 'cancelled', updated_at: at })
          .where('batch_id', '=', batchId)
          .where('status', '=', 'pending')
          .execute();
        return true;
      });
    },

    /** Failed rows pending again and the batch open again (a new generation); the number of rows retried. */
    async retry(batchId: number): Promise<number> {
      return db.transaction().execute(async (tx) => {
        const at = now();
        const rows = await tx
          .updateTable('batch_rows')
          .set({ status: 'pending', error_code: null, error_message: null, updated_at: at })
          .where('batch_id', '=', batchId)
          .where('status', '=', 'failed')
          // A row whose values could not be mapped fails the same way every time.
          .where('changes', 'is not', null)
          .executeTakeFirst();
        const n = Number(rows.numUpdatedRows);
        if (n === 0) return 0;
        await tx
          .updateTable('batches')
          .set({
            status: 'running',
            generation: sql<number>`generation + 1`,
            finished_at: null,
            zip_key: null,
            results_key: null,
            updated_at: at,
          })
          .where('id', '=', batchId)
          .execute();
        return n;
      });
    },

    /**
     * Whether a row is not settled yet (pending or running): one index probe, not a count — every settled row asks,
     * and counting a 100 000-row batch's pending rows each time would make the batch quadratic.
     */
    async hasUnsettled(batchId: number): Promise<boolean> {
      const found = await db
        .selectFrom('batch_rows')
        .select('id')
        .where('batch_id', '=', batchId)
        .where('status', 'in', ['pending', 'running'])
        .limit(1)
        .executeTakeFirst();
      return found !== undefined;
    },

    /** The batch without its document (the row jobs read the document once per batch, from their cache). */
    findHead(id: number): Promise<Omit<BatchRow, 'document'> | undefined> {
      return db
        .selectFrom('batches')
        .select([
          'id',
          'team_id',
          'project_id',
          'design_id',
          'design_hash',
          'design_revision',
          'created_by',
          'type',
          'format',
          'settings',
          'sizes',
          'general_settings',
          'mapping',
          'columns',
          'source',
          'row_key',
          'on_findings',
          'create_designs',
          'webhook_url',
          'notify_row_failures',
          'naming',
          'status',
          'row_count',
          'generation',
          'zip_key',
          'results_key',
          'created_at',
          'updated_at',
          'finished_at',
        ])
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async documentOf(id: number): Promise<string | undefined> {
      return (await db.selectFrom('batches').select('document').where('id', '=', id).executeTakeFirst())?.document;
    },

    /** Sets the final status once, in the caller's transaction; false when the batch was finished already. */
    async finish(
      tx: Kysely<Database>,
      batchId: number,
      generation: number,
      done: { status: BatchStatus; zipKey: string | null; resultsKey: string | null },
    ): Promise<boolean> {
      const at = now();
      const result = await tx
        .updateTable('batches')
        .set({
          status: done.status,
          zip_key: done.zipKey,
          results_key: done.resultsKey,
          finished_at: at,
          updated_at: at,
        })
        .where('id', '=', batchId)
        .where('generation', '=', generation)
        .where('finished_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

export type BatchRepository = ReturnType<typeof createBatchRepository>;
