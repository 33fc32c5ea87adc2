import { PlatformConfig } from './tokens';
import { ReadinessService } from './readiness.service';

const config = { SHUTDOWN_DELAY_MS: 0 } as PlatformConfig;
const fails = (message: string) => async () => Promise.reject(new Error(message));

describe('ReadinessService', () => {
  it('is ready when every check answers', async () => {
    const readiness = new ReadinessService(config);
    readiness.register('postgres', async () => 1);
    readiness.register('redis', async () => 'PONG', { critical: false });
    expect(await readiness.report()).toEqual({ ready: true, degraded: [], checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('stays ready but names as degraded a non-critical check that fails', async () => {
    const readiness = new ReadinessService(config);
    readiness.register('postgres', async () => 1);
    readiness.register('redis', fails('connect ECONNREFUSED'), { critical: false });
    readiness.register('rabbitmq', fails('disconnected'), { critical: false });
    expect(await readiness.report()).toEqual({
      ready: true,
      degraded: ['rabbitmq', 'redis'],
      checks: { postgres: 'ok', redis: 'connect ECONNREFUSED', rabbitmq: 'disconnected' },
    });
  });

  it('is not ready when a critical check fails', async () => {
    const readiness = new ReadinessService(config);
    readiness.register('postgres', fails('timeout'));
    readiness.register('redis', async () => 'PONG', { critical: false });
    expect(await readiness.report()).toMatchObject({ ready: false, checks: { postgres: 'timeout', redis: 'ok' } });
  });
});
