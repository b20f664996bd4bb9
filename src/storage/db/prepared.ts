// Hot statements built once (issue 21: Kysely's query building and compiling was about 9% of the main thread's CPU
// per export). A statement is built with named placeholders and compiled on its first run against a database; every
// run then executes that CompiledQuery with the placeholders' values put in a copy of its parameters (Kysely's
// `executeQuery`, which the log hook still counts). better-sqlite3 keeps the statement prepared (database.ts).
import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import { type ForwardedResult, type ForwardingQuery, REPLY_MAY_WAIT } from './sqlite-thread.js';

const MARK = '\u0000placard-placeholder:';

type Placeholder<P> = <K extends keyof P & string>(name: K) => P[K];

/**
 * A statement whose shape never changes, run with `values` for its placeholders: `build(p)` makes it, `p('name')`
 * standing for a value (an `undefined` value is bound as NULL). Compiled once per dialect (the SQL is the query
 * compiler's, which the database and each of its transactions share), so it serves inside transactions too.
 */
export function prepared<P extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>, p: Placeholder<P>) => Compilable<R>,
  options: PreparedOptions = {},
): (db: Kysely<Database>, values: P) => Promise<QueryResult<R>> {
  const run = preparedBy<null, P, R>(
    (db, p) => build(db, p),
    () => '',
    options,
  );
  return (db, values) => run(db, null, values);
}

export interface PreparedOptions {
  /**
   * Nobody waits on the answer to go on with a request (a webhook attempt's record): outside a transaction the SQLite
   * thread may hold it back, committed, until it answers something else (sqlite-thread.ts, REPLY_MAY_WAIT).
   */
  replyMayWait?: boolean;
}

/**
 * As `prepared`, for a statement with a few shapes (the columns of a row, the job kinds of a claim): `build(p, shape)`
 * makes the statement of a shape and `keyOf(shape)` names it; each shape is compiled once per dialect.
 */
export function preparedBy<S, P extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>, p: Placeholder<P>, shape: S) => Compilable<R> | RawBuilder<R>,
  keyOf: (shape: S) => string,
  options: PreparedOptions = {},
): (db: Kysely<Database>, shape: S, values: P, more?: Partial<P>, forward?: unknown) => Promise<ForwardedResult<R>> {
  // Keyed by the adapter's class: one per dialect, whichever Kysely instance (a transaction is one of its own) runs it.
  const compiled = new WeakMap<object, Map<string, { query: CompiledQuery<R>; slots: Array<string | null> }>>();
  const placeholder = ((name: string) => `${MARK}${name}`) as Placeholder<P>;
  // `more`: values of the placeholders that `values` leaves undefined, so that a row already built can be bound as it
  // is, with a few values beside it, rather than copied into a new object with them (issue 21, stop 25). `forward`: a
  // message the SQLite thread posts to its linked port once the statement committed (sqlite-thread.ts).
  return (db, shape, values, more, forward) => {
    const dialect = db.getExecutor().adapter.constructor;
    let shapes = compiled.get(dialect);
    if (!shapes) {
      shapes = new Map();
      compiled.set(dialect, shapes);
    }
    const key = keyOf(shape);
    let entry = shapes.get(key);
    if (!entry) {
      const built = build(db, placeholder, shape);
      // A raw sql`` statement compiles against the database it is given; a query builder knows its own.
      const query =
        'isRawBuilder' in built && built.isRawBuilder
          ? (built as RawBuilder<R>).compile(db)
          : (built as Compilable<R>).compile();
      const slots = query.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length) : null,
      );
      // A comment, so PostgreSQL runs the same statement; only the SQLite thread reads it.
      entry = { query: options.replyMayWait ? { ...query, sql: `${REPLY_MAY_WAIT}${query.sql}` } : query, slots };
      shapes.set(key, entry);
    }
    const { query, slots } = entry;
    const parameters = query.parameters.map((value, i) => {
      const slot = slots[i];
      if (slot === null) return value;
      const given = values[slot];
      return (given === undefined && more ? more[slot] : given) ?? null;
    });
    if (forward === undefined) return db.executeQuery<R>({ ...query, parameters });
    const forwarding: ForwardingQuery<R> = { ...query, parameters, forward };
    return db.executeQuery<R>(forwarding);
  };
}

/**
 * An INSERT of one row whose columns are the keys of the row (its shape: rows built by one function have the same
 * keys), compiled once per table, column list and dialect.
 */
export const insertRow = preparedBy<
  { table: keyof Database; columns: readonly string[]; returning: boolean },
  Record<string, unknown>,
  Record<string, unknown>
>(
  (db, p, { table, columns, returning }) => {
    const insert = db.insertInto(table).values(Object.fromEntries(columns.map((c) => [c, p(c)])) as never);
    return returning ? insert.returningAll() : insert;
  },
  ({ table, columns, returning }) => `${table}:${returning ? 'r' : ''}:${columns.join(',')}`,
);
