// Hot statements built once (issue 21: Kysely's query building and compiling was about 9% of the main thread's CPU
// per export). A statement is built with named placeholders and compiled on its first run against a database; every
// run then executes that CompiledQuery with the placeholders' values put in a copy of its parameters (Kysely's
// `executeQuery`, which the log hook still counts). better-sqlite3 keeps the statement prepared (database.ts).
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from './schema.js';

const MARK = '\u0000placard-placeholder:';

type Placeholder<P> = <K extends keyof P & string>(name: K) => P[K];

/**
 * A statement whose shape never changes, run with `values` for its placeholders: `build(p)` makes it, `p('name')`
 * standing for a value. Compiled once per database (its dialect decides the SQL); a transaction of that database
 * compiles its own once, so use it for statements that run outside transactions.
 */
export function prepared<P extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>, p: Placeholder<P>) => Compilable<R>,
): (db: Kysely<Database>, values: P) => Promise<QueryResult<R>> {
  const compiled = new WeakMap<Kysely<Database>, { query: CompiledQuery<R>; slots: Array<string | null> }>();
  const placeholder = ((name: string) => `${MARK}${name}`) as Placeholder<P>;
  return (db, values) => {
    let entry = compiled.get(db);
    if (!entry) {
      const query = build(db, placeholder).compile();
      const slots = query.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length) : null,
      );
      entry = { query, slots };
      compiled.set(db, entry);
    }
    const { query, slots } = entry;
    const parameters = query.parameters.map((value, i) => {
      const slot = slots[i];
      return slot === null ? value : values[slot];
    });
    return db.executeQuery<R>({ ...query, parameters });
  };
}
