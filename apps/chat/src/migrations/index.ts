import { outboxMigration } from '@svc/messaging';
import { CreateConversations1764000000001 } from './1764000000001-CreateConversations';
import { CreateChannels1764000000002 } from './1764000000002-CreateChannels';

/** Schema `chat`: conversations, messages, widget settings and the outbox of the chat's events. Owned by the chat. */
export const CHAT_SCHEMA = 'chat';
export const CHAT_MIGRATIONS = [outboxMigration(CHAT_SCHEMA), CreateConversations1764000000001, CreateChannels1764000000002];
