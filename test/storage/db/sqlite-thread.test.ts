// SQLite on its own thread (src/storage/db/sqlite-thread.ts) and its group commit: the writes of one turn of the
// event loop commit together, each caller is answered after the commit, and a failing write costs only its own caller.
// Checked on a real database file, read back over a second connection that sees only what was committed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, sql } from 'kysely';
import {
  type ForwardedResult,
  type ForwardingQuery,
  REPLY_MAY_WAIT,
  type SqliteThreadDialect,
  sqliteThreadDialect,
} from '../../../src/storage/db/sqlite-thread.js';

interface Tables {
  notes: { id: number; body: string };
}

let dir: string;
let reader: SQLite.Database;
let db: Kysely<Tables>;
const groups: Array<{ text: string; writes: number }> = [];
const sent: string[] = [];

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-group-commit-'));
  db = new Kysely<Tables>({
    dialect: sqliteThreadDialect({
      file: path.join(dir, 'db.sqlite'),
      pragmas: ['journal_mode = WAL'],
      onGroupStatement: (text, writes) => groups.push({ text, writes }),
    }),
    log: (event) => {
      if (event.level === 'query') sent.push(event.query.sql);
    },
  });
  await sql`create table notes (id integer primary key, body text not null unique)`.execute(db);
  // A write of 'boom' ends the whole transaction, as a full disk or an I/O error would.
  await sql`create trigger boom before insert on notes when new.body = 'boom' begin select raise(rollback, 'boom'); end`.execute(
    db,
  );
  reader = new SQLite(path.join(dir, 'db.sqlite'), { readonly: true });
});

after(async () => {
  await db?.destroy();
  reader?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await db.deleteFrom('notes').execute();
  groups.length = 0;
  sent.length = 0;
});

const committed = () =>
  (reader.prepare('select id, body from notes order by id').all() as Array<{ id: number; body: string }>).map(
    (row) => `${row.id}:${row.body}`,
  );

/** Three writes of one group settled: the first and the last committed, the middle one failed. */
function assertOnlyTheMiddleFailed(results: PromiseSettledResult<unknown>[]): void {
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
}

test('writes of one turn commit in one group; each caller is answered after the commit, with its own result', async () => {
  const seen: string[][] = [];
  const answers = await Promise.all(
    [1, 2, 3].map(async (id) => {
      const result = await db
        .insertInto('notes')
        .values({ id, body: `n${id}` })
        .returning(['id', 'body'])
        .execute();
      seen.push(committed());
      return result;
    }),
  );
  assert.deepEqual(answers, [[{ id: 1, body: 'n1' }], [{ id: 2, body: 'n2' }], [{ id: 3, body: 'n3' }]]);
  // Every caller was answered once all three were on disk.
  for (const rows of seen) assert.deepEqual(rows, ['1:n1', '2:n2', '3:n3']);
  assert.deepEqual(groups, [
    { text: 'begin', writes: 3 },
    { text: 'commit', writes: 3 },
  ]);
  // Updates answer how many rows they changed.
  const [changed, unchanged] = await Promise.all([
    db.updateTable('notes').set({ body: 'one' }).where('id', '=', 1).executeTakeFirst(),
    db.updateTable('notes').set({ body: 'none' }).where('id', '=', 99).executeTakeFirst(),
  ]);
  assert.equal(changed.numUpdatedRows, 1n);
  assert.equal(unchanged.numUpdatedRows, 0n);
});

test('a write alone runs as it did, in a transaction of its own', async () => {
  await db.insertInto('notes').values({ id: 1, body: 'alone' }).execute();
  assert.deepEqual(committed(), ['1:alone']);
  assert.deepEqual(groups, []);
  assert.deepEqual(sent, ['insert into "notes" ("id", "body") values (?, ?)']);
});

test("a write's own error reaches its caller only; the rest of the group commits", async () => {
  await db.insertInto('notes').values({ id: 1, body: 'taken' }).execute();
  const results = await Promise.allSettled([
    db.insertInto('notes').values({ id: 2, body: 'a' }).execute(),
    db.insertInto('notes').values({ id: 3, body: 'taken' }).execute(),
    db.insertInto('notes').values({ id: 4, body: 'b' }).execute(),
  ]);
  assertOnlyTheMiddleFailed(results);
  assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE constraint failed: notes\.body/);
  assert.deepEqual(committed(), ['1:taken', '2:a', '4:b']);
});

test('an error that ends the transaction fails its own write; the writes before and after it still commit', async () => {
  const results = await Promise.allSettled([
    db.insertInto('notes').values({ id: 1, body: 'before' }).execute(),
    db.insertInto('notes').values({ id: 2, body: 'boom' }).execute(),
    db.insertInto('notes').values({ id: 3, body: 'after' }).execute(),
  ]);
  assertOnlyTheMiddleFailed(results);
  assert.match(String((results[1] as PromiseRejectedResult).reason), /boom/);
  assert.deepEqual(committed(), ['1:before', '3:after']);
  // The connection is out of the transaction: a write alone commits.
  await db.insertInto('notes').values({ id: 4, body: 'next' }).execute();
  assert.deepEqual(committed(), ['1:before', '3:after', '4:next']);
});

test('a read sent with writes runs before them; writes sent before a transaction commit before it, outside it', async () => {
  // A read issued after the write, in the same turn, runs before the turn's writes: it does not see the write.
  const [, count] = await Promise.all([
    db.insertInto('notes').values({ id: 1, body: 'held' }).execute(),
    db
      .selectFrom('notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  assert.equal(Number(count.n), 0);
  assert.deepEqual(committed(), ['1:held']);
  // A transaction begun while a write is held: the held write commits first, on its own, so that the transaction's
  // rollback cannot undo it.
  const later = db.insertInto('notes').values({ id: 3, body: 'held too' }).execute();
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      assert.deepEqual(committed(), ['1:held', '3:held too']);
      await trx.insertInto('notes').values({ id: 2, body: 'in a transaction' }).execute();
      const rows = await trx.selectFrom('notes').select('body').where('id', '>', 1).orderBy('id').execute();
      assert.deepEqual(rows, [{ body: 'in a transaction' }, { body: 'held too' }]);
      throw new Error('undo the transaction');
    }),
    /undo the transaction/,
  );
  await later;
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('notes').values({ id: 2, body: 'in a transaction' }).execute();
  });
  assert.deepEqual(committed(), ['1:held', '2:in a transaction', '3:held too']);
  // A failed transaction is rolled back, and the connection serves the next caller.
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ id: 4, body: 'undone' }).execute();
      throw new Error('changed my mind');
    }),
    /changed my mind/,
  );
  await db.insertInto('notes').values({ id: 5, body: 'next' }).execute();
  assert.deepEqual(committed(), ['1:held', '2:in a transaction', '3:held too', '5:next']);
});

test('many callers at once: every write commits once, in the order issued, in a few groups', async () => {
  await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      db
        .insertInto('notes')
        .values({ id: i + 1, body: `n${i + 1}` })
        .execute(),
    ),
  );
  const rows = committed();
  assert.equal(rows.length, 200);
  assert.deepEqual(
    rows,
    Array.from({ length: 200 }, (_, i) => `${i + 1}:n${i + 1}`),
  );
  const commits = groups.filter((g) => g.text === 'commit');
  assert.ok(commits.length >= 1 && commits.length < 20, `${commits.length} commits for 200 writes`);
});

/** A database of its own on the thread, whose held answers wait `replyHoldMs`. */
async function holdingDb(
  replyHoldMs: number,
  name = `hold-${replyHoldMs}`,
): Promise<{ db: Kysely<Tables>; file: string; dialect: SqliteThreadDialect }> {
  const file = path.join(dir, `${name}.sqlite`);
  const dialect = sqliteThreadDialect({ file, pragmas: ['journal_mode = WAL'], replyHoldMs });
  const held = new Kysely<Tables>({ dialect });
  await sql`create table notes (id integer primary key, body text not null unique)`.execute(held);
  return { db: held, file, dialect };
}

/** A write whose answer may wait (prepared.ts marks such statements so). */
const mayWait = (id: number, body: string) =>
  CompiledQuery.raw(`${REPLY_MAY_WAIT}insert into notes (id, body) values (?, ?) returning id`, [id, body]);

test('an answer that may wait is held back, committed, until the thread answers something else', {
  timeout: 30_000,
}, async () => {
  // An hour: the answer can only come with another.
  const { db: held, file } = await holdingDb(3_600_000);
  const look = new SQLite(file, { readonly: true });
  try {
    let answered = false;
    const write = held.executeQuery(mayWait(1, 'held')).then((result) => {
      answered = true;
      return result;
    });
    // Committed while its caller still waits.
    for (let i = 0; i < 1000 && (look.prepare('select count(*) as n from notes').get() as { n: number }).n !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.deepEqual(look.prepare('select id, body from notes').all(), [{ id: 1, body: 'held' }]);
    assert.equal(answered, false, 'the answer waits');
    // Another statement's answer brings it, before its own.
    const read = await held.selectFrom('notes').select('body').execute();
    assert.equal(answered, true);
    assert.deepEqual((await write).rows, [{ id: 1 }]);
    assert.deepEqual(read, [{ body: 'held' }]);

    // Inside a transaction nothing waits: its holder needs each answer to end it (an hour's wait would time out).
    await held.transaction().execute(async (tx) => {
      const { rows } = await tx.executeQuery(mayWait(2, 'in a transaction'));
      assert.deepEqual(rows, [{ id: 2 }]);
    });
    // A failure is answered at once.
    await assert.rejects(held.executeQuery(mayWait(1, 'again')), /UNIQUE/);
  } finally {
    look.close();
    await held.destroy();
  }
});

// A held answer that never came would hang: bounded, so that it fails.
test('a held answer comes on its own once the hold ends', { timeout: 30_000 }, async () => {
  const { db: held } = await holdingDb(20);
  try {
    const { rows } = await held.executeQuery(mayWait(1, 'alone'));
    assert.deepEqual(rows, [{ id: 1 }]);
  } finally {
    await held.destroy();
  }
});

/** A write sent with a message for the linked port (prepared.ts passes a finish's webhook calls so). */
const forwarding = (id: number, body: string, forward: unknown): ForwardingQuery<unknown> => ({
  ...CompiledQuery.raw('insert into notes (id, body) values (?, ?) returning id', [id, body]),
  forward,
});

test("a statement's forward goes to the linked port once it committed, and its answer may wait", {
  timeout: 30_000,
}, async () => {
  // An hour: a held answer can only come with another.
  const { db: held, file, dialect } = await holdingDb(3_600_000, 'forwards');
  const look = new SQLite(file, { readonly: true });
  const { port1, port2 } = new MessageChannel();
  const arrived: Array<{ message: unknown; rows: unknown[] }> = [];
  port1.on('message', (message) => {
    arrived.push({ message, rows: look.prepare('select id, body from notes order by id').all() });
  });
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  try {
    // No port linked yet: the caller is told that nothing went (it passes the message on itself), at once.
    const unlinked = (await held.executeQuery(
      forwarding(1, 'before the link', { call: 0 }),
    )) as ForwardedResult<unknown>;
    assert.equal(unlinked.forwarded, undefined);
    dialect.link(port2);

    let answered = false;
    const write = held.executeQuery(forwarding(2, 'sent', { call: 1 })).then((result) => {
      answered = true;
      return result as ForwardedResult<unknown>;
    });
    await until(() => arrived.length === 1);
    // The message came after the commit: the row was there for any reader.
    assert.deepEqual(arrived, [
      {
        message: { call: 1 },
        rows: [
          { id: 1, body: 'before the link' },
          { id: 2, body: 'sent' },
        ],
      },
    ]);
    assert.equal(answered, false, 'the answer waits');
    await held.selectFrom('notes').select('id').execute();
    assert.equal(answered, true, 'another answer brings it');
    assert.equal((await write).forwarded, true);

    // A statement that fails forwards nothing, and is answered at once.
    await assert.rejects(held.executeQuery(forwarding(3, 'sent', { call: 2 })), /UNIQUE/);
    // Nor inside a transaction, where nothing is committed yet: the caller passes it on after its commit.
    await held.transaction().execute(async (tx) => {
      const result = (await tx.executeQuery(
        forwarding(4, 'in a transaction', { call: 3 }),
      )) as ForwardedResult<unknown>;
      assert.equal(result.forwarded, undefined);
    });
    // Writes of one turn commit together: each forward goes after the group's commit, in order.
    const [a, b] = (await Promise.all([
      held.executeQuery(forwarding(5, 'grouped a', { call: 4 })),
      held.executeQuery(forwarding(6, 'grouped b', { call: 5 })),
      held.selectFrom('notes').select('id').execute(),
    ])) as ForwardedResult<unknown>[];
    assert.equal(a.forwarded, true);
    assert.equal(b.forwarded, true);
    await until(() => arrived.length === 3);
    assert.deepEqual(
      arrived.map(({ message }) => message),
      [{ call: 1 }, { call: 4 }, { call: 5 }],
    );
    assert.equal(arrived[1].rows.length, 5, 'the group had committed before its first forward went');
  } finally {
    port1.close();
    look.close();
    await held.destroy();
  }
});
