import { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';

/** Work that runs beside the requests: as a Nest provider it starts once the app is up and stops (draining) before shutdown. */
export abstract class BackgroundJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  abstract start(): void;

  /** Takes no new work and waits for the work in flight. */
  abstract stop(): Promise<void>;

  onApplicationBootstrap(): void {
    this.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.stop();
  }
}
