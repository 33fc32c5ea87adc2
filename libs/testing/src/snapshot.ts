import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';

/** The schemas the public API writes in its own transactions (`events` is written by consumers, later; `gateway` holds the accounts). */
const API_SCHEMAS = ['contacts', 'identity', 'knowledge', 'webhooks'];

/**
 * Tables written later by consumers and relays, not by the API's own transactions: deliveries and
 * their attempts (the dispatcher), the records of erased customers (each consumer of
 * `contact.erased`), and outboxes (a relay deletes what it published at any moment; an outbox row
 * is only ever written with the data change it reports, which the other tables show).
 */
const WRITTEN_LATER = new Set([
  'webhooks.deliveries',
  'webhooks.attempts',
  'webhooks.erased_contacts',
  'chat.deliveries',
  'chat.contact_activity',
  // Counters of the visitor limits: a refused attempt may count, like the rate limits kept in Redis.
  'chat.visitor_limits',
]);

/**
 * A fingerprint of everything the API has written: per table, a hash of its rows. Two equal
 * snapshots taken around a refused request prove that it wrote nothing. `schemas`: `chat` too, for the visitor API and MCP.
 */
export async function dataSnapshot(dataSource: DataSource, schemas = API_SCHEMAS): Promise<Record<string, string>> {
  const tables = await queryRows<{ schemaname: string; tablename: string }>(
    dataSource,
    `SELECT schemaname, tablename FROM pg_tables WHERE schemaname = ANY($1) ORDER BY 1, 2`,
    [schemas],
  );
  const written = tables.filter(({ schemaname, tablename }) => tablename !== 'outbox' && !WRITTEN_LATER.has(`${schemaname}.${tablename}`));
  if (written.length === 0) return {};
  const parts = written.map(({ schemaname, tablename }) => {
    const name = `"${schemaname}"."${tablename}"`;
    const label = `'${schemaname}.${tablename}'`;
    return `SELECT ${label} AS name, count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS fingerprint FROM ${name} t`;
  });
  const rows = await queryRows<{ name: string; fingerprint: string }>(dataSource, parts.join(' UNION ALL '));
  return Object.fromEntries(rows.map((row) => [row.name, row.fingerprint]));
}
