// Two replicas of every app that serves HTTP (libs/platform SERVICE_PORTS), each on its own ports,
// behind HAProxy: one TCP `listen` per app over the replicas' internal listeners (what a Kubernetes
// Service does) and one HTTP frontend over the two gateways' public ports (the Ingress). The cluster
// is the replicas' supervisor: it restarts what the chaos runner kills, and any replica that exits by
// itself.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** @typedef {import('node:child_process').ChildProcess} ChildProcess */
/**
 * @typedef {object} Ports The cluster's ports: HAProxy's public one, its listener per app, and each replica's.
 * @property {number} public
 * @property {Record<string, number>} services
 * @property {Record<string, { port: number, internalPort: number }[]>} replicas
 */
/**
 * @typedef {object} Incarnation One process of a replica.
 * @property {number | undefined} pid
 * @property {number} startedAt
 * @property {number | null} readyAt
 * @property {number | null} warmRssKb resident memory once it has served a while (chaos.mjs weighs it)
 */
/**
 * @typedef {object} Replica One replica of an app, across its restarts.
 * @property {string} app
 * @property {number} index
 * @property {string} name
 * @property {number} port
 * @property {number} internalPort
 * @property {ChildProcess | null} child its current process (null until it is first started)
 * @property {boolean} expectedExit
 * @property {number} starts
 * @property {number} crashes
 * @property {number} startFailures
 * @property {Incarnation[]} incarnations
 */
/** @typedef {Awaited<ReturnType<typeof startCluster>>} Cluster */

export const REPLICAS = 2;

/** The JSON error a client gets from the load balancer when no replica could answer: the API's own shape. */
const UNAVAILABLE = JSON.stringify({ error: { code: 'unavailable', message: 'The service is temporarily unavailable; retry shortly.' } });

/**
 * The HAProxy configuration of `cluster` (ports in `ports`), 502/503/504 answered as the API's 503.
 * @param {Ports} ports
 * @param {string} errorFile
 */
function haproxyConfig(ports, errorFile) {
  /**
   * @param {string} app
   * @param {'port' | 'internalPort'} kind
   */
  const servers = (app, kind) => ports.replicas[app].map((r, i) => `  server ${app}-${i + 1} 127.0.0.1:${r[kind]} check`).join('\n');
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  timeout connect 2s',
    '  timeout client 90s',
    '  timeout server 90s',
    '  timeout queue 5s',
    '  timeout check 1s',
    '  default-server inter 1s fall 2 rise 1',
    '  option httpchk GET /readyz',
    '  balance roundrobin',
    '',
    'frontend public',
    '  mode http',
    `  bind 127.0.0.1:${ports.public}`,
    '  option forwardfor',
    `  errorfile 502 ${errorFile}`,
    `  errorfile 503 ${errorFile}`,
    `  errorfile 504 ${errorFile}`,
    '  default_backend gateways',
    'backend gateways',
    '  mode http',
    '  option redispatch',
    '  retries 2',
    `  errorfile 502 ${errorFile}`,
    `  errorfile 503 ${errorFile}`,
    `  errorfile 504 ${errorFile}`,
    servers('gateway', 'port'),
    '',
    ...Object.keys(ports.services).flatMap((app) => [
      `listen ${app}`,
      '  mode tcp',
      `  bind 127.0.0.1:${ports.services[app]}`,
      servers(app, 'internalPort'),
      '',
    ]),
  ].join('\n');
}

/**
 * Starts HAProxy and two replicas of every app of `root`/dist with `env` (plus `appEnv[app]`), logs under `dir`.
 * `freePort` hands out the ports. Returns the cluster: its public URL, replicas, kill/pause/resume.
 * @param {object} options
 * @param {string} options.dir
 * @param {NodeJS.ProcessEnv} options.env
 * @param {Record<string, NodeJS.ProcessEnv>} [options.appEnv]
 * @param {() => Promise<number>} options.freePort
 * @param {string} options.root
 * @param {(line: string) => void} options.log
 */
export async function startCluster({ dir, env, appEnv = {}, freePort, root, log }) {
  const { SERVICE_PORTS, serviceUrlSetting } = /** @type {typeof import('../../libs/platform/src/index.js')} */ (
    createRequire(import.meta.url)(join(root, 'dist/libs/platform/src/index.js'))
  );
  // The apps that serve HTTP, in the order they are started (their migrations run under a lock anyway).
  const apps = /** @type {import('../../libs/platform/src/index.js').ServiceName[]} */ (Object.keys(SERVICE_PORTS));
  /** @type {Ports} */
  const ports = { public: await freePort(), services: {}, replicas: {} };
  for (const app of apps) {
    ports.services[app] = await freePort();
    ports.replicas[app] = [];
    for (let i = 0; i < REPLICAS; i += 1) ports.replicas[app].push({ port: await freePort(), internalPort: await freePort() });
  }
  const errorFile = join(dir, '503.http');
  writeFileSync(
    errorFile,
    `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${UNAVAILABLE}`,
  );
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, haproxyConfig(ports, errorFile));
  const haproxyLog = createWriteStream(join(dir, 'haproxy.log'));
  const haproxy = spawn('haproxy', ['-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  haproxy.stdout.pipe(haproxyLog);
  haproxy.stderr.pipe(haproxyLog);

  const upstreams = Object.fromEntries(apps.map((app) => [serviceUrlSetting(app), `http://127.0.0.1:${ports.services[app]}`]));
  const publicUrl = `http://127.0.0.1:${ports.public}`;
  let stopping = false;
  /**
   * Every replica: app, index, ports, its current process, and every incarnation's pid and times.
   * @type {Replica[]}
   */
  const replicas = apps.flatMap((app) =>
    ports.replicas[app].map((p, index) => ({
      app,
      index,
      name: `${app}-${index + 1}`,
      ...p,
      child: null,
      expectedExit: false,
      starts: 0,
      crashes: 0,
      startFailures: 0,
      incarnations: [],
    })),
  );

  /** @param {Replica} replica */
  const spawnReplica = (replica) => {
    const out = createWriteStream(join(dir, `${replica.name}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [join(root, 'dist/apps', replica.app, 'src/main.js')], {
      env: {
        ...env,
        ...upstreams,
        APP_URL: publicUrl,
        ...appEnv[replica.app],
        PORT: String(replica.port),
        INTERNAL_PORT: String(replica.internalPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(out);
    child.stderr.pipe(out);
    replica.child = child;
    replica.expectedExit = false;
    replica.starts += 1;
    /** @type {Incarnation} */
    const incarnation = { pid: child.pid, startedAt: Date.now(), readyAt: null, warmRssKb: null };
    replica.incarnations.push(incarnation);
    child.on('exit', (code, signal) => {
      if (stopping || replica.expectedExit) return;
      // Exiting while starting (its database down) is what Kubernetes restarts with a back-off; exiting once ready is a crash.
      if (incarnation.readyAt) replica.crashes += 1;
      else replica.startFailures += 1;
      const what = `${replica.name} exited by itself ${incarnation.readyAt ? 'after it was ready' : 'while starting'} (${code ?? signal})`;
      // A crash's last lines name its cause: told once the pipes have ended the log file (they end it, not 'exit').
      if (incarnation.readyAt) {
        const tell = () => log(`${what}. Its log ends:\n${logTail(replica)}`);
        if (out.writableFinished) tell();
        else out.once('finish', tell);
      }
      log(`${what}; restarting it`);
      // Restarted at once, then backing off to 8 s while it keeps failing (a CrashLoopBackOff in short).
      const failing = replica.incarnations.slice(-4).filter((i) => !i.readyAt).length;
      setTimeout(() => !stopping && spawnReplica(replica), 1000 * 2 ** Math.max(0, failing - 1));
    });
    return incarnation;
  };

  /**
   * The last lines of `replica`'s log, for a failure's message.
   * @param {Replica} replica
   */
  const logTail = (replica) => {
    try {
      return readFileSync(join(dir, `${replica.name}.log`), 'utf8')
        .trimEnd()
        .split('\n')
        .slice(-15)
        .join('\n');
    } catch {
      return '(no log)';
    }
  };

  /**
   * Resolves once `replica`'s current process answers /readyz 200 (or after `timeoutMs`, false).
   * @param {Replica} replica
   * @param {number} [timeoutMs]
   */
  const waitReady = async (replica, timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !stopping) {
      try {
        const r = await fetch(`http://127.0.0.1:${replica.internalPort}/readyz`, { signal: AbortSignal.timeout(2000) });
        if (r.status === 200) {
          const incarnation = /** @type {Incarnation} */ (replica.incarnations.at(-1)); // spawnReplica added it
          incarnation.readyAt ??= Date.now();
          return true;
        }
      } catch {
        // starting
      }
      await sleep(250);
    }
    return false;
  };

  /**
   * The current process of `replica`, once started (the cluster starts every replica before it is handed out).
   * @param {Replica} replica
   */
  const processOf = (replica) => /** @type {ChildProcess} */ (replica.child);

  const cluster = {
    publicUrl,
    ports,
    replicas,
    haproxy,
    /**
     * kill -9 of `replica`; resolves once it is gone.
     * @param {Replica} replica
     */
    async kill(replica) {
      replica.expectedExit = true;
      const child = processOf(replica);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    },
    /**
     * Starts `replica` again on its ports; resolves once it is ready.
     * @param {Replica} replica
     */
    async restart(replica) {
      spawnReplica(replica);
      return waitReady(replica);
    },
    /** @param {Replica} replica */
    pause: (replica) => processOf(replica).kill('SIGSTOP'),
    /** @param {Replica} replica */
    resume: (replica) => processOf(replica).kill('SIGCONT'),
    waitReady,
    /**
     * Resident memory (kB) of `replica`'s current process, from /proc.
     * @param {Replica} replica
     */
    rssKb(replica) {
      try {
        return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${processOf(replica).pid}/status`, 'utf8'))?.[1]);
      } catch {
        return null;
      }
    },
    /** Waits until every replica is ready and HAProxy serves the public origin. */
    async allReady(timeoutMs = 180_000) {
      const ready = await Promise.all(replicas.map((r) => waitReady(r, timeoutMs)));
      if (ready.includes(false))
        throw new Error(
          `not ready: ${replicas
            .filter((_, i) => !ready[i])
            .map((r) => r.name)
            .join(', ')}`,
        );
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(250)) {
        const r = await fetch(`${publicUrl}/readyz`).catch(() => null);
        if (r?.status === 200) return;
      }
      throw new Error('HAProxy does not serve the gateways');
    },
    async stop() {
      stopping = true;
      for (const r of replicas) {
        r.child?.kill('SIGCONT');
        if (r.child && r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
      }
      await Promise.all(
        replicas.map(async (r) => {
          const child = r.child;
          if (!child || child.exitCode !== null || child.signalCode !== null) return;
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          await once(child, 'exit');
          clearTimeout(timer);
        }),
      );
      haproxy.kill('SIGTERM');
      if (haproxy.exitCode === null) await once(haproxy, 'exit');
    },
  };
  // Two at a time: each starting NestJS app takes a core for a few seconds. What started is stopped if one fails.
  const queue = [...replicas];
  try {
    await Promise.all(
      [0, 1].map(async () => {
        for (let r = queue.shift(); r; r = queue.shift()) {
          spawnReplica(r);
          if (await waitReady(r, 90_000)) continue;
          // A replica stuck while starting is what a failing startup probe restarts: once, then it is a failure.
          log(`${r.name} was not ready within 90 s; restarting it. Its log ends:\n${logTail(r)}`);
          r.startFailures += 1;
          await cluster.kill(r);
          if (!(await cluster.restart(r))) throw new Error(`${r.name} was not ready within 90 s twice. Its log ends:\n${logTail(r)}`);
        }
      }),
    );
    await cluster.allReady();
  } catch (err) {
    queue.length = 0;
    await cluster.stop();
    throw err;
  }
  return cluster;
}
