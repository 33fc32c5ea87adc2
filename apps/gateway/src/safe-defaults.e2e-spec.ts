import { internalKeysEnv, REPO_ROOT } from '@svc/testing';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** Starts a built app with only `env` (no secret unless given) and returns how it ended. */
function start(app: string, env: Record<string, string>): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/apps', app, 'src/main.js')], {
    env: { PATH: process.env['PATH'] ?? '', PORT: '9', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stderr: result.stderr };
}

describe('safe defaults: an app refuses the published development default of a secret', () => {
  it.each([
    ['gateway', 'GATEWAY_INTERNAL_KEY', {}],
    ['gateway', 'INTERNAL_PUBLIC_KEYS', {}],
    ['contacts-api', 'LOG_PATH_SECRET', { NODE_ENV: 'test' }],
    ['webhook-dispatcher', 'WEBHOOK_SECRET_KEY', internalKeysEnv()],
  ])('%s without %s and without ALLOW_INSECURE_DEV_DEFAULTS exits non-zero, naming both', (app, variable, env: Record<string, string>) => {
    const { status, stderr } = start(app, env);
    expect(status).toBe(1);
    expect(stderr).toContain(
      `${variable} is not set and its development default is published in the repository: set ${variable}, or ALLOW_INSECURE_DEV_DEFAULTS=true`,
    );
  });

  it('gets past the secrets with ALLOW_INSECURE_DEV_DEFAULTS=true (then fails on a bad setting it names, so nothing is started)', () => {
    const { status, stderr } = start('webhook-dispatcher', { ALLOW_INSECURE_DEV_DEFAULTS: 'true', WEBHOOK_RETRY_SCHEDULE: 'soon' });
    expect(status).toBe(1);
    expect(stderr).toContain('WEBHOOK_RETRY_SCHEDULE');
    expect(stderr).not.toContain('is not set');
  });
});
