// The https receiver of bench/webhooks.bench.mjs as a process of its own, like a business's server:
// its TLS and HTTP work is not done on the event loop of the load generator that timestamps the
// producer's commits. Forked with IPC; the CA's key and certificate come in RECEIVER_CA (JSON).
// Answers `{ id, path, op: 'count' | 'received' }` with `{ id, value }`.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** @type {typeof import('../libs/testing/src/index.js')} */
const { HttpsReceiver } = createRequire(import.meta.url)(join(root, 'dist/libs/testing/src/index.js'));
/** This process, forked with an IPC channel: it has `send`. */
const forked = /** @type {NodeJS.Process & { send: NonNullable<NodeJS.Process['send']> }} */ (process);

const receiver = await HttpsReceiver.start(JSON.parse(/** @type {string} */ (process.env.RECEIVER_CA)));
process.on('message', (/** @type {{ id: number, op: 'count' | 'received', path: string }} */ { id, op, path }) => {
  const requests = receiver.received(path);
  const value =
    op === 'count'
      ? requests.length
      : requests.map((r) => ({ eventId: r.headers['x-svc-event-id'], body: r.body.toString('utf8'), receivedAt: r.receivedAt }));
  forked.send({ id, value });
});
process.on('disconnect', () => void receiver.close().then(() => process.exit(0)));
forked.send({ port: receiver.port });
