import { AmqpClient, OutboxRelay, Publisher } from '@svc/messaging';
import { createDataSource } from '@svc/persistence';
import { createLogger } from '@svc/platform';

/** A producer's outbox relay alone in a process, so that tests can kill -9 it. */
async function main(): Promise<void> {
  const schema = process.env['OUTBOX_SCHEMA'] ?? 'chat';
  const databaseUrl = process.env['DATABASE_URL'] ?? '';
  const logger = createLogger(`${schema}-relay`, process.env['LOG_LEVEL'] ?? 'warn');
  const db = await createDataSource({ schema, url: databaseUrl, migrations: [], poolSize: 4 }).initialize();
  const client = new AmqpClient(process.env['RABBITMQ_URL'] ?? '', logger, `${schema}-relay`);
  const publisher = new Publisher(client, logger);
  const relay = new OutboxRelay(db, publisher, logger, {
    schema,
    databaseUrl,
    batchSize: 200,
    pollIntervalMs: Number(process.env['OUTBOX_POLL_INTERVAL_MS'] ?? 500),
  });
  await client.addSetup(async () => relay.wake());
  await client.start();
  await relay.start();
  process.stdout.write('relay started\n');
  process.once('SIGTERM', () => {
    const stop = async () => {
      await relay.stop();
      await client.close();
      await db.destroy();
    };
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`relay stop failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  });
}

void main();
