import { CreatedWebhookDto } from '@svc/contracts';
import { closeAll, HttpsReceiver, ReceivedRequest, Stack, startReceivingStack, TestCa } from '@svc/testing';
import { verify } from '@svc/webhook-signing';
import { createCipheriv, randomBytes } from 'node:crypto';
import { feedEvents, sampleEvent } from '@svc/testing';
import { execute, queryRows } from '@svc/persistence';
import { decodeAesKey } from './security/secret-keys';

/** A rotation of WEBHOOK_SECRET_KEY, as docs/operations.md describes it, with real processes. */
describe('webhook-dispatcher: WEBHOOK_SECRET_KEY rotation', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let stack: Stack;

  const dispatcher = () => stack.services['webhook-dispatcher']!;
  const register = async (path: string): Promise<CreatedWebhookDto> => {
    const response = await stack.call('/webhooks', { method: 'POST', json: { url: receiver.url(path) } });
    expect(response.status).toBe(201);
    return (await response.json()) as CreatedWebhookDto;
  };
  /** The key id recorded in an endpoint's sealed secret, read with SQL as docs/operations.md shows. */
  const keyIdOf = async (id: number): Promise<string> =>
    (
      await queryRows<{ key_id: string }>(
        stack.dataSource,
        `SELECT CASE get_byte(secret_sealed, 0) WHEN 1 THEN '1' ELSE convert_from(substring(secret_sealed FROM 3 FOR get_byte(secret_sealed, 1)), 'UTF8') END AS key_id
         FROM webhooks.endpoints WHERE id = $1`,
        [id],
      )
    )[0].key_id;
  /** Feeds one event and checks that the endpoint at `path` got it, signed with `secret`. */
  const expectSignedDelivery = async (path: string, secret: string): Promise<void> => {
    const event = sampleEvent('message.received');
    const seen = receiver.received(path).length;
    await feedEvents(dispatcher().internalUrl, stack.env, stack.account.accountId, [event]);
    let request: ReceivedRequest | undefined;
    for (let count = seen + 1; !request; count += 1)
      request = (await receiver.waitFor(path, count, 20_000)).find((r) => r.headers['x-svc-event-id'] === String(event.id));
    expect(verify(request.body, request.headers, secret)).toMatchObject({ id: event.id });
  };

  beforeAll(async () => {
    ({ ca, receiver, stack } = await startReceivingStack(['webhook-dispatcher'], { WEBHOOK_POLL_INTERVAL_MS: '100' }));
  }, 60_000);

  afterAll(() => closeAll(stack, receiver, ca));

  it('keeps signing for endpoints created before the rotation (key id 1, and values sealed without a key id) and seals new ones with the new key', async () => {
    const oldKey = stack.env['WEBHOOK_SECRET_KEY']!;
    const before = await register('/before');
    expect(await keyIdOf(before.id)).toBe('1');

    // An endpoint as the code before key ids sealed it: version 1, no key id, same key.
    const legacy = await register('/legacy');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', decodeAesKey(oldKey)!, iv).setAAD(Buffer.from(stack.account.accountId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(legacy.secret, 'utf8'), cipher.final()]);
    await execute(stack.dataSource, 'UPDATE webhooks.endpoints SET secret_sealed = $2 WHERE id = $1', [
      legacy.id,
      Buffer.concat([Buffer.of(1), iv, cipher.getAuthTag(), ciphertext]),
    ]);
    expect(await keyIdOf(legacy.id)).toBe('1');
    await expectSignedDelivery('/legacy', legacy.secret);

    // The rotation: a new current key with id 2, the old one listed as previous; the process restarts.
    const newKey = randomBytes(32).toString('base64');
    await stack.restart('webhook-dispatcher', 'SIGTERM', {
      WEBHOOK_SECRET_KEY: newKey,
      WEBHOOK_SECRET_KEY_ID: '2',
      WEBHOOK_SECRET_KEYS_PREVIOUS: `1:${oldKey}`,
    });

    await expectSignedDelivery('/before', before.secret);
    await expectSignedDelivery('/legacy', legacy.secret);
    const after = await register('/after');
    expect(await keyIdOf(after.id)).toBe('2');
    await expectSignedDelivery('/after', after.secret);
  }, 90_000);
});
