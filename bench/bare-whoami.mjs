// The baseline of bench/gateway.bench.mjs: a bare Fastify process answering GET /api/v1/whoami
// with a fixed body (no auth, no logs, no metrics), started with the gateway's environment
// (NODE_ENV=production). BODY and PORT come from the environment.
import Fastify from 'fastify';

const body = JSON.parse(process.env.BODY ?? '{}');
const app = Fastify();
app.get('/api/v1/whoami', async () => body);
app.get('/readyz', async () => ({ status: 'ready' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
