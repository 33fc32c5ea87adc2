import { DomainMessage, EventContact, StoredConsent } from '@svc/contracts';
import { domainMessage } from '@svc/messaging';
import { ApiError } from '@svc/platform';
import { ChatModel } from './chat-model';
import { CustomersRepository, CustomersTransaction, RetryTransaction } from './customers.repository';
import { CustomersService } from './customers.service';

const ACCOUNT = '0f8fad5b-d9cb-469f-a165-70867728950e';

const contact = (overrides: Partial<EventContact> = {}): EventContact => ({
  ref: 'cust-1',
  svc_id: 7,
  name: 'Ada',
  email: 'ada@example.com',
  email_confirmed: true,
  phone: null,
  phone_confirmed: false,
  lang: null,
  created_at: '2026-11-21T10:00:00.000000+00:00',
  updated_at: '2026-11-21T10:00:00.000000+00:00',
  ...overrides,
});

const storedConsent: StoredConsent = {
  purpose: 'future_email',
  granted: true,
  text: 'Yes',
  lang: null,
  given_at: '2026-11-21T10:04:05.123456+00:00',
  source: 'website_form',
  withdrawn_at: null,
  withdrawn_by: null,
  origin: 'api',
};

/** The transaction's writes, each a jest mock; reads answer from `state`. */
function fakeTransaction(state: { byRef?: EventContact; bySvcId?: EventContact; inserted?: EventContact; consents?: StoredConsent[] }) {
  return {
    lockByRef: jest.fn(async () => state.byRef),
    lockBySvcId: jest.fn(async () => state.bySvcId),
    byRef: jest.fn(async () => state.byRef),
    insert: jest.fn(async () => state.inserted),
    update: jest.fn(async (_account: string, svcId: number, ref: string) =>
      contact({ svc_id: svcId, ref, updated_at: '2026-11-21T11:00:00.000000+00:00' }),
    ),
    consentsOf: jest.fn(async () => state.consents ?? []),
    insertConsents: jest.fn(async () => undefined),
    withdrawConsents: jest.fn(async () => undefined),
    modelChanges: [] as DomainMessage[],
  };
}

function serviceWith(tx: ReturnType<typeof fakeTransaction>) {
  const transaction = jest.fn(async (work: (t: CustomersTransaction) => Promise<unknown>) => work(tx as unknown as CustomersTransaction));
  const repository = { transaction } as unknown as CustomersRepository;
  const tell = jest.fn(async () => undefined);
  return { service: new CustomersService(repository, { tell } as unknown as ChatModel), transaction, tell };
}

const apiError = async (promise: Promise<unknown>) => {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return { code: (err as ApiError).code, status: (err as ApiError).getStatus(), details: (err as ApiError).details };
};

describe('CustomersService.upsert', () => {
  it('inserts a new customer with the merged fields and reports it created', async () => {
    const tx = fakeTransaction({ inserted: contact({ name: 'Grace' }) });
    const { service } = serviceWith(tx);
    const result = await service.upsert(ACCOUNT, 'cust-1', { name: 'Grace', lang: 'en-gb' });
    expect(result.created).toBe(true);
    expect(tx.insert).toHaveBeenCalledWith(ACCOUNT, 'cust-1', expect.objectContaining({ name: 'Grace', lang: 'en-GB', email: null }));
    expect(tx.update).not.toHaveBeenCalled();
  });

  it("tells the chat's model what the committed transaction changed, with the caller's request id, before answering", async () => {
    const tx = fakeTransaction({ byRef: contact() });
    const changed = domainMessage('contact.changed', ACCOUNT, { contact: contact({ name: 'Ada L.' }) });
    tx.update.mockImplementation(async () => {
      tx.modelChanges.push(changed);
      return contact({ name: 'Ada L.' });
    });
    const { service, tell } = serviceWith(tx);
    await service.upsert(ACCOUNT, 'cust-1', { name: 'Ada L.' }, 'req-1');
    expect(tell).toHaveBeenCalledWith(ACCOUNT, [changed], 'req-1');
  });

  it('asks for a rerun when another PUT created the ref first', async () => {
    const { service } = serviceWith(fakeTransaction({ inserted: undefined }));
    await expect(service.upsert(ACCOUNT, 'cust-1', {})).rejects.toBeInstanceOf(RetryTransaction);
  });

  it('writes nothing when an existing customer does not change', async () => {
    const tx = fakeTransaction({ byRef: contact(), consents: [storedConsent] });
    const { service } = serviceWith(tx);
    const result = await service.upsert(ACCOUNT, 'cust-1', {
      name: 'Ada',
      consents: [{ ...storedConsent, given_at: '2026-11-21T11:04:05.123456+01:00' }],
    });
    expect(result).toEqual({
      created: false,
      contact: expect.objectContaining({ name: 'Ada', consents: [expect.objectContaining({ active: true })] }),
    });
    expect(tx.update).not.toHaveBeenCalled();
    expect(tx.insertConsents).toHaveBeenCalledWith(ACCOUNT, 7, []);
  });

  it("refuses bad consent timestamps together with the customer's problems, writing nothing", async () => {
    const tx = fakeTransaction({});
    const { service } = serviceWith(tx);
    const error = await apiError(
      service.upsert(ACCOUNT, 'cust-1', { consents: [{ ...storedConsent, given_at: '2026-11-21T10:04:05' }], email_confirmed: true }),
    );
    expect(error).toMatchObject({ code: 'validation_failed' });
    expect(error.details?.map((d) => d.path)).toEqual(expect.arrayContaining(['consents[0].given_at']));
    expect(error.details?.length).toBeGreaterThanOrEqual(2);
    expect(tx.insert).not.toHaveBeenCalled();
    expect(tx.insertConsents).not.toHaveBeenCalled();
    expect(tx.update).not.toHaveBeenCalled();
  });

  it('refuses to confirm an email the customer will not have', async () => {
    const tx = fakeTransaction({});
    const { service } = serviceWith(tx);
    expect(await apiError(service.upsert(ACCOUNT, 'cust-1', { email_confirmed: true }))).toMatchObject({
      code: 'validation_failed',
      status: 400,
    });
    expect(tx.insert).not.toHaveBeenCalled();
  });

  describe('with svc_id', () => {
    it('attaches the ref to a chat-met customer', async () => {
      const tx = fakeTransaction({ bySvcId: contact({ ref: null, svc_id: 9 }) });
      const { service } = serviceWith(tx);
      const result = await service.upsert(ACCOUNT, 'cust-new', { svc_id: 9 });
      expect(result.created).toBe(false);
      expect(tx.update).toHaveBeenCalledWith(ACCOUNT, 9, 'cust-new', expect.objectContaining({ name: 'Ada' }));
      expect(result.contact).toMatchObject({ ref: 'cust-new', svc_id: 9 });
    });

    it('answers 404 for an unknown svc_id', async () => {
      const { service } = serviceWith(fakeTransaction({}));
      expect(await apiError(service.upsert(ACCOUNT, 'cust-1', { svc_id: 9 }))).toMatchObject({ code: 'not_found', status: 404 });
    });

    it('answers 409 when the customer has another ref, or the ref names another customer', async () => {
      const other = serviceWith(fakeTransaction({ bySvcId: contact({ ref: 'cust-other', svc_id: 9 }) }));
      expect(await apiError(other.service.upsert(ACCOUNT, 'cust-1', { svc_id: 9 }))).toMatchObject({ code: 'conflict', status: 409 });
      const taken = serviceWith(fakeTransaction({ bySvcId: contact({ ref: null, svc_id: 9 }), byRef: contact({ svc_id: 7 }) }));
      expect(await apiError(taken.service.upsert(ACCOUNT, 'cust-1', { svc_id: 9 }))).toMatchObject({ code: 'conflict', status: 409 });
    });
  });
});

describe('CustomersService: what the chat writes', () => {
  const chatTransaction = (bySvcId?: EventContact) => ({
    ...fakeTransaction({ bySvcId }),
    now: jest.fn(async () => '2026-11-21T10:04:05.123456+00:00'),
    enqueueEvents: jest.fn(async () => undefined),
  });
  const conversation = { id: 12, channel: 'web', url: 'http://localhost:3000/inbox/12' };

  it('stores the details a chat-met customer left, unconfirmed', async () => {
    const tx = chatTransaction(contact({ ref: null, email: null, email_confirmed: false }));
    const { service } = serviceWith(tx);
    await service.saveChatDetails(ACCOUNT, 7, { email: 'ada@example.com' });
    expect(tx.update).toHaveBeenCalledWith(ACCOUNT, 7, null, expect.objectContaining({ email: 'ada@example.com', email_confirmed: false }));
  });

  it("leaves a customer with a ref (the business's record) as it is", async () => {
    const tx = chatTransaction(contact({ ref: 'cust-1' }));
    const { service } = serviceWith(tx);
    expect(await service.saveChatDetails(ACCOUNT, 7, { email: 'someone@else.example' })).toEqual(contact({ ref: 'cust-1' }));
    expect(tx.update).not.toHaveBeenCalled();
  });

  it('records a chat consent (origin and source chat, given now) with its consent.granted in the same transaction', async () => {
    const tx = chatTransaction(contact());
    const { service } = serviceWith(tx);
    const result = await service.recordChatConsent(ACCOUNT, 7, { purpose: 'reply_email', text: 'I agree.', lang: 'de-de', conversation });
    const consent = {
      purpose: 'reply_email',
      granted: true,
      text: 'I agree.',
      lang: 'de-DE',
      given_at: '2026-11-21T10:04:05.123456+00:00',
      source: 'chat',
      withdrawn_at: null,
      withdrawn_by: null,
      origin: 'chat',
    };
    expect(tx.insertConsents).toHaveBeenCalledWith(ACCOUNT, 7, [consent]);
    expect(result).toEqual({ contact: contact(), consent: { ...consent, active: true } });
    expect(tx.enqueueEvents).toHaveBeenCalledWith([
      expect.objectContaining({
        kind: 'consent.granted',
        account_id: ACCOUNT,
        data: { contact: contact(), consent: { ...consent, active: true }, conversation },
      }),
    ]);
  });

  it('an unknown (or erased) customer is 404 and nothing is written', async () => {
    const tx = chatTransaction(undefined);
    const { service } = serviceWith(tx);
    expect((await apiError(service.recordChatConsent(ACCOUNT, 7, { purpose: 'reply_email', text: 'x', conversation }))).code).toBe(
      'not_found',
    );
    expect((await apiError(service.saveChatDetails(ACCOUNT, 7, { phone: '+4915112345678' }))).code).toBe('not_found');
    expect(tx.insertConsents).not.toHaveBeenCalled();
    expect(tx.enqueueEvents).not.toHaveBeenCalled();
  });
});
