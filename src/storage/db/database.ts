// Opens the metadata database: SQLite (WAL, foreign keys on) under the data dir by default, PostgreSQL when a
// DATABASE_URL is configured. Repositories only ever see the Kysely instance and the dialect name.
import fs from 'node:fs';
import path from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, type LogEvent, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import { listenForInvalidations } from './invalidation.js';
import { namePreparedStatements } from './pg-prepared.js';
import type { Database } from './schema.js';
import { sqliteThreadDialect } from './sqlite-thread.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /**
   * SQL statements run since the database was opened (transaction begin/commit/rollback included): the test hook of
   * issue 21, read by `placard_sql_statements_total`, the statement-count test and `npm run bench -- exports`.
   */
  statements(): number;
  /** A trivial round trip, for /readyz. */
  ping(): Promise<void>;
  /** SQLite: the port that statements' forwards go to (sqlite-thread.ts); PostgreSQL has none. */
  link?: (port: MessagePort) => void;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl: string | null;
  dataDir: string;
  /**
   * SQLite: how often the checkpoint thread copies the WAL into the database (checkpointer.ts). 0: no thread, SQLite
   * checkpoints on commit as it does by default. Default 200 ms.
   */
  checkpointEveryMs?: number;
}

/**
 * SQLite's page cache of the main connection: SQLite's own default of 2 MiB, on purpose. A commit after a B-tree
 * balance that swapped two pages (SQLite parks one at the lock-byte page's number on the way) walks every page in the
 * cache (pcache1Truncate), so the larger the cache, the dearer such commits: with 64 MiB, single-row commits into an
 * indexed table rose from 40 to 90 µs as a 100 MB database filled the cache, against 40 to 49 µs with 2 MiB
 * (issue 21, stop 23). Reads of the file go through the memory map, not the cache.
 */
const SQLITE_CACHE_KIB = 2 * 1024;
/** How much of the SQLite file is read through a memory map (default none). */
const SQLITE_MMAP_BYTES = 256 * 1024 * 1024;
const SQLITE_WAL_LIMIT_BYTES = 64 * 1024 * 1024;

// PostgreSQL returns int8 (count(*), bigint) as strings; every count we make fits a JS number.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export function openDatabase(options: DbOptions): Db {
  // Kysely's log hook sees every statement it sends, begin and commit included (they run through the same
  // connection); counting there costs an increment per statement.
  let statements = 0;
  const trace = process.env.PLACARD_SQL_TRACE === '1';
  const log = (event: LogEvent) => {
    if (event.level === 'query') statements += 1;
    if (trace && event.level === 'query') {
      process.stderr.write(`SQL ${event.query.sql.replace(/\s+/g, ' ').trim().slice(0, 200)}  ← ${origin()}\n`);
    }
  };
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
    });
    namePreparedStatements(pool);
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    // Other processes' writes reach this process's caches through it (caches are bypassed until it listens).
    const invalidations = listenForInvalidations(options.databaseUrl);
    return {
      kysely,
      dialect: 'postgres',
      statements: () => statements,
      ping: async () => {
        await sql`select 1`.execute(kysely);
      },
      close: async () => {
        await invalidations.close();
        await kysely.destroy();
      },
    };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const dbPath = path.join(options.dataDir, 'placard.sqlite');
  // It holds webhook signing secrets: readable by the service's user only, like the server secret. Created empty
  // with 0600 before SQLite opens it (SQLite would create it with the umask); an existing file is narrowed too.
  fs.closeSync(fs.openSync(dbPath, 'a', 0o600));
  fs.chmodSync(dbPath, 0o600);
  // Opened here once, so that a file SQLite cannot open fails at once, with its own message; the connection the
  // service uses is the thread's (sqlite-thread.ts). The WAL is a setting of the file: kept from here on.
  const probe = new SQLite(dbPath);
  probe.pragma('journal_mode = WAL');
  probe.close();
  const checkpoints = options.checkpointEveryMs !== 0;
  const dialect = sqliteThreadDialect({
    file: dbPath,
    pragmas: [
      'foreign_keys = ON',
      'busy_timeout = 5000',
      'synchronous = NORMAL',
      `cache_size = -${SQLITE_CACHE_KIB}`,
      // Reads of the file are copies from the memory map rather than read() calls (issue 21: `read` and `fstat` showed
      // in the profile).
      `mmap_size = ${SQLITE_MMAP_BYTES}`,
      // Statement journals (a write inside a group commit's transaction keeps one, to undo itself alone) and sorts
      // stay in memory: a journal over 64 KiB went to a file in /var/tmp that SQLite created and unlinked, seven
      // system calls for every other export at c=16 (issue 21, stop 23). What they hold is bounded by one statement.
      'temp_store = MEMORY',
      // A WAL that grew (a burst of writes) is cut back to this when it restarts.
      `journal_size_limit = ${SQLITE_WAL_LIMIT_BYTES}`,
      ...(checkpoints ? ['wal_autocheckpoint = 0'] : []),
    ],
    // A group's begin and commit are statements too: counted and traced like those Kysely sends.
    onGroupStatement: (text, writes) => {
      statements += 1;
      if (trace) process.stderr.write(`SQL ${text} (a group of ${writes} writes)\n`);
    },
  });
  const kysely = new Kysely<Database>({ dialect, log });
  let checkpointer: Checkpointer | undefined;
  // The WAL is checkpointed on a thread of its own (checkpointer.ts); if that thread cannot run, SQLite's own
  // checkpoints on commit come back.
  if (checkpoints) {
    checkpointer = startCheckpointer(dbPath, {
      everyMs: options.checkpointEveryMs ?? 200,
      // Through Kysely, so that it runs between statements and never inside another caller's transaction.
      restart: async () => {
        await sql`pragma wal_checkpoint(PASSIVE)`.execute(kysely);
      },
      onFailure: () => {
        sql`pragma wal_autocheckpoint = 1000`.execute(kysely).catch(() => undefined);
      },
    });
  }
  return {
    kysely,
    dialect: 'sqlite',
    statements: () => statements,
    link: (port) => dialect.link(port),
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: async () => {
      // The thread's last checkpoint first; SQLite checkpoints again as the last connection closes.
      await checkpointer?.stop();
      await kysely.destroy();
    },
  };
}

/** The first frames of the service's own code below the database layer: who issued a traced statement. */
function origin(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  const own = frames
    .map((frame) => /src\/(.+?):(\d+):\d+/.exec(frame))
    .filter((m): m is RegExpExecArray => m !== null && !m[1].startsWith('storage/db/database'))
    .map((m) => `${m[1]}:${m[2]}`);
  return own.slice(0, 3).join(' < ') || '?';
}

/** ISO 8601 UTC with milliseconds, the one timestamp format of the service. */
export function now(): string {
  return new Date().toISOString();
}
