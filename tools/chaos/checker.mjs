// The checker of a chaos run: after the drain, reads back through the public interfaces only (the
// REST API, the feed, the visitor API) what every client was acknowledged, and compares it with
// what they recorded, the streams they held and the deliveries the receiver got.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { FeedReader, call } from './workload.mjs';
import { inWindow } from './faults.mjs';

/** @typedef {import('./workload.mjs').Recorder} Recorder */
/** @typedef {import('./workload.mjs').FeedEvent} FeedEvent */
/** @typedef {import('./workload.mjs').ChatMessage} ChatMessage */
/** @typedef {import('./workload.mjs').Account} Account */
/** @typedef {Pick<import('./workload.mjs').FeedReader, 'ids' | 'repeats' | 'backwards'>} ReaderTally what a feed reader saw */
/**
 * @typedef {object} Found A customer or a piece as the API serves it.
 * @property {string} [name]
 * @property {string} [email]
 * @property {string} [heading]
 * @property {string} [text]
 * @property {{ purpose: string, source: string, given_at: string }[]} [consents]
 */

/**
 * The current value of a written key, as the API serves it (undefined: absent).
 * @param {string} api
 * @param {string | undefined} key
 * @param {Recorder} recorder
 * @param {string} kind `contact` or `piece`
 * @param {string} ref
 * @returns {Promise<Found | undefined>}
 */
async function readKey(api, key, recorder, kind, ref) {
  const path = kind === 'contact' ? `/contacts/${encodeURIComponent(ref)}` : `/knowledge?external_ref=${encodeURIComponent(ref)}`;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const r = await call(recorder, `${api}${path}`, { headers: { authorization: `Bearer ${key}` }, what: 'check' });
    if (kind === 'contact' && r.status === 404) return undefined;
    if (r.status === 200) return kind === 'contact' ? r.body : (r.body.items[0] ?? undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`cannot read ${kind} ${ref}`);
}

/**
 * @param {string} kind
 * @param {Found | undefined} found
 * @param {Partial<{ name: string, email: string, heading: string, text: string }> | null | undefined} value a written value of either kind
 */
const sameValue = (kind, found, value) =>
  value === null || value === undefined
    ? found === undefined
    : found !== undefined &&
      (kind === 'contact'
        ? found.name === value.name && found.email === value.email
        : found.heading === value.heading && found.text === value.text);

/**
 * Writes: every key holds its last acknowledged value (or one whose outcome is unknown after it),
 * acknowledged consents are there, refused writes are not.
 * @param {object} options
 * @param {string} options.api
 * @param {Pick<Account, 'accountId' | 'key'>[]} options.accounts
 * @param {Pick<import('./workload.mjs').WriteModel, 'keys' | 'refused'>} options.model
 * @param {Recorder} options.recorder
 */
export async function checkWrites({ api, accounts, model, recorder }) {
  const keyOf = new Map(accounts.map((a) => [a.accountId, a.key]));
  const result = { checked: 0, lost: 0, refusedApplied: 0, problems: /** @type {string[]} */ ([]) };
  for (const [k, entry] of model.keys) {
    const [accountId, kind, ref] = k.split('|');
    const found = await readKey(api, keyOf.get(accountId), recorder, kind, ref);
    result.checked += 1;
    const candidates = [...(entry.acked === undefined ? [undefined] : [entry.acked]), ...entry.unknown];
    if (!candidates.some((v) => sameValue(kind, found, v))) {
      result.lost += 1;
      result.problems.push(
        `${kind} ${ref} of ${accountId}: ${JSON.stringify(found && (found.name ?? found.heading))} instead of ${JSON.stringify(entry.acked)}`,
      );
    }
    for (const consent of entry.consents) {
      const there = found?.consents?.some(
        (c) => c.purpose === consent.purpose && c.source === consent.source && Date.parse(c.given_at) === Date.parse(consent.given_at),
      );
      if (!there) {
        result.lost += 1;
        result.problems.push(`consent ${consent.purpose} ${consent.given_at} of ${kind} ${ref} is missing`);
      }
    }
  }
  for (const refused of model.refused) {
    if (refused.status !== 400) result.problems.push(`a write meant to be refused got ${refused.status}`);
    const key = keyOf.get(refused.accountId);
    if (refused.kind === 'contact') {
      const found = await readKey(api, key, recorder, 'contact', refused.ref);
      if (found?.name === refused.name) result.refusedApplied += 1;
    } else {
      for (const ref of refused.refs) if ((await readKey(api, key, recorder, 'piece', ref)) !== undefined) result.refusedApplied += 1;
    }
  }
  return result;
}

/**
 * The whole feed of an account, read from the start.
 * @param {string} api
 * @param {string} key
 * @param {Recorder} recorder
 */
export async function readFeed(api, key, recorder) {
  const reader = new FeedReader({ api, key, recorder });
  for (let attempt = 0; !(await reader.catchUp()); attempt += 1) {
    if (attempt > 20) throw new Error('cannot read the feed');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return reader.events;
}

/** @param {FeedEvent} e */
const eventKey = (e) => `${e.event}|${e.data?.conversation?.id ?? ''}|${e.data?.message?.id ?? e.data?.consent?.given_at ?? ''}`;

/**
 * The feed (ids strictly increasing, each event once), the reader that paged through the run (no gap,
 * no repeat), the conversations (every acknowledged message answered, both in the feed, streams in order).
 * @param {object} options
 * @param {Map<string, FeedEvent[]>} options.feeds every account's feed
 * @param {Map<string, ReaderTally>} options.readers every account's reader
 * @param {Pick<import('./workload.mjs').Conversation, 'accountId' | 'id' | 'sent' | 'stream' | 'messages'>[]} options.conversations
 *   read back after the drain (`messages`)
 * @param {Pick<Account, 'accountId'>[]} options.accounts
 */
export function checkFeedAndChat({ feeds, readers, conversations, accounts }) {
  const result = { events: 0, replies: 0, lost: 0, duplicated: 0, disorder: 0, problems: /** @type {string[]} */ ([]) };
  for (const { accountId } of accounts) {
    const feed = /** @type {FeedEvent[]} */ (feeds.get(accountId));
    result.events += feed.length;
    /** @type {Map<string, number>} */
    const keys = new Map();
    feed.forEach((e, i) => {
      if (i > 0 && e.id <= feed[i - 1].id) {
        result.disorder += 1;
        result.problems.push(`feed of ${accountId}: id ${e.id} after ${feed[i - 1].id}`);
      }
      const key = eventKey(e);
      if (keys.has(key)) {
        result.duplicated += 1;
        result.problems.push(`feed of ${accountId}: ${key} twice (ids ${keys.get(key)} and ${e.id})`);
      }
      keys.set(key, e.id);
    });
    const reader = /** @type {ReaderTally} */ (readers.get(accountId));
    const seen = new Set(reader.ids);
    const readerLast = Math.max(0, ...reader.ids);
    const skipped = feed.filter((e) => e.id <= readerLast && !seen.has(e.id));
    result.lost += skipped.length;
    if (skipped.length) result.problems.push(`the feed reader of ${accountId} skipped ids ${skipped.map((e) => e.id).join(', ')}`);
    result.duplicated += reader.repeats;
    if (reader.repeats) result.problems.push(`the feed reader of ${accountId} saw ${reader.repeats} ids twice`);
    if (reader.backwards) {
      result.disorder += reader.backwards;
      result.problems.push(`the feed reader of ${accountId} saw ids go backwards ${reader.backwards} times`);
    }
    const unread = feed.filter((e) => e.id > readerLast);
    if (unread.length) {
      result.lost += unread.length;
      result.problems.push(`the feed reader of ${accountId} never saw ${unread.length} events (it stopped at ${readerLast})`);
    }
    for (const conversation of conversations.filter((c) => c.accountId === accountId)) {
      const messages = /** @type {ChatMessage[]} */ (conversation.messages);
      const byId = new Map(messages.map((m) => [m.id, m]));
      // Every acknowledged message is there, with its text, once.
      for (const sent of conversation.sent) {
        if (byId.get(sent.id)?.text !== sent.text) {
          result.lost += 1;
          result.problems.push(`conversation ${conversation.id}: message ${sent.id} acknowledged, not there`);
        }
      }
      /** @type {Map<string, number>} */
      const texts = new Map();
      for (const m of messages.filter((m) => m.author === 'customer')) texts.set(m.text, (texts.get(m.text) ?? 0) + 1);
      for (const sent of conversation.sent)
        if (sent.attempts === 1 && (texts.get(sent.text) ?? 0) > 1) {
          result.duplicated += 1;
          result.problems.push(`conversation ${conversation.id}: "${sent.text}" sent once, there ${texts.get(sent.text)} times`);
        }
      // Each customer message is answered by the next assistant message not taken by an earlier one.
      /** @type {ChatMessage[]} */
      const pending = [];
      let answered = 0;
      let customerSeen = false;
      for (const m of [...messages].sort((a, b) => a.id - b.id)) {
        if (m.author === 'customer') {
          pending.push(m);
          customerSeen = true;
        } else if (m.author === 'assistant' && customerSeen) {
          if (pending.shift()) answered += 1;
          else {
            result.duplicated += 1;
            result.problems.push(`conversation ${conversation.id}: reply ${m.id} answers no message`);
          }
        }
      }
      result.replies += answered;
      const acked = new Set(conversation.sent.map((s) => s.id));
      const unanswered = pending.filter((m) => acked.has(m.id));
      result.lost += unanswered.length;
      if (unanswered.length)
        result.problems.push(`conversation ${conversation.id}: messages ${unanswered.map((m) => m.id).join(', ')} without a reply`);
      // Both events of every customer message and reply are in the feed.
      for (const m of messages.filter((m) => m.author === 'customer' || m.author === 'assistant')) {
        const kind = m.author === 'customer' ? 'message.received' : 'message.sent';
        if (!keys.has(`${kind}|${conversation.id}|${m.id}`)) {
          result.lost += 1;
          result.problems.push(`conversation ${conversation.id}: no ${kind} for message ${m.id}`);
        }
      }
      // The stream saw every message, in order (after reconnects, deduplicated by id).
      const streamIds = conversation.stream.arrivals.filter((id, i, all) => all.indexOf(id) === i);
      const missing = messages.filter((m) => !conversation.stream.seen.has(m.id));
      result.lost += missing.length;
      if (missing.length)
        result.problems.push(`conversation ${conversation.id}: its stream missed messages ${missing.map((m) => m.id).join(', ')}`);
      const outOfOrder = streamIds.filter((id, i) => i > 0 && id < streamIds[i - 1]).length;
      result.disorder += outOfOrder;
      if (outOfOrder) result.problems.push(`conversation ${conversation.id}: its stream saw ${outOfOrder} messages out of order`);
    }
  }
  return result;
}

/**
 * HMAC-SHA256 of `{timestamp}.{body}` with `secret`, compared with X-SVC-Signature.
 * @param {string} secret
 * @param {import('./workload.mjs').ReceivedRequest} request
 */
function signedBy(secret, request) {
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', secret).update(`${request.headers['x-svc-timestamp']}.`).update(request.body).digest('hex')}`,
  );
  const given = Buffer.from(String(request.headers['x-svc-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Webhooks: every event of a subscribed kind reached its endpoint with the same id and body, every
 * attempt signed by its own endpoint's secret.
 * @param {object} options
 * @param {Pick<Account, 'accountId' | 'endpoints'>[]} options.accounts
 * @param {Map<string, FeedEvent[]>} options.feeds every account's feed
 * @param {{ requests: import('./workload.mjs').ReceivedRequest[] }} options.receiver
 */
export function checkDeliveries({ accounts, feeds, receiver }) {
  const result = { deliveries: 0, lost: 0, wrongAccount: 0, changedBody: 0, problems: /** @type {string[]} */ ([]) };
  /** @type {Map<string | undefined, import('./workload.mjs').ReceivedRequest[]>} */
  const byPath = new Map();
  for (const r of receiver.requests) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  for (const account of accounts) {
    const feed = /** @type {FeedEvent[]} */ (feeds.get(account.accountId));
    const events = new Map(feed.map((e) => [e.id, e]));
    for (const endpoint of account.endpoints) {
      const received = byPath.get(endpoint.path) ?? [];
      /** @type {Set<number>} */
      const delivered = new Set();
      for (const request of received) {
        const body = JSON.parse(request.body.toString('utf8'));
        const event = events.get(body.id);
        if (!signedBy(endpoint.secret, request) || !event) {
          result.wrongAccount += 1;
          result.problems.push(`${endpoint.path}: event ${body.id} not signed for this endpoint or not of its account`);
          continue;
        }
        if (!isDeepStrictEqual(body, event) || String(body.id) !== request.headers['x-svc-event-id']) {
          result.changedBody += 1;
          result.problems.push(`${endpoint.path}: event ${body.id} delivered with another body than the feed's`);
        }
        delivered.add(body.id);
      }
      for (const event of feed) {
        if (endpoint.events && !endpoint.events.includes(event.event)) continue;
        if (delivered.has(event.id)) result.deliveries += 1;
        else {
          result.lost += 1;
          result.problems.push(`${endpoint.path}: event ${event.id} (${event.event}) never delivered`);
        }
      }
    }
  }
  return result;
}

/**
 * 5xx answers: only 503 with the error shape, and only while a fault was in effect (or just after).
 * @param {Pick<Recorder, 'serverErrors'>} recorder
 * @param {import('./faults.mjs').Window[]} windows
 */
export function checkServerErrors(recorder, windows) {
  const unexpected = recorder.serverErrors.filter((e) => e.status !== 503 || !e.shaped || !inWindow(windows, e.at));
  return {
    expected503: recorder.serverErrors.length - unexpected.length,
    unexpected: unexpected.length,
    problems: unexpected
      .slice(0, 20)
      .map((e) => `${e.status}${e.shaped ? '' : ' (not the error shape)'} at ${new Date(e.at).toISOString()} on ${e.what}`),
  };
}
