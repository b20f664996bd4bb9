// Group commit for SQLite (issue 21). On this service's small writes, SQLite's commit costs most of a statement: about
// 75 µs of a 90 µs job-row update on the main thread, against about 10 µs for the same update inside a transaction
// (two cores, WAL, synchronous = NORMAL; dumped pages are appended to the WAL at each commit). An export makes five or
// six such writes. Here the writes issued during one turn of the event loop wait for its end and then run together,
// in order, in one transaction: a busy service commits once for several exports, and a write alone still runs as it
// did, in a transaction of its own. No caller is answered before its write has committed, so nothing anybody was told
// is lost; a write's own error reaches only its caller, as before.
//
// Written by hand because no library does it: Kysely's SqliteDialect runs each statement as it comes, and
// better-sqlite3 is synchronous, so the queue, the mutex and the answers after the commit are this driver's. Reads run
// at once (they may see writes of the turn not committed yet, which only ever commit or fail together with the
// disk); so does anything inside an explicit transaction, and statements that manage the connection (pragma, begin…).
// Kysely's `db.connection()` (its migrator's way on SQLite) keeps the connection to itself only until its first held
// write; the service uses it for nothing else, and nothing runs beside the migrations at start.
import type SQLite from 'better-sqlite3';
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

export interface GroupCommitOptions {
  file: SQLite.Database;
  /** Prepares (or finds prepared) a statement's text. */
  prepare(text: string): SQLite.Statement;
  /** Called for the `begin` and `commit` of each group of more than one write (the statement counter, the trace). */
  onGroupStatement?(text: 'begin' | 'commit', writes: number): void;
}

/** Statements that manage the connection or a transaction: never held back. */
const CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release|pragma|vacuum|attach|detach|analyze|reindex)\b/i;

interface Pending {
  statement: SQLite.Statement;
  parameters: readonly unknown[];
  resolve(result: QueryResult<unknown>): void;
  reject(error: unknown): void;
}

/** Kysely's dialect for SQLite, with writes committed in groups. */
export function groupCommitDialect(options: GroupCommitOptions): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new GroupCommitDriver(options),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

/** One at a time on the one connection: a caller's query, a caller's transaction, or a group's flush. */
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
 * What Kysely holds between acquiring and releasing the connection. One per acquisition (reused), because a queued
 * write gives the mutex back before Kysely releases: the next caller must not be released by this one's release.
 */
class Lease implements DatabaseConnection {
  held = false;
  constructor(private readonly driver: GroupCommitDriver) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute(this, query) as Promise<QueryResult<R>>;
  }
  // biome-ignore lint/correctness/useYield: Kysely's interface; the service never streams (database.ts).
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries is not supported on SQLite here');
  }
}

class GroupCommitDriver implements Driver {
  readonly #file: SQLite.Database;
  readonly #prepare: (text: string) => SQLite.Statement;
  readonly #onGroupStatement: GroupCommitOptions['onGroupStatement'];
  readonly #mutex = new Mutex();
  readonly #free: Lease[] = [];
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(options: GroupCommitOptions) {
    this.#file = options.file;
    this.#prepare = options.prepare;
    this.#onGroupStatement = options.onGroupStatement;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    const lease = this.#free.pop() ?? new Lease(this);
    lease.held = true;
    return lease;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.held) {
      lease.held = false;
      this.#mutex.unlock();
    }
    this.#free.push(lease);
  }

  // Through the lease, as Kysely's own driver does, so that its log (the statement counter) sees them.
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    if (this.#queue.length > 0) await this.#flush();
    this.#file.close();
  }

  execute(lease: Lease, query: CompiledQuery): Promise<QueryResult<unknown>> {
    const statement = this.#prepare(query.sql);
    // Inside an explicit transaction the transaction is the group; reads and connection statements do not wait.
    if (statement.readonly || this.#file.inTransaction || CONTROL.test(query.sql)) {
      return Promise.resolve(run(statement, query.parameters));
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ statement, parameters: query.parameters, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
      // The connection is free for the next caller while this one waits for the group's commit.
      lease.held = false;
      this.#mutex.unlock();
    });
  }

  async #flush(): Promise<void> {
    await this.#mutex.lock();
    this.#scheduled = false;
    const group = this.#queue;
    this.#queue = [];
    try {
      this.#commitGroup(group);
    } finally {
      this.#mutex.unlock();
    }
  }

  /** Runs the writes in one transaction and answers them once it committed. */
  #commitGroup(group: Pending[]): void {
    if (group.length === 0) return;
    if (group.length === 1 || this.#file.inTransaction) {
      for (const pending of group) settle(pending);
      return;
    }
    this.#statement('begin', group.length);
    const done: Array<[Pending, QueryResult<unknown>]> = [];
    for (let i = 0; i < group.length; i++) {
      const pending = group[i];
      try {
        done.push([pending, run(pending.statement, pending.parameters)]);
      } catch (error) {
        pending.reject(error);
        // Most errors undo their own statement only. One that ended the transaction (a full disk, an I/O error)
        // undid the writes before it too: they are run again in a group of their own with the ones after it.
        if (!this.#file.inTransaction) {
          this.#commitGroup([...done.map(([earlier]) => earlier), ...group.slice(i + 1)]);
          return;
        }
      }
    }
    try {
      this.#statement('commit', group.length);
    } catch (error) {
      if (this.#file.inTransaction) run(this.#prepare('rollback'), []);
      for (const [pending] of done) pending.reject(error);
      return;
    }
    for (const [pending, result] of done) pending.resolve(result);
  }

  #statement(text: 'begin' | 'commit', writes: number): void {
    run(this.#prepare(text), []);
    this.#onGroupStatement?.(text, writes);
  }
}

function settle(pending: Pending): void {
  let result: QueryResult<unknown>;
  try {
    result = run(pending.statement, pending.parameters);
  } catch (error) {
    pending.reject(error);
    return;
  }
  pending.resolve(result);
}

/** One statement, answered as Kysely's own SQLite driver answers it. */
function run(statement: SQLite.Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
    insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
    rows: [],
  };
}
