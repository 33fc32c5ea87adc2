import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PgNotifications } from '@svc/jobs';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import type { ConsoleConfig } from '../console.config';
import { MembersRepository, MemberSession, SESSIONS_CHANNEL } from './members.repository';
import { CONSOLE_CONFIG } from '../console.config';

/** Sessions ended or moved on any console replica (a removal, a new password, a sign-out, an account switch). */
@Injectable()
export class SessionNotifications extends PgNotifications {
  constructor(@Inject(CONSOLE_CONFIG) config: ConsoleConfig, @Inject(APP_LOGGER) logger: Logger) {
    super({ databaseUrl: config.DATABASE_URL, channel: SESSIONS_CHANNEL, applicationName: 'console-sessions-listen' }, logger);
  }
}

interface Held {
  session: MemberSession;
  end: () => void;
}

/**
 * The long-lived responses this replica holds (the inbox stream), each ended as soon as its session
 * is: on every notification on `console_sessions` (and after the listening connection comes back)
 * the held sessions are checked again in one query, and each one gone, expired or moved to another
 * account is ended. A member's rights thus end within a second on every replica, live streams included.
 */
@Injectable()
export class LiveResponses implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly held = new Set<Held>();
  private checking?: Promise<void>;
  private again = false;

  constructor(
    private readonly notifications: SessionNotifications,
    private readonly members: MembersRepository,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.notifications.onNotify(() => this.recheck());
    this.notifications.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.notifications.close();
    for (const entry of this.held) entry.end();
    this.held.clear();
  }

  /** Holds a response of this session: `end` is called when the session ends; call the function returned when the response ends. */
  hold(session: MemberSession, end: () => void): () => void {
    const entry: Held = { session, end };
    this.held.add(entry);
    return () => this.held.delete(entry);
  }

  /** Checks the held sessions again (one check at a time; a notification during one runs another after it). */
  private recheck(): void {
    if (this.checking) {
      this.again = true;
      return;
    }
    this.checking = this.check()
      .catch((err: unknown) =>
        this.logger.warn({ err: (err as Error).message }, 'cannot re-check the live sessions; at the next notification'),
      )
      .finally(() => {
        this.checking = undefined;
        if (this.again) {
          this.again = false;
          this.recheck();
        }
      });
  }

  private async check(): Promise<void> {
    if (this.held.size === 0) return;
    const entries = [...this.held];
    const live = await this.members.liveSessions(entries.map((e) => e.session.token_hash));
    const actsIn = new Map(live.map((row) => [row.token_hash.toString('hex'), row.member_id]));
    for (const entry of entries) {
      if (actsIn.get(entry.session.token_hash.toString('hex')) === entry.session.member_id) continue;
      this.held.delete(entry);
      entry.end();
    }
  }
}
