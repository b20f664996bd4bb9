// The count of files in flight as the database plans it (issue 21, stop 31): accepting an export counts the files
// still waiting or rendering per team, and without an index on a file's status that count read every file ever
// exported (a sequential scan on PostgreSQL, a walk of the table on SQLite) — 0.8 ms and 343 buffers per export after
// 2,000 exports in the scale bench, growing with the table. Here 1,500 settled files and 5 in flight: each counting
// statement, with the SQL and parameters Kysely sends, must reach the files through the partial index of unsettled
// ones (migration 0026) — on PostgreSQL under a generic plan, which a named prepared statement (pg-prepared.ts) gets
// after a few runs and which cannot see a bound parameter's value. Runs on SQLite, and on PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../../src/storage/db/database.js';
import { migrateToLatest } from '../../../src/storage/db/migrate.js';
import {
  createExportRepository,
  type NewCreative,
  type NewExport,
} from '../../../src/storage/db/repositories/exports.repository.js';
import type { Database } from '../../../src/storage/db/schema.js';
import { adminQuery, dropDatabase } from '../../helpers/postgres.js';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A migrated database of its own, and a Kysely over it that keeps every statement it sends. */
async function openLogged(): Promise<{ db: Kysely<Database>; sent: CompiledQuery[]; postgres: boolean }> {
  const sent: CompiledQuery[] = [];
  const log = (event: { level: string; query: CompiledQuery }) => {
    if (event.level === 'query') sent.push(event.query);
  };
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const name = `placard_plan_${randomBytes(4).toString('hex')}`;
    await adminQuery(serverUrl, `create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const migrated = openDatabase({ databaseUrl: url.toString(), dataDir: os.tmpdir(), checkpointEveryMs: 0 });
    await migrateToLatest(migrated);
    await migrated.close();
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 1 }) }),
      log,
    });
    cleanups.push(async () => {
      await db.destroy();
      await dropDatabase(serverUrl, name);
    });
    return { db, sent, postgres: true };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-unsettled-plan-'));
  const migrated = openDatabase({ databaseUrl: null, dataDir, checkpointEveryMs: 0 });
  await migrateToLatest(migrated);
  await migrated.close();
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new SQLite(path.join(dataDir, 'placard.sqlite')) }),
    log,
  });
  cleanups.push(async () => {
    await db.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { db, sent, postgres: false };
}

function newExport(teamId: number, userId: number, files: number): { row: NewExport; creatives: NewCreative[] } {
  const id = randomUUID();
  return {
    row: {
      id,
      team_id: teamId,
      project_id: 1,
      design_id: 1,
      design_hash: 'd1',
      new_design_hash: null,
      created_by: userId,
      type: 'png',
      format: 'png',
      settings: '{}',
      document: '{"sizes":[]}',
      file_stem: 'Banner',
      is_set: files > 1 ? 1 : 0,
      webhook_url: null,
      cache_key: `key-${id}`,
      zip_name: 'Banner.zip',
      created_at: new Date().toISOString(),
    },
    creatives: Array.from({ length: files }, (_, position) => ({
      id: randomUUID(),
      export_id: id,
      position,
      size_index: position,
      size_hash: `s${position}`,
      size_name: `Size ${position}`,
      width: 300,
      height: 250,
      slide_number: null,
      file_name: `Banner-${position}.png`,
    })),
  };
}

/** The plan lines of a statement as sent; PostgreSQL's under a generic plan, which sees no parameter's value. */
async function planOf(db: Kysely<Database>, postgres: boolean, query: CompiledQuery): Promise<string[]> {
  if (!postgres) {
    const file = (await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db))
      .rows[0].file;
    const raw = new SQLite(file, { readonly: true });
    try {
      return (raw.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as { detail: string }[]).map(
        (row) => row.detail,
      );
    } finally {
      raw.close();
    }
  }
  return db.connection().execute(async (connection) => {
    await connection.executeQuery(CompiledQuery.raw('set plan_cache_mode = force_generic_plan'));
    await connection.executeQuery(CompiledQuery.raw(`prepare counted as ${query.sql}`));
    try {
      const values = query.parameters.map((value) =>
        value === null ? 'null' : `'${String(value).replace(/'/g, "''")}'`,
      );
      const { rows } = await connection.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain execute counted${values.length ? `(${values.join(', ')})` : ''}`),
      );
      return rows.map((row) => row['QUERY PLAN']);
    } finally {
      await connection.executeQuery(CompiledQuery.raw('deallocate counted'));
      await connection.executeQuery(CompiledQuery.raw('reset plan_cache_mode'));
    }
  });
}

test('files in flight are counted through the index of unsettled files, however many settled ones the table keeps', async () => {
  const { db, sent, postgres } = await openLogged();
  const at = new Date().toISOString();
  const teams = await db
    .insertInto('teams')
    .values([
      { name: 'A', created_at: at },
      { name: 'B', created_at: at },
    ] as never)
    .returning('id')
    .execute();
  const [teamA, teamB] = teams.map((t) => Number(t.id));
  const users = await db
    .insertInto('users')
    .values(
      [teamA, teamB].map((team) => ({
        team_id: team,
        name: 'Owner',
        email: `owner-${team}@example.test`,
        role_id: 1,
        created_at: at,
        updated_at: at,
      })) as never,
    )
    .returning('id')
    .execute();
  const userOf = new Map([
    [teamA, Number(users[0].id)],
    [teamB, Number(users[1].id)],
  ]);
  const repo = createExportRepository(db);
  // 500 settled exports of 3 files each.
  for (let i = 0; i < 500; i++) {
    const team = i % 2 ? teamA : teamB;
    const { row, creatives } = newExport(team, userOf.get(team)!, 3);
    await repo.insert(row, creatives);
  }
  await db.updateTable('export_creatives').set({ status: 'complete' }).execute();
  await db.updateTable('exports').set({ status: 'complete' }).execute();
  // In flight: 2 + 1 files of team A, 2 of team B.
  for (const [team, files] of [
    [teamA, 2],
    [teamA, 1],
    [teamB, 2],
  ] as const) {
    const { row, creatives } = newExport(team, userOf.get(team)!, files);
    await repo.insert(row, creatives);
  }
  if (postgres) await sql`analyze`.execute(db);

  sent.length = 0;
  const probed = await repo.probeForExport(teamA, 'no such key');
  const byTeam = await repo.countUnsettledByTeam();
  const teamCount = await repo.countTeamUnsettled(teamA);
  assert.deepEqual([...probed.unsettledByTeam].sort(), [
    [teamA, 3],
    [teamB, 2],
  ]);
  assert.deepEqual([...byTeam].sort(), [
    [teamA, 3],
    [teamB, 2],
  ]);
  assert.equal(teamCount, 3);

  const counting = sent.filter((query) => /export_creatives/.test(query.sql));
  assert.equal(counting.length, 3, counting.map((q) => q.sql).join('\n'));
  for (const query of counting) {
    const plan = await planOf(db, postgres, query);
    const text = plan.join('\n');
    assert.match(
      text,
      /export_creatives_unsettled/,
      `not through the index of unsettled files:\n${query.sql}\n${text}`,
    );
    assert.doesNotMatch(
      text,
      postgres ? /Seq Scan on export_creatives/ : /^SCAN c$/m,
      `a walk of every file:\n${text}`,
    );
  }
});
