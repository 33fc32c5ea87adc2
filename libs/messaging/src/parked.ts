import type { ChannelModel, GetMessage, MessagePropertyHeaders, XDeath } from 'amqplib';
import { BROKER_HEADERS, CONSUMER_QUEUES, MESSAGE_HEADERS, parkingQueue } from './topology';

/** A consumer queue's parking queue and how many messages wait there (null: it was never declared). */
export interface ParkedCount {
  queue: string;
  parking_queue: string;
  messages: number | null;
}

/** What an operator sees of a parked message: where it belongs and why it is there, never its personal data. */
export interface ParkedMessage {
  routing_key: string;
  message_id: string | null;
  kind: string | null;
  account_id: string | null;
  reason: string | null;
  first_death_at: string | null;
  parked_at: string | null;
}

export class UnknownQueueError extends Error {
  override readonly name = 'UnknownQueueError';
}

/** The consumer queue an operator means by `name` (the queue or its parking queue). */
export function consumerQueueOf(name: string): string {
  return name.endsWith('.parked') ? name.slice(0, -'.parked'.length) : name;
}

/** Depth of a queue; null when it does not exist (checking a missing queue closes the channel, so each check has its own). */
async function depth(model: ChannelModel, queue: string): Promise<number | null> {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  try {
    return (await channel.checkQueue(queue)).messageCount;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return null;
    throw err;
  } finally {
    await channel.close().catch(() => undefined);
  }
}

/** The parking queue of every consumer queue, with its count. */
export async function countParked(
  model: ChannelModel,
  queues: readonly string[] = CONSUMER_QUEUES.map((q) => q.queue),
): Promise<ParkedCount[]> {
  const counts: ParkedCount[] = [];
  for (const queue of queues) counts.push({ queue, parking_queue: parkingQueue(queue), messages: await depth(model, parkingQueue(queue)) });
  return counts;
}

async function requireParkingQueue(model: ChannelModel, queue: string): Promise<number> {
  const count = await depth(model, parkingQueue(queue));
  if (count === null) throw new UnknownQueueError(`no parking queue ${parkingQueue(queue)}`);
  return count;
}

const headersOf = (message: Pick<GetMessage, 'properties'>): MessagePropertyHeaders => ({
  ...(message.properties.headers as MessagePropertyHeaders | undefined),
});
const text = (value: unknown): string | null =>
  typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : null;
/** When a dead-lettering happened (AMQP timestamps are seconds). */
function deathTime(death: XDeath | undefined): string | null {
  // amqplib decodes a timestamp as a number of seconds; its types say `{ value }`: take either.
  const raw: unknown = death?.time;
  const seconds = typeof raw === 'number' ? raw : typeof raw === 'object' && raw !== null ? (raw as { value?: unknown }).value : undefined;
  return typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : null;
}
/** The broker's dead-letter records, most recent first. */
const deathsOf = (headers: MessagePropertyHeaders): XDeath[] => (Array.isArray(headers['x-death']) ? headers['x-death'] : []);

/** The routing key the message was first published with: our header, else the dead-lettering's record. */
function routingKeyOf(message: GetMessage): string {
  const headers = headersOf(message);
  const fromDeath = text(deathsOf(headers).at(-1)?.['routing-keys']?.[0]);
  return text(headers[MESSAGE_HEADERS.routingKey]) ?? fromDeath ?? message.fields.routingKey;
}

/** Kind and account from the payload (a domain message or a recorded event), nothing else of it. */
function describeParked(message: GetMessage): ParkedMessage {
  const headers = headersOf(message);
  const deaths = deathsOf(headers);
  const firstDeath = deaths.at(-1);
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(message.content.toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: nothing to show of it
  }
  const event = typeof body['event'] === 'object' && body['event'] !== null ? (body['event'] as Record<string, unknown>) : {};
  return {
    routing_key: routingKeyOf(message),
    message_id: text(message.properties.messageId),
    kind: text(body['kind']) ?? text(event['event']),
    account_id: text(body['account_id']),
    reason: text(headers[MESSAGE_HEADERS.parkReason]) ?? text(deaths[0]?.reason),
    first_death_at: text(headers[MESSAGE_HEADERS.firstFailureAt]) ?? deathTime(firstDeath),
    parked_at: text(headers[MESSAGE_HEADERS.parkedAt]) ?? deathTime(deaths[0]),
  };
}

/** The first `limit` messages of `queue`'s parking queue, left where they are. */
export async function showParked(model: ChannelModel, queue: string, limit: number): Promise<{ messages: number; shown: ParkedMessage[] }> {
  const messages = await requireParkingQueue(model, queue);
  const channel = await model.createChannel();
  try {
    const taken: GetMessage[] = [];
    for (let i = 0; i < Math.min(limit, messages); i++) {
      const message = await channel.get(parkingQueue(queue), { noAck: false });
      if (!message) break;
      taken.push(message);
    }
    for (const message of taken) channel.nack(message, false, true);
    return { messages, shown: taken.map(describeParked) };
  } finally {
    await channel.close().catch(() => undefined);
  }
}

/** Moves up to `limit` parked messages back to `queue` as new, each confirmed before it leaves; returns how many. */
export async function replayParked(model: ChannelModel, queue: string, limit?: number): Promise<number> {
  const waiting = await requireParkingQueue(model, queue);
  const channel = await model.createConfirmChannel();
  let moved = 0;
  try {
    // Only what is there now: a message that fails again and is parked anew is not replayed twice.
    for (const budget = Math.min(limit ?? waiting, waiting); moved < budget; moved++) {
      const message = await channel.get(parkingQueue(queue), { noAck: false });
      if (!message) break;
      const headers = headersOf(message);
      for (const name of [
        ...BROKER_HEADERS,
        MESSAGE_HEADERS.attempt,
        MESSAGE_HEADERS.parkReason,
        MESSAGE_HEADERS.parkedAt,
        MESSAGE_HEADERS.firstFailureAt,
      ]) {
        delete headers[name];
      }
      headers[MESSAGE_HEADERS.routingKey] = routingKeyOf(message);
      const { messageId, contentType, correlationId, timestamp, type, appId } = message.properties;
      await new Promise<void>((resolve, reject) =>
        channel.publish(
          '',
          queue,
          message.content,
          { persistent: true, messageId, contentType, correlationId, timestamp, type, appId, headers },
          (err: unknown) =>
            err ? reject(err instanceof Error ? err : new Error('the broker did not confirm the replayed message')) : resolve(),
        ),
      );
      channel.ack(message);
    }
    return moved;
  } finally {
    await channel.close().catch(() => undefined);
  }
}
