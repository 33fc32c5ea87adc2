import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/**
 * `npm run chaos` for 90 s (the outage tier: it restarts the shared RabbitMQ): two replicas of
 * every app behind HAProxy, replicas killed and paused, RabbitMQ, PostgreSQL and Redis restarted under
 * a real workload, and nothing acknowledged lost, duplicated or answered with an unexpected 5xx.
 */
describe('chaos: two replicas of everything, faults at random (tools/chaos)', () => {
  // Its figures go to a file of its own, not to bench/results.
  const resultFile = join(tmpdir(), `chaos-outage-spec-${process.pid}.json`);
  afterAll(() => rmSync(resultFile, { force: true }));

  it('loses nothing, duplicates nothing and answers no unexpected 5xx', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'tools/chaos/chaos.mjs')], {
      env: {
        ...process.env,
        CHAOS_MINUTES: '1.5',
        CHAOS_BASELINE_SECONDS: '20',
        CHAOS_DRAIN_SECONDS: '150',
        CHAOS_RESULT_FILE: resultFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    const last = output.trim().split('\n').at(-1) ?? '';
    if (code !== 0) process.stderr.write(output.slice(-20_000));
    expect(last).toMatch(/^chaos: \d+ writes, \d+ events, \d+ deliveries, \d+ replies; lost 0, duplicated 0, unexpected_5xx 0$/);
    expect(code).toBe(0);
  }, 540_000);
});
