import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, PlatformConfig } from './tokens';

export type ReadinessCheck = () => Promise<unknown>;

const CHECK_TIMEOUT_MS = 2_000;

/** Readiness of the app's connections; on SIGTERM not-ready first, then SHUTDOWN_DELAY_MS before the listener closes. */
@Injectable()
export class ReadinessService implements BeforeApplicationShutdown {
  private readonly checks = new Map<string, { check: ReadinessCheck; critical: boolean }>();
  private draining = false;

  constructor(@Inject(APP_CONFIG) private readonly config: PlatformConfig) {}

  /** True from SIGTERM on: responses then close their connection so the listener can drain. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** A connection's check; a failing non-critical one is reported but the app stays ready. */
  register(name: string, check: ReadinessCheck, options: { critical?: boolean } = {}): void {
    this.checks.set(name, { check, critical: options.critical ?? true });
  }

  /** Not `ready` when a critical check fails; `degraded` names the failing non-critical ones. */
  async report(): Promise<{ ready: boolean; degraded: string[]; checks: Record<string, string> }> {
    const results: Record<string, string> = {};
    if (this.draining) return { ready: false, degraded: [], checks: { shutdown: 'draining' } };
    let ready = true;
    const degraded: string[] = [];
    await Promise.all(
      [...this.checks].map(async ([name, { check, critical }]) => {
        try {
          await Promise.race([check(), sleep(CHECK_TIMEOUT_MS).then(() => Promise.reject(new Error('timed out')))]);
          results[name] = 'ok';
        } catch (err) {
          results[name] = err instanceof Error ? err.message : 'failed';
          if (critical) ready = false;
          else degraded.push(name);
        }
      }),
    );
    return { ready, degraded: degraded.sort(), checks: results };
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    if (this.config.SHUTDOWN_DELAY_MS > 0) await sleep(this.config.SHUTDOWN_DELAY_MS);
  }
}
