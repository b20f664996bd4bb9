// SQLite's WAL is checkpointed by a thread of its own (issue 21), not in the commits of the event loop: what is
// committed reaches the database file within a few ticks of that thread while the main connection never checkpoints,
// under writes that never pause the WAL still restarts (the main connection checkpoints once when the thread finds it
// long), and with PLACARD_SQLITE_CHECKPOINT_MS=0 SQLite does it itself as before.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { startCheckpointer } from '../../../src/storage/db/checkpointer.js';
import { openDatabase } from '../../../src/storage/db/database.js';

/** The database file's own size in pages (header bytes 28–31): what checkpoints have copied into it. */
function pagesInFile(file: string): number {
  const header = Buffer.alloc(100);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, 100, 0);
  } finally {
    fs.closeSync(fd);
  }
  return header.readUInt32BE(28);
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-ckpt-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 500) throw new Error(`${what}: not within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('commits reach the database file through the checkpoint thread; the main connection does not checkpoint', async (t) => {
  const dataDir = tempDir(t);
  const file = path.join(dataDir, 'placard.sqlite');
  const db = openDatabase({ databaseUrl: null, dataDir, checkpointEveryMs: 25 });
  try {
    const auto = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db.kysely);
    assert.equal(auto.rows[0].wal_autocheckpoint, 0, 'the event loop never checkpoints');
    await sql`create table filler (body blob)`.execute(db.kysely);
    await until('the table reaches the file', () => pagesInFile(file) > 1);
    const before = pagesInFile(file);
    // 4 MiB in 64 commits: more than SQLite's own 1000-page mark, all in the WAL until a checkpoint copies it.
    for (let i = 0; i < 64; i++) await sql`insert into filler values (zeroblob(65536))`.execute(db.kysely);
    await until('the commits reach the file', () => pagesInFile(file) >= before + 1000);
    const rows = await sql<{ n: number }>`select count(*) as n from filler`.execute(db.kysely);
    assert.equal(Number(rows.rows[0].n), 64);
  } finally {
    await db.close();
  }
  // Closing waited for the thread's last checkpoint: the file holds everything, and the WAL is gone.
  assert.ok(!fs.existsSync(`${file}-wal`) || fs.statSync(`${file}-wal`).size === 0, 'no WAL left after close');
});

test('under writes that never pause, the WAL still restarts from its start: it stays near its limit', async (t) => {
  const dataDir = tempDir(t);
  const file = path.join(dataDir, 'placard.sqlite');
  const db = openDatabase({ databaseUrl: null, dataDir, checkpointEveryMs: 10 });
  let largest = 0;
  try {
    await sql`create table filler (body blob)`.execute(db.kysely);
    // 256 MiB in 16 KiB commits, one after another, as a busy service writes: the event loop turns every 16
    // commits (as it does between requests), and the thread checkpoints all the while.
    const commits = (256 * 1024) / 16;
    for (let i = 0; i < commits; i++) {
      await sql`insert into filler values (zeroblob(16384))`.execute(db.kysely);
      if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
      if (i % 256 === 0) largest = Math.max(largest, fs.statSync(`${file}-wal`).size);
    }
  } finally {
    await db.close();
  }
  // RESTART_PAGES (16 MiB) and what is written while the thread and then the main connection checkpoint: about
  // 64 MiB (the size a restart cuts the WAL back to) on an idle machine, more when the thread gets little CPU (161 MiB
  // seen in a busy CI run). A WAL that never restarts holds every frame written, more than the 256 MiB of data (388
  // MiB with their index pages), so staying under 224 MiB means it restarted, however slow the thread was.
  assert.ok(largest < 224 * 1024 * 1024, `the WAL reached ${(largest / 1048576).toFixed(0)} MiB`);
});

test('with no checkpoint thread (0), SQLite checkpoints in its commits as by default', async (t) => {
  const dataDir = tempDir(t);
  const db = openDatabase({ databaseUrl: null, dataDir, checkpointEveryMs: 0 });
  try {
    const auto = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db.kysely);
    assert.equal(auto.rows[0].wal_autocheckpoint, 1000);
  } finally {
    await db.close();
  }
});

test('a checkpoint thread that cannot checkpoint says so once and stops', async (t) => {
  const dataDir = tempDir(t);
  const failures: Error[] = [];
  const checkpointer = startCheckpointer(path.join(dataDir, 'missing.sqlite'), {
    everyMs: 10,
    restart: async () => {},
    onFailure: (error) => failures.push(error),
  });
  try {
    await until('the failure is reported', () => failures.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(failures.length, 1);
    assert.match(failures[0].message, /unable to open|does not exist|no such file/i);
  } finally {
    await checkpointer.stop();
  }
});
