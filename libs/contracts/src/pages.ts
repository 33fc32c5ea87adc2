/** Every listing: items under the listing's name (`items`, `events`, …), `next_after` and `more`. */
export type Page<Key extends string, Item, Cursor> = { [K in Key]: Item[] } & { next_after: Cursor; more: boolean };

export interface PageOptions<Row, Item, Cursor> {
  /** The page size the rows were read for, with `limit + 1`. */
  limit: number;
  /** The `after` the page was read from: `next_after` again when the page is empty. */
  after: Cursor;
  /** The cursor of a row: `next_after` is the last row's. */
  cursor: (row: Row) => Cursor;
  /** The items of the page's rows (only those: the row past the page is never mapped). */
  items: (rows: Row[]) => Item[] | Promise<Item[]>;
}

/** A page from `limit + 1` rows read: the extra row only says that `more` follow. */
export async function toPage<Key extends string, Row, Item, Cursor>(
  key: Key,
  fetched: readonly Row[],
  { limit, after, cursor, items }: PageOptions<Row, Item, Cursor>,
): Promise<Page<Key, Item, Cursor>> {
  const rows = fetched.slice(0, limit);
  const last = rows.at(-1);
  const page = { [key]: await items(rows), next_after: last === undefined ? after : cursor(last), more: fetched.length > limit };
  return page as Page<Key, Item, Cursor>;
}
