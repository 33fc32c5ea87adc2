import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { APP_CONFIG, APP_LOGGER } from '@svc/platform';
import pino from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import { Prunable, PRUNE_BATCH, PruneJob, PruneJobFor } from './prune-job';

describe('PruneJob', () => {
  const lines: Array<{ level: number; msg: string; removed?: number }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as (typeof lines)[number]) });
  const job = (prune: Prunable['prune']) =>
    new PruneJob({ prune }, { what: 'things', retentionDays: 30, intervalMs: 60_000, batch: 3 }, logger);

  beforeEach(() => (lines.length = 0));

  it('removes batch after batch until one comes back short, with the retention asked for', async () => {
    const batches = [3, 3, 1];
    const prune = jest.fn(async () => batches.shift() ?? 0);
    expect(await job(prune).run()).toBe(7);
    expect(prune).toHaveBeenCalledTimes(3);
    expect(prune).toHaveBeenCalledWith(30, 3);
    expect(lines).toEqual([expect.objectContaining({ msg: 'pruned old things', removed: 7 })]);
  });

  it('says nothing when nothing was old enough', async () => {
    expect(await job(async () => 0).run()).toBe(0);
    expect(lines).toEqual([]);
  });

  it('logs a failure and resolves with what it removed before it', async () => {
    const batches = [3];
    const prune = jest.fn(async () => {
      const n = batches.shift();
      if (n === undefined) throw new Error('connection lost');
      return n;
    });
    expect(await job(prune).run()).toBe(3);
    expect(lines).toEqual([expect.objectContaining({ level: 40, msg: 'pruning old things failed', removed: 3 })]);
  });

  it('runs every interval once started, and no more once stopped', async () => {
    jest.useFakeTimers();
    try {
      const prune = jest.fn(async () => 0);
      const running = job(prune);
      running.start();
      await jest.advanceTimersByTimeAsync(120_000);
      expect(prune).toHaveBeenCalledTimes(2);
      await running.stop();
      await jest.advanceTimersByTimeAsync(120_000);
      expect(prune).toHaveBeenCalledTimes(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('extended as a provider, prunes its source with the configured retention from the start of the application until it closes', async () => {
    const prune = jest.fn(async () => 0);
    class Things {
      prune = prune;
    }
    @Injectable()
    class ThingsRetention extends PruneJobFor(Things, 'things-retention', (config: { DAYS: number }) => ({
      what: 'things',
      retentionDays: config.DAYS,
      intervalMs: 10,
    })) {}
    @Module({
      providers: [Things, ThingsRetention, { provide: APP_CONFIG, useValue: { DAYS: 12 } }, { provide: APP_LOGGER, useValue: logger }],
    })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    expect(prune).not.toHaveBeenCalled();
    await app.init();
    await sleep(100);
    expect(prune).toHaveBeenCalledWith(12, PRUNE_BATCH);
    await app.close();
    const calls = prune.mock.calls.length;
    await sleep(50);
    expect(prune).toHaveBeenCalledTimes(calls);
  });
});
