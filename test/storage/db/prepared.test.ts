// Statements compiled once per dialect (issue 21, stop 15): a statement built by `preparedBy` is compiled on its first
// run and reused by the database and by every transaction of it (a transaction is a Kysely instance of its own), one
// compilation per shape; `insertRow` writes the row it is given, an undefined value as NULL. On the database the
// suite runs on (SQLite, or PostgreSQL with DATABASE_URL).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type Db, openDatabase } from '../../../src/storage/db/database.js';
import { migrateToLatest } from '../../../src/storage/db/migrate.js';
import { insertRow, preparedBy } from '../../../src/storage/db/prepared.js';

let db: Db;
let dataDir: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-prepared-'));
  db = openDatabase({ databaseUrl: process.env.DATABASE_URL ?? null, dataDir, checkpointEveryMs: 0 });
  await migrateToLatest(db);
});

after(async () => {
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function teamRow(name: string) {
  return { name, created_at: new Date().toISOString() };
}

test('a statement is compiled once per shape, and the same compiled statement serves transactions', async () => {
  const builds: string[] = [];
  const byName = preparedBy<'exact' | 'prefix', { name: string }, { id: number; name: string }>(
    (kysely, p, shape) => {
      builds.push(shape);
      const query = kysely.selectFrom('teams').select(['id', 'name']);
      return shape === 'exact'
        ? query.where('name', '=', p('name'))
        : query.where('name', 'like', p('name')).orderBy('id');
    },
    (shape) => shape,
  );
  const a = `prepared-${randomUUID()}`;
  const b = `prepared-${randomUUID()}`;
  for (const name of [a, b]) {
    await insertRow(db.kysely, { table: 'teams', columns: ['name', 'created_at'], returning: false }, teamRow(name));
  }
  assert.deepEqual(
    (await byName(db.kysely, 'exact', { name: a })).rows.map((r) => r.name),
    [a],
  );
  const inTransactions = await Promise.all(
    [b, a].map((name) =>
      db.kysely.transaction().execute(async (tx) => (await byName(tx, 'exact', { name })).rows.map((r) => r.name)),
    ),
  );
  assert.deepEqual(inTransactions, [[b], [a]]);
  assert.deepEqual(builds, ['exact'], 'one compilation for the database and both transactions');
  const both = (await byName(db.kysely, 'prefix', { name: 'prepared-%' })).rows.map((r) => r.name);
  assert.ok(both.includes(a) && both.includes(b));
  assert.deepEqual(builds, ['exact', 'prefix'], 'a new shape compiles once more');
});

test('insertRow writes the row and answers it with returning; an undefined value is bound as NULL', async () => {
  const name = `insert-${randomUUID()}`;
  const stored = (
    await insertRow(db.kysely, { table: 'teams', columns: ['name', 'created_at'], returning: true }, teamRow(name))
  ).rows[0] as { id: number; name: string };
  assert.equal(stored.name, name);
  assert.ok(Number(stored.id) > 0);
  // The statement's shape is its column list: a column whose value is undefined is written NULL, not left out (and
  // teams.name is NOT NULL).
  await assert.rejects(
    insertRow(
      db.kysely,
      { table: 'teams', columns: ['name', 'created_at'], returning: false },
      { name: undefined, created_at: new Date().toISOString() },
    ),
    /NOT NULL|null value/i,
  );
});

test('values a row leaves undefined are taken from `more`; a null of the row stays null', async () => {
  const byTwo = preparedBy<null, { first: string | null; second: string }, { name: string }>(
    (kysely, p) =>
      kysely
        .selectFrom('teams')
        .select('name')
        .where((eb) => eb.or([eb('name', '=', p('first')), eb('name', '=', p('second'))]))
        .orderBy('name'),
    () => '',
  );
  const a = `more-a-${randomUUID()}`;
  const b = `more-b-${randomUUID()}`;
  for (const name of [a, b]) {
    await insertRow(db.kysely, { table: 'teams', columns: ['name', 'created_at'], returning: false }, teamRow(name));
  }
  const row = { first: a } as { first: string | null; second: string };
  assert.deepEqual(
    (await byTwo(db.kysely, null, row, { second: b })).rows.map((r) => r.name),
    [a, b],
  );
  // `first` is given as null: `more` does not replace it.
  const withNull = { first: null } as { first: string | null; second: string };
  assert.deepEqual(
    (await byTwo(db.kysely, null, withNull, { first: a, second: b })).rows.map((r) => r.name),
    [b],
  );
});
