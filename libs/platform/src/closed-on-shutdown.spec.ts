import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { closedOnShutdown } from './closed-on-shutdown';

@Injectable()
class Pool {
  closed = false;
  async close(): Promise<void> {
    this.closed = true;
  }
}
@Injectable()
class OtherPool extends Pool {}

describe('closedOnShutdown', () => {
  it('closes each instance when the app shuts down, not before', async () => {
    @Module({ providers: [Pool, OtherPool, closedOnShutdown(Pool, OtherPool)] })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    const pools = [app.get(Pool), app.get(OtherPool)];
    expect(pools.map((pool) => pool.closed)).toEqual([false, false]);
    await app.close();
    expect(pools.map((pool) => pool.closed)).toEqual([true, true]);
  });
});
