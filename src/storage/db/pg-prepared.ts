// Named prepared statements on PostgreSQL (issue 21, stop 30). Kysely sends each statement through pg unnamed, so
// PostgreSQL parses and plans it again on every run: for the export path's few statements, sent thousands of times a
// second, that was the better part of the database's CPU (a paired scaled-out run: +9 % exports a second with names).
// pg prepares a named statement once per connection and then only binds and executes it. Neither Kysely nor pg names
// statements by themselves, so the pool's clients are wrapped here: a statement text seen a second time on a
// connection gets a name of its own on that connection. A connection names at most MAX_NAMED texts (a statement whose
// text varies, an IN list of any length, would otherwise grow the server's memory without end); beyond that it runs
// unnamed, as before.
//
// What a name can meet, and what is done then:
// - "cached plan must not change result type" (0A000): a migration changed a table under a running process. The text
//   gets a new name, so the next run prepares it again; outside a transaction it is run again at once (nothing ran).
// - the name is unknown or taken on the server (26000, 42P05): a pooler between us and PostgreSQL that does not keep
//   a session's statements (PgBouncer in transaction mode before 1.21). The connection stops naming; outside a
//   transaction the statement is run again, unnamed.
// Inside a transaction the error aborts it, as any error would, and the caller's retry (a job's) runs it again.
import type pg from 'pg';

/** Distinct statement texts a connection names; more run unnamed. */
const MAX_NAMED = 500;
/** Distinct texts a connection counts while waiting for their second run; more are never named. */
const MAX_COUNTED = 2_000;

/** PostgreSQL error codes a named statement can fail with before anything ran (see above). */
const PLAN_CHANGED = '0A000';
const NAME_LOST = new Set(['26000', '42P05']);

type Query = (text: unknown, values?: unknown, callback?: unknown) => Promise<unknown>;

/** Wraps every client the pool opens from now on. */
export function namePreparedStatements(pool: pg.Pool): void {
  let generation = 0;
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as unknown as Query;
    /** Text → its name on this connection, or 1 once it ran unnamed. */
    const seen = new Map<string, string | 1>();
    let named = 0;
    let naming = true;
    let inTransaction = false;

    function nameOf(text: string): string | undefined {
      const state = seen.get(text);
      if (typeof state === 'string') return state;
      if (!naming || named >= MAX_NAMED) return undefined;
      if (state === undefined) {
        if (seen.size < MAX_COUNTED) seen.set(text, 1);
        return undefined;
      }
      const name = `placard_${generation++}`;
      seen.set(text, name);
      named += 1;
      return name;
    }

    async function run(text: string, values: unknown[]): Promise<unknown> {
      const name = nameOf(text);
      if (name === undefined) return original(text, values);
      try {
        return await original({ name, text, values });
      } catch (error) {
        const code = (error as { code?: string }).code;
        const lost = code !== undefined && NAME_LOST.has(code);
        if (code !== PLAN_CHANGED && !lost) throw error;
        if (lost) naming = false;
        // Its next run prepares it again under a new name (pg keeps a name bound to its first text).
        seen.set(text, 1);
        if (inTransaction) throw error;
        return original(text, values);
      }
    }

    client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
      // Kysely's calls only: a text and its values, answered by a promise. Anything else goes through as it is.
      if (typeof text !== 'string' || !Array.isArray(values) || callback !== undefined) {
        return original(text, values, callback);
      }
      const head = text.trimStart().slice(0, 20).toLowerCase();
      if (head.startsWith('begin') || head.startsWith('start transaction')) inTransaction = true;
      else if (head.startsWith('commit') || (head.startsWith('rollback') && !head.startsWith('rollback to'))) {
        inTransaction = false;
      }
      // Without values pg sends a text as a simple query, which may hold several statements (a named one may not);
      // transaction control has none.
      return values.length === 0 ? original(text, values) : run(text, values);
    }) as typeof client.query;
  });
}
