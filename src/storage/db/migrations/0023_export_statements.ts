// Accepting and finishing an export in one statement each on SQLite too (issue 21). PostgreSQL does both with a
// data-modifying WITH (exports.repository.ts, deliveries.repository.ts); SQLite has none, and took a transaction of
// five statements for each (begin, three writes, commit). Its way of writing several tables in one statement is a
// trigger: an INSERT into a view that has an INSTEAD OF trigger runs the trigger's writes inside that one statement,
// atomic by itself, as 0021 does for a webhook attempt. The writes are the same; what goes is eight statements per
// export, two transactions and their begin/commit.
//
// - `export_accepts`: one row is an export (its insert columns), its files (`creatives`, a JSON array of their insert
//   columns) and its render jobs (`jobs`, a JSON array of the queue's values: id, kind, payload, max_attempts,
//   retry_delays, run_at, fair_group, created_at). The jobs get their fair key and seq as the job table's own insert
//   gives them one by one (jobs/local-queue.ts, nextFairKey): the nth job of the array takes the nth place after the
//   kind's head and its group's last job. SQLite evaluates an INSERT … SELECT that reads its own table in full before
//   it writes, so every row sees the table as it was (test/storage/db/export-statements.test.ts compares both).
// - `export_finishes`: an export's final status, its event (stored dispatched) and its deliveries (a JSON array), when
//   the export is still unsettled; and, for an export of one file, that file's outcome (`creative_id`, `creative`: a
//   JSON object of its settled columns), when the file is still unsettled too, so that the render that made the file
//   also finishes its export in the same statement. When either is settled already (by another run) or gone (deleted
//   with its team), the trigger aborts the statement with the message EXPORT_SETTLED and nothing is written: an
//   INSERT into a view reports no row count, and this is the one case the caller needs told apart.
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/** The message of the abort when the export finished by `export_finishes` is settled already. */
export const EXPORT_SETTLED = 'placard: the export is settled already';

/** The columns an export is inserted with (exports.repository.ts NewExport), in the view's order. */
export const EXPORT_ACCEPT_COLUMNS = [
  'id',
  'team_id',
  'project_id',
  'design_id',
  'design_hash',
  'new_design_hash',
  'created_by',
  'type',
  'format',
  'settings',
  'document',
  'file_stem',
  'is_set',
  'webhook_url',
  'cache_key',
  'zip_name',
  'created_at',
] as const;

const CREATIVE_COLUMNS = [
  'id',
  'export_id',
  'position',
  'size_index',
  'size_hash',
  'size_name',
  'width',
  'height',
  'slide_number',
  'file_name',
] as const;

/** The columns a file's outcome sets (exports.repository.ts settledColumns); the ones an outcome lacks are null. */
const SETTLED_COLUMNS = [
  'status',
  'blob_key',
  'bytes',
  'render_ms',
  'warnings',
  'fallback_key',
  'findings',
  'error_code',
  'error_message',
] as const;

export function exportStatements(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      const exportColumns = EXPORT_ACCEPT_COLUMNS.join(', ');
      await sql
        .raw(
          `create view export_accepts (${exportColumns}, creatives, jobs) as
           select ${EXPORT_ACCEPT_COLUMNS.map(() => 'null').join(', ')}, null, null where 0`,
        )
        .execute(db);
      await createExportAccepts(db, { held: false });
      await createExportFinishes(db, { job: false });
    },
  };
}

/**
 * The `export_accepts` trigger. With `held` (migration 0025), a job's values may also say that it is inserted running
 * and held by an instance (`status`, `attempts`, `lease_until`, `locked_by`), and a file's that it is being made
 * (`status`): an accept in a process with a free render slot and nothing of the kind waiting claims its own job
 * (jobs/local-queue.ts `hold`). Values without them are inserted queued and pending, as before.
 */
export async function createExportAccepts(db: Kysely<unknown>, options: { held: boolean; guard?: boolean }) {
  const exportColumns = EXPORT_ACCEPT_COLUMNS.join(', ');
  const job = (field: string) => `j.value ->> '${field}'`;
  const fairKey = `case when ${job('fair_group')} is null then 0 else max(
        coalesce((select min(fair_key) from jobs where kind = ${job('kind')} and status = 'queued'
          and fair_key > 0), 0),
        coalesce((select max(fair_key) from jobs where kind = ${job('kind')} and status in ('queued', 'running')
          and fair_group = ${job('fair_group')}), 0)
      ) + j.key + 1 end`;
  const held = options.held
    ? {
        creative: `coalesce(c.value ->> 'status', 'pending')`,
        job: `coalesce(${job('status')}, 'queued'), coalesce(${job('attempts')}, 0)`,
        lease: `${job('lease_until')}, ${job('locked_by')}`,
      }
    : { creative: `'pending'`, job: `'queued', 0`, lease: 'null, null' };
  await sql
    .raw(
      `create trigger export_accepts_insert instead of insert on export_accepts
       begin
         ${options.guard ? ACCEPT_GUARD : ''}
         insert into exports (${exportColumns}, status, error_log, zip_key, updated_at, completed_at)
         values (${EXPORT_ACCEPT_COLUMNS.map((c) => `new.${c}`).join(', ')}, 'pending', null, null,
           new.created_at, null);
         insert into export_creatives (${CREATIVE_COLUMNS.join(', ')}, status, created_at, updated_at)
         select ${CREATIVE_COLUMNS.map((c) => `c.value ->> '${c}'`).join(', ')}, ${held.creative}, new.created_at,
           new.created_at
         from json_each(new.creatives) as c;
         insert into jobs (id, kind, payload, status, attempts, max_attempts, retry_delays, run_at, lease_until,
           locked_by, last_error, fair_group, fair_key, seq, created_at, updated_at)
         select ${job('id')}, ${job('kind')}, ${job('payload')}, ${held.job}, ${job('max_attempts')},
           ${job('retry_delays')}, ${job('run_at')}, ${held.lease}, null, ${job('fair_group')}, ${fairKey},
           (select coalesce(max(seq), 0) from jobs) + j.key + 1, ${job('created_at')}, ${job('created_at')}
         from json_each(coalesce(new.jobs, '[]')) as j where true
         on conflict (id) do nothing;
       end`,
    )
    .execute(db);
}

/** The messages of the aborts when an accept's `guard` (migration 0028) does not hold: its design, or the rest. */
export const ACCEPT_DESIGN_CHANGED = 'placard: the design of the accept changed';
export const ACCEPT_GUARD_FAILED = 'placard: the guard of the accept does not hold';

/**
 * An accept made before its design and its cache were read (export.service.ts, `speculate`; migration 0028) holds only
 * while what it was built from still holds: the design at the revision, project and hash it was built from
 * (ACCEPT_DESIGN_CHANGED), no complete export with its cache key, and no more files in flight than its limits
 * (`total`: every team's, `team`: its team's; either null for none) (ACCEPT_GUARD_FAILED). Otherwise nothing is
 * written. The files in flight are counted as exports.repository.ts's probe counts them, in one pass for both limits
 * (`+e.team_id`: through the index of statuses, not through the index of the team's exports, which holds every export
 * the team ever made).
 */
const ACCEPT_GUARD = `select raise(abort, '${ACCEPT_DESIGN_CHANGED}') where new.guard is not null and not exists (
    select 1 from designs where id = new.design_id and team_id = new.team_id and project_id = new.project_id
      and hash = new.design_hash and revision = new.guard ->> 'revision');
  select raise(abort, '${ACCEPT_GUARD_FAILED}') where new.guard is not null and exists (
    select 1 from exports where team_id = new.team_id and cache_key = new.cache_key and status = 'complete');
  select raise(abort, '${ACCEPT_GUARD_FAILED}') from (
    select count(*) as total, coalesce(sum(+e.team_id = new.team_id), 0) as team
    from export_creatives as c inner join exports as e on e.id = c.export_id
    where new.guard is not null and e.status in ('pending', 'inProgress') and c.status in ('pending', 'inProgress')
  ) where total > coalesce(new.guard ->> 'total', total) or team > coalesce(new.guard ->> 'team', team);`;

/**
 * The `export_finishes` view and its trigger. With `job` (migration 0024), a row may also name the job whose run
 * finishes the export (`job_id`, `job_instance`): the trigger marks that job done in the same statement, while that
 * instance holds it, as the job table's own settle would (jobs/local-queue.ts markDone).
 */
export async function createExportFinishes(db: Kysely<unknown>, options: { job: boolean }) {
  const jobColumns = options.job ? ', job_id, job_instance' : '';
  const jobNulls = options.job ? ', null, null' : '';
  await sql
    .raw(
      `create view export_finishes (id, status, error_log, zip_key, at, event_id, team_id, action, payload,
        deliveries, creative_id, creative${jobColumns}) as
      select null, null, null, null, null, null, null, null, null, null, null, null${jobNulls} where 0`,
    )
    .execute(db);
  const delivery = (field: string) => `d.value ->> '${field}'`;
  const jobDone = options.job
    ? `update jobs set status = 'done', lease_until = null, last_error = null, updated_at = new.at
       where id = new.job_id and locked_by = new.job_instance and status = 'running';`
    : '';
  await sql
    .raw(
      `create trigger export_finishes_insert instead of insert on export_finishes
       begin
         select raise(abort, '${EXPORT_SETTLED}')
         where not exists (select 1 from exports where id = new.id and status in ('pending', 'inProgress'))
           or (new.creative_id is not null and not exists (select 1 from export_creatives
             where id = new.creative_id and status in ('pending', 'inProgress')));
         update export_creatives set ${SETTLED_COLUMNS.map((c) => `${c} = new.creative ->> '${c}'`).join(', ')},
           progress = 1, updated_at = new.at
         where id = new.creative_id;
         update exports set status = new.status, error_log = new.error_log, zip_key = new.zip_key,
           updated_at = new.at, completed_at = new.at
         where id = new.id;
         insert into events_outbox (id, team_id, action, payload, occurred_at, status, attempts, next_attempt_at)
         values (new.event_id, new.team_id, new.action, new.payload, new.at, 'dispatched', 1, new.at);
         insert into webhook_deliveries (id, team_id, webhook_id, event_id, export_id, action, url, payload,
           status, attempt_count, next_attempt_at, created_at, updated_at)
         select ${['id', 'team_id', 'webhook_id', 'event_id', 'export_id', 'action', 'url', 'payload'].map(delivery).join(', ')},
           'pending', 0, ${delivery('at')}, ${delivery('at')}, ${delivery('at')}
         from json_each(new.deliveries) as d;
         ${jobDone}
       end`,
    )
    .execute(db);
}
