import { EventKind, PublicEvent, RecordedEvent, sampleEventData } from '@svc/contracts';
import { GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import { randomUUID } from 'node:crypto';

/**
 * For the dispatcher's end-to-end suites: recorded events fed straight to a dispatcher process
 * through `POST /internal/events`, a route only a test build started with NODE_ENV=test has
 * (apps/webhook-dispatcher/src/test-support), and calls with the gateway's signed context.
 */

let nextEventId = 1_000;

/** A realistic public event with a fresh id. */
export function sampleEvent(kind: EventKind = 'message.received', id = nextEventId++): PublicEvent {
  return { id, event: kind, at: '2026-11-21T10:04:05.123456+00:00', data: sampleEventData(kind, { n: id }) } as PublicEvent;
}

/** Calls a dispatcher process directly with the gateway's signed context for `accountId` (its key in `env`, a stack's). */
export async function callService(
  serviceUrl: string,
  env: Record<string, string>,
  accountId: string,
  path: string,
  init: { method: string; json?: unknown },
): Promise<Response> {
  const context = await InternalAuth.fromEnv('gateway', env).sign('webhook-dispatcher', {
    account: { id: accountId, name: 'Test', plan: 'scale' },
    keyId: 'test',
    requestId: randomUUID(),
  });
  return fetch(`${serviceUrl}${path}`, {
    method: init.method,
    headers: { [GATEWAY_CONTEXT_HEADER]: context, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

/** Feeds recorded events as events-api would (`POST /internal/events`), a few at a time. */
export async function feedEvents(
  serviceUrl: string,
  env: Record<string, string>,
  accountId: string,
  events: PublicEvent[],
  concurrency = 8,
): Promise<void> {
  const queue = [...events];
  const worker = async () => {
    for (let event = queue.shift(); event; event = queue.shift()) {
      const recorded: RecordedEvent = { account_id: accountId, event_id: randomUUID(), event };
      const response = await callService(serviceUrl, env, accountId, '/internal/events', { method: 'POST', json: recorded });
      if (response.status !== 204) throw new Error(`POST /internal/events answered ${response.status}: ${await response.text()}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
