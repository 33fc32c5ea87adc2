import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, PlatformConfig } from './tokens';

export type ReadinessCheck = () => Promise<unknown>;

const CHECK_TIMEOUT_MS = 2_000;

/**
 * Readiness: the app's own connections (PostgreSQL, RabbitMQ, Redis), registered by the modules
 * that own them. On SIGTERM it turns not-ready first, waits SHUTDOWN_DELAY_MS so load balancers
 * stop sending, and only then does Nest close the listener (which finishes in-flight requests).
 */
@Injectable()
export class ReadinessService implements BeforeApplicationShutdown {
  private readonly checks = new Map<string, { check: ReadinessCheck; critical: boolean }>();
  private draining = false;

  constructor(@Inject(APP_CONFIG) private readonly config: PlatformConfig) {}

  /** True from SIGTERM on: responses then close their connection so the listener can drain. */
  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * A check of one of the app's connections. A non-critical check is reported but does not make
   * the app unready: an app that can do its job without that connection keeps serving (the
   * outbox holds messages while RabbitMQ is away).
   */
  register(name: string, check: ReadinessCheck, options: { critical?: boolean } = {}): void {
    this.checks.set(name, { check, critical: options.critical ?? true });
  }

  /**
   * `ready` false when a critical check fails; `degraded` names the non-critical ones that fail
   * (the app serves, without what they provide).
   */
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
