import { outboxMigration, outboxTraceMigration } from '@svc/messaging';
import { CreateConversations1764000000001 } from './1764000000001-CreateConversations';
import { CreateBookingsAndInbox1764000000002 } from './1764000000002-CreateBookingsAndInbox';
import { CreateContactActivity1764000000003 } from './1764000000003-CreateContactActivity';
import { CreateChannels1764000000004 } from './1764000000004-CreateChannels';
import { IndexRecentCustomerMessages1764000000005 } from './1764000000005-IndexRecentCustomerMessages';
import { CreateVisitorLimits1764000000006 } from './1764000000006-CreateVisitorLimits';
import { RecentCustomerMessages1764000000007 } from './1764000000007-RecentCustomerMessages';
import { DropRecentCustomerMessagesIndex1764000000008 } from './1764000000008-DropRecentCustomerMessagesIndex';
import { CreateCustomers1764000000009 } from './1764000000009-CreateCustomers';
import { RotateVisitorTokens1764000000010 } from './1764000000010-RotateVisitorTokens';
import { CreateNewConversationCounts1764000000015 } from './1764000000015-CreateNewConversationCounts';
import { CountReplyFailures1764000000016 } from './1764000000016-CountReplyFailures';

/**
 * Schema `chat`: conversations, messages, widget settings, hand-overs, bookings, contact activity,
 * the visitors' per-conversation limits and token rotation, its model of the customers and the
 * outbox of the chat's events. Owned by the chat.
 */
export const CHAT_SCHEMA = 'chat';
export const CHAT_MIGRATIONS = [
  outboxMigration(CHAT_SCHEMA),
  CreateConversations1764000000001,
  CreateBookingsAndInbox1764000000002,
  CreateContactActivity1764000000003,
  CreateChannels1764000000004,
  IndexRecentCustomerMessages1764000000005,
  CreateVisitorLimits1764000000006,
  RecentCustomerMessages1764000000007,
  DropRecentCustomerMessagesIndex1764000000008,
  CreateCustomers1764000000009,
  RotateVisitorTokens1764000000010,
  CreateNewConversationCounts1764000000015,
  CountReplyFailures1764000000016,
  outboxTraceMigration(CHAT_SCHEMA, 1765000000000),
];
