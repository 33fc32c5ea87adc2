import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, RunningProcess, waitForOutput } from './processes';

/** A Redis of the test's own, on a free port, that the test may stop and start (never the shared one). */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit; its data is gone (nothing is saved). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT); it then answers what it was sent. */
  resume(): void;
}

const READY = 'Ready to accept connections';
const REPLICA_SYNCED = 'MASTER <-> REPLICA sync: Finished with success';

/**
 * Spawns `redis-server` (no persistence, loopback only) and waits until it accepts connections;
 * with `replicaOf`, as a replica of the private Redis on that port, once it has synchronised;
 * on `port` (default: a free one of this worker's block).
 */
export async function startPrivateRedis(timeoutMs = 10_000, options: { replicaOf?: number; port?: number } = {}): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  let running: RunningProcess | undefined;
  const replica = options.replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(options.replicaOf)];
  // Its own working directory, new at each start: a replica stores the master's snapshot there,
  // and a server must never load a file another one left.
  let dir: string | undefined;
  const start = async () => {
    if (running) return;
    dir = mkdtempSync(join(tmpdir(), 'redis-'));
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...replica],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    running = await waitForOutput(child, replica.length > 0 ? REPLICA_SYNCED : READY, timeoutMs);
  };
  const stop = async () => {
    const stopping = running;
    running = undefined;
    stopping?.process.kill('SIGCONT'); // a paused server could not act on SIGTERM
    await stopping?.stop('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  const signal = (name: NodeJS.Signals) => {
    if (!running) throw new Error('the private Redis is not running');
    running.process.kill(name);
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, pause: () => signal('SIGSTOP'), resume: () => signal('SIGCONT') };
}

/** A Redis Sentinel of the test's own, watching private Redis servers. */
export interface PrivateSentinel {
  port: number;
  /** What it has logged so far (`+slave …` when it found a replica, `+switch-master …` after a failover). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Spawns `redis-server --sentinel` on a free port, monitoring the master on `masterPort` as
 * `masterName` with a quorum of one (this sentinel alone decides) and a 1 s down-after, so that a
 * stopped master fails over within seconds. Waits until it monitors the master.
 */
export async function startPrivateSentinel(masterPort: number, masterName: string, timeoutMs = 10_000): Promise<PrivateSentinel> {
  const port = await freePort();
  // Sentinel rewrites its configuration file as it learns: a file of its own.
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-'));
  const config = join(dir, 'sentinel.conf');
  writeFileSync(
    config,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 1`,
      `sentinel down-after-milliseconds ${masterName} 1000`,
      `sentinel failover-timeout ${masterName} 5000`,
      '',
    ].join('\n'),
  );
  const child = spawn('redis-server', [config, '--sentinel'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const running = await waitForOutput(child, `+monitor master ${masterName}`, timeoutMs);
  return {
    port,
    output: running.output,
    stop: async () => {
      await running.stop('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis Cluster of the test's own: masters on free ports, the slots spread over them, no replicas. */
export interface PrivateRedisCluster {
  /** host:port of every master. */
  nodes: string[];
  stop(): Promise<void>;
}

/** Spawns `masters` cluster-enabled servers, joins them with `redis-cli --cluster create`, and waits until the cluster is ok. */
export async function startPrivateRedisCluster(masters = 3, timeoutMs = 20_000): Promise<PrivateRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const servers: RunningProcess[] = [];
  const nodes: string[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i += 1) {
      const port = await freePort();
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
      const cluster = ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`];
      servers.push(
        await waitForOutput(spawn('redis-server', [...args, ...cluster], { stdio: ['ignore', 'pipe', 'pipe'] }), READY, timeoutMs),
      );
      nodes.push(`127.0.0.1:${port}`);
    }
    const create = spawn('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
    await (await waitForOutput(create, '[OK] All 16384 slots covered', timeoutMs)).stop();
    // Every node must see every slot served before a client's first command.
    const deadline = Date.now() + timeoutMs;
    for (const node of nodes) {
      for (;;) {
        const info = spawnSync('redis-cli', ['-p', node.split(':')[1]!, 'cluster', 'info'], { encoding: 'utf8' }).stdout;
        if (info.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new Error(`cluster not ok on ${node}:\n${info}`);
        await sleep(100);
      }
    }
    return { nodes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
