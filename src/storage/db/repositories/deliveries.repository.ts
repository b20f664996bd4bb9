// Webhook deliveries and their attempts (SPEC §8), and the outbox claim that creates them. A delivery is settled
// only while it is pending (guarded updates), so a late or duplicate attempt never overwrites a final status; an
// outbox row moves from pending to dispatched once, whichever process gets there first.
import { type Kysely, PostgresAdapter, type QueryCreator, sql } from 'kysely';
import type { OrderBy, OrderDirection } from '../../../domain/page.js';
import { EXPORT_SETTLED } from '../migrations/0023_export_statements.js';
import { insertRow, prepared, preparedBy } from '../prepared.js';
import type { Database } from '../schema.js';
import { type CreativeOutcome, type ExportStatus, settledColumns, UNSETTLED } from './exports.repository.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface DeliveryRow {
  id: string;
  team_id: number;
  webhook_id: number | null;
  event_id: string | null;
  export_id: string | null;
  action: string;
  url: string;
  payload: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeliveryAttemptRow {
  delivery_id: string;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface NewDelivery {
  id: string;
  teamId: number;
  webhookId: number | null;
  eventId: string | null;
  exportId: string | null;
  action: string;
  url: string;
  payload: string;
  /** Creation time, also when the first attempt is due. */
  at: string;
}

/** An export's final status, written only while the export is unsettled (exports.repository.ts `finish`). */
export interface ExportFinish {
  id: string;
  status: ExportStatus;
  errorLog: string | null;
  zipKey: string | null;
  /**
   * The export's one file, settled with the finish (issue 21: the render that made it finishes its export without a
   * statement of its own on SQLite): written only while the file is unsettled, and the export is finished only then.
   */
  settle?: { creativeId: string; outcome: CreativeOutcome };
  /**
   * The job-table job whose run finishes the export (issue 21, stop 23): marked done in the same statement, while
   * `instance` holds it, so that the queue does not settle it with a write and a commit of its own.
   */
  job?: { id: string; instance: string };
  /**
   * PostgreSQL: the thumbnail of the design the export made, set in the same statement where that design has none yet
   * (issue 21, stop 31: one statement fewer per export with changes); `set` then says whether it was. Left undefined
   * where the finish did not set it (SQLite): the caller sets it.
   */
  thumbnail?: { designHash: string; key: string; set?: boolean };
}

/** An outbox event stored dispatched: its deliveries are written with it. */
export interface DispatchedEvent {
  id: string;
  teamId: number;
  action: string;
  payload: string;
  occurredAt: string;
}

export interface DeliveryFilters {
  webhookId?: number;
  status?: DeliveryStatus;
}

/** A keyset page over deliveries: their ids are UUIDs, so the position carries the id as text. */
export interface DeliveryPageRequest {
  limit: number;
  orderBy: OrderBy;
  direction: OrderDirection;
  after: { key: string; id: string } | null;
}

export interface DeliveryPage {
  totalCount: number;
  rows: DeliveryRow[];
  attempts: DeliveryAttemptRow[];
  hasNextPage: boolean;
  /** Sort key of the last row, for its cursor. */
  lastKey: string | null;
}

export interface OutboxEvent {
  id: string;
  team_id: number;
  action: string;
  payload: string;
}

/**
 * SQLite's attempt, built once (every webhook call, issue 21): counted with its outcome in the last_* columns, which
 * migration 0021's trigger copies into the attempt's row; `succeeded` (1) settles the delivery in the same update.
 */
const countAttemptSqlite = prepared<
  {
    id: string;
    updatedAt: string;
    attemptedAt: string;
    statusCode: number | null;
    error: string | null;
    durationMs: number;
    succeeded: number;
  },
  { attempt_count: number }
>(
  (db, p) =>
    db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        attempt_count: eb('attempt_count', '+', 1),
        updated_at: p('updatedAt'),
        last_attempted_at: p('attemptedAt'),
        last_status_code: p('statusCode'),
        last_error: p('error'),
        last_duration_ms: p('durationMs'),
        status: sql<string>`case when ${p('succeeded')} = 1 then 'succeeded' else status end`,
        next_attempt_at: sql<string | null>`case when ${p('succeeded')} = 1 then null else next_attempt_at end`,
      }))
      .where('id', '=', p('id'))
      .returning('attempt_count'),
  // The attempt is recorded when the statement commits; its answer only lets the caller's bookkeeping end.
  { replyMayWait: true },
);

/** SQLite's finish of an export with its event and deliveries: the `export_finishes` trigger (migration 0023). */
const FINISH_COLUMNS = {
  id: 'id',
  status: 'status',
  errorLog: 'error_log',
  zipKey: 'zip_key',
  at: 'at',
  eventId: 'event_id',
  teamId: 'team_id',
  action: 'action',
  payload: 'payload',
  deliveries: 'deliveries',
  creativeId: 'creative_id',
  creative: 'creative',
  jobId: 'job_id',
  jobInstance: 'job_instance',
} as const;
const finishStatement = preparedBy<null, Record<keyof typeof FINISH_COLUMNS, unknown>, unknown>(
  (_db, p) => {
    const names = Object.keys(FINISH_COLUMNS) as (keyof typeof FINISH_COLUMNS)[];
    return sql`insert into export_finishes (${sql.join(names.map((n) => sql.id(FINISH_COLUMNS[n])))}) values (${sql.join(
      names.map((n) => p(n)),
    )})`;
  },
  () => '',
);

const COLUMNS = [
  'id',
  'team_id',
  'webhook_id',
  'event_id',
  'export_id',
  'action',
  'url',
  'payload',
  'status',
  'attempt_count',
  'next_attempt_at',
  'created_at',
  'updated_at',
] as const;

// Deliveries have no name: NAME orders by action, the closest thing a person scans a list by.
const SORT_COLUMN: Record<OrderBy, string> = {
  ID: 'id',
  NAME: 'action',
  CREATED_AT: 'created_at',
  UPDATED_AT: 'updated_at',
};

export function createDeliveryRepository(db: Kysely<Database>) {
  // PostgreSQL writes to two tables in one statement (a data-modifying WITH); SQLite needs a transaction for it.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  function filtered(teamId: number, filters: DeliveryFilters) {
    let query = db.selectFrom('webhook_deliveries').where('team_id', '=', teamId);
    if (filters.webhookId !== undefined) query = query.where('webhook_id', '=', filters.webhookId);
    if (filters.status !== undefined) query = query.where('status', '=', filters.status);
    return query;
  }

  /** A new delivery's own columns; its state and times are added where it is written. */
  function columnsOf(r: NewDelivery) {
    return {
      id: r.id,
      team_id: r.teamId,
      webhook_id: r.webhookId,
      event_id: r.eventId,
      export_id: r.exportId,
      action: r.action,
      url: r.url,
      payload: r.payload,
    };
  }

  async function attemptsOf(deliveryIds: string[]): Promise<DeliveryAttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return db
      .selectFrom('webhook_delivery_attempts')
      .select(['delivery_id', 'attempted_at', 'status_code', 'error', 'duration_ms'])
      .where('delivery_id', 'in', deliveryIds)
      .orderBy('delivery_id')
      .orderBy('id')
      .execute();
  }

  return {
    async insert(rows: NewDelivery[]): Promise<void> {
      if (rows.length === 0) return;
      const values = rows.map((r) => ({
        ...columnsOf(r),
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: r.at,
        created_at: r.at,
        updated_at: r.at,
      }));
      // One delivery (an export's webhookUrl, or one team webhook) by a statement compiled once (issue 21).
      if (values.length === 1) {
        await insertRow(
          db,
          { table: 'webhook_deliveries', columns: Object.keys(values[0]), returning: false },
          values[0],
        );
        return;
      }
      await db.insertInto('webhook_deliveries').values(values).execute();
    },

    /**
     * Finishes an export with its event and the event's deliveries, all or nothing; false, and nothing written, when
     * the export was settled already (another run finished it). On PostgreSQL one statement, data-modifying WITHs
     * that insert only when the guarded update changed the row (issue 21: 1 round trip instead of 5); on SQLite a
     * transaction. The export completes when its event occurs. Pass the database, not a transaction. `forward`: on
     * SQLite, a message the connection's thread posts to its linked port once the finish committed; 'forwarded' when
     * it did (sqlite-thread.ts), true when the caller passes it on itself.
     */
    async finishExport(
      finish: ExportFinish,
      event: DispatchedEvent,
      rows: NewDelivery[],
      forward?: unknown,
    ): Promise<boolean | 'forwarded'> {
      const at = event.occurredAt;
      // The deliveries go as one JSON array, read with the table's own column types: the statement keeps one shape
      // whatever their number.
      const deliveries = JSON.stringify(rows.map((r) => ({ ...columnsOf(r), at: r.at })));
      if (!postgres) {
        // The `export_finishes` trigger (migration 0023) writes them all, or aborts when the export (or the file it
        // settles) is settled already.
        try {
          const result = await finishStatement(
            db,
            null,
            {
              id: finish.id,
              status: finish.status,
              errorLog: finish.errorLog,
              zipKey: finish.zipKey,
              at,
              eventId: event.id,
              teamId: event.teamId,
              action: event.action,
              payload: event.payload,
              deliveries,
              creativeId: finish.settle?.creativeId ?? null,
              creative: finish.settle ? JSON.stringify(settledColumns(finish.settle.outcome)) : null,
              jobId: finish.job?.id ?? null,
              jobInstance: finish.job?.instance ?? null,
            },
            undefined,
            forward,
          );
          return result.forwarded ? 'forwarded' : true;
        } catch (error) {
          if ((error as Error).message === EXPORT_SETTLED) return false;
          throw error;
        }
      }
      // PostgreSQL settles the file in the same statement (`c`), and the export only when that file was unsettled:
      // one round trip fewer per export (issue 21), and a crash leaves both to the job's next attempt or neither. The
      // file's columns come as one JSON record read with the table's own types (`settledColumns`: which columns
      // depend on the outcome).
      const settle = finish.settle;
      const settledFile = settle
        ? sql`c as (
            update export_creatives
            set ${sql.join(
              Object.keys(settledColumns(settle.outcome)).map(
                (column) => sql`${sql.ref(column)} = ${sql.ref(`r.${column}`)}`,
              ),
            )}, progress = 1, updated_at = ${at}
            from json_populate_record(null::export_creatives, ${JSON.stringify(settledColumns(settle.outcome))}::json) as r
            where export_creatives.id = ${settle.creativeId}
              and export_creatives.status in (${sql.join(UNSETTLED)})
            returning export_creatives.id
          ), `
        : sql``;
      const thumbnail = finish.thumbnail;
      // Whether or not the export finishes here: a run after a crash finds the thumbnail set, and discards its own.
      const thumbnailSet = thumbnail
        ? sql`, t as (
            update designs set thumb_key = ${thumbnail.key}
            where hash = ${thumbnail.designHash} and thumb_key is null
            returning id
          )`
        : sql``;
      const { rows: answer } = await sql<{ finished: number; thumbnail_set?: number }>`
        with ${settledFile}f as (
          update exports
          set status = ${finish.status}, error_log = ${finish.errorLog}, zip_key = ${finish.zipKey},
            updated_at = ${at}, completed_at = ${at}
          where id = ${finish.id} and status in (${sql.join(UNSETTLED)})
            ${settle ? sql`and exists (select 1 from c)` : sql``}
          returning id
        ), o as (
          insert into events_outbox (id, team_id, action, payload, occurred_at, status, attempts, next_attempt_at)
          select ${event.id}::text, ${event.teamId}::integer, ${event.action}::text, ${event.payload}::text,
            ${at}::text, 'dispatched', 1, ${at}::text
          from f
        ), d as (
          insert into webhook_deliveries (id, team_id, webhook_id, event_id, export_id, action, url, payload, status,
            attempt_count, next_attempt_at, created_at, updated_at)
          select r.id, r.team_id, r.webhook_id, r.event_id, r.export_id, r.action, r.url, r.payload, 'pending',
            0, r.at, r.at, r.at
          from f, json_to_recordset(${deliveries}::json) as r(id text, team_id integer, webhook_id integer,
            event_id text, export_id text, action text, url text, payload text, at text)
        ), j as (
          update jobs set status = 'done', lease_until = null, last_error = null, updated_at = ${at}
          from f
          where jobs.id = ${finish.job?.id ?? null} and jobs.locked_by = ${finish.job?.instance ?? null}
            and jobs.status = 'running'
        )${thumbnailSet}
        select (select count(*) from f)::integer as finished
          ${thumbnail ? sql`, (select count(*) from t)::integer as thumbnail_set` : sql``}
      `.execute(db);
      if (thumbnail) thumbnail.set = Number(answer[0]?.thumbnail_set ?? 0) === 1;
      return Number(answer[0]?.finished ?? 0) === 1;
    },

    /** Any team's delivery (the worker); the routes pass `teamId` so another team's does not exist. */
    async find(id: string, teamId?: number): Promise<DeliveryRow | undefined> {
      let query = db.selectFrom('webhook_deliveries').select(COLUMNS).where('id', '=', id);
      if (teamId !== undefined) query = query.where('team_id', '=', teamId);
      return query.executeTakeFirst();
    },

    attemptsOf,

    /**
     * Adds the attempt and counts it, in one statement (atomic by itself); returns the delivery's attempt count after
     * it.
     *
     * `succeededAt`: the attempt got a 2xx, and the delivery is settled succeeded in the same update (issue 21: one
     * statement less per webhook call, and no moment where the attempt is recorded but the delivery still pending).
     */
    async recordAttempt(attempt: DeliveryAttemptRow, succeededAt?: string): Promise<number> {
      const count = (executor: Pick<QueryCreator<Database>, 'updateTable'>) =>
        executor
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            attempt_count: eb('attempt_count', '+', 1),
            updated_at: succeededAt ?? attempt.attempted_at,
            last_attempted_at: attempt.attempted_at,
            last_status_code: attempt.status_code,
            last_error: attempt.error,
            last_duration_ms: attempt.duration_ms,
            ...(succeededAt ? { status: 'succeeded' as const, next_attempt_at: null } : {}),
          }))
          .where('id', '=', attempt.delivery_id)
          .returning('attempt_count');
      if (postgres) {
        // One statement, atomic by itself (issue 21: a round trip instead of four).
        const row = await count(
          db.with('attempt', (qb) => qb.insertInto('webhook_delivery_attempts').values(attempt)),
        ).executeTakeFirst();
        return row?.attempt_count ?? 0;
      }
      // One statement too: migration 0021's trigger inserts the attempt's row from the last_* columns it sets.
      const { rows } = await countAttemptSqlite(db, {
        id: attempt.delivery_id,
        updatedAt: succeededAt ?? attempt.attempted_at,
        attemptedAt: attempt.attempted_at,
        statusCode: attempt.status_code,
        error: attempt.error,
        durationMs: attempt.duration_ms,
        succeeded: succeededAt ? 1 : 0,
      });
      return rows[0]?.attempt_count ?? 0;
    },

    /** A 2xx settles the delivery whatever another attempt concluded meanwhile. */
    async markSucceeded(id: string, at: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'succeeded', next_attempt_at: null, updated_at: at })
        .where('id', '=', id)
        .execute();
    },

    /** Gives up a pending delivery; false when it was settled already. */
    async markFailed(id: string, at: string): Promise<boolean> {
      const { numUpdatedRows } = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: null, updated_at: at })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(numUpdatedRows) > 0;
    },

    async scheduleRetry(id: string, nextAttemptAt: string, at: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: nextAttemptAt, updated_at: at })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .execute();
    },

    /** Pending again, due at `at`; undefined when the team has no such delivery. */
    async reopen(teamId: number, id: string, at: string): Promise<DeliveryRow | undefined> {
      return db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: at, updated_at: at })
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .returning(COLUMNS)
        .executeTakeFirst();
    },

    async list(teamId: number, filters: DeliveryFilters, page: DeliveryPageRequest): Promise<DeliveryPage> {
      const countRow = await filtered(teamId, filters).select(sql<number>`count(*)`.as('n')).executeTakeFirst();
      const key = sql.ref(SORT_COLUMN[page.orderBy]);
      const id = sql.ref('id');
      const dir = page.direction === 'ASC' ? sql`asc` : sql`desc`;
      let query = filtered(teamId, filters).select(COLUMNS).orderBy(sql`${key} ${dir}`).orderBy(sql`${id} ${dir}`);
      if (page.after) {
        const cmp = page.direction === 'ASC' ? sql`>` : sql`<`;
        query = query.where(sql<boolean>`(${key}, ${id}) ${cmp} (${page.after.key}, ${page.after.id})`);
      }
      const found = await query.limit(page.limit + 1).execute();
      const hasNextPage = found.length > page.limit;
      const rows = hasNextPage ? found.slice(0, page.limit) : found;
      const last = rows.at(-1);
      return {
        totalCount: Number(countRow?.n ?? 0),
        rows,
        attempts: await attemptsOf(rows.map((r) => r.id)),
        hasNextPage,
        lastKey: last ? String(last[SORT_COLUMN[page.orderBy] as keyof DeliveryRow]) : null,
      };
    },

    /** Pending deliveries whose attempt was due before `before`: their job may never have been enqueued. */
    /**
     * Pending deliveries due before `before`, and (`untriedBefore`) those never tried that were due before it: a
     * first attempt made in process without a job (events/deliveries.ts) whose process died.
     */
    async overdue(before: string, limit: number, untriedBefore?: string): Promise<DeliveryRow[]> {
      return db
        .selectFrom('webhook_deliveries')
        .select(COLUMNS)
        .where('status', '=', 'pending')
        .where((eb) =>
          untriedBefore === undefined
            ? eb('next_attempt_at', '<', before)
            : eb.or([
                eb('next_attempt_at', '<', before),
                eb.and([eb('attempt_count', '=', 0), eb('next_attempt_at', '<', untriedBefore)]),
              ]),
        )
        .orderBy('next_attempt_at')
        .limit(limit)
        .execute();
    },

    async hasDue(at: string): Promise<boolean> {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', at)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    // ---- the outbox, as the dispatcher sees it ----

    /** Pending events whose time has come, oldest first. */
    async dueEvents(at: string, limit: number): Promise<OutboxEvent[]> {
      return db
        .selectFrom('events_outbox')
        .select(['id', 'team_id', 'action', 'payload'])
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', at)
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    /**
     * Moves the event from pending to dispatched; false when another dispatcher did first. Run it first in the
     * transaction that inserts the event's deliveries: on PostgreSQL the loser waits for the winner's commit and then
     * sees the row dispatched.
     */
    async claimEvent(id: string): Promise<boolean> {
      const { numUpdatedRows } = await db
        .updateTable('events_outbox')
        .set((eb) => ({ status: 'dispatched', attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(numUpdatedRows) > 0;
    },

    /** Moves events no webhook listens to from pending to dispatched, in one statement (claimEvent's, for many). */
    async claimEvents(ids: readonly string[]): Promise<void> {
      await db
        .updateTable('events_outbox')
        .set((eb) => ({ status: 'dispatched', attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', ids)
        .where('status', '=', 'pending')
        .execute();
    },

    /** Leaves the event pending but not due before `at` (its dispatch failed). */
    async postponeEvent(id: string, at: string): Promise<void> {
      await db
        .updateTable('events_outbox')
        .set((eb) => ({ next_attempt_at: at, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .execute();
    },

    /** Webhooks of the team subscribed to the catalogue action `actionId`, oldest first. */
    async subscribers(teamId: number, actionId: number): Promise<Array<{ id: number; url: string }>> {
      return db
        .selectFrom('webhooks as w')
        .innerJoin('webhook_actions as a', 'a.webhook_id', 'w.id')
        .select(['w.id', 'w.url'])
        .where('w.team_id', '=', teamId)
        .where('a.action_id', '=', actionId)
        .orderBy('w.id')
        .execute();
    },

    async hasDueEvents(at: string): Promise<boolean> {
      const row = await db
        .selectFrom('events_outbox')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', at)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;
