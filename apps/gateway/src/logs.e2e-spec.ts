import { ErrorBody } from '@svc/contracts';
import { execute } from '@svc/persistence';
import { freePort, Stack, startStack } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';

const SERVICES = ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher'];

/** Every value a caller sends below: none may appear in any app's log, in any form. */
const SENT = {
  ref: 'ref-logcheck-4471',
  unknownRef: 'ref-logcheck-unknown-9182',
  dbErrorRef: 'ref-logcheck-dberror-5530',
  name: 'Ada Logcheck',
  email: 'ada.logcheck@example.com',
  dbErrorEmail: 'ada.dberror.logcheck@example.com',
  phone: '+447700900871',
  badPhone: '+0-logcheck-phone',
  consentText: 'Yes, Logcheck may email me offers.',
  heading: 'Logcheck shipping heading',
  pieceText: 'Logcheck pieces ship within two to four working days.',
  pieceRef: 'faq-logcheck-7720',
  webhookUrl: 'https://127.0.0.1/logcheck-hook',
  guessedKey: 'svc_cust_logcheckGuessedKeyThatIsNotReal00000000000',
};

describe('no personal data, input or secrets in any log line (every app at LOG_LEVEL=info, each error path)', () => {
  let stack: Stack;
  let logs = '';
  const issued: string[] = [];
  const error = async (response: Response) => ((await response.json()) as ErrorBody).error;

  beforeAll(async () => {
    const contactsPort = await freePort();
    stack = await startStack(SERVICES, {
      env: { LOG_LEVEL: 'info' },
      appEnv: {
        'contacts-api': { INTERNAL_PORT: String(contactsPort) },
        'identity-issuer': { CONTACTS_API_URL: `http://127.0.0.1:${contactsPort}` },
        'webhook-dispatcher': { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CONCURRENCY: '0' },
      },
    });
    issued.push(stack.account.key);
    const consent = { purpose: 'future_email', text: SENT.consentText, given_at: '2026-11-21T10:04:05Z', source: 'website_form' };

    // Successful calls: access lines only.
    expect(
      (
        await stack.call(`/contacts/${SENT.ref}`, {
          method: 'PUT',
          json: { name: SENT.name, email: SENT.email, phone: SENT.phone, consents: [consent] },
        })
      ).status,
    ).toBe(201);
    expect((await stack.call(`/contacts?email=${encodeURIComponent(SENT.email)}`)).status).toBe(200);
    expect((await stack.call(`/contacts?phone=${encodeURIComponent(SENT.phone)}`)).status).toBe(200);
    const pass = await stack.call(`/contacts/${SENT.ref}/identity`, { method: 'POST' });
    expect(pass.status).toBe(201);
    issued.push(((await pass.json()) as { token: string }).token);
    const webhook = await stack.call('/webhooks', { method: 'POST', json: { url: SENT.webhookUrl } });
    expect(webhook.status).toBe(201);
    issued.push(((await webhook.json()) as { secret: string }).secret);
    expect(
      (await stack.call(`/knowledge/${SENT.pieceRef}`, { method: 'PUT', json: { heading: SENT.heading, text: SENT.pieceText } })).status,
    ).toBe(201);

    // A validation error that quotes nothing back into the log.
    const invalid = await stack.call(`/contacts/${SENT.ref}`, { method: 'PUT', json: { name: SENT.name, phone: SENT.badPhone } });
    expect((await error(invalid)).code).toBe('validation_failed');
    // 404s: an unknown customer, an unknown route with personal data in its path, a guessed key.
    expect((await stack.call(`/contacts/${SENT.unknownRef}`)).status).toBe(404);
    expect((await stack.call(`/contact/${encodeURIComponent(SENT.email)}`)).status).toBe(404);
    expect((await stack.call('/whoami', { key: SENT.guessedKey })).status).toBe(401);

    // A database error: PostgreSQL refuses this email (a check constraint standing in for any fault), a 500.
    await execute(
      stack.dataSource,
      `ALTER TABLE contacts.customers ADD CONSTRAINT logcheck CHECK (email IS DISTINCT FROM '${SENT.dbErrorEmail}') NOT VALID`,
    );
    try {
      const failed = await stack.call(`/contacts/${SENT.dbErrorRef}`, {
        method: 'PUT',
        json: { name: SENT.name, email: SENT.dbErrorEmail, phone: SENT.phone },
      });
      expect(failed.status).toBe(500);
      expect((await error(failed)).code).toBe('internal_error');
    } finally {
      await execute(stack.dataSource, `ALTER TABLE contacts.customers DROP CONSTRAINT logcheck`);
    }

    // A service that is down behind the gateway: 503.
    await stack.services['knowledge-api']?.stop();
    const down = await stack.call(`/knowledge/${SENT.pieceRef}`, { method: 'PUT', json: { heading: SENT.heading, text: SENT.pieceText } });
    expect(down.status).toBe(503);

    // Lines are written when their event-loop turn ends; give the pipes a moment.
    await sleep(500);
    logs = [stack.gateway, ...Object.values(stack.services)].map((app) => app.output()).join('\n');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const lines = () =>
    logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('logged each error path (the checks below would pass on an empty log otherwise)', () => {
    const all = lines();
    expect(all.filter((line) => line['msg'] === 'request completed').length).toBeGreaterThan(20);
    expect(all).toContainEqual(
      expect.objectContaining({
        app: 'contacts-api',
        msg: 'unhandled error',
        err: expect.objectContaining({ code: '23514', constraint: 'logcheck', table: 'customers' }),
      }),
    );
    expect(all).toContainEqual(expect.objectContaining({ app: 'gateway', msg: 'upstream unavailable', upstream: 'knowledge-api' }));
    expect(all).toContainEqual(expect.objectContaining({ app: 'gateway', msg: 'request completed', status_code: 401 }));
    expect(all).toContainEqual(expect.objectContaining({ app: 'gateway', msg: 'request completed', status_code: 400 }));
  });

  it.each(Object.entries(SENT))('never carries the %s sent, raw or URL-encoded', (_, value) => {
    for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])) expect(logs).not.toContain(form);
  });

  it('never carries an API key, a same-browser pass or a webhook secret', () => {
    expect(issued).toHaveLength(3);
    for (const secret of issued) expect(logs).not.toContain(secret);
    expect(logs).not.toMatch(/svc_cust_[A-Za-z0-9_-]{8}/);
    expect(logs).not.toMatch(/whsec_[A-Za-z0-9_-]{8}/);
  });

  it('shows refs in access-log paths only as a hash, the same in the gateway and in the service', () => {
    const access = lines().filter(
      (line) => line['msg'] === 'request completed' && line['route'] === '/api/v1/contacts/:ref' && line['method'] === 'PUT',
    );
    expect(access.length).toBeGreaterThan(0);
    const gatewayPath = access[0]?.['path'] as string;
    expect(gatewayPath).toMatch(/^\/api\/v1\/contacts\/~[\w-]{16}$/);
    const hash = gatewayPath.split('/').pop() as string;
    expect(lines()).toContainEqual(
      expect.objectContaining({ app: 'contacts-api', msg: 'request completed', route: '/contacts/:ref', path: `/contacts/${hash}` }),
    );
  });
});
