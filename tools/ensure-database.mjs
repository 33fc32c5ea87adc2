// Creates the database named in DATABASE_URL (default: svc on 127.0.0.1) if it does not exist.
import pg from 'pg';

const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/svc');
const name = decodeURIComponent(url.pathname.slice(1));
const server = new URL(url);
server.pathname = '/postgres';
const client = new pg.Client({ connectionString: server.toString() });
await client.connect();
try {
  const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (rowCount === 0) {
    await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    process.stdout.write(`database: created ${name}\n`);
  }
} finally {
  await client.end();
}
