// The SQLite connection's own thread (sqlite-thread.ts starts it). Every statement of the service runs here, so the
// event loop only sends its text and values and reads the answer (issue 21, stop 24: SQLite was about a quarter of
// the main thread's CPU per export).
//
// Group commit: on this service's small writes SQLite's commit costs most of a statement (about 75 µs of a 90 µs
// job-row update, against about 10 µs for the same update inside a transaction; WAL, synchronous = NORMAL). The main
// thread sends the statements of one turn of its event loop in one message; their writes run together, in order, in
// one transaction, after the message's reads, and a write alone runs in a transaction of its own. Nothing is answered
// before the writes of its message committed, so nothing anybody was told is lost, and a write's own error reaches
// only its caller. Inside an explicit transaction everything runs at once: the main thread lets only the
// transaction's holder send until it ends. A statement that manages the connection (begin, pragma…) commits the
// writes before it first, so that they are never taken into a transaction. A message made only of statements whose
// answer may wait (REPLY_MAY_WAIT) commits as any other, and its answers go with the next reply, or after
// REPLY_HOLD_MS: one wake-up of the event loop less per export. A statement sent with a `forward` has that message
// posted to the linked port once it committed (a finished export's first webhook call, to the webhook thread), and
// its answer may then wait too: the event loop no longer wakes to pass the call on (issue 21, stop 37).
//
// Written by hand because no library does it: better-sqlite3 is synchronous, and Kysely's dialects run each statement
// as it comes.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import {
  type Answer,
  type FailedAnswer,
  REPLY_HOLD_MS,
  REPLY_MAY_WAIT,
  type Reply,
  type Request,
  type Statement,
  type ThreadOptions,
} from './sqlite-thread.js';

/** Statements that manage the connection or a transaction: never held back. */
const CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release|pragma|vacuum|attach|detach|analyze|reindex)\b/i;

interface Pending {
  id: number;
  statement: SQLite.Statement;
  parameters: readonly unknown[];
  forward: unknown;
}

const port = parentPort;
if (!port) throw new Error('sqlite-thread.worker runs on a thread of its own (sqlite-thread.ts)');
const options = workerData as ThreadOptions;
const file = new SQLite(options.file);
for (const pragma of options.pragmas) file.pragma(pragma);
const prepare = statementCache(file);
const holdMs = options.replyHoldMs ?? REPLY_HOLD_MS;
/** Where the forwards of committed statements go (sqlite-thread.ts, `link`). */
let linked: MessagePort | null = null;

/** Answers committed and held back (REPLY_MAY_WAIT): they go with the next reply, or when the timer ends. */
let held: Reply | null = null;
let holding: NodeJS.Timeout | null = null;

function reply(answers: Reply['answers'], groups: number[], mayWait: boolean): void {
  if (held) {
    answers = [...held.answers, ...answers];
    groups = [...held.groups, ...groups];
    held = null;
  }
  if (mayWait) {
    held = { answers, groups };
    // Counted from the first answer held: a stream of such statements is still answered within REPLY_HOLD_MS.
    holding ??= setTimeout(() => {
      holding = null;
      if (held) reply([], [], false);
    }, holdMs);
    return;
  }
  if (holding) clearTimeout(holding);
  holding = null;
  port?.postMessage({ answers, groups } satisfies Reply);
}

port.on('message', (request: Request) => {
  if ('link' in request) {
    linked?.close();
    linked = request.link;
    return;
  }
  if (!Array.isArray(request)) {
    file.close();
    reply([{ id: request.id, rows: [] }], [], false);
    port.close();
    return;
  }
  const answers: Array<Answer | FailedAnswer> = [];
  const groups: number[] = [];
  let group: Pending[] = [];
  // Whether every statement of the message lets its answer wait: none inside an explicit transaction (its holder
  // waits for each answer before it can end it; none of them begins one), and, below, none failed and every forward
  // went.
  const mayWait =
    !file.inTransaction && request.every(({ sql, forward }) => forward !== undefined || sql.startsWith(REPLY_MAY_WAIT));
  const commit = () => {
    const grouped = commitGroup(group, answers);
    if (grouped > 0) groups.push(grouped);
    group = [];
  };
  for (const { id, sql, parameters, forward } of request) {
    let statement: SQLite.Statement;
    try {
      statement = prepare(sql);
    } catch (error) {
      answers.push(failure(id, error));
      continue;
    }
    const control = CONTROL.test(sql);
    if (statement.readonly || file.inTransaction || control) {
      if (control && !file.inTransaction && group.length > 0) commit();
      // Inside an explicit transaction nothing is committed yet: a forward is left to the caller (no `forwarded`).
      const inTransaction = file.inTransaction;
      const result = answer(id, statement, parameters);
      answers.push(inTransaction ? result : forwarded(result, forward));
    } else {
      group.push({ id, statement, parameters, forward });
    }
  }
  commit();
  reply(
    answers,
    groups,
    mayWait && answers.every((a) => !('error' in a) && (a.forwarded || !byId(request, a.id)?.forward)),
  );
});

function byId(request: Statement[], id: number): Statement | undefined {
  return request.find((s) => s.id === id);
}

/** Posts a committed statement's forward, if it has one and a port is linked. */
function forwarded(result: Answer | FailedAnswer, forward: unknown): Answer | FailedAnswer {
  if (forward === undefined || 'error' in result || !linked) return result;
  linked.postMessage(forward);
  result.forwarded = true;
  return result;
}

/**
 * Runs the writes in one transaction and answers them once it committed; the number of writes it grouped (0: each ran
 * alone), so that the main thread counts the group's begin and commit as statements.
 */
function commitGroup(group: Pending[], answers: Array<Answer | FailedAnswer>): number {
  if (group.length === 0) return 0;
  if (group.length === 1 || file.inTransaction) {
    const inTransaction = file.inTransaction;
    for (const pending of group) {
      const result = answer(pending.id, pending.statement, pending.parameters);
      answers.push(inTransaction ? result : forwarded(result, pending.forward));
    }
    return 0;
  }
  prepare('begin').run();
  const done: Array<[Pending, Answer]> = [];
  for (let i = 0; i < group.length; i++) {
    const pending = group[i];
    const result = answer(pending.id, pending.statement, pending.parameters);
    if (!('error' in result)) {
      done.push([pending, result]);
      continue;
    }
    answers.push(result);
    // Most errors undo their own statement only. One that ended the transaction (a full disk, an I/O error) undid the
    // writes before it too: they run again in a group of their own with the ones after it.
    if (!file.inTransaction) {
      return commitGroup([...done.map(([earlier]) => earlier), ...group.slice(i + 1)], answers);
    }
  }
  try {
    prepare('commit').run();
  } catch (error) {
    if (file.inTransaction) prepare('rollback').run();
    for (const [pending] of done) answers.push(failure(pending.id, error));
    return group.length;
  }
  for (const [pending, result] of done) answers.push(forwarded(result, pending.forward));
  return group.length;
}

/** One statement, answered with what Kysely's own SQLite driver answers (the main thread makes the bigints). */
function answer(id: number, statement: SQLite.Statement, parameters: readonly unknown[]): Answer | FailedAnswer {
  try {
    if (statement.reader) return { id, rows: statement.all(parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { id, rows: [], changes, lastInsertRowid: Number(lastInsertRowid) };
  } catch (error) {
    return failure(id, error);
  }
}

/** better-sqlite3's SqliteError loses its code on the way to the main thread: sent as plain fields. */
function failure(id: number, error: unknown): FailedAnswer {
  const { name, message, code } = error as { name?: string; message?: string; code?: unknown };
  return {
    id,
    error: {
      name: name ?? 'Error',
      message: message ?? String(error),
      code: typeof code === 'string' ? code : undefined,
    },
  };
}

/**
 * Kysely prepares every query anew, and preparing costs as much as running a small query; this keeps the last few
 * hundred statements prepared. Reusing one statement is safe because every use runs to completion synchronously
 * (`all`/`run`); nothing streams with `iterate`, which would hold a statement open.
 */
function statementCache(db: SQLite.Database, size = 500): (text: string) => SQLite.Statement {
  const cache = new Map<string, SQLite.Statement>();
  return (text) => {
    let statement = cache.get(text);
    if (statement) {
      cache.delete(text);
    } else {
      statement = db.prepare(text);
      if (cache.size >= size) cache.delete(cache.keys().next().value as string);
    }
    cache.set(text, statement);
    return statement;
  };
}
