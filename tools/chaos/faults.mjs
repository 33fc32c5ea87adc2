// The faults of a chaos run: a schedule drawn from the seed before the run (printed), and the
// runner that applies it: kill -9 and SIGSTOP of replicas, restarts of RabbitMQ, PostgreSQL and
// Redis. Every fault records the window in which a 503 is expected; `restoreAll` undoes what is
// still in effect (on any exit).
import { setTimeout as sleep } from 'node:timers/promises';

/** @typedef {import('./cluster.mjs').Cluster} Cluster */
/** @typedef {import('./cluster.mjs').Replica} Replica */
/** @typedef {() => number} Random a number in [0, 1) per call */
/** @typedef {'rabbitmq' | 'postgresql' | 'redis'} SharedService */
/**
 * @typedef {object} Fault One fault of the schedule: a replica's (kill, pause) or a shared service's.
 * @property {number} at seconds from the start of the faulty phase
 * @property {'kill' | 'pause' | SharedService} kind
 * @property {string} [replica] the replica drawn (kill and pause)
 * @property {number} downS
 */
/** @typedef {Fault & { startedAt: number, readyAfterMs?: number }} AppliedFault a fault as applied: when, and back after how long */
/** @typedef {{ from: number, to: number, open?: boolean }} Window when a 503 is expected (ms) */
/** @typedef {{ stop: () => Promise<unknown>, start: () => Promise<unknown> }} Service */

/** After a fault ends, how long clients may still meet its 503s (pools reconnect, HAProxy's checks rise). */
const GRACE_MS = 15_000;

/**
 * @param {Random} random
 * @param {number} low
 * @param {number} high
 */
const between = (random, low, high) => low + random() * (high - low);

/**
 * The faults of a run of `durationS` seconds (offsets in seconds from the start of the faulty phase):
 * a kill -9 every 20–40 s (restart after 2–10 s); a 5 s SIGSTOP every 60–120 s; one RabbitMQ, one
 * PostgreSQL and one Redis outage in the first, second and third quarter-ish of the run.
 * @param {Random} random
 * @param {number} durationS
 * @param {string[]} replicaNames
 * @returns {Fault[]}
 */
export function faultSchedule(random, durationS, replicaNames) {
  /** @type {Fault[]} */
  const faults = [];
  const pick = () => replicaNames[Math.floor(random() * replicaNames.length)];
  for (let at = between(random, 10, 25); at < durationS - 10; at += between(random, 20, 40))
    faults.push({ at: Math.round(at), kind: 'kill', replica: pick(), downS: Math.round(between(random, 2, 10)) });
  for (let at = between(random, 15, 45); at < durationS - 10; at += between(random, 60, 120))
    faults.push({ at: Math.round(at), kind: 'pause', replica: pick(), downS: 5 });
  const slot = durationS / 4;
  faults.push({ at: Math.round(between(random, 0.5, 0.9) * slot), kind: 'rabbitmq', downS: Math.round(between(random, 5, 10)) });
  faults.push({ at: Math.round(between(random, 1.3, 1.8) * slot), kind: 'postgresql', downS: 10 });
  faults.push({ at: Math.round(between(random, 2.3, 2.8) * slot), kind: 'redis', downS: 10 });
  return faults.sort((a, b) => a.at - b.at);
}

/**
 * One line per fault, as printed at the start of a run.
 * @param {Fault} f
 */
export const describeFault = (f) =>
  `  +${String(f.at).padStart(4)} s  ${f.kind.padEnd(10)} ${f.replica ?? ''}${f.replica ? ' ' : ''}for ${f.downS} s`;

/**
 * Applies `schedule` from `startedAt` (ms): `cluster` for replicas, `services` for the shared ones
 * ({ stop, start } each of rabbitmq, postgresql, redis). Returns { done, windows, restoreAll, log }.
 * @param {object} options
 * @param {Fault[]} options.schedule
 * @param {number} options.startedAt
 * @param {Pick<Cluster, 'replicas' | 'kill' | 'restart' | 'pause' | 'resume'>} options.cluster
 * @param {Record<SharedService, Service>} options.services
 * @param {(line: string) => void} options.log
 */
export function runFaults({ schedule, startedAt, cluster, services, log }) {
  /** @type {Window[]} */
  const windows = [];
  /** @type {AppliedFault[]} */
  const applied = [];
  /** @type {Set<() => unknown>} */
  const inEffect = new Set();
  const byName = new Map(cluster.replicas.map((r) => [r.name, r]));
  /** @param {string} name one of the cluster's replicas */
  const replicaNamed = (name) => /** @type {Replica} */ (byName.get(name));
  // At most one replica of an app is disrupted at a time (a disruption budget of one): a fault that
  // drew a replica whose sibling is down or stopped goes to the first replica that may be disrupted.
  const disrupted = new Set();
  /** @param {string} name */
  const available = (name) => {
    const r = replicaNamed(name);
    return !cluster.replicas.some((o) => o.app === r.app && disrupted.has(o.name));
  };

  /** @param {Fault} fault */
  const apply = async (fault) => {
    const start = Date.now();
    /** @type {AppliedFault} */
    const record = { ...fault, startedAt: start - startedAt };
    if (fault.replica) {
      /** @type {string | undefined} */
      let name = fault.replica;
      if (!available(name)) name = cluster.replicas.find((r) => available(r.name))?.name;
      if (!name) return;
      const replica = replicaNamed(name);
      record.replica = name;
      disrupted.add(name);
      if (fault.kind === 'kill') {
        await cluster.kill(replica);
        log(`fault: kill -9 ${name}`);
        await sleep(fault.downS * 1000);
        log(`fault: restarting ${name}`);
        const ready = await cluster.restart(replica);
        record.readyAfterMs = Date.now() - start;
        if (!ready) log(`fault: ${name} did not become ready again`);
      } else {
        cluster.pause(replica);
        const undo = () => cluster.resume(replica);
        inEffect.add(undo);
        log(`fault: SIGSTOP ${name}`);
        await sleep(fault.downS * 1000);
        cluster.resume(replica);
        inEffect.delete(undo);
        log(`fault: SIGCONT ${name}`);
        record.readyAfterMs = Date.now() - start;
      }
      disrupted.delete(name);
    } else {
      const service = services[/** @type {SharedService} */ (fault.kind)]; // a fault without a replica is a shared service's
      const undo = () => service.start();
      inEffect.add(undo);
      log(`fault: ${fault.kind} down`);
      await service.stop();
      await sleep(fault.downS * 1000);
      await service.start();
      inEffect.delete(undo);
      record.readyAfterMs = Date.now() - start;
      log(`fault: ${fault.kind} up again`);
    }
    windows.push({ from: start, to: Date.now() + GRACE_MS });
    applied.push(record);
  };

  /** @type {Promise<unknown>[]} */
  const running = [];
  let cancelled = false;
  const done = (async () => {
    for (const fault of schedule) {
      const wait = startedAt + fault.at * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      if (cancelled) break;
      // A fault in progress still counts for windows: its start is a window's start.
      const from = Date.now();
      windows.push({ from, to: Infinity, open: true });
      const open = /** @type {Window} */ (windows.at(-1));
      running.push(
        apply(fault)
          .catch((err) => log(`fault ${fault.kind} failed: ${err.message}`))
          .finally(() => windows.splice(windows.indexOf(open), 1)),
      );
    }
    await Promise.all(running);
  })();

  return {
    done,
    windows,
    applied,
    /** Undoes every fault still in effect (SIGCONT, services started again). */
    async restoreAll() {
      cancelled = true;
      for (const undo of inEffect) await Promise.resolve(undo()).catch(() => undefined);
      inEffect.clear();
    },
  };
}

/**
 * True when `at` (ms) falls in one of `windows`.
 * @param {Window[]} windows
 * @param {number} at
 */
export const inWindow = (windows, at) => windows.some((w) => at >= w.from && at <= w.to);
