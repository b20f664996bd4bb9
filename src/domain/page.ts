// Keyset pagination, independent of HTTP and SQL (SPEC §4): opaque cursors that encode the sort key and the id of
// the last row, bound to the query they came from so that a cursor of another query is refused.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';

export const ORDER_BY = ['ID', 'NAME', 'CREATED_AT', 'UPDATED_AT'] as const;
export type OrderBy = (typeof ORDER_BY)[number];
export type OrderDirection = 'ASC' | 'DESC';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface PageRequest {
  limit: number;
  orderBy: OrderBy;
  direction: OrderDirection;
  /** Position after which the page starts, decoded from the cursor. */
  after: { key: string | number; id: number } | null;
  /** Identifies the query (filters and order); cursors carry it. */
  fingerprint: string;
}

export interface PageInfo {
  hasNextPage: boolean;
  /** Always a string, as the seed types it: '' on an empty page, where an empty `cursor` starts from the beginning. */
  endCursor: string;
}

export interface Page<T> {
  totalCount: number;
  nodes: T[];
  pageInfo: PageInfo;
}

export interface PageQuery {
  limit?: number;
  cursor?: string;
  orderBy?: OrderBy;
  orderDirection?: OrderDirection;
}

function fingerprintOf(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 12);
}

/**
 * Turns the query-string paging parameters into a PageRequest. `filters` must hold every filter that shapes the
 * result set (keyword, projectId…), so that a cursor cannot be replayed against a different query.
 */
export function pageRequest(
  query: PageQuery,
  filters: Record<string, unknown>,
  defaults: { orderBy: OrderBy; direction: OrderDirection },
): PageRequest {
  const orderBy = query.orderBy ?? defaults.orderBy;
  const direction = query.orderDirection ?? defaults.direction;
  const limit = query.limit ?? DEFAULT_LIMIT;
  const fingerprint = fingerprintOf([filters, orderBy, direction]);
  return {
    limit,
    orderBy,
    direction,
    fingerprint,
    after: query.cursor ? decodeCursor(query.cursor, fingerprint, orderBy) : null,
  };
}

export function encodeCursor(fingerprint: string, key: string | number, id: number): string {
  return Buffer.from(JSON.stringify({ f: fingerprint, k: key, i: id })).toString('base64url');
}

function decodeCursor(cursor: string, fingerprint: string, orderBy: OrderBy): { key: string | number; id: number } {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new AppError(
      'INVALID_CURSOR',
      'cursor: is not a cursor issued by this API; pass the endCursor of the previous page',
    );
  }
  const c = parsed as { f?: unknown; k?: unknown; i?: unknown };
  if (
    typeof c !== 'object' ||
    c === null ||
    typeof c.f !== 'string' ||
    !Number.isSafeInteger(c.i) ||
    (typeof c.k !== 'string' && typeof c.k !== 'number')
  ) {
    throw new AppError(
      'INVALID_CURSOR',
      'cursor: is not a cursor issued by this API; pass the endCursor of the previous page',
    );
  }
  if (c.f !== fingerprint) {
    throw new AppError(
      'INVALID_CURSOR',
      'cursor: belongs to a query with other filters or another order; repeat the query that produced it or start without a cursor',
    );
  }
  // The key goes into SQL next to the sort column: an edited cursor must not compare an id with text (a 500 on
  // PostgreSQL) or a name with a number (a silently wrong page on SQLite).
  if (orderBy === 'ID' ? !Number.isSafeInteger(c.k) : typeof c.k !== 'string') {
    throw new AppError(
      'INVALID_CURSOR',
      'cursor: is not a cursor issued by this API; pass the endCursor of the previous page',
    );
  }
  return { key: c.k, id: c.i as number };
}
