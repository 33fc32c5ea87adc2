import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createDataSource, execute, queryOne, queryRows } from '@svc/persistence';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { JobTable, leaseDue } from './lease-due';
import { Claimed, LeaseWorker, LeaseWorkerOptions } from './lease-worker';
import { PgNotifications } from './pg-notifications';
import { growingDelayMs } from './retry';
import { Sweep } from './sweep';

interface Job {
  id: number;
  attempts: number;
  fail_times: number;
}

const JOBS: JobTable = { table: 'queue.jobs', pending: 'done_at IS NULL', returning: 'id, attempts, fail_times' };
const CHANNEL = 'queue_jobs';
const logger = pino({ level: 'silent' });

// This library sits below @svc/testing, so it makes its throw-away database itself.
const SERVER = process.env['TEST_DATABASE_SERVER_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NAME = `svc_test_${randomBytes(6).toString('hex')}`;
const URL_OF_TEST_DB = Object.assign(new URL(SERVER), { pathname: `/${NAME}` }).toString();
async function onServer(sql: string): Promise<void> {
  const server = await createDataSource({ schema: 'public', url: SERVER, migrations: [], poolSize: 1 }).initialize();
  await execute(server, sql).finally(() => server.destroy());
}

/** Marks a job done, or (while it has failures left) retries it after a growing delay. */
class TestWorker extends LeaseWorker<Job> {
  readonly started: number[] = [];
  /** Most jobs running at once. */
  peak = 0;
  private running = 0;

  constructor(
    private readonly db: DataSource,
    options: Partial<LeaseWorkerOptions> = {},
    private readonly workMs = 0,
  ) {
    super({ concurrency: 4, batch: 4, pollIntervalMs: 60_000, claimFailed: 'claim failed', jobFailed: 'job failed', ...options }, logger);
  }

  protected async claim(room: number): Promise<Claimed<Job>> {
    return { jobs: await leaseDue<Job>(this.db, JOBS, room, 30_000) };
  }

  protected async handle(job: Job): Promise<void> {
    this.started.push(job.id);
    this.peak = Math.max(this.peak, ++this.running);
    await sleep(this.workMs).finally(() => this.running--);
    if (job.attempts <= job.fail_times) {
      const delay = growingDelayMs(job.attempts, 100, 1_000);
      await execute(this.db, `UPDATE queue.jobs SET next_attempt_at = now() + $2 * interval '1 millisecond' WHERE id = $1`, [
        job.id,
        delay,
      ]);
    } else {
      await execute(this.db, 'UPDATE queue.jobs SET done_at = now() WHERE id = $1', [job.id]);
    }
  }
}

describe('jobs (real PostgreSQL)', () => {
  let db: DataSource;
  const add = async (n: number, failTimes = 0) => {
    await execute(db, 'INSERT INTO queue.jobs (fail_times) SELECT $2 FROM generate_series(1, $1)', [n, failTimes]);
  };
  const done = async () => (await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM queue.jobs WHERE done_at IS NOT NULL'))?.n;
  const until = async (check: () => Promise<boolean>, ms = 5_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out');
      await sleep(20);
    }
  };

  beforeAll(async () => {
    await onServer(`CREATE DATABASE ${NAME}`);
    db = await createDataSource({ schema: 'queue', url: URL_OF_TEST_DB, migrations: [], poolSize: 6 }).initialize();
    await execute(
      db,
      `CREATE SCHEMA queue; CREATE TABLE queue.jobs (id serial PRIMARY KEY, attempts int NOT NULL DEFAULT 0, fail_times int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(), done_at timestamptz)`,
    );
  });
  afterAll(async () => {
    await db.destroy();
    await onServer(`DROP DATABASE ${NAME} WITH (FORCE)`);
  });
  beforeEach(() => execute(db, 'TRUNCATE queue.jobs RESTART IDENTITY'));

  it('leases each due job to one claim among many at once, counting the attempt', async () => {
    await add(25);
    const claims = await Promise.all(Array.from({ length: 30 }, () => leaseDue<Job>(db, JOBS, 2, 30_000)));
    const ids = claims.flat().map((job) => job.id);
    expect(ids).toHaveLength(25);
    expect(new Set(ids).size).toBe(25);
    expect(claims.flat().every((job) => job.attempts === 1)).toBe(true);
    expect(await leaseDue(db, JOBS, 10, 30_000)).toEqual([]);
  });

  it('hands a job out again once its lease ran out (its process died)', async () => {
    await add(1);
    expect(await leaseDue<Job>(db, JOBS, 1, 150)).toHaveLength(1);
    expect(await leaseDue<Job>(db, JOBS, 1, 150)).toEqual([]);
    await sleep(200);
    expect(await leaseDue<Job>(db, JOBS, 1, 150)).toEqual([expect.objectContaining({ id: 1, attempts: 2 })]);
  });

  it('runs every job once, at most `concurrency` at a time, claiming again as room frees', async () => {
    await add(20);
    const worker = new TestWorker(db, { concurrency: 3, batch: 2 }, 30);
    worker.start();
    await until(async () => (await done()) === 20);
    await worker.stop();
    expect(worker.started).toHaveLength(20);
    expect(new Set(worker.started).size).toBe(20);
    expect(worker.peak).toBe(3);
    expect(await queryRows(db, 'SELECT id FROM queue.jobs WHERE attempts <> 1')).toEqual([]);
  });

  it('retries a failed job after a growing delay until it succeeds', async () => {
    await add(1, 2);
    const worker = new TestWorker(db, { pollIntervalMs: 20 });
    worker.start();
    const started = Date.now();
    await until(async () => (await done()) === 1);
    await worker.stop();
    // Waits of 100 ms then 200 ms between the three attempts.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(await queryOne<{ attempts: number }>(db, 'SELECT attempts FROM queue.jobs')).toEqual({ attempts: 3 });
  });

  it('wakes on NOTIFY at once, between polls far apart', async () => {
    const notifications = new PgNotifications({ databaseUrl: URL_OF_TEST_DB, channel: CHANNEL, applicationName: 'jobs-test' }, logger);
    const worker = new TestWorker(db, { pollIntervalMs: 60_000, wakeOn: notifications });
    worker.start();
    await sleep(300); // the listening connection is up
    await db.transaction(async (tx) => {
      await add(1);
      await execute(tx, `SELECT pg_notify('${CHANNEL}', '')`);
    });
    await until(async () => (await done()) === 1, 2_000);
    await worker.stop();
  });

  it('LISTENs on several channels, and after its connection is killed says it is back (a notification may have been missed)', async () => {
    const lines: string[] = [];
    const notifications = new PgNotifications(
      {
        databaseUrl: URL_OF_TEST_DB,
        channel: [CHANNEL, 'queue_other'],
        applicationName: 'jobs-test-listen',
        reconnectDelayMs: 50,
        lostLine: 'test listener lost',
      },
      pino({}, { write: (line: string) => lines.push(line) }),
    );
    const notes: string[] = [];
    const connects: boolean[] = [];
    let wakes = 0;
    notifications.onNotification((note) => notes.push(`${note.channel}:${note.payload ?? ''}`));
    notifications.onConnect((reconnected) => connects.push(reconnected));
    notifications.onNotify(() => wakes++);
    await notifications.open();
    expect(notifications.listening).toBe(true);
    expect(connects).toEqual([false]);
    expect(wakes).toBe(1);
    await execute(db, `SELECT pg_notify('${CHANNEL}', 'a'), pg_notify('queue_other', 'b')`);
    await until(async () => notes.length === 2);
    expect(notes.sort()).toEqual([`${CHANNEL}:a`, 'queue_other:b']);
    expect(wakes).toBe(3);

    await execute(db, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'jobs-test-listen'");
    await until(async () => connects.length === 2);
    expect(connects).toEqual([false, true]);
    expect(notifications.listening).toBe(true);
    expect(lines.join('').match(/test listener lost/g)).toHaveLength(1);
    await execute(db, `SELECT pg_notify('queue_other', 'c')`);
    await until(async () => notes.includes('queue_other:c'));

    await notifications.close();
    expect(notifications.listening).toBe(false);
    await sleep(150);
    expect(connects).toHaveLength(2);
    await until(
      async () => (await queryRows(db, "SELECT pid FROM pg_stat_activity WHERE application_name = 'jobs-test-listen'")).length === 0,
    );
  });

  it('waits longer after each attempt that fails in a row (PostgreSQL not there), up to its longest wait', async () => {
    const attempts: number[] = [];
    const notifications = new PgNotifications(
      {
        databaseUrl: 'postgres://postgres@127.0.0.1:1/nothing', // nothing listens on port 1
        channel: CHANNEL,
        applicationName: 'jobs-test-backoff',
        reconnectDelayMs: 50,
        maxReconnectDelayMs: 200,
        failedLine: 'test listener failed',
      },
      pino({}, { write: (line: string) => line.includes('test listener failed') && attempts.push(Date.now()) }),
    );
    notifications.start();
    await until(async () => attempts.length === 6, 5_000);
    await notifications.close();
    const waits = attempts.slice(1).map((at, i) => at - attempts[i]!);
    // 50, 100, 200, then never more than the longest: timers never fire early (2 ms for rounding).
    [50, 100, 200, 200, 200].forEach((least, i) => expect(waits[i]).toBeGreaterThanOrEqual(least - 2));
    expect(notifications.listening).toBe(false);
  });

  it('on stop claims no more and waits for the jobs in flight', async () => {
    await add(2);
    const worker = new TestWorker(db, {}, 300);
    worker.start();
    await until(async () => worker.started.length === 2);
    await worker.stop();
    expect(await done()).toBe(2);
    await add(1);
    await sleep(100);
    expect(worker.started).toHaveLength(2);
  });

  it('starts with the Nest application and drains when it closes', async () => {
    await add(3);
    const worker = new TestWorker(db, {}, 100);
    @Module({ providers: [{ provide: TestWorker, useValue: worker }] })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    await app.init();
    await until(async () => worker.started.length === 3);
    await app.close();
    expect(await done()).toBe(3);
  });

  it('sweeps every interval, one pass at a time; a failed pass is logged and the next one retries', async () => {
    await add(3);
    const lines: string[] = [];
    let fail = true;
    class DoneSweep extends Sweep {
      protected async pass(): Promise<number> {
        if (fail) {
          fail = false;
          throw new Error('connection lost');
        }
        return execute(db, 'UPDATE queue.jobs SET done_at = now() WHERE done_at IS NULL');
      }
    }
    const sweep = new DoneSweep(30, pino({}, { write: (line: string) => lines.push(line) }), 'sweep failed; next pass retries');
    sweep.start();
    await until(async () => (await done()) === 3);
    await sweep.stop();
    expect(lines.join('')).toContain('sweep failed; next pass retries');
    expect(lines.join('')).toContain('connection lost');
  });
});
