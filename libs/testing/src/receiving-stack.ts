import { createTestCa, HttpsReceiver, TestCa } from './https-receiver';
import { closeAll } from './processes';
import { Stack, StackOptions, startStack } from './stack';

/** A stack whose webhook-dispatcher delivers to a real https receiver, and the test CA that signed the receiver's certificate. */
export interface ReceivingStack {
  ca: TestCa;
  receiver: HttpsReceiver;
  stack: Stack;
}

/** What a webhook-dispatcher needs to deliver to a test receiver: its CA trusted and its private address (127.0.0.1) allowed. */
export function receiverTrust(ca: TestCa): Record<string, string> {
  return { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CA_FILE: ca.caFile };
}

/**
 * A test CA, an https receiver of it and a stack of `serviceNames` (webhook-dispatcher among them) whose dispatcher
 * trusts that receiver, with `dispatcherEnv` besides; `options` as startStack's. A suite ends it with
 * `closeAll(stack, receiver, ca)`; when the stack does not start, the receiver and the CA are ended here.
 */
export async function startReceivingStack(
  serviceNames: string[],
  dispatcherEnv: Record<string, string> = {},
  options: StackOptions = {},
): Promise<ReceivingStack> {
  const ca = createTestCa();
  let receiver: HttpsReceiver | undefined;
  try {
    receiver = await HttpsReceiver.start(ca);
    const dispatcher = { ...receiverTrust(ca), ...options.appEnv?.['webhook-dispatcher'], ...dispatcherEnv };
    const stack = await startStack(serviceNames, { ...options, appEnv: { ...options.appEnv, 'webhook-dispatcher': dispatcher } });
    return { ca, receiver, stack };
  } catch (err) {
    await closeAll(receiver, ca);
    throw err;
  }
}
