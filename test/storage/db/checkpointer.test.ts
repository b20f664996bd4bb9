// SQLite's WAL is checkpointed by a thread of its own (issue 21), not in the commits of the event loop: what is
// committed reaches the database file within a few ticks of that thread while the main connection never checkpoints,
// under writes that never pause the WAL still restarts (the main connection checkpoints once when the thread finds it
// long; counted by the WAL header's checkpoint sequence), and with PLACARD_SQLITE_CHECKPOINT_MS=0 SQLite does it itself as before.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { startCheckpointer } from '../../../src/storage/db/checkpointer.js';
import { openDatabase } from '../../../src/storage/db/database.js';

/** A big-endian 32-bit field of a file's header: SQLite's database and WAL headers keep their counters so. */
function headerField(file: string, offset: number): number {
  const header = Buffer.alloc(4);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, 4, offset);
  } finally {
    fs.closeSync(fd);
  }
  return header.readUInt32BE(0);
}

/** The database file's own size in pages (header bytes 28–31): what checkpoints have copied into it. */
function pagesInFile(file: string): number {
  return headerField(file, 28);
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

/**
 * The WAL header's checkpoint sequence number (bytes 12–15): SQLite adds one each time a writer restarts the WAL from
 * its start, so it counts restarts however fast or slow the checkpoints came.
 */
function walSequence(file: string): number {
  return headerField(file, 12);
}

test('under writes that never pause, the WAL still restarts from its start', async (t) => {
  const dataDir = tempDir(t);
  const file = path.join(dataDir, 'placard.sqlite');
  const db = openDatabase({ databaseUrl: null, dataDir, checkpointEveryMs: 10 });
  let largest = 0;
  let restarts = 0;
  try {
    await sql`create table filler (body blob)`.execute(db.kysely);
    let sequence = walSequence(`${file}-wal`);
    // 256 MiB in 16 KiB commits, one after another, as a busy service writes: the event loop turns every 16
    // commits (as it does between requests), and the thread checkpoints all the while.
    const commits = (256 * 1024) / 16;
    for (let i = 0; i < commits; i++) {
      await sql`insert into filler values (zeroblob(16384))`.execute(db.kysely);
      if (i % 16 === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        const now = walSequence(`${file}-wal`);
        if (now !== sequence) restarts += 1;
        sequence = now;
      }
      if (i % 256 === 0) largest = Math.max(largest, fs.statSync(`${file}-wal`).size);
    }
  } finally {
    await db.close();
  }
  // A WAL that never restarts holds every frame written: more than the 256 MiB of data (388 MiB with their index
  // pages). How long it grows between restarts depends on how much CPU the thread gets: about 64 MiB on an idle
  // machine, up to 247 MiB seen in a busy CI run with a test file beside it. That it restarts is what is asserted;
  // how large it got is in the message.
  const size = `${(largest / 1048576).toFixed(0)} MiB`;
  assert.ok(restarts >= 1, `the WAL never restarted (it reached ${size})`);
  assert.ok(largest < 388 * 1024 * 1024, `the WAL reached ${size}, as large as one that never restarts`);
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
