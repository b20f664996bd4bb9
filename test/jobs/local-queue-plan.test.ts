// The claim of the jobs table on SQLite as SQLite plans it (issue 21): every search of `jobs` in it goes through an
// index on the row's status, so the finished rows that the table keeps for a day are never walked. Written as one OR
// of the two ways a row is due, a claim of one kind was planned as a walk over every row of that kind and grew to
// most of the main thread's database time over a long run. The claim's own SQL and parameters are taken from Kysely's
// log and given to SQLite's EXPLAIN QUERY PLAN.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { createLocalJobQueue } from '../../src/jobs/local-queue.js';
import { openDatabase } from '../../src/storage/db/database.js';
import { migrateToLatest } from '../../src/storage/db/migrate.js';
import type { Database } from '../../src/storage/db/schema.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-claim-plan-'));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test('a claim searches jobs by status through an index, however many finished rows the table keeps', async () => {
  const migrated = openDatabase({ databaseUrl: null, dataDir, checkpointEveryMs: 0 });
  await migrateToLatest(migrated);
  await migrated.close();

  const file = path.join(dataDir, 'placard.sqlite');
  const raw = new SQLite(file);
  const at = new Date(Date.now() - 60_000).toISOString();
  const insert = raw.prepare(
    `insert into jobs (id, kind, payload, status, attempts, max_attempts, retry_delays, run_at, fair_group, fair_key,
       seq, created_at, updated_at)
     values (?, 'webhook.deliver', '{"deliveryId":"x"}', ?, 1, 3, '[]', ?, 't1', ?, ?, ?, ?)`,
  );
  raw.transaction(() => {
    for (let i = 0; i < 20_000; i++) insert.run(`done-${i}`, 'done', at, i, i, at, at);
    for (let i = 0; i < 3; i++) insert.run(`due-${i}`, 'queued', at, 30_000 + i, 30_000 + i, at, at);
  })();

  const sent: CompiledQuery[] = [];
  const kysely = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new SQLite(file) }),
    log: (event) => {
      if (event.level === 'query') sent.push(event.query);
    },
  });
  const queue = createLocalJobQueue({ db: kysely, dialect: 'sqlite', pollIntervalMs: 50 });
  let ran = 0;
  let allRan!: () => void;
  const done = new Promise<void>((resolve) => {
    allRan = resolve;
  });
  queue.process(
    'webhook.deliver',
    async () => {
      ran += 1;
      if (ran === 3) allRan();
    },
    { concurrency: 1 },
  );
  try {
    await queue.start();
    await done;
  } finally {
    await queue.stop(100);
    await kysely.destroy();
  }

  const claims = sent.filter((query) => /^\s*update jobs set status = 'running'/.test(query.sql));
  assert.ok(claims.length >= 3, `three jobs, one at a time: ${claims.length} claims`);
  for (const claim of claims) {
    const plan = (raw.prepare(`explain query plan ${claim.sql}`).all(...claim.parameters) as { detail: string }[]).map(
      (row) => row.detail,
    );
    const searches = plan.filter((line) => /\bjobs\b/.test(line) && !/sqlite_autoindex_jobs_1 \(id=\?\)/.test(line));
    assert.ok(searches.length > 0, plan.join('\n'));
    for (const line of searches) {
      assert.match(
        line,
        /^SEARCH jobs USING INDEX \w+ \(kind=\? AND status=\?/,
        `a walk of the table:\n${plan.join('\n')}`,
      );
    }
  }
  raw.close();
});
