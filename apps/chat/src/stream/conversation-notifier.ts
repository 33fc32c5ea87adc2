import { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { PgNotifications } from '@svc/jobs';
import type { Logger } from 'pino';
import { ChatMessage } from '@svc/contracts';
import { CONVERSATION_CHANNEL, INBOX_CHANNEL } from '../conversations/conversations.repository';

/** What woke a conversation's streams: the message that committed, when its NOTIFY carried it. */
export type Wake = (message?: ChatMessage) => void;

/**
 * One LISTEN connection per process that wakes the streams of a conversation when something of it
 * committed (and the inbox streams of its account). A new message comes with its wake-up when it fit
 * in the NOTIFY; anything else, streams read from PostgreSQL, so any replica serves any conversation.
 * While the connection is down, streams poll (`isListening` false).
 */
export class ConversationNotifier implements OnModuleInit, OnApplicationShutdown {
  private readonly waiting = new Map<number, Set<Wake>>();
  private readonly accounts = new Map<string, Set<Wake>>();
  private readonly notifications: PgNotifications;

  constructor(databaseUrl: string, logger: Logger) {
    this.notifications = new PgNotifications(
      {
        databaseUrl,
        channel: [CONVERSATION_CHANNEL, INBOX_CHANNEL],
        applicationName: 'chat-streams',
        reconnectDelayMs: 1_000,
        lostLine: 'stream listener lost its connection; streams poll until it is back',
        failedLine: 'stream listener could not connect; streams poll meanwhile',
      },
      logger,
    );
    this.notifications.onNotification((note) => {
      if (note.channel === INBOX_CHANNEL) return wakeAll(this.accounts.get(note.payload ?? ''));
      const { conversation, message } = conversationNote(note.payload ?? '');
      wakeAll(this.waiting.get(conversation), message);
    });
    // Whatever committed while nobody listened: every stream reads again.
    this.notifications.onConnect(() => {
      for (const set of [...this.waiting.values(), ...this.accounts.values()]) wakeAll(set);
    });
  }

  get isListening(): boolean {
    return this.notifications.listening;
  }

  /** Calls `wake` on each commit of the conversation until the returned function is called. */
  subscribe(conversationId: number, wake: Wake): () => void {
    return add(this.waiting, conversationId, wake);
  }

  /** Calls `wake` on each commit of any conversation of the account until the returned function is called. */
  subscribeAccount(accountId: string, wake: Wake): () => void {
    return add(this.accounts, accountId, wake);
  }

  async onModuleInit(): Promise<void> {
    await this.notifications.open();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.notifications.close();
  }
}

function wakeAll(set: Set<Wake> | undefined, message?: ChatMessage): void {
  if (set) for (const wake of [...set]) wake(message);
}

/** A conversation channel's payload: the conversation id, or `{"c": id, "m": message}` when the message fit. */
export function conversationNote(payload: string): { conversation: number; message?: ChatMessage } {
  if (!payload.startsWith('{')) return { conversation: Number(payload) };
  const note = JSON.parse(payload) as { c: number; m: ChatMessage };
  return { conversation: note.c, message: note.m };
}

function add<K>(map: Map<K, Set<Wake>>, key: K, wake: Wake): () => void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(wake);
  return () => {
    set.delete(wake);
    if (set.size === 0 && map.get(key) === set) map.delete(key);
  };
}
