import { ConsentInputDto, CustomerFields, StoredConsent } from '@svc/contracts';
import { consentProblems, instantMicros, mergeCustomer, NEW_CUSTOMER, planConsents } from './customer-rules';

const stored = (overrides: Partial<StoredConsent> = {}): StoredConsent => ({
  purpose: 'future_email',
  granted: true,
  text: 'Yes, email me offers.',
  lang: 'en',
  given_at: '2026-11-21T10:04:05.123456+00:00',
  source: 'website_form',
  withdrawn_at: null,
  withdrawn_by: null,
  origin: 'api',
  ...overrides,
});

const sent = (overrides: Partial<ConsentInputDto> = {}): ConsentInputDto => ({
  purpose: 'future_email',
  text: 'Yes, email me offers.',
  given_at: '2026-11-21T10:04:05.123456Z',
  source: 'website_form',
  ...overrides,
});

const customer = (overrides: Partial<CustomerFields> = {}): CustomerFields => ({
  ...NEW_CUSTOMER,
  name: 'Ada',
  email: 'ada@example.com',
  email_confirmed: true,
  phone: '+447700900123',
  phone_confirmed: true,
  lang: 'en',
  ...overrides,
});

describe('mergeCustomer', () => {
  it('keeps omitted fields and reports no change for an empty request', () => {
    const current = customer();
    expect(mergeCustomer(current, {})).toEqual({ fields: current, changed: false, problems: [] });
  });

  it('applies sent fields over the defaults of a new customer', () => {
    const { fields } = mergeCustomer(NEW_CUSTOMER, { name: 'Ada', email: 'ada@example.com' });
    expect(fields).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      email_confirmed: false,
      phone: null,
      phone_confirmed: false,
      lang: null,
    });
  });

  it('clears phone, email and lang on null, unconfirming what was cleared', () => {
    const { fields, changed } = mergeCustomer(customer(), { phone: null, email: null, lang: null });
    expect(fields).toMatchObject({ phone: null, phone_confirmed: false, email: null, email_confirmed: false, lang: null, name: 'Ada' });
    expect(changed).toBe(true);
  });

  it('unconfirms a changed email unless the same request confirms it', () => {
    expect(mergeCustomer(customer(), { email: 'new@example.com' }).fields.email_confirmed).toBe(false);
    expect(mergeCustomer(customer(), { email: 'new@example.com', email_confirmed: true }).fields.email_confirmed).toBe(true);
  });

  it('unconfirms a changed phone unless the same request confirms it', () => {
    expect(mergeCustomer(customer(), { phone: '+14155550100' }).fields.phone_confirmed).toBe(false);
    expect(mergeCustomer(customer(), { phone: '+14155550100', phone_confirmed: true }).fields.phone_confirmed).toBe(true);
  });

  it('keeps confirmation when the same email (in any case) or phone is sent again', () => {
    const { fields, changed } = mergeCustomer(customer(), { email: 'ada@example.com', phone: '+447700900123' });
    expect(fields).toMatchObject({ email_confirmed: true, phone_confirmed: true });
    expect(changed).toBe(false);
    const recased = mergeCustomer(customer(), { email: 'Ada@Example.com' });
    expect(recased.fields).toMatchObject({ email: 'Ada@Example.com', email_confirmed: true });
    expect(recased.changed).toBe(true);
  });

  it('lets an explicit flag confirm or unconfirm the stored value', () => {
    expect(mergeCustomer(customer({ email_confirmed: false }), { email_confirmed: true }).fields.email_confirmed).toBe(true);
    expect(mergeCustomer(customer(), { phone_confirmed: false }).fields.phone_confirmed).toBe(false);
  });

  it('refuses to confirm an email or phone the customer does not have', () => {
    expect(mergeCustomer(NEW_CUSTOMER, { email_confirmed: true, phone_confirmed: true }).problems.map((p) => p.path)).toEqual([
      'email_confirmed',
      'phone_confirmed',
    ]);
    expect(mergeCustomer(customer(), { email: null, email_confirmed: true }).problems.map((p) => p.path)).toEqual(['email_confirmed']);
    expect(mergeCustomer(NEW_CUSTOMER, { email_confirmed: false }).problems).toEqual([]);
  });

  it('stores lang canonical', () => {
    expect(mergeCustomer(NEW_CUSTOMER, { lang: 'pt-br' }).fields.lang).toBe('pt-BR');
    expect(mergeCustomer(customer({ lang: 'pt-BR' }), { lang: 'PT-br' }).changed).toBe(false);
  });
});

describe('instantMicros', () => {
  it('gives one number for every spelling of an instant, to the microsecond', () => {
    const utc = instantMicros('2026-11-21T10:04:05.100000+00:00');
    expect(instantMicros('2026-11-21T12:04:05.1+02:00')).toBe(utc);
    expect(instantMicros('2026-11-21T04:34:05.1-0530')).toBe(utc);
    expect(instantMicros('2026-11-21T10:04:05.1Z')).toBe(utc);
    expect(instantMicros('2026-11-21T10:04:05.100001Z')).toBe(utc + 1n);
    expect(instantMicros('1970-01-01T00:00:01Z')).toBe(1_000_000n);
  });
});

describe('consentProblems', () => {
  it('accepts timestamps with a zone', () => {
    expect(consentProblems([sent({ withdrawn_at: '2026-12-01T09:00:00+01:00', withdrawn_by: 'customer_request' })])).toEqual([]);
  });

  it('names each bad timestamp by its path', () => {
    const problems = consentProblems([sent(), sent({ given_at: '2026-11-21T10:04:05' }), sent({ withdrawn_at: 'yesterday' })]);
    expect(problems.map((p) => p.path)).toEqual(['consents[1].given_at', 'consents[2].withdrawn_at']);
  });

  it('refuses a withdrawal before the consent was given, and withdrawn_by without withdrawn_at', () => {
    const problems = consentProblems([sent({ withdrawn_at: '2026-11-21T10:04:05.123455Z' }), sent({ withdrawn_by: 'team' })]);
    expect(problems.map((p) => p.path)).toEqual(['consents[0].withdrawn_at', 'consents[1].withdrawn_by']);
  });
});

describe('planConsents', () => {
  it('records a new identity as sent, with origin api and granted by default', () => {
    const plan = planConsents([], [sent({ lang: 'pt-br' })]);
    expect(plan).toEqual({
      insert: [{ ...stored({ lang: 'pt-BR' }), given_at: '2026-11-21T10:04:05.123456Z' }],
      withdraw: [],
    });
  });

  it('stores a new identity sent with withdrawn_at already withdrawn', () => {
    const [consent] = planConsents([], [sent({ withdrawn_at: '2026-12-01T09:00:00Z', withdrawn_by: 'customer_request' })]).insert;
    expect(consent).toMatchObject({ withdrawn_at: '2026-12-01T09:00:00Z', withdrawn_by: 'customer_request', granted: true });
  });

  it('matches a known identity whatever offset given_at is sent with, and changes nothing else about it', () => {
    const plan = planConsents(
      [stored()],
      [sent({ given_at: '2026-11-21T12:04:05.123456+02:00', text: 'Other words', granted: false, lang: 'fr' })],
    );
    expect(plan).toEqual({ insert: [], withdraw: [] });
  });

  it('treats another microsecond, purpose or source as a new consent', () => {
    const plan = planConsents(
      [stored()],
      [sent({ given_at: '2026-11-21T10:04:05.123457Z' }), sent({ purpose: 'reply_email' }), sent({ source: 'chat' })],
    );
    expect(plan.insert).toHaveLength(3);
  });

  it('withdraws a known active consent, naming it by its stored identity', () => {
    const plan = planConsents(
      [stored()],
      [sent({ given_at: '2026-11-21T11:04:05.123456+01:00', withdrawn_at: '2026-12-01T09:00:00Z', withdrawn_by: 'customer_request' })],
    );
    expect(plan).toEqual({
      insert: [],
      withdraw: [
        {
          purpose: 'future_email',
          given_at: '2026-11-21T10:04:05.123456+00:00',
          source: 'website_form',
          withdrawn_at: '2026-12-01T09:00:00Z',
          withdrawn_by: 'customer_request',
        },
      ],
    });
  });

  it('leaves a consent that is already withdrawn, or was never granted, as it is', () => {
    const withdrawal = sent({ withdrawn_at: '2026-12-02T09:00:00Z', withdrawn_by: 'again' });
    expect(planConsents([stored({ withdrawn_at: '2026-12-01T09:00:00+00:00', withdrawn_by: 'customer' })], [withdrawal])).toEqual({
      insert: [],
      withdraw: [],
    });
    expect(planConsents([stored({ granted: false })], [withdrawal])).toEqual({ insert: [], withdraw: [] });
  });

  it('treats one identity sent twice in a request as two requests in order', () => {
    const plan = planConsents([], [sent(), sent({ text: 'ignored', withdrawn_at: '2026-12-01T09:00:00Z' })]);
    expect(plan.insert).toEqual([
      { ...stored({ lang: null, withdrawn_at: '2026-12-01T09:00:00Z' }), given_at: '2026-11-21T10:04:05.123456Z' },
    ]);
    const twice = planConsents(
      [stored()],
      [sent({ withdrawn_at: '2026-12-01T09:00:00Z' }), sent({ withdrawn_at: '2026-12-02T09:00:00Z' })],
    );
    expect(twice.withdraw.map((w) => w.withdrawn_at)).toEqual(['2026-12-01T09:00:00Z']);
  });
});
