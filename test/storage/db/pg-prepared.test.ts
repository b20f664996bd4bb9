// Named prepared statements on PostgreSQL (storage/db/pg-prepared.ts, issue 21 stop 30): a statement's second run on a
// connection prepares it under a name, later runs bind and execute it; a table changed under a running process (a
// migration) and a name the server lost (a pooler that does not keep session statements) still answer. Runs with
// DATABASE_URL only: SQLite has no such statements. One connection (max 1), so that what the server holds can be read.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { namePreparedStatements } from '../../../src/storage/db/pg-prepared.js';

const url = process.env.DATABASE_URL;
const skip = !url && 'needs PostgreSQL (DATABASE_URL)';
const table = `pg_prepared_${randomBytes(4).toString('hex')}`;
let pool: pg.Pool;
// biome-ignore lint/suspicious/noExplicitAny: rows of throwaway tables and of pg_prepared_statements.
let db: Kysely<any>;

before(async () => {
  if (!url) return;
  pool = new pg.Pool({ connectionString: url, max: 1 });
  namePreparedStatements(pool);
  db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  await sql`create table ${sql.table(table)} (id integer primary key, label text not null)`.execute(db);
  await sql`insert into ${sql.table(table)} values (1, 'one'), (2, 'two')`.execute(db);
});

after(async () => {
  if (!url) return;
  await sql`drop table if exists ${sql.table(table)}`.execute(db);
  await db.destroy();
});

const byId = (id: number) => db.selectFrom(table).selectAll().where('id', '=', id);

async function prepared(): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
  return rows.map((r) => r.statement);
}

test('a statement run a second time is prepared under a name; its later runs answer the same', { skip }, async () => {
  const text = byId(1).compile().sql;
  assert.deepEqual(await byId(1).execute(), [{ id: 1, label: 'one' }]);
  assert.ok(!(await prepared()).includes(text), 'the first run is not prepared');
  assert.deepEqual(await byId(2).execute(), [{ id: 2, label: 'two' }]);
  assert.ok((await prepared()).includes(text), 'the second run prepared it');
  for (const id of [1, 2, 3]) {
    assert.deepEqual(await byId(id).execute(), id === 3 ? [] : [{ id, label: id === 1 ? 'one' : 'two' }]);
  }
  assert.equal((await prepared()).filter((s) => s === text).length, 1, 'prepared once on the connection');
});

test('a table changed under a prepared statement (a migration) answers with the new columns', { skip }, async () => {
  await byId(1).execute();
  await byId(1).execute();
  // Another connection changes the table, as a migration run by a newer process would.
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    await other.query(`alter table ${table} add column extra text not null default 'x'`);
  } finally {
    await other.end();
  }
  assert.deepEqual(await byId(1).execute(), [{ id: 1, label: 'one', extra: 'x' }]);
  assert.deepEqual(await byId(2).execute(), [{ id: 2, label: 'two', extra: 'x' }]);
  assert.deepEqual(await byId(1).execute(), [{ id: 1, label: 'one', extra: 'x' }]);
});

test('a name the server lost (a pooler without session statements) stops the naming; statements still answer', {
  skip,
}, async () => {
  const other = () => db.selectFrom(table).select('label').where('label', '=', 'two');
  await other().execute();
  await other().execute();
  assert.ok((await prepared()).includes(other().compile().sql));
  await sql`deallocate all`.execute(db);
  assert.deepEqual(await other().execute(), [{ label: 'two' }]);
  assert.deepEqual(await byId(2).execute(), [{ id: 2, label: 'two', extra: 'x' }]);
  assert.deepEqual(await prepared(), [], 'nothing is prepared any more on this connection');
});
