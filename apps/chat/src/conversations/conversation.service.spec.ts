import { EventContact, HandoverReachDto, KnowledgeSearchResult } from '@svc/contracts';
import { ContactsClient } from '@svc/internal-clients';
import { ChatEvents } from './chat-events';
import { ConversationService, EmailLinks, reachOf, ReplyQueue } from './conversation.service';
import { AddedMessage, ConversationRow, ConversationsRepository, PendingReply } from './conversations.repository';
import { CustomersRepository } from './customers.repository';
import { CustomersService } from './customers.service';

const contact = (over: Partial<EventContact> = {}): EventContact => ({
  ref: 'c-1',
  svc_id: 1,
  name: 'Ada',
  email: 'ada@example.com',
  email_confirmed: true,
  phone: '+447700900123',
  phone_confirmed: false,
  lang: null,
  created_at: '2026-11-21T10:04:05.000000+00:00',
  updated_at: '2026-11-21T10:04:05.000000+00:00',
  ...over,
});
const dto = (over: Partial<HandoverReachDto>): HandoverReachDto =>
  Object.assign(new HandoverReachDto(), { channel: 'email', consent: true, consent_text: 'x', ...over });

describe('reach of handover.created', () => {
  it('an email the business confirmed for this customer is verified (compared without case)', () => {
    expect(reachOf(dto({ email: 'ADA@example.com' }), contact())).toEqual({
      method: 'email',
      email: 'ADA@example.com',
      email_verified: true,
      whatsapp: '',
      whatsapp_verified: false,
      consent: true,
    });
  });

  it('another address, or an unconfirmed number, is not verified', () => {
    expect(reachOf(dto({ email: 'other@example.com' }), contact()).email_verified).toBe(false);
    expect(reachOf(dto({ channel: 'whatsapp', phone: '+447700900123', consent: false }), contact())).toEqual({
      method: 'whatsapp',
      email: '',
      email_verified: false,
      whatsapp: '+447700900123',
      whatsapp_verified: false,
      consent: false,
    });
    expect(reachOf(dto({ channel: 'whatsapp', phone: '+447700900123' }), contact({ phone_confirmed: true })).whatsapp_verified).toBe(true);
  });
});

describe('a customer message and the assistant', () => {
  const row = (over: Partial<ConversationRow> = {}): ConversationRow => ({
    id: 7,
    account_id: 'acc',
    channel: 'web',
    lang: 'en',
    customer_svc_id: 1,
    customer_identified: false,
    customer_name: '',
    customer_email: null,
    customer_phone: null,
    status: 'open',
    handover: 'none',
    handover_reason: null,
    reach: null,
    business_name: 'Shop',
    recent_customer_messages: 0,
    customer: contact(),
    ...over,
  });
  const setUp = () => {
    const steps: string[] = [];
    const found: Promise<KnowledgeSearchResult[]> = Promise.resolve([]);
    const answered: Array<{ pending: PendingReply; found?: Promise<KnowledgeSearchResult[]> }> = [];
    const replies: ReplyQueue = {
      searchEarly: (_conversation, text) => {
        steps.push(`search ${text}`);
        return found;
      },
      answerSoon: (pending, _contact, early) => answered.push({ pending, found: early }),
    };
    const added: AddedMessage = {
      id: 3,
      text: 'x',
      author: 'customer',
      at: '2026-11-28T08:00:00.000000+00:00',
      citation: null,
      offers_person: false,
      reply_pending: true,
    };
    const conversations = {
      addCustomerMessage: jest.fn(async (_account: string, _id: number, message: { text: string }) => {
        steps.push(`write ${message.text}`);
        return { ...added, text: message.text };
      }),
    } as unknown as ConversationsRepository;
    const customers = new CustomersService({} as ContactsClient, conversations, {} as CustomersRepository);
    const service = new ConversationService(
      conversations,
      customers,
      {} as ContactsClient,
      new ChatEvents({ APP_URL: 'http://localhost:3000' }),
      replies,
      {} as EmailLinks,
      {
        HANDOVER_WAIT: '3m',
        VISITOR_MESSAGES_PER_MINUTE: 10,
      },
    );
    return { steps, found, answered, service };
  };

  it("starts the question's search before its message is written, and answers with that search", async () => {
    const { steps, found, answered, service } = setUp();
    await service.send(row(), 'How long does shipping take?', 'r1');
    expect(steps).toEqual(['search How long does shipping take?', 'write How long does shipping take?']);
    expect(answered).toHaveLength(1);
    expect(answered[0]?.found).toBe(found);
  });

  it('starts no search while a person is asked for', async () => {
    const { steps, service } = setUp();
    await service.send(row({ handover: 'waiting', status: 'needs_human' }), 'Hello?', 'r2');
    expect(steps).toEqual(['write Hello?']);
  });
});
