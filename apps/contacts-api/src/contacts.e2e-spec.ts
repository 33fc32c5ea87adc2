import {
  ConfirmContactResponse,
  ContactListResponseDto,
  ContactResponseDto,
  DomainMessage,
  ErrorBody,
  EventContact,
  GatewayContext,
  InternalConsent,
  InternalConsentsResponse,
} from '@svc/contracts';
import { GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import { DOMAIN_EXCHANGE } from '@svc/messaging';
import { queryRows } from '@svc/persistence';
import { ExchangeTap, sampleConsent, Stack, startStack, TestAccount, tapExchange, waitFor } from '@svc/testing';
import { randomUUID } from 'node:crypto';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const CONTACT_KEYS = ['ref', 'svc_id', 'name', 'email', 'email_confirmed', 'phone', 'phone_confirmed', 'lang', 'created_at', 'updated_at'];
const CONSENT_KEYS = ['purpose', 'granted', 'text', 'lang', 'given_at', 'source', 'withdrawn_at', 'withdrawn_by', 'origin', 'active'];

describe('contacts-api through the gateway (processes, real PostgreSQL)', () => {
  let stack: Stack;
  const newRef = () => `cust-${randomUUID()}`;
  const path = (ref: string) => `/contacts/${encodeURIComponent(ref)}`;
  const put = (ref: string, json: unknown, key?: string) => stack.call(path(ref), { method: 'PUT', json, key });
  const get = (ref: string, key?: string) => stack.call(path(ref), { key });
  const del = (ref: string, key?: string) => stack.call(path(ref), { method: 'DELETE', key });
  const find = (query: string, key?: string) => stack.call(`/contacts?${query}`, { key });
  const body = async <T = ContactResponseDto>(response: Response): Promise<T> => (await response.json()) as T;
  const error = async (response: Response) => ((await response.json()) as ErrorBody).error;
  const created = async (ref: string, json: unknown = {}, key?: string): Promise<ContactResponseDto> => {
    const response = await put(ref, json, key);
    expect(response.status).toBe(201);
    return body(response);
  };
  /** A customer the chat met: no ref yet (the chat writes it; here the test plays the chat). */
  const chatMet = async (account: TestAccount, name = 'Visitor'): Promise<number> => {
    const [row] = await queryRows<{ svc_id: string }>(
      stack.dataSource,
      `INSERT INTO contacts.customers (account_id, name) VALUES ($1, $2) RETURNING svc_id`,
      [account.accountId, name],
    );
    return Number(row.svc_id);
  };
  /** What contacts-api published for the account (through its outbox, which keeps nothing it published), less the chat's model feed. */
  let published: ExchangeTap;
  const ofAccount = (account: TestAccount) =>
    published.messages.filter((m) => (m.body as { account_id?: string }).account_id === account.accountId);
  const publishedFor = (account: TestAccount) => ofAccount(account).filter((m) => m.routingKey !== 'contact.changed');
  /** The customers of the account's `contact.changed` messages, in the order published. */
  const changesFor = (account: TestAccount) =>
    ofAccount(account)
      .filter((m) => m.routingKey === 'contact.changed')
      .map((m) => (m.body as DomainMessage<'contact.changed'>).data.contact);
  const outboxOf = (account: TestAccount): Promise<unknown[]> =>
    queryRows<{ routing_key: string; body: unknown }>(
      stack.dataSource,
      `SELECT routing_key, body FROM contacts.outbox WHERE body->>'account_id' = $1 ORDER BY seq`,
      [account.accountId],
    );
  /** Erases a marker customer and waits for its message: whatever the account published before is in by then. */
  const publishedBeforeMarker = async (account: TestAccount) => {
    const ref = newRef();
    const marker = await created(ref, {}, account.key);
    expect((await del(ref, account.key)).status).toBe(204);
    const isMarker = (m: { body: unknown }) => (m.body as { data?: { svc_id?: number } }).data?.svc_id === marker.svc_id;
    await waitFor('the marker erasure to be published', async () => (publishedFor(account).some(isMarker) ? true : undefined), 15_000);
    return publishedFor(account).filter((m) => !isMarker(m));
  };

  beforeAll(async () => {
    // The write limit is the gateway's own concern (tested there); these tests write a lot.
    stack = await startStack(['contacts-api'], {
      appEnv: { gateway: { WRITE_LIMIT_PER_MINUTE: '1000000', WRITE_LIMIT_PER_HOUR: '1000000' } },
    });
    published = await tapExchange(stack.env['RABBITMQ_URL']!, DOMAIN_EXCHANGE);
  });

  afterAll(async () => {
    await published?.close();
    await stack?.stop();
  });

  describe('schema contacts: customers', () => {
    it('creates a customer with our svc_id and the documented defaults (201)', async () => {
      const ref = newRef();
      const contact = await created(ref);
      expect(Object.keys(contact)).toEqual([...CONTACT_KEYS, 'consents']);
      expect(contact).toMatchObject({
        ref,
        name: '',
        email: null,
        email_confirmed: false,
        phone: null,
        phone_confirmed: false,
        lang: null,
        consents: [],
      });
      expect(Number.isSafeInteger(contact.svc_id) && contact.svc_id > 0).toBe(true);
      expect(contact.created_at).toMatch(TIMESTAMP);
      expect(contact.updated_at).toBe(contact.created_at);
    });

    it('keeps refs unique per account, not across accounts, with a distinct svc_id each', async () => {
      const ref = newRef();
      const mine = await created(ref);
      const theirs = await created(ref, {}, stack.other.key);
      expect(theirs.svc_id).not.toBe(mine.svc_id);
      const [{ n }] = await queryRows<{ n: number }>(stack.dataSource, `SELECT count(*)::int AS n FROM contacts.customers WHERE ref = $1`, [
        ref,
      ]);
      expect(n).toBe(2);
    });

    it('takes any ref of 1 to 255 characters, URL-encoded (slashes, spaces, non-ASCII)', async () => {
      for (const ref of ['a/b c?d#é', '✓'.repeat(255), 'x']) {
        const contact = await created(ref);
        expect(contact.ref).toBe(ref);
        expect((await body(await get(ref))).ref).toBe(ref);
        expect((await del(ref)).status).toBe(204);
      }
    });

    it.each([
      ['256 characters', 'r'.repeat(256)],
      ['a newline', 'a\nb'],
      ['a NUL', 'a\u0000b'],
      ['a C1 control', 'a\u0085b'],
    ])('refuses a ref with %s (400 naming ref) on every route', async (_, ref) => {
      for (const response of [await put(ref, { name: 'x' }), await get(ref), await del(ref)]) {
        expect(response.status).toBe(400);
        expect(await error(response)).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ path: 'ref' })] });
      }
    });
  });

  describe('PUT /contacts/{ref}', () => {
    it('updates (200): omitted fields stay, phone null clears, lang stored canonical', async () => {
      const ref = newRef();
      await created(ref, { name: 'Ada', email: 'ada@example.com', phone: '+447700900123', lang: 'pt-br' });
      const response = await put(ref, { phone: null, name: 'Ada L.' });
      expect(response.status).toBe(200);
      expect(await body(response)).toMatchObject({ name: 'Ada L.', email: 'ada@example.com', phone: null, lang: 'pt-BR' });
      expect(await body(await get(ref))).toMatchObject({ name: 'Ada L.', email: 'ada@example.com', phone: null, lang: 'pt-BR' });
    });

    it('moves updated_at on a change only, never created_at', async () => {
      const ref = newRef();
      const first = await created(ref, { name: 'Ada' });
      const same = await body(await put(ref, { name: 'Ada' }));
      expect(same.updated_at).toBe(first.updated_at);
      const changed = await body(await put(ref, { name: 'Grace' }));
      expect(changed.updated_at > first.updated_at).toBe(true);
      expect(changed.created_at).toBe(first.created_at);
    });

    it('refuses invalid fields with 400 validation_failed naming each, and changes nothing', async () => {
      const ref = newRef();
      await created(ref, { name: 'Ada', email: 'ada@example.com' });
      const response = await put(ref, {
        name: 42,
        email: 'not-an-email',
        phone: '+0447700900123',
        lang: 'en_US',
        email_confirmed: 'yes',
        surname: 'L',
        consents: [
          {
            purpose: 'newsletter',
            text: '',
            given_at: '2026-11-21T10:04:05',
            source: 's'.repeat(65),
            granted: 'no',
            withdrawn_by: 'w'.repeat(65),
          },
          sampleConsent({ text: 't'.repeat(10_001) }),
          {},
        ],
      });
      expect(response.status).toBe(400);
      const { code, details } = await error(response);
      expect(code).toBe('validation_failed');
      expect(new Set(details?.map((d) => d.path))).toEqual(
        new Set([
          'name',
          'email',
          'phone',
          'lang',
          'email_confirmed',
          'surname',
          'consents[0].purpose',
          'consents[0].text',
          'consents[0].source',
          'consents[0].granted',
          'consents[0].withdrawn_by',
          'consents[1].text',
          'consents[2].purpose',
          'consents[2].text',
          'consents[2].given_at',
          'consents[2].source',
        ]),
      );
      expect(await body(await get(ref))).toMatchObject({ name: 'Ada', email: 'ada@example.com', consents: [] });
    });

    it.each([
      ['without a zone', { given_at: '2026-11-21T10:04:05.123456' }, 'consents[0].given_at'],
      ['not a date', { given_at: '2026-02-30T10:04:05Z' }, 'consents[0].given_at'],
      ['with more than microseconds', { given_at: '2026-11-21T10:04:05.1234567Z' }, 'consents[0].given_at'],
      ['withdrawn without a zone', { withdrawn_at: '2026-12-01T10:00:00' }, 'consents[0].withdrawn_at'],
      ['withdrawn before given', { withdrawn_at: '2026-11-20T10:00:00Z' }, 'consents[0].withdrawn_at'],
      ['withdrawn_by without withdrawn_at', { withdrawn_by: 'team' }, 'consents[0].withdrawn_by'],
    ])('refuses a consent timestamp %s (400 naming it) and writes nothing', async (_, fields, field) => {
      const ref = newRef();
      const response = await put(ref, { name: 'Ada', consents: [sampleConsent(fields)] });
      expect(response.status).toBe(400);
      expect(await error(response)).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ path: field })] });
      expect((await get(ref)).status).toBe(404);
    });

    it('refuses to confirm an email or phone the customer does not have, creating nothing', async () => {
      const ref = newRef();
      const response = await put(ref, { email_confirmed: true });
      expect(response.status).toBe(400);
      expect(await error(response)).toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ path: 'email_confirmed' })],
      });
      expect((await get(ref)).status).toBe(404);
    });

    it('refuses a body that is not a JSON object', async () => {
      for (const json of [[{ name: 'x' }], 'Ada', 12]) {
        const response = await put(newRef(), json);
        expect(response.status).toBe(400);
        expect((await error(response)).code).toBe('validation_failed');
      }
      const broken = await stack.call(path(newRef()), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"name":' });
      expect((await error(broken)).code).toBe('invalid_json');
    });

    it('returns the full customer object with consents', async () => {
      const ref = newRef();
      const contact = await created(ref, {
        name: 'Ada',
        email: 'ada@example.com',
        email_confirmed: true,
        consents: [sampleConsent({ lang: 'en-gb' })],
      });
      expect(contact.consents).toHaveLength(1);
      expect(Object.keys(contact.consents[0] as object)).toEqual(CONSENT_KEYS);
      expect(contact.consents[0]).toEqual({
        purpose: 'future_email',
        granted: true,
        text: 'Yes, email me offers and news.',
        lang: 'en-GB',
        given_at: '2026-11-21T10:04:05.123456+00:00',
        source: 'website_form',
        withdrawn_at: null,
        withdrawn_by: null,
        origin: 'api',
        active: true,
      });
      expect(await body(await get(ref))).toEqual(contact);
    });
  });

  describe('GET /contacts/{ref}, GET /contacts?email= / ?phone=, DELETE', () => {
    it('answers 404 not_found for an unknown ref', async () => {
      const response = await get(newRef());
      expect(response.status).toBe(404);
      expect((await error(response)).code).toBe('not_found');
    });

    it('finds by email case-insensitively and by phone, every match, with consents', async () => {
      const email = `Ada.${randomUUID().slice(0, 8)}@Example.com`;
      const phone = `+4477${Math.floor(Math.random() * 1e9)}`;
      const a = await created(newRef(), { email, phone, consents: [sampleConsent()] });
      const b = await created(newRef(), { email: email.toLowerCase() });
      const byEmail = await find(`email=${encodeURIComponent(email.toUpperCase())}`);
      expect(byEmail.status).toBe(200);
      expect(await body<ContactListResponseDto>(byEmail)).toEqual({ contacts: [a, b] });
      expect(await body<ContactListResponseDto>(await find(`phone=${encodeURIComponent(phone)}`))).toEqual({ contacts: [a] });
      expect(await body<ContactListResponseDto>(await find('email=nobody%40example.com'))).toEqual({ contacts: [] });
    });

    it.each([
      ['neither parameter', ''],
      ['both parameters', 'email=a%40example.com&phone=%2B447700900123'],
      ['an invalid email', 'email=not-an-email'],
      ['an empty email', 'email='],
      ['a phone that is not E.164', 'phone=07700900123'],
      ['a repeated parameter', 'email=a%40example.com&email=b%40example.com'],
      ['an unknown parameter', 'email=a%40example.com&name=Ada'],
    ])('refuses %s with 400 invalid_parameter', async (_, query) => {
      const response = await find(query);
      expect(response.status).toBe(400);
      const { code, details } = await error(response);
      expect(code).toBe('invalid_parameter');
      expect(details?.length).toBeGreaterThan(0);
    });

    it('erases with 204, then answers 404', async () => {
      const ref = newRef();
      await created(ref, { consents: [sampleConsent()] });
      expect((await del(ref)).status).toBe(204);
      expect((await get(ref)).status).toBe(404);
      const again = await del(ref);
      expect(again.status).toBe(404);
      expect((await error(again)).code).toBe('not_found');
    });
  });

  describe('attaching a ref to a chat-met customer (svc_id)', () => {
    it('attaches {ref} to the customer and updates it in the same call (200)', async () => {
      const svcId = await chatMet(stack.account);
      const ref = newRef();
      const response = await put(ref, { svc_id: svcId, email: 'met@example.com', consents: [sampleConsent()] });
      expect(response.status).toBe(200);
      expect(await body(response)).toMatchObject({
        ref,
        svc_id: svcId,
        name: 'Visitor',
        email: 'met@example.com',
        consents: [expect.objectContaining({ origin: 'api' })],
      });
      expect(await body(await get(ref))).toMatchObject({ ref, svc_id: svcId });
      // Sending it again once attached is a plain update.
      expect((await put(ref, { svc_id: svcId, name: 'Known' })).status).toBe(200);
    });

    it('answers 404 for an unknown svc_id, and another account’s', async () => {
      const ref = newRef();
      for (const svcId of [999_999_999, await chatMet(stack.other)]) {
        const response = await put(ref, { svc_id: svcId, name: 'x' });
        expect(response.status).toBe(404);
        expect((await error(response)).code).toBe('not_found');
      }
      expect((await get(ref)).status).toBe(404);
    });

    it('answers 409 when that customer already has another ref', async () => {
      const taken = await created(newRef());
      const response = await put(newRef(), { svc_id: taken.svc_id });
      expect(response.status).toBe(409);
      expect((await error(response)).code).toBe('conflict');
    });

    it('answers 409 when {ref} already names another customer, and changes neither', async () => {
      const ref = newRef();
      const existing = await created(ref, { name: 'Existing' });
      const svcId = await chatMet(stack.account, 'Met');
      const response = await put(ref, { svc_id: svcId, name: 'Changed' });
      expect(response.status).toBe(409);
      expect((await error(response)).code).toBe('conflict');
      expect(await body(await get(ref))).toMatchObject({ svc_id: existing.svc_id, name: 'Existing' });
      const [row] = await queryRows<{ ref: string | null; name: string }>(
        stack.dataSource,
        `SELECT ref, name FROM contacts.customers WHERE svc_id = $1`,
        [svcId],
      );
      expect(row).toEqual({ ref: null, name: 'Met' });
    });

    it('attaches a chat-met customer to only one of two refs sent at once', async () => {
      const svcId = await chatMet(stack.account);
      const refs = Array.from({ length: 6 }, newRef);
      const statuses = (await Promise.all(refs.map((ref) => put(ref, { svc_id: svcId })))).map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    });
  });

  describe('consents', () => {
    it('matches given_at as an instant whatever offset it comes with, and returns it in UTC with its microseconds', async () => {
      const ref = newRef();
      const first = await created(ref, { consents: [sampleConsent({ given_at: '2026-11-21T12:04:05.000001+02:00' })] });
      expect(first.consents[0]?.given_at).toBe('2026-11-21T10:04:05.000001+00:00');
      const again = await body(
        await put(ref, {
          consents: [sampleConsent({ given_at: '2026-11-21T04:34:05.000001-05:30', text: 'Different words', granted: false })],
        }),
      );
      expect(again.consents).toEqual(first.consents);
      const later = await body(await put(ref, { consents: [sampleConsent({ given_at: '2026-11-21T10:04:05.000002Z' })] }));
      expect(later.consents.map((c) => c.given_at)).toEqual(['2026-11-21T10:04:05.000001+00:00', '2026-11-21T10:04:05.000002+00:00']);
    });

    it('withdraws a known active consent with withdrawn_at, once, and keeps every other field', async () => {
      const ref = newRef();
      await created(ref, { consents: [sampleConsent()] });
      const withdrawn = await body(
        await put(ref, {
          consents: [
            sampleConsent({
              given_at: '2026-11-21T10:04:05.123456Z',
              text: 'ignored',
              withdrawn_at: '2026-12-01T10:00:00.5+01:00',
              withdrawn_by: 'customer_request',
            }),
          ],
        }),
      );
      expect(withdrawn.consents).toEqual([
        expect.objectContaining({
          text: 'Yes, email me offers and news.',
          granted: true,
          withdrawn_at: '2026-12-01T09:00:00.500000+00:00',
          withdrawn_by: 'customer_request',
          active: false,
        }),
      ]);
      const again = await body(
        await put(ref, { consents: [sampleConsent({ withdrawn_at: '2026-12-05T10:00:00Z', withdrawn_by: 'someone else' })] }),
      );
      expect(again.consents).toEqual(withdrawn.consents);
    });

    it('stores a new consent sent with withdrawn_at already withdrawn; granted false is not active', async () => {
      const contact = await created(newRef(), {
        consents: [
          sampleConsent({ purpose: 'reply_email', withdrawn_at: '2026-12-01T10:00:00Z' }),
          sampleConsent({ purpose: 'reply_whatsapp', granted: false }),
          sampleConsent({ purpose: 'future_whatsapp' }),
        ],
      });
      expect(contact.consents.map((c) => [c.purpose, c.granted, c.withdrawn_at, c.active, c.origin])).toEqual([
        ['reply_email', true, '2026-12-01T10:00:00.000000+00:00', false, 'api'],
        ['reply_whatsapp', false, null, false, 'api'],
        ['future_whatsapp', true, null, true, 'api'],
      ]);
    });

    it('does not publish anything for a withdrawal sent through PUT', async () => {
      const account = await stack.newAccount('Quiet');
      const ref = newRef();
      await created(ref, { consents: [sampleConsent()] }, account.key);
      expect((await put(ref, { consents: [sampleConsent({ withdrawn_at: '2026-12-01T10:00:00Z' })] }, account.key)).status).toBe(200);
      expect(await publishedBeforeMarker(account)).toEqual([]);
    });
  });

  describe('confirmation of email and phone', () => {
    it('unconfirms a changed email or phone unless the request confirms it; the same value keeps it', async () => {
      const ref = newRef();
      await created(ref, { email: 'ada@example.com', email_confirmed: true, phone: '+447700900123', phone_confirmed: true });
      expect(await body(await put(ref, { email: 'ADA@example.com', phone: '+447700900123' }))).toMatchObject({
        email_confirmed: true,
        phone_confirmed: true,
      });
      expect(await body(await put(ref, { email: 'new@example.com' }))).toMatchObject({ email_confirmed: false, phone_confirmed: true });
      expect(await body(await put(ref, { phone: '+14155550100', phone_confirmed: true }))).toMatchObject({
        email_confirmed: false,
        phone_confirmed: true,
      });
      expect(await body(await put(ref, { phone: '+14155550101' }))).toMatchObject({ phone_confirmed: false });
      expect(await body(await put(ref, { email_confirmed: true }))).toMatchObject({ email: 'new@example.com', email_confirmed: true });
    });
  });

  describe('concurrency', () => {
    it('creates one customer from 20 simultaneous PUTs of a new ref: one 201, the rest 200', async () => {
      const ref = newRef();
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => put(ref, { name: `writer ${i}` })));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(19);
      const svcIds = new Set((await Promise.all(responses.map((r) => body(r)))).map((c) => c.svc_id));
      expect(svcIds.size).toBe(1);
      const [{ n }] = await queryRows<{ n: number }>(
        stack.dataSource,
        `SELECT count(*)::int AS n FROM contacts.customers WHERE account_id = $1 AND ref = $2`,
        [stack.account.accountId, ref],
      );
      expect(n).toBe(1);
    });

    it('keeps every consent of simultaneous PUTs, on a new and on an existing customer', async () => {
      for (const existing of [false, true]) {
        const ref = newRef();
        if (existing) await created(ref);
        const givenAt = (i: number) => `2026-11-21T10:04:05.${String(i).padStart(6, '0')}Z`;
        const responses = await Promise.all(
          Array.from({ length: 20 }, (_, i) => put(ref, { consents: [sampleConsent({ given_at: givenAt(i) })] })),
        );
        expect(responses.every((r) => r.status === 200 || r.status === 201)).toBe(true);
        const contact = await body(await get(ref));
        expect(contact.consents.map((c) => c.given_at).sort()).toEqual(
          Array.from({ length: 20 }, (_, i) => givenAt(i).replace('Z', '+00:00')),
        );
      }
    });
  });

  describe('erasure', () => {
    it('removes the customer and consents and publishes contact.erased through the outbox, keeping no copy of it', async () => {
      const account = await stack.newAccount('Erasing');
      const ref = newRef();
      const contact = await created(
        ref,
        { email: 'gone@example.com', consents: [sampleConsent(), sampleConsent({ purpose: 'reply_email' })] },
        account.key,
      );
      expect((await del(ref, account.key)).status).toBe(204);
      const [{ customers }] = await queryRows<{ customers: number }>(
        stack.dataSource,
        `SELECT count(*)::int AS customers FROM contacts.customers WHERE svc_id = $1`,
        [contact.svc_id],
      );
      const [{ consents }] = await queryRows<{ consents: number }>(
        stack.dataSource,
        `SELECT count(*)::int AS consents FROM contacts.consents WHERE customer_svc_id = $1`,
        [contact.svc_id],
      );
      expect({ customers, consents }).toEqual({ customers: 0, consents: 0 });
      const messages = await waitFor(
        'contact.erased to be published',
        async () => (publishedFor(account).length > 0 ? publishedFor(account) : undefined),
        15_000,
      );
      expect(messages).toEqual([
        {
          routingKey: 'contact.erased',
          body: {
            id: expect.any(String),
            kind: 'contact.erased',
            account_id: account.accountId,
            at: expect.stringMatching(TIMESTAMP),
            data: { svc_id: contact.svc_id, ref },
          },
        },
      ]);
      await waitFor('the outbox to keep no copy', async () => ((await outboxOf(account)).length === 0 ? true : undefined), 15_000);
    });

    it('publishes nothing for an unknown ref', async () => {
      const account = await stack.newAccount('Nothing');
      expect((await del(newRef(), account.key)).status).toBe(404);
      expect(await publishedBeforeMarker(account)).toEqual([]);
    });
  });

  describe('account isolation', () => {
    it("answers 404 to another account's key on every route, and leaves the customer as it was", async () => {
      const ref = newRef();
      const email = `iso.${randomUUID().slice(0, 8)}@example.com`;
      const mine = await created(ref, { email, phone: '+447700900999', consents: [sampleConsent()] });
      const other = stack.other.key;
      expect((await get(ref, other)).status).toBe(404);
      expect((await del(ref, other)).status).toBe(404);
      expect((await put(newRef(), { svc_id: mine.svc_id }, other)).status).toBe(404);
      expect(await body<ContactListResponseDto>(await find(`email=${encodeURIComponent(email)}`, other))).toEqual({ contacts: [] });
      expect(await body(await get(ref))).toEqual(mine);
    });
  });

  describe('internal routes for other services', () => {
    let auth: InternalAuth;
    const context = (account: TestAccount): GatewayContext => ({
      account: { id: account.accountId, name: 'Acme', plan: 'scale' },
      keyId: randomUUID(),
      requestId: randomUUID(),
    });
    const internal = async (route: string, account: TestAccount | null = stack.account) =>
      fetch(`${stack.services['contacts-api']?.internalUrl}${route}`, {
        headers: account ? { [GATEWAY_CONTEXT_HEADER]: await auth.sign('contacts-api', context(account)) } : {},
      });

    const post = async (route: string, json: unknown, account: TestAccount = stack.account) =>
      fetch(`${stack.services['contacts-api']?.internalUrl}${route}`, {
        method: 'POST',
        headers: { [GATEWAY_CONTEXT_HEADER]: await auth.sign('contacts-api', context(account)), 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });

    beforeAll(() => {
      auth = InternalAuth.fromEnv('chat', stack.env);
    });

    describe('contact.changed (the chat keeps a model of customers from it)', () => {
      it('is published with the customer as written by every write of a customer, and not by a PUT that changes nothing', async () => {
        const account = await stack.newAccount('Changes');
        const ref = newRef();
        const first = await created(ref, { name: 'Ada' }, account.key);
        expect((await put(ref, { name: 'Ada' }, account.key)).status).toBe(200);
        const renamed = await body<ContactResponseDto>(await put(ref, { name: 'Ada L.' }, account.key));
        const met = await body<EventContact>(await post('/internal/contacts/chat-met', {}, account));
        const attached = await body<ContactResponseDto>(
          await put(newRef(), { svc_id: met.svc_id, name: 'Met', email: 'met@example.com' }, account.key),
        );
        const conversation = { id: 7, channel: 'web', url: 'http://localhost:3000/inbox/7' };
        const { contact: confirmed } = await body<ConfirmContactResponse>(
          await post(
            `/internal/contacts/by-svc-id/${met.svc_id}/confirm`,
            { confirmed: 'email', value: 'met@example.com', conversation },
            account,
          ),
        );
        const withoutConsents = ({ consents: _consents, ...contact }: ContactResponseDto): EventContact => contact;
        const expected = [withoutConsents(first), withoutConsents(renamed), met, withoutConsents(attached), confirmed];
        const changes = await waitFor('the changes to be published', async () => {
          const seen = changesFor(account);
          return seen.length >= expected.length ? seen : undefined;
        });
        expect(changes).toEqual(expected);
      });
    });

    it('gives the customer without consents by ref and by svc_id', async () => {
      const ref = 'internal/ref é';
      const contact = await created(ref, { name: 'Ada', consents: [sampleConsent()] });
      const expected = Object.fromEntries(CONTACT_KEYS.map((key) => [key, contact[key as keyof ContactResponseDto]]));
      for (const route of [`/internal/contacts/by-ref/${encodeURIComponent(ref)}`, `/internal/contacts/by-svc-id/${contact.svc_id}`]) {
        const response = await internal(route);
        expect(response.status).toBe(200);
        const found = await body<EventContact>(response);
        expect(Object.keys(found)).toEqual(CONTACT_KEYS);
        expect(found).toEqual(expected);
      }
    });

    it('finds a chat-met customer (ref null) by svc_id', async () => {
      const svcId = await chatMet(stack.account, 'Met');
      expect(await body<EventContact>(await internal(`/internal/contacts/by-svc-id/${svcId}`))).toMatchObject({
        ref: null,
        svc_id: svcId,
        name: 'Met',
      });
    });

    it("answers 404 not_found for unknown customers and another account's", async () => {
      const contact = await created(newRef());
      for (const response of [
        await internal(`/internal/contacts/by-ref/${newRef()}`),
        await internal(`/internal/contacts/by-svc-id/999999999`),
        await internal(`/internal/contacts/by-svc-id/${contact.svc_id}`, stack.other),
        await internal(`/internal/contacts/by-ref/${encodeURIComponent(contact.ref as string)}`, stack.other),
      ]) {
        expect(response.status).toBe(404);
        expect((await error(response)).code).toBe('not_found');
      }
    });

    it('refuses a call without a signed context (401), and a malformed svc_id (400)', async () => {
      expect((await internal('/internal/contacts/by-svc-id/1', null)).status).toBe(401);
      expect((await internal('/internal/contacts/by-svc-id/abc')).status).toBe(400);
    });

    it('is not reachable through the gateway', async () => {
      expect((await stack.call('/internal/contacts/by-svc-id/1')).status).toBe(404);
    });

    describe('withdrawals and confirmations from the chat and the console', () => {
      const conversation = { id: 42, channel: 'whatsapp', url: 'http://localhost:3000/inbox/42' };
      const consentsOf = async (svcId: number, account: TestAccount = stack.account) =>
        (await body<InternalConsentsResponse>(await internal(`/internal/contacts/by-svc-id/${svcId}/consents`, account))).consents;
      const eventsOf = (messages: Array<{ body: unknown }>, kind: string) =>
        messages.map((m) => m.body as { kind: string; data?: Record<string, unknown> }).filter((m) => m.kind === kind);

      it('withdraws one consent by id with one consent.withdrawn; again → 200 unchanged, no new event; 404 unknown or another account’s', async () => {
        const account = await stack.newAccount('Withdraw');
        const contact = await created(
          newRef(),
          { name: 'Ada', consents: [sampleConsent(), sampleConsent({ purpose: 'future_whatsapp' })] },
          account.key,
        );
        const [first] = await consentsOf(contact.svc_id, account);
        expect(first).toMatchObject({ id: expect.any(Number), purpose: 'future_email', active: true });
        const route = `/internal/contacts/by-svc-id/${contact.svc_id}/consents/${first?.id}/withdraw`;
        const response = await post(route, { withdrawn_by: 'team', conversation: null }, account);
        expect(response.status).toBe(200);
        const withdrawn = await body<InternalConsent>(response);
        expect(withdrawn).toMatchObject({
          id: first?.id,
          purpose: 'future_email',
          active: false,
          withdrawn_by: 'team',
          withdrawn_at: expect.stringMatching(TIMESTAMP),
        });
        const again = await post(route, { withdrawn_by: 'customer', conversation }, account);
        expect(again.status).toBe(200);
        expect(await body(again)).toEqual(withdrawn);
        expect(
          (
            await post(
              `/internal/contacts/by-svc-id/${contact.svc_id}/consents/999999999/withdraw`,
              { withdrawn_by: 'team', conversation: null },
              account,
            )
          ).status,
        ).toBe(404);
        expect((await post(route, { withdrawn_by: 'team', conversation: null }, stack.other)).status).toBe(404);
        const bad = await post(route, { withdrawn_by: 'someone', conversation: null }, account);
        expect(bad.status).toBe(400);
        expect((await error(bad)).code).toBe('validation_failed');

        const events = eventsOf(await publishedBeforeMarker(account), 'consent.withdrawn');
        expect(events).toHaveLength(1);
        expect(events[0]?.data).toMatchObject({
          contact: { svc_id: contact.svc_id, name: 'Ada' },
          consent: { purpose: 'future_email', withdrawn_by: 'team', active: false },
          conversation: null,
        });
        expect(Object.keys(events[0]?.data?.['consent'] as object).sort()).toEqual([...CONSENT_KEYS].sort());
        expect((await body<ContactResponseDto>(await get(contact.ref as string, account.key))).consents.map((c) => c.active)).toEqual([
          false,
          true,
        ]);
      });

      it('STOP withdraws every active whatsapp consent of the account’s customers with that number, one event each', async () => {
        const account = await stack.newAccount('Stop');
        const phone = '+447700900555';
        const a = await created(
          newRef(),
          {
            phone,
            consents: [sampleConsent({ purpose: 'reply_whatsapp' }), sampleConsent({ purpose: 'future_whatsapp' }), sampleConsent()],
          },
          account.key,
        );
        const b = await created(
          newRef(),
          { phone, consents: [sampleConsent({ purpose: 'future_whatsapp', withdrawn_at: '2026-11-22T10:00:00Z' })] },
          account.key,
        );
        const other = await created(newRef(), { phone, consents: [sampleConsent({ purpose: 'future_whatsapp' })] }, stack.other.key);
        const response = await post('/internal/contacts/whatsapp-stop', { number: phone, conversation }, account);
        expect(response.status).toBe(200);
        expect(await body(response)).toEqual({ withdrawn: 2 });
        expect(await body(await post('/internal/contacts/whatsapp-stop', { number: phone, conversation }, account))).toEqual({
          withdrawn: 0,
        });
        expect((await post('/internal/contacts/whatsapp-stop', { number: '0044', conversation }, account)).status).toBe(400);

        const events = eventsOf(await publishedBeforeMarker(account), 'consent.withdrawn');
        expect(events.map((e) => (e.data?.['consent'] as { purpose: string }).purpose).sort()).toEqual([
          'future_whatsapp',
          'reply_whatsapp',
        ]);
        expect(events.every((e) => (e.data?.['consent'] as { withdrawn_by: string }).withdrawn_by === 'customer')).toBe(true);
        expect(events.map((e) => e.data?.['conversation'])).toEqual([conversation, conversation]);
        expect((await consentsOf(a.svc_id, account)).map((c) => c.active)).toEqual([false, false, true]);
        expect((await consentsOf(b.svc_id, account)).map((c) => c.withdrawn_by)).toEqual([null]);
        expect((await consentsOf(other.svc_id, stack.other)).map((c) => c.active)).toEqual([true]);
      });

      it('confirms a proven email or phone once with contact.confirmed; a value no longer the customer’s → 409, unchanged', async () => {
        const account = await stack.newAccount('Confirm');
        const contact = await created(newRef(), { email: 'Ada@Example.com', phone: '+447700900556' }, account.key);
        const route = `/internal/contacts/by-svc-id/${contact.svc_id}/confirm`;
        const stale = await post(route, { confirmed: 'phone', value: '+447700900999', conversation }, account);
        expect(stale.status).toBe(409);
        const response = await post(route, { confirmed: 'email', value: 'ada@example.com', conversation }, account);
        expect(response.status).toBe(200);
        const answer = await body<ConfirmContactResponse>(response);
        expect(answer).toMatchObject({ changed: true, contact: { email_confirmed: true, phone_confirmed: false } });
        expect(await body(await post(route, { confirmed: 'email', value: 'ada@example.com', conversation }, account))).toMatchObject({
          changed: false,
        });
        expect((await post(route, { confirmed: 'email', value: 'ada@example.com', conversation }, stack.other)).status).toBe(404);
        expect((await post(route, { confirmed: 'fax', value: 'x', conversation }, account)).status).toBe(400);

        const events = eventsOf(await publishedBeforeMarker(account), 'contact.confirmed');
        expect(events).toHaveLength(1);
        expect(events[0]?.data).toMatchObject({
          confirmed: 'email',
          conversation,
          contact: { svc_id: contact.svc_id, email_confirmed: true },
        });
        expect(await body<ContactResponseDto>(await get(contact.ref as string, account.key))).toMatchObject({
          email_confirmed: true,
          phone_confirmed: false,
        });
      });
    });
  });
});
