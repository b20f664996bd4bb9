// Runs a keyset-paginated query for a PageRequest: ORDER BY (sort key, id) in one direction, so that rows with equal
// names or timestamps are never skipped or repeated, plus an exact total count of the filtered set.
import { type SelectQueryBuilder, sql } from 'kysely';
import { encodeCursor, type OrderBy, type Page, type PageRequest } from '../../domain/page.js';

/** For each orderBy value, the SQL expression of the sort key (ID needs none: the id breaks every tie). */
export type SortColumns = Record<Exclude<OrderBy, 'ID'>, string>;

export async function paginate<Row extends { id: number }>(
  // biome-ignore lint/suspicious/noExplicitAny: the helper works on any table; callers type the rows they select.
  query: SelectQueryBuilder<any, any, any>,
  page: PageRequest,
  idColumn: string,
  sortColumns: SortColumns,
): Promise<Page<Row>> {
  const id = sql.ref(idColumn);
  // NAME sorts case-insensitively; the expression is the same in SELECT, WHERE and ORDER BY, so the keyset holds.
  const key =
    page.orderBy === 'ID'
      ? id
      : page.orderBy === 'NAME'
        ? sql`lower(${sql.ref(sortColumns.NAME)})`
        : sql.ref(sortColumns[page.orderBy]);
  const dir = page.direction === 'ASC' ? sql`asc` : sql`desc`;
  const cmp = page.direction === 'ASC' ? sql`>` : sql`<`;

  const countRow = await query.clearSelect().select(sql<number>`count(*)`.as('n')).executeTakeFirst();

  let rows = query.select(key.as('_sort_key')).orderBy(sql`${key} ${dir}`).orderBy(sql`${id} ${dir}`);
  if (page.after) {
    rows = rows.where(sql<boolean>`(${key}, ${id}) ${cmp} (${page.after.key}, ${page.after.id})`);
  }
  const found = (await rows.limit(page.limit + 1).execute()) as Array<Row & { _sort_key: string | number }>;
  const hasNextPage = found.length > page.limit;
  const nodes = hasNextPage ? found.slice(0, page.limit) : found;
  const last = nodes.at(-1);
  return {
    totalCount: Number(countRow?.n ?? 0),
    nodes: nodes.map(({ _sort_key, ...rest }) => rest as unknown as Row),
    pageInfo: { hasNextPage, endCursor: last ? encodeCursor(page.fingerprint, last._sort_key, last.id) : '' },
  };
}
