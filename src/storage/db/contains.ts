// Case-insensitive substring search, the same on SQLite and PostgreSQL (keyword and search filters of every list).
import { type Expression, sql } from 'kysely';

/** `lower(column) LIKE %keyword%`, with `%`, `_` and `\` in the keyword matched literally. */
export function containsIgnoringCase(column: Expression<string>, keyword: string) {
  const like = `%${keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // ESCAPE is explicit: PostgreSQL defaults to backslash, SQLite has no escape character without it.
  return sql<boolean>`lower(${column}) like ${like} escape '\\'`;
}
