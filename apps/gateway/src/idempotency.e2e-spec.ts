import { CreatedWebhookDto, ErrorBody, WebhookListDto } from '@svc/contracts';
import { Stack, startStack, TestAccount } from '@svc/testing';
import { randomUUID } from 'node:crypto';

const URL_A = 'https://93.184.215.14/svc/idempotent-a';
const URL_B = 'https://93.184.215.14/svc/idempotent-b';

describe('Idempotency-Key on POST (gateway and webhook-dispatcher processes, real Redis and PostgreSQL)', () => {
  let stack: Stack;

  const post = (account: TestAccount, key: string | undefined, body: unknown, path = '/webhooks') =>
    stack.call(path, { method: 'POST', key: account.key, json: body, headers: key === undefined ? {} : { 'idempotency-key': key } });
  const endpoints = async (account: TestAccount) =>
    ((await (await stack.call('/webhooks', { key: account.key })).json()) as WebhookListDto).webhooks;

  beforeAll(async () => {
    stack = await startStack(['webhook-dispatcher']);
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('runs two concurrent POSTs with one key once: one endpoint, the same answer twice, the second marked as replayed', async () => {
    const account = await stack.newAccount();
    const key = randomUUID();
    const responses = await Promise.all([post(account, key, { url: URL_A }), post(account, key, { url: URL_A })]);
    expect(responses.map((r) => r.status)).toEqual([201, 201]);
    const [first, second] = (await Promise.all(responses.map((r) => r.json()))) as CreatedWebhookDto[];
    expect(second).toEqual(first);
    expect(responses.map((r) => r.headers.get('idempotent-replayed')).sort()).toEqual(['true', null].sort());
    expect((await endpoints(account)).map((w) => w.id)).toEqual([first?.id]);
  });

  it('replays the first answer (status, body, content type) on a later retry, with Idempotent-Replayed: true and a request id of its own', async () => {
    const account = await stack.newAccount();
    const key = 'retry-of-create-1';
    const original = await post(account, key, { url: URL_A });
    expect(original.status).toBe(201);
    expect(original.headers.get('idempotent-replayed')).toBeNull();
    const created = (await original.json()) as CreatedWebhookDto;

    const retry = await post(account, key, { url: URL_A });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('content-type')).toBe(original.headers.get('content-type'));
    expect(retry.headers.get('x-request-id')).not.toBe(original.headers.get('x-request-id'));
    expect(await retry.json()).toEqual(created);
    expect(await endpoints(account)).toHaveLength(1);

    // Without a key every POST runs.
    expect((await post(account, undefined, { url: URL_A })).status).toBe(201);
    expect(await endpoints(account)).toHaveLength(2);
  });

  it('answers 409 conflict for the same key with another body, and changes nothing', async () => {
    const account = await stack.newAccount();
    const key = randomUUID();
    expect((await post(account, key, { url: URL_A })).status).toBe(201);
    const reused = await post(account, key, { url: URL_B });
    expect(reused.status).toBe(409);
    expect(((await reused.json()) as ErrorBody).error).toEqual({ code: 'conflict', message: expect.stringContaining('Idempotency-Key') });
    expect((await endpoints(account)).map((w) => w.url)).toEqual([URL_A]);
  });

  it('keeps keys per API key: another key sending the same Idempotency-Key runs its own request', async () => {
    const [one, two] = [await stack.newAccount(), await stack.newAccount()];
    const key = 'shared-by-two-keys';
    const first = (await (await post(one, key, { url: URL_A })).json()) as CreatedWebhookDto;
    const response = await post(two, key, { url: URL_B });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    const second = (await response.json()) as CreatedWebhookDto;
    expect(second.id).not.toBe(first.id);
    expect((await endpoints(two)).map((w) => w.url)).toEqual([URL_B]);
    expect((await endpoints(one)).map((w) => w.url)).toEqual([URL_A]);
  });

  it('replays a 4xx answer too (a final answer), but never stores one the caller could not have caused', async () => {
    const account = await stack.newAccount();
    const key = randomUUID();
    const refused = await post(account, key, { url: 'http://93.184.215.14/not-https' });
    expect(refused.status).toBe(400);
    const again = await post(account, key, { url: 'http://93.184.215.14/not-https' });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await refused.json());
  });

  it('retries after a 503 run again: a service that was down is not remembered as the answer', async () => {
    const account = await stack.newAccount();
    const key = randomUUID();
    const dispatcher = stack.services['webhook-dispatcher'];
    await dispatcher?.stop('SIGKILL');
    const down = await post(account, key, { url: URL_A });
    expect(down.status).toBe(503);
    await stack.restart('webhook-dispatcher');
    const retry = await post(account, key, { url: URL_A });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await endpoints(account)).toHaveLength(1);
  }, 60_000);

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not printable', 'caf\u00e9-1'],
  ])('refuses an Idempotency-Key that is %s with 400 invalid_parameter naming the header, and runs nothing', async (_, key) => {
    const account = await stack.newAccount();
    const response = await stack.call('/webhooks', {
      method: 'POST',
      key: account.key,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ url: URL_A }),
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorBody;
    expect(error).toEqual(
      expect.objectContaining({ code: 'invalid_parameter', details: [expect.objectContaining({ path: 'Idempotency-Key' })] }),
    );
    expect(await endpoints(account)).toHaveLength(0);
  });

  it('accepts a key of exactly 255 printable characters', async () => {
    const account = await stack.newAccount();
    expect((await post(account, `${'k'.repeat(250)} ~!@#`, { url: URL_A })).status).toBe(201);
  });
});
