// SQLite off the event loop (issue 21, stop 24): the service's one connection lives on a thread of its own
// (sqlite-thread.worker.ts, which also commits the writes of one turn together), and Kysely's dialect here sends it
// each statement and answers with what comes back. better-sqlite3 is synchronous: on the main thread, SQLite's own
// work and the commits' writes to the WAL were about a quarter of the CPU an export cost there.
//
// Written by hand because no library does it: the SQLite drivers for Node are either synchronous (better-sqlite3) or
// run one statement per thread-pool task with no group commit (sqlite3), and Kysely has no dialect for either on a
// thread.
import type { MessagePort, Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { startModuleThread } from '../../module-thread.js';

/** What the thread is started with. */
export interface ThreadOptions {
  file: string;
  /** Run in order on the thread's connection as it opens (`journal_mode = WAL`…). */
  pragmas: readonly string[];
  /** The longest an answer of a REPLY_MAY_WAIT statement is held back. Default REPLY_HOLD_MS. */
  replyHoldMs?: number;
}

/**
 * Leads the text of a statement whose answer nobody waits on to go on (prepared.ts, `replyMayWait`). Run outside an
 * explicit transaction, and alone in its message with others like it, its answer is held back, committed, until the
 * thread answers something else or REPLY_HOLD_MS pass: at c=1 the main thread woke for it alone once per export, and
 * a wake-up costs there (issue 21, stop 36).
 */
export const REPLY_MAY_WAIT = '/* reply may wait */ ';
/** The longest an answer is held back. */
export const REPLY_HOLD_MS = 10;

export interface Statement {
  id: number;
  sql: string;
  parameters: readonly unknown[];
  /**
   * Posted to the linked port (`SqliteThreadDialect.link`) once the statement committed without an error, outside an
   * explicit transaction; its answer then says `forwarded` and may wait as REPLY_MAY_WAIT's do.
   */
  forward?: unknown;
}

/**
 * The statements of one turn of the main thread's event loop; the port that forwards go to from here on; or the last
 * message.
 */
export type Request = Statement[] | { link: MessagePort } | { id: number; close: true };

export interface Answer {
  id: number;
  rows: unknown[];
  changes?: number;
  lastInsertRowid?: number;
  /** The statement's `forward` was posted to the linked port. */
  forwarded?: true;
}

/** What a statement sent with a `forward` answers: whether it went (outside a transaction, committed, a port linked). */
export type ForwardedResult<R> = QueryResult<R> & { forwarded?: true };

export interface FailedAnswer {
  id: number;
  error: { name: string; message: string; code?: string };
}

/** The answers to one message, and how many writes each group of it committed together (groups of one are left out). */
export interface Reply {
  answers: Array<Answer | FailedAnswer>;
  groups: number[];
}

export interface SqliteThreadOptions extends ThreadOptions {
  /** Called for the `begin` and `commit` of each group of more than one write (the statement counter, the trace). */
  onGroupStatement?(text: 'begin' | 'commit', writes: number): void;
}

interface Waiting {
  resolve(result: QueryResult<unknown>): void;
  reject(error: unknown): void;
}

/** The connection's thread: statements in, answers out, in the order sent. */
class SqliteThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  readonly #onGroupStatement: SqliteThreadOptions['onGroupStatement'];
  #next = 0;
  #stopped: Error | null = null;
  /** The statements sent during this turn of the event loop: posted together at its end (see the worker's group). */
  #batch: Statement[] = [];
  readonly #post = () => {
    const batch = this.#batch;
    this.#batch = [];
    if (this.#stopped || batch.length === 0) return;
    this.#worker.postMessage(batch satisfies Request);
  };

  constructor(options: SqliteThreadOptions) {
    const { onGroupStatement, ...thread } = options;
    this.#onGroupStatement = onGroupStatement;
    this.#worker = startModuleThread(import.meta.url, 'sqlite-thread.worker', thread);
    // Kept alive only while a statement waits for its answer: a CLI command that opened the database ends as before.
    this.#worker.unref();
    this.#worker.on('message', (reply: Reply) => this.#answered(reply));
    this.#worker.on('error', (error) => this.#stop(error));
    this.#worker.on('exit', (code) => this.#stop(new Error(`the SQLite thread stopped (exit code ${code})`)));
  }

  send(sql: string, parameters: readonly unknown[], forward?: unknown): Promise<QueryResult<unknown>> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) this.#worker.ref();
      this.#waiting.set(id, { resolve, reject });
      if (this.#batch.length === 0) setImmediate(this.#post);
      this.#batch.push(forward === undefined ? { id, sql, parameters } : { id, sql, parameters, forward });
    });
  }

  /** Forwards of the statements sent after this go to `port` (those sent before, to the port linked then). */
  link(port: MessagePort): void {
    if (this.#stopped) return;
    this.#post();
    this.#worker.postMessage({ link: port } satisfies Request, [port]);
  }

  /** Commits what waits, closes the connection and ends the thread. */
  async close(): Promise<void> {
    if (this.#stopped) return;
    this.#post();
    // From here a statement is refused at once: sent after the last message, it would never be answered.
    this.#stopped = new Error('the SQLite connection is closed');
    const id = ++this.#next;
    const closed = new Promise<void>((resolve, reject) => {
      if (this.#waiting.size === 0) this.#worker.ref();
      this.#waiting.set(id, { resolve: () => resolve(), reject });
    });
    this.#worker.postMessage({ id, close: true } satisfies Request);
    await closed;
    await this.#worker.terminate();
  }

  #answered(reply: Reply): void {
    for (const writes of reply.groups) {
      this.#onGroupStatement?.('begin', writes);
      this.#onGroupStatement?.('commit', writes);
    }
    for (const answer of reply.answers) this.#settle(answer);
    if (this.#waiting.size === 0) this.#worker.unref();
  }

  #settle(answer: Answer | FailedAnswer): void {
    const waiting = this.#waiting.get(answer.id);
    if (!waiting) return;
    this.#waiting.delete(answer.id);
    if ('error' in answer) {
      const { name, message, code } = answer.error;
      waiting.reject(Object.assign(new Error(message), { name, code }));
      return;
    }
    const { rows, changes, lastInsertRowid, forwarded } = answer;
    const result: ForwardedResult<unknown> =
      changes === undefined
        ? { rows }
        : {
            numAffectedRows: BigInt(changes),
            insertId: lastInsertRowid === undefined ? undefined : BigInt(lastInsertRowid),
            rows,
          };
    if (forwarded) result.forwarded = true;
    waiting.resolve(result);
  }

  #stop(error: Error): void {
    this.#stopped ??= error;
    this.#batch = [];
    for (const waiting of this.#waiting.values()) waiting.reject(this.#stopped);
    this.#waiting.clear();
  }
}

/**
 * A compiled query with a message for the linked port: the SQLite thread posts it there once the statement committed
 * (a finished export's first webhook call goes from there straight to the webhook thread: issue 21, stop 37). Other
 * dialects ignore the field and answer without `forwarded`.
 */
export type ForwardingQuery<R> = CompiledQuery<R> & { forward?: unknown };

export interface SqliteThreadDialect extends Dialect {
  /** Forwards of the statements sent from now on go to `port` (transferred to the SQLite thread). */
  link(port: MessagePort): void;
}

/** Kysely's dialect for SQLite, every statement run on the connection's thread. */
export function sqliteThreadDialect(options: SqliteThreadOptions): SqliteThreadDialect {
  let driver: ThreadDriver | undefined;
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => {
      driver = new ThreadDriver(options);
      return driver;
    },
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    link: (port) => {
      if (driver) driver.link(port);
      else port.close();
    },
  };
}

/** The holder of the connection: a caller's statement, or a caller's transaction from its begin to its end. */
class Mutex {
  #held = false;
  #waiting: Array<() => void> = [];
  lock(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
  unlock(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

/**
 * What Kysely holds between acquiring and releasing the connection. One per acquisition (reused), because a
 * statement outside a transaction gives the mutex back as soon as it is sent: the thread runs statements in the
 * order sent, so the next caller may send before this one's answer came, and must not be released by its release.
 */
class Lease implements DatabaseConnection {
  held = false;
  inTransaction = false;
  constructor(private readonly driver: ThreadDriver) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute(this, query) as Promise<QueryResult<R>>;
  }
  // biome-ignore lint/correctness/useYield: Kysely's interface; the service never streams (database.ts).
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries is not supported on SQLite here');
  }
}

class ThreadDriver implements Driver {
  readonly #options: SqliteThreadOptions;
  #thread: SqliteThread | undefined;
  readonly #mutex = new Mutex();
  readonly #free: Lease[] = [];

  constructor(options: SqliteThreadOptions) {
    this.#options = options;
  }

  /** A port linked before the thread started: linked as it starts. */
  #link: MessagePort | undefined;

  // Kysely calls it before the first statement, and destroy() only after it: a database opened and closed unused
  // (a CLI command) starts no thread.
  async init(): Promise<void> {
    this.#thread = new SqliteThread(this.#options);
    if (this.#link) this.#thread.link(this.#link);
    this.#link = undefined;
  }

  link(port: MessagePort): void {
    if (this.#thread) this.#thread.link(port);
    else {
      this.#link?.close();
      this.#link = port;
    }
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    const lease = this.#free.pop() ?? new Lease(this);
    lease.held = true;
    return lease;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    lease.inTransaction = false;
    if (lease.held) {
      lease.held = false;
      this.#mutex.unlock();
    }
    this.#free.push(lease);
  }

  // Through the lease, as Kysely's own driver does, so that its log (the statement counter) sees them.
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    lease.inTransaction = true;
    try {
      await connection.executeQuery(CompiledQuery.raw('begin'));
    } catch (error) {
      lease.inTransaction = false;
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    await this.#thread?.close();
  }

  execute(lease: Lease, query: CompiledQuery): Promise<QueryResult<unknown>> {
    const answer = (this.#thread as SqliteThread).send(
      query.sql,
      query.parameters,
      (query as ForwardingQuery<unknown>).forward,
    );
    // Outside a transaction the connection is free for the next caller as soon as this statement is on its way.
    if (!lease.inTransaction && lease.held) {
      lease.held = false;
      this.#mutex.unlock();
    }
    return answer;
  }
}
