import { CreatedWebhookDto } from '@svc/contracts';
import { closeAll, HttpsReceiver, Stack, startReceivingStack, TestAccount, TestCa } from '@svc/testing';
import { feedEvents, sampleEvent } from '@svc/testing';

/** The production delivery settings that matter here: 256 workers, 32 per endpoint, 64 per account, 8 s per attempt. */
const TIMEOUT_MS = 8_000;

describe('webhook-dispatcher: one account cannot starve the others (default caps, a hanging receiver)', () => {
  let ca: TestCa;
  /** Accepts every request and never answers (within the attempt timeout). */
  let hanging: HttpsReceiver;
  let receiver: HttpsReceiver;
  let stack: Stack;

  beforeAll(async () => {
    ({ ca, receiver, stack } = await startReceivingStack(['webhook-dispatcher'], { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) }));
    hanging = await HttpsReceiver.start(ca);
  }, 60_000);

  afterAll(() => closeAll(stack, hanging, receiver, ca));

  const register = async (account: TestAccount, url: string): Promise<CreatedWebhookDto> => {
    const response = await stack.call('/webhooks', { method: 'POST', key: account.key, json: { url } });
    expect(response.status).toBe(201);
    return (await response.json()) as CreatedWebhookDto;
  };
  const feed = (account: TestAccount, count: number) =>
    feedEvents(
      stack.services['webhook-dispatcher']!.internalUrl,
      stack.env,
      account.accountId,
      Array.from({ length: count }, () => sampleEvent('message.received')),
    );

  it("delivers another account's first event at once while ten endpoints of one account hang", async () => {
    const [greedy, other] = [await stack.newAccount('Greedy'), await stack.newAccount('Other')];
    const paths = Array.from({ length: 10 }, (_, i) => `/hang-${i}`);
    for (const path of paths) hanging.respond(path, { delayMs: 10 * TIMEOUT_MS });
    for (const path of paths) await register(greedy, hanging.url(path));
    await register(other, receiver.url('/other'));

    // 40 events × 10 endpoints = 400 deliveries: enough to fill every worker (10 × 32 > 256) without the account cap.
    await feed(greedy, 40);
    const hung = async () => (await Promise.all(paths.map((p) => hanging.waitFor(p, 0)))).flat();
    // Let the greedy account take all it can: its attempts reach the receiver at once.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const firstHung = Math.min(...(await hung()).map((r) => r.receivedAt));

    const fedAt = Date.now();
    await feed(other, 1);
    const [delivered] = await receiver.waitFor('/other', 1, TIMEOUT_MS);
    // Out before any of the greedy account's attempts timed out (which would free workers), and at once.
    expect(delivered!.receivedAt).toBeLessThan(firstHung + TIMEOUT_MS);
    expect(delivered!.receivedAt - fedAt).toBeLessThan(2_000);
    // The greedy account held no more than its cap of workers.
    expect((await hung()).length).toBeLessThanOrEqual(64);
    expect((await hung()).length).toBeGreaterThanOrEqual(32);
  }, 60_000);
});
