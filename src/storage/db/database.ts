// Opens the metadata database: SQLite (WAL, foreign keys on) under the data dir by default, PostgreSQL when a
// DATABASE_URL is configured. Repositories only ever see the Kysely instance and the dialect name.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** A trivial round trip, for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl: string | null;
  dataDir: string;
}

// PostgreSQL returns int8 (count(*), bigint) as strings; every count we make fits a JS number.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export function openDatabase(options: DbOptions): Db {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
    });
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      kysely,
      dialect: 'postgres',
      ping: async () => {
        await sql`select 1`.execute(kysely);
      },
      close: () => kysely.destroy(),
    };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const dbPath = path.join(options.dataDir, 'placard.sqlite');
  // It holds webhook signing secrets: readable by the service's user only, like the server secret. Created empty
  // with 0600 before SQLite opens it (SQLite would create it with the umask); an existing file is narrowed too.
  fs.closeSync(fs.openSync(dbPath, 'a', 0o600));
  fs.chmodSync(dbPath, 0o600);
  const file = new SQLite(dbPath);
  file.pragma('journal_mode = WAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  file.pragma('synchronous = NORMAL');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
  return {
    kysely,
    dialect: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}

/** ISO 8601 UTC with milliseconds, the one timestamp format of the service. */
export function now(): string {
  return new Date().toISOString();
}

/**
 * Kysely prepares every query anew, and preparing costs as much as running a small query; this keeps the last few
 * hundred statements prepared. Reusing one statement is safe because every use runs to completion synchronously
 * (`all`/`run`); we never stream with `iterate`, which would hold a statement open.
 */
function withStatementCache(file: SQLite.Database, size = 500): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => file.close(),
    prepare(text: string) {
      let statement = cache.get(text);
      if (statement) {
        cache.delete(text);
      } else {
        statement = file.prepare(text);
        if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      }
      cache.set(text, statement);
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}
