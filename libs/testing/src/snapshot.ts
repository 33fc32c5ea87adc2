import { DataSource } from 'typeorm';

/** The schemas the public API writes in its own transactions (`events` is written by consumers, later; `gateway` holds the accounts). */
const API_SCHEMAS = ['contacts', 'identity', 'knowledge', 'webhooks'];

/**
 * A fingerprint of everything the API has written: per table, a hash of its rows (outboxes only
 * counted, since their relays mark rows sent at any moment). Two equal snapshots taken around a
 * refused request prove that it wrote nothing.
 */
export async function dataSnapshot(dataSource: DataSource): Promise<Record<string, string>> {
  const tables: Array<{ schemaname: string; tablename: string }> = await dataSource.query(
    `SELECT schemaname, tablename FROM pg_tables WHERE schemaname = ANY($1) ORDER BY 1, 2`,
    [API_SCHEMAS],
  );
  if (tables.length === 0) return {};
  const parts = tables.map(({ schemaname, tablename }) => {
    const name = `"${schemaname}"."${tablename}"`;
    const label = `'${schemaname}.${tablename}'`;
    return tablename === 'outbox'
      ? `SELECT ${label} AS name, count(*)::text AS fingerprint FROM ${name}`
      : `SELECT ${label} AS name, count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS fingerprint FROM ${name} t`;
  });
  const rows: Array<{ name: string; fingerprint: string }> = await dataSource.query(parts.join(' UNION ALL '));
  return Object.fromEntries(rows.map((row) => [row.name, row.fingerprint]));
}
