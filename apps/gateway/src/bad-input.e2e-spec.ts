import { ErrorBody, GatewayContext } from '@svc/contracts';
import { GATEWAY_CONTEXT_HEADER, InternalAuth, MAX_JSON_DEPTH } from '@svc/platform';
import { dataSnapshot, sampleConsent, Stack, startStack } from '@svc/testing';
import { randomUUID } from 'node:crypto';

const SERVICES = ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher'];
const NUL = '\u0000';
const TEXT = 'We ship to every EU country within 2 to 4 working days.';

/** `depth` levels of `{"a": …}` around `leaf`, as JSON text (too deep for JSON.stringify's own recursion to matter). */
const nested = (depth: number, leaf = '1'): string => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

describe('bad input through the gateway: always a 400 in the error shape, nothing written (every service, real PostgreSQL)', () => {
  let stack: Stack;
  const error = async (response: Response) => ((await response.json()) as ErrorBody).error;

  /** Sends a call, expects a 400 with `code` (and a detail on `path` when given), and checks that nothing was written. */
  async function refused(path: string, init: Parameters<Stack['call']>[1], code: string, detailPath?: string): Promise<void> {
    const before = await dataSnapshot(stack.dataSource);
    const response = await stack.call(path, init);
    expect(response.status).toBe(400);
    const body = await error(response);
    expect(body).toEqual(expect.objectContaining({ code, message: expect.any(String) }));
    if (detailPath !== undefined)
      expect(body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: detailPath, message: expect.any(String) })]));
    expect(await dataSnapshot(stack.dataSource)).toEqual(before);
  }

  /**
   * Calls `service` itself, as the gateway does (its signed context for the stack's account), with the JSON text `body`;
   * expects a 400 with `code` (and its one detail on `detailPath` when given), and checks that nothing was written.
   */
  async function refusedDirectly(
    service: string,
    path: string,
    method: string,
    body: string,
    code: string,
    detailPath?: string,
  ): Promise<void> {
    const context: GatewayContext = {
      account: { id: stack.account.accountId, name: 'Acme', plan: 'scale' },
      keyId: 'k',
      requestId: randomUUID(),
    };
    const signed = await InternalAuth.fromEnv('gateway', stack.env).sign(service, context);
    const before = await dataSnapshot(stack.dataSource);
    const response = await fetch(`${stack.services[service]?.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', [GATEWAY_CONTEXT_HEADER]: signed },
      body,
    });
    expect(response.status).toBe(400);
    expect(await error(response)).toMatchObject({
      code,
      ...(detailPath === undefined ? {} : { details: [expect.objectContaining({ path: detailPath })] }),
    });
    expect(await dataSnapshot(stack.dataSource)).toEqual(before);
  }

  beforeAll(async () => {
    stack = await startStack(SERVICES, {
      appEnv: {
        gateway: { WRITE_LIMIT_PER_MINUTE: '1000000', WRITE_LIMIT_PER_HOUR: '1000000' },
        'webhook-dispatcher': { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CONCURRENCY: '0' },
      },
    });
    // Six processes start one after the other; on a busy two-core machine that can pass a minute.
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  describe('a NUL character (PostgreSQL text cannot hold it)', () => {
    it.each([
      ['a customer name', '/contacts/c-nul', { name: `Ada${NUL}` }, 'name'],
      ['an email', '/contacts/c-nul', { email: `ada${NUL}@example.com` }, 'email'],
      ['a consent text', '/contacts/c-nul', { consents: [sampleConsent({ text: `Yes${NUL}` })] }, 'consents[0].text'],
      ['a consent source', '/contacts/c-nul', { consents: [sampleConsent({ source: `form${NUL}` })] }, 'consents[0].source'],
      [
        'a consent withdrawn_by',
        '/contacts/c-nul',
        { consents: [sampleConsent({ withdrawn_at: '2026-12-01T10:00:00Z', withdrawn_by: `x${NUL}` })] },
        'consents[0].withdrawn_by',
      ],
      ['a field name', '/contacts/c-nul', { [`na${NUL}me`]: 'Ada' }, 'na\\u0000me'],
      ['a knowledge heading', '/knowledge/k-nul', { heading: `Shipping${NUL}`, text: TEXT }, 'heading'],
      ['a knowledge text', '/knowledge/k-nul', { heading: 'Shipping', text: `${TEXT}${NUL}` }, 'text'],
      ['a knowledge url', '/knowledge/k-nul', { heading: 'Shipping', text: TEXT, url: `https://example.com/${NUL}` }, 'url'],
    ])('in %s is 400 validation_failed naming the field', async (_, path, json, field) => {
      await refused(path, { method: 'PUT', json }, 'validation_failed', field);
    });

    it.each([
      [
        'a bulk item external_ref',
        '/knowledge/bulk',
        {
          items: [
            { external_ref: 'ok', heading: 'Shipping', text: TEXT },
            { external_ref: `k${NUL}`, heading: 'Shipping', text: TEXT },
          ],
        },
        'items[1].external_ref',
      ],
      ['a webhook url', '/webhooks', { url: `https://127.0.0.1/${NUL}` }, 'url'],
      ['a webhook event kind', '/webhooks', { url: 'https://127.0.0.1/hook', events: [`message.received${NUL}`] }, 'events[0]'],
    ])('in %s is 400 validation_failed naming the field', async (_, path, json, field) => {
      await refused(path, { method: 'POST', json }, 'validation_failed', field);
    });

    it.each([
      ['GET', '/contacts/a%00b'],
      ['PUT', '/contacts/a%00b'],
      ['DELETE', '/contacts/a%00b'],
      ['POST', '/contacts/a%00b/identity'],
      ['PUT', '/knowledge/a%00b'],
      ['DELETE', '/knowledge/a%00b'],
      ['DELETE', '/webhooks/1%00'],
    ])('in the path parameter of %s %s is 400 validation_failed', async (method, path) => {
      const json =
        method === 'PUT' && path.startsWith('/knowledge') ? { heading: 'Shipping', text: TEXT } : method === 'PUT' ? {} : undefined;
      const before = await dataSnapshot(stack.dataSource);
      const response = await stack.call(path, { method, json });
      expect(response.status).toBe(400);
      expect((await error(response)).code).toBe('validation_failed');
      expect(await dataSnapshot(stack.dataSource)).toEqual(before);
    });

    it.each([
      ['/contacts?email=ada%00%40example.com', 'email'],
      ['/contacts?phone=%2B4477%00', 'phone'],
      ['/knowledge?external_ref=a%00', 'external_ref'],
      ['/knowledge?after=a%00', 'after'],
      ['/events?after=1%00', 'after'],
      ['/contacts?email=a%40example.com&x%00=1', 'x\\u0000'],
    ])('in the query string %s is 400 invalid_parameter', async (path, parameter) => {
      const response = await stack.call(path);
      expect(response.status).toBe(400);
      const body = await error(response);
      expect(body.code).toBe('invalid_parameter');
      expect(body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: parameter })]));
    });

    it('is refused by a service itself too, not only by the gateway (an internal caller)', async () => {
      const body = JSON.stringify({ consents: [sampleConsent({ text: `a${NUL}` })] });
      await refusedDirectly('contacts-api', '/contacts/c-direct', 'PUT', body, 'validation_failed', 'consents[0].text');
    });
  });

  describe('a lone surrogate (no character: it was stored as U+FFFD, or a 500)', () => {
    const LONE = '\udfff';
    it.each([
      [
        'a bulk item external_ref',
        'POST',
        '/knowledge/bulk',
        { items: [{ external_ref: `k${LONE}`, heading: 'Shipping', text: TEXT }] },
        'items[0].external_ref',
      ],
      [
        'a bulk item heading',
        'POST',
        '/knowledge/bulk',
        { items: [{ external_ref: 'k-s', heading: `S${LONE}`, text: TEXT }] },
        'items[0].heading',
      ],
      ['a knowledge text', 'PUT', '/knowledge/k-s', { heading: 'Shipping', text: `${TEXT}\ud800` }, 'text'],
      ['a customer name', 'PUT', '/contacts/c-s', { name: `Ada ${LONE}` }, 'name'],
      ['a field name', 'PUT', '/contacts/c-s', { [`na${LONE}me`]: 'Ada' }, 'na\\udfffme'],
      ['a webhook url', 'POST', '/webhooks', { url: `https://127.0.0.1/${LONE}` }, 'url'],
    ])('in %s is 400 validation_failed naming the field', async (_, method, path, json, field) => {
      await refused(path, { method, json }, 'validation_failed', field);
    });

    it('takes a surrogate pair (an emoji) as the character it is', async () => {
      const response = await stack.call('/knowledge/k-emoji', { method: 'PUT', json: { heading: 'Shipping 🚚', text: TEXT } });
      expect(response.status).toBe(201);
      expect(((await response.json()) as { heading: string }).heading).toBe('Shipping 🚚');
    });

    it('bytes that are not UTF-8 are 400 invalid_json, not stored as U+FFFD', async () => {
      const body = Buffer.concat([Buffer.from('{"heading":"S'), Buffer.from([0xed, 0xbf, 0xbf]), Buffer.from(`","text":"${TEXT}"}`)]);
      const before = await dataSnapshot(stack.dataSource);
      const response = await fetch(`${stack.gateway.url}/api/v1/knowledge/k-bytes`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${stack.account.key}`, 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      expect(await error(response)).toEqual({ code: 'invalid_json', message: expect.any(String) });
      expect(await dataSnapshot(stack.dataSource)).toEqual(before);
    });

    it('is refused by a service itself too (an internal caller)', async () => {
      const body = JSON.stringify({ items: [{ external_ref: LONE, heading: 'Shipping', text: TEXT }] });
      await refusedDirectly('knowledge-api', '/knowledge/bulk', 'POST', body, 'validation_failed', 'items[0].external_ref');
    });
  });

  it.each([
    ['PUT', '/contacts/c-inherited', { name: 'Ada', toString: {} }, 'toString'],
    [
      'POST',
      '/knowledge/bulk',
      { items: [{ external_ref: 'k-inherited', heading: 'Shipping', text: TEXT, constructor: 1 }] },
      'items[0].constructor',
    ],
    ['POST', '/webhooks', { url: 'https://127.0.0.1/hook', valueOf: 1 }, 'valueOf'],
  ])(
    'a field every object inherits (%s %s; class-transformer dropped it silently) is 400 validation_failed as unknown',
    async (method, path, json, field) => {
      await refused(path, { method, json }, 'validation_failed', field);
    },
  );

  describe('deep nesting (class-transformer would recurse until the stack overflows)', () => {
    it.each([
      ['PUT', '/contacts/c-deep'],
      ['PUT', '/knowledge/k-deep'],
      ['POST', '/knowledge/bulk'],
      ['POST', '/webhooks'],
    ])('a body nested 50,000 deep on %s %s is 400 invalid_json', async (method, path) => {
      await refused(path, { method, headers: { 'content-type': 'application/json' }, body: `{"name":${nested(50_000)}}` }, 'invalid_json');
    });

    it(`refuses one level more than ${MAX_JSON_DEPTH}, and takes what is nested within it to the DTO's own checks`, async () => {
      await refused(
        '/contacts/c-deep',
        { method: 'PUT', headers: { 'content-type': 'application/json' }, body: nested(MAX_JSON_DEPTH + 1) },
        'invalid_json',
      );
      // As deep as allowed: an ordinary unknown-field error from the DTO.
      await refused(
        '/contacts/c-deep',
        { method: 'PUT', headers: { 'content-type': 'application/json' }, body: nested(MAX_JSON_DEPTH) },
        'validation_failed',
        'a',
      );
    });

    it('a service refuses it too, when called directly', async () => {
      await refusedDirectly('knowledge-api', '/knowledge/k-deep', 'PUT', `{"heading":${nested(50_000)}}`, 'invalid_json');
    });
  });

  describe('a body that is not a JSON object', () => {
    it.each([
      ['PUT', '/contacts/c-null'],
      ['PUT', '/knowledge/k-null'],
      ['POST', '/knowledge/bulk'],
      ['POST', '/webhooks'],
    ])('null, a number, a string or an array on %s %s is 400 validation_failed on body', async (method, path) => {
      for (const body of ['null', '12', '"Ada"', '[]', 'true']) {
        await refused(path, { method, headers: { 'content-type': 'application/json' }, body }, 'validation_failed', 'body');
      }
    });

    it('an empty body is no body (as the API guide says): PUT /contacts/{ref} creates the customer with the defaults', async () => {
      const response = await stack.call('/contacts/c-empty', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '' });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ ref: 'c-empty', name: '', consents: [] });
    });
  });

  describe('a timestamp offset PostgreSQL cannot store', () => {
    it.each([
      ['given_at', '+16:00'],
      ['given_at', '+05:60'],
      ['given_at', '-18:00'],
      ['withdrawn_at', '+16:00'],
      ['withdrawn_at', '+05:60'],
      ['withdrawn_at', '-18:00'],
    ])('in %s (%s) is 400 validation_failed naming the field', async (field, offset) => {
      const value = `2026-12-01T10:04:05.123456${offset}`;
      const ref = `c-offset-${randomUUID()}`;
      await refused(
        `/contacts/${ref}`,
        { method: 'PUT', json: { name: 'Ada', consents: [sampleConsent({ [field]: value })] } },
        'validation_failed',
        `consents[0].${field}`,
      );
      expect((await stack.call(`/contacts/${ref}`)).status).toBe(404);
    });

    it.each(['given_at', 'withdrawn_at'])(
      'in %s, an instant after year 9999 in UTC (9999-12-31T23:00:00-05:00) is 400 naming the field',
      async (field) => {
        const ref = `c-year-${randomUUID()}`;
        const fields =
          field === 'given_at'
            ? { given_at: '9999-12-31T23:00:00-05:00' }
            : { given_at: '9999-12-31T10:00:00Z', withdrawn_at: '9999-12-31T23:00:00-05:00' };
        await refused(
          `/contacts/${ref}`,
          { method: 'PUT', json: { consents: [sampleConsent(fields)] } },
          'validation_failed',
          `consents[0].${field}`,
        );
        expect((await stack.call(`/contacts/${ref}`)).status).toBe(404);
      },
    );

    it('takes the extreme offsets PostgreSQL holds (+15:59, -15:59)', async () => {
      const response = await stack.call(`/contacts/c-offset-ok-${randomUUID()}`, {
        method: 'PUT',
        json: { consents: [sampleConsent({ given_at: '2026-11-21T10:04:05+15:59', withdrawn_at: '2026-11-22T10:04:05-15:59' })] },
      });
      expect(response.status).toBe(201);
    });
  });

  describe('messages that say what to fix (every bad field at once, one entry each)', () => {
    const details = async (response: Response) => (await error(response)).details;

    it('lists a missing given_at as required, a bad email, a mistyped field with a suggestion and a bad purpose, together', async () => {
      const withoutGivenAt: Record<string, unknown> = sampleConsent({ purpose: 'newsletter' });
      delete withoutGivenAt['given_at'];
      const response = await stack.call('/contacts/c-messages', {
        method: 'PUT',
        json: { email: 'not-an-address', phon: '+14155550100', consents: [withoutGivenAt] },
      });
      expect(response.status).toBe(400);
      const found = await details(response);
      expect(found).toEqual(
        expect.arrayContaining([
          { path: 'email', message: 'email must be an email' },
          { path: 'phon', message: 'phon is not a known field; did you mean phone?' },
          { path: 'consents[0].purpose', message: expect.stringContaining('purpose must be one of') },
          { path: 'consents[0].given_at', message: 'given_at is required' },
        ]),
      );
      expect(found).toHaveLength(4);
    });

    it('reports a consent timestamp and a rule of the customer together', async () => {
      const response = await stack.call('/contacts/c-two-rules', {
        method: 'PUT',
        json: { email: null, email_confirmed: true, consents: [sampleConsent({ given_at: 'yesterday' })] },
      });
      expect((await details(response))?.map((d) => d.path).sort()).toEqual(['consents[0].given_at', 'email_confirmed']);
    });

    it('says "without an email" for a confirmation of nothing', async () => {
      const response = await stack.call('/contacts/c-no-email', { method: 'PUT', json: { email_confirmed: true } });
      expect(await details(response)).toEqual([{ path: 'email_confirmed', message: 'email_confirmed cannot be true without an email' }]);
    });

    it('answers after=-1 with the range, not "too large"', async () => {
      const response = await stack.call('/events?after=-1');
      expect(response.status).toBe(400);
      expect(await error(response)).toEqual({
        code: 'invalid_parameter',
        message: expect.any(String),
        details: [{ path: 'after', message: 'after must be a whole number of 0 or more' }],
      });
    });

    it('suggests the known field of a webhook registration', async () => {
      const response = await stack.call('/webhooks', {
        method: 'POST',
        json: { url: 'https://93.184.215.14/hook', event: ['message.sent'] },
      });
      expect(await details(response)).toEqual([{ path: 'event', message: 'event is not a known field; did you mean events?' }]);
    });
  });
});
