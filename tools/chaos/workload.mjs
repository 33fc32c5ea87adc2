// The work of a chaos run, at a person's pace, through the public origin only: business backends
// writing customers, consents and knowledge (REST, as a good client: Idempotency-Key on POSTs,
// retries with backoff on 429/503/timeouts), chat visitors with their streams open (reconnecting
// with Last-Event-ID), a feed reader paging with `after`, an MCP agent (the official SDK client),
// and an https webhook receiver that fails or stalls some first attempts. Everything acknowledged
// is recorded for the checker.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

/** @typedef {() => number} Random a number in [0, 1) per call */
/** @typedef {() => boolean} Stop true once the client should stop */
/** @typedef {'acked' | 'refused' | 'unknown'} Outcome */
/**
 * @typedef {object} CallInit
 * @property {string} [method]
 * @property {Record<string, string>} [headers]
 * @property {unknown} [json] the body, sent as JSON
 * @property {string} [what] how the recorder names the call (default: method and path)
 */
/**
 * @typedef {object} CallResult One HTTP call: the answer (`status`, `body`, `headers`), or `error` when none came.
 * @property {number} [status]
 * @property {any} [body] the answer's JSON (its text when not JSON): any, as each caller reads the shape its route answers
 * @property {Headers} [headers]
 * @property {unknown} [error] a timeout or a broken connection
 */
/** @typedef {CallResult & { outcome: Outcome, attempts: number }} Settled */
/**
 * @typedef {object} Recorder What every client saw.
 * @property {{ at: number, status: number, shaped: boolean, what: string }[]} serverErrors
 * @property {Record<number, number>} statuses
 * @property {number} transportErrors
 * @property {Record<string, number>} refusals
 * @property {{ kind: string, at: number }[]} acked
 * @property {(status: number, body: ErrorBody, at?: number, what?: string) => void} note
 * @property {(kind: string, at?: number) => void} ack
 */
/**
 * @typedef {{ error?: { code?: unknown, message?: string } } | null | undefined} ErrorBody an answer's JSON, read for the API's
 *   error shape
 */
/** @typedef {{ name: string, email: string } | { heading: string, text: string } | null} Written what a write set (null: deleted) */
/** @typedef {{ purpose: string, given_at: string, source: string }} Consent */
/**
 * @typedef {object} KeyEntry The values written to one key.
 * @property {Written | undefined} acked the last acknowledged one (undefined: none)
 * @property {Written[]} unknown those whose outcome is unknown, after it
 * @property {Consent[]} consents acknowledged consents
 */
/**
 * @typedef {{ kind: 'contact', accountId: string, ref: string, name: string, status: number | undefined }
 *   | { kind: 'bulk', accountId: string, refs: string[], status: number | undefined }} Refused a write meant to be refused
 */
/** @typedef {ReturnType<typeof createWriteModel>} WriteModel */
/** @typedef {{ id: number, author: string, text: string }} ChatMessage */
/**
 * @typedef {object} FeedEvent
 * @property {number} id
 * @property {string} event
 * @property {{ conversation?: { id: string }, message?: { id: number }, consent?: { given_at: string } }} [data]
 */
/**
 * @typedef {object} Conversation A visitor's conversation: what was sent and acknowledged, and its stream.
 * @property {string} accountId
 * @property {string} visitor
 * @property {string} id
 * @property {string} token
 * @property {{ id: number, text: string, attempts: number }[]} sent
 * @property {{ text: string, attempts: number, outcome: Outcome, status: number | undefined }[]} unknown
 * @property {VisitorStream} stream
 * @property {ChatMessage[]} [messages] the conversation as read back after the drain (chaos.mjs)
 */
/**
 * @typedef {object} Account A business of the run: its API key, webhook endpoints and widget.
 * @property {string} accountId
 * @property {string} key
 * @property {{ path: string, events: string[] | null, secret: string }[]} endpoints
 * @property {string} [widget]
 */
/**
 * @typedef {object} ReceivedRequest A request the webhook receiver got.
 * @property {string | undefined} path
 * @property {import('node:http').IncomingHttpHeaders} headers
 * @property {Buffer} body
 * @property {number} attempt
 * @property {number | 'stalled'} answered
 * @property {number} at
 */

const REQUEST_TIMEOUT_MS = 15_000;
/** How long a client keeps retrying one operation before it gives up (the outcome is then unknown). */
const GIVE_UP_MS = 120_000;

/**
 * What every client saw: 5xx answers (time, status, shaped as the API's error), counts by status, acknowledged operations.
 * @returns {Recorder}
 */
export function createRecorder() {
  return {
    serverErrors: [],
    statuses: {},
    transportErrors: 0,
    refusals: {},
    acked: [],
    note(status, body, at = Date.now(), what = '') {
      this.statuses[status] = (this.statuses[status] ?? 0) + 1;
      if (status === 429) this.refusals[body?.error?.message ?? '?'] = (this.refusals[body?.error?.message ?? '?'] ?? 0) + 1;
      if (status >= 500) this.serverErrors.push({ at, status, shaped: typeof body?.error?.code === 'string', what });
    },
    ack(kind, at = Date.now()) {
      this.acked.push({ kind, at });
    },
  };
}

/**
 * One HTTP call: `{ status, body, headers }`, or `{ error }` for a timeout or a broken connection.
 * @param {Recorder} recorder
 * @param {string} url
 * @param {CallInit} [init]
 * @returns {Promise<CallResult>}
 */
async function call(recorder, url, { method = 'GET', headers = {}, json, what } = {}) {
  try {
    const response = await fetch(url, {
      method,
      headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    recorder.note(response.status, body, Date.now(), what ?? `${method} ${new URL(url).pathname}`);
    return { status: response.status, body, headers: response.headers };
  } catch (error) {
    recorder.transportErrors += 1;
    return { error };
  }
}

/**
 * `call` until an answer that settles it: 2xx `acked`, another 4xx than 429 `refused`; 429 waits its
 * Retry-After, 5xx and timeouts back off (0.2 s doubling to 5 s); after GIVE_UP_MS or `stop()`, `unknown`.
 * @param {Recorder} recorder
 * @param {string} url
 * @param {CallInit} init
 * @param {Stop} [stop]
 * @returns {Promise<Settled>}
 */
async function settle(recorder, url, init, stop = () => false) {
  const deadline = Date.now() + GIVE_UP_MS;
  for (let attempt = 0; ; attempt += 1) {
    const r = await call(recorder, url, init);
    const status = r.status ?? 0; // no answer (r.error): in none of the ranges below, as undefined was
    if (status >= 200 && status < 300) return { outcome: 'acked', ...r, attempts: attempt + 1 };
    if (status >= 400 && status < 500 && status !== 429) return { outcome: 'refused', ...r, attempts: attempt + 1 };
    if (Date.now() > deadline || stop()) return { outcome: 'unknown', ...r, attempts: attempt + 1 };
    const wait = status === 429 ? Number(r.headers?.get('retry-after') ?? 1) * 1000 : Math.min(5000, 200 * 2 ** attempt);
    await sleep(wait * (0.75 + Math.random() / 2));
  }
}

/** The values written per key (`account|kind|ref`): the last acknowledged one, and those whose outcome is unknown after it. */
export function createWriteModel() {
  /** @type {Map<string, KeyEntry>} */
  const keys = new Map();
  /** @param {string} key */
  const entry = (key) => /** @type {KeyEntry} */ (keys.get(key) ?? keys.set(key, { acked: undefined, unknown: [], consents: [] }).get(key));
  return {
    keys,
    /** @type {Refused[]} */
    refused: [],
    count: 0,
    /**
     * @param {string} key
     * @param {Outcome} outcome
     * @param {Written} value
     */
    record(key, outcome, value) {
      const e = entry(key);
      if (outcome === 'acked') {
        e.acked = value;
        e.unknown = [];
        this.count += 1;
      } else if (outcome === 'unknown') e.unknown.push(value);
    },
    /**
     * @param {string} key
     * @param {Consent} consent
     */
    consent(key, consent) {
      entry(key).consents.push(consent);
    },
  };
}

/**
 * @template T
 * @param {Random} random
 * @param {T[]} items
 */
const pickOf = (random, items) => items[Math.floor(random() * items.length)];
/**
 * Sleeps between `low` and `high` seconds, waking early when `stop()` turns true.
 * @param {Random} random
 * @param {number} low
 * @param {number} high
 * @param {Stop} stop
 */
const pause = (random, low, high, stop) => sleepUnless(low + random() * (high - low), stop);
/**
 * Sleeps `s` seconds, waking early when `stop()` turns true.
 * @param {number} s
 * @param {Stop} stop
 */
async function sleepUnless(s, stop) {
  for (const end = Date.now() + s * 1000; Date.now() < end && !stop();) await sleep(Math.min(250, end - Date.now()));
}

const PRODUCTS = ['hiking boots', 'rain jacket', 'tent', 'sleeping bag', 'backpack', 'kayak', 'headlamp', 'camping stove'];
const PURPOSES = ['reply_email', 'reply_whatsapp', 'future_email', 'future_whatsapp'];

/** Knowledge pieces an account starts with, so the assistant has something to answer from. */
export const seedPieces = () =>
  PRODUCTS.map((p, i) => ({
    external_ref: `seed-${i}`,
    heading: `Returns of the ${p}`,
    text: `You can return the ${p} within 30 days of delivery for a full refund; the ${p} must be unused.`,
  }));

/**
 * @typedef {object} ClientOptions What a client of the run is given.
 * @property {string} key the account's API key
 * @property {string} accountId
 * @property {Random} random
 * @property {Recorder} recorder
 * @property {WriteModel} model
 * @property {Stop} stop
 * @property {[number, number]} paceS seconds between two operations, from and to
 */

/**
 * A business backend: writes customers (with consents) and knowledge, and some refused writes, one at a time.
 * @param {ClientOptions & { api: string }} options
 */
export async function backend({ api, key, accountId, random, recorder, model, stop, paceS }) {
  const auth = { authorization: `Bearer ${key}` };
  /**
   * @param {string} kind
   * @param {string} ref
   */
  const k = (kind, ref) => `${accountId}|${kind}|${ref}`;
  for (let seq = 0; !stop(); seq += 1) {
    await pause(random, paceS[0], paceS[1], stop);
    if (stop()) break;
    const roll = random();
    const tag = `${seq}-${randomUUID().slice(0, 8)}`;
    if (roll < 0.4) {
      const ref = `c-${Math.floor(random() * 20)}`;
      const value = { name: `Name ${tag}`, email: `c${tag}@example.com` };
      const consent = random() < 0.5 ? { purpose: pickOf(random, PURPOSES), given_at: new Date().toISOString(), source: 'chaos' } : null;
      const body = { ...value, ...(consent ? { consents: [{ ...consent, text: `I agree (${tag}).` }] } : {}) };
      const r = await settle(recorder, `${api}/contacts/${ref}`, { method: 'PUT', headers: auth, json: body, what: 'PUT /contacts' }, stop);
      model.record(k('contact', ref), r.outcome, value);
      if (r.outcome === 'acked') {
        recorder.ack('write');
        if (consent) model.consent(k('contact', ref), consent);
      }
    } else if (roll < 0.6) {
      const ref = `k-${Math.floor(random() * 12)}`;
      const product = pickOf(random, PRODUCTS);
      const value = {
        heading: `Delivery of the ${product} ${tag}`,
        text: `The ${product} is delivered within three working days (${tag}).`,
      };
      const r = await settle(
        recorder,
        `${api}/knowledge/${ref}`,
        { method: 'PUT', headers: auth, json: value, what: 'PUT /knowledge' },
        stop,
      );
      model.record(k('piece', ref), r.outcome, value);
      if (r.outcome === 'acked') recorder.ack('write');
    } else if (roll < 0.7) {
      const refs = [0, 1, 2].map(() => `b-${Math.floor(random() * 12)}`).filter((r, i, all) => all.indexOf(r) === i);
      const items = refs.map((ref) => ({
        external_ref: ref,
        heading: `Opening hours ${tag}`,
        text: `The shop opens at nine every weekday (${tag}).`,
      }));
      const headers = { ...auth, 'idempotency-key': randomUUID() };
      const r = await settle(
        recorder,
        `${api}/knowledge/bulk`,
        { method: 'POST', headers, json: { items }, what: 'POST /knowledge/bulk' },
        stop,
      );
      for (const item of items) model.record(k('piece', item.external_ref), r.outcome, { heading: item.heading, text: item.text });
      if (r.outcome === 'acked') recorder.ack('write');
    } else if (roll < 0.77) {
      const ref = `k-${Math.floor(random() * 12)}`;
      const r = await settle(recorder, `${api}/knowledge/${ref}`, { method: 'DELETE', headers: auth, what: 'DELETE /knowledge' }, stop);
      // 404: it was not there (never written, or deleted before): absent all the same.
      const outcome = r.status === 404 ? 'acked' : r.outcome;
      model.record(k('piece', ref), outcome, null);
      if (r.outcome === 'acked') recorder.ack('write');
    } else if (roll < 0.9) {
      // Refused: a valid name with an invalid email must change nothing.
      const ref = `c-${Math.floor(random() * 20)}`;
      const r = await settle(recorder, `${api}/contacts/${ref}`, {
        method: 'PUT',
        headers: auth,
        json: { name: `refused ${tag}`, email: 'not an address' },
        what: 'PUT /contacts (invalid)',
      });
      model.refused.push({ kind: 'contact', accountId, ref, name: `refused ${tag}`, status: r.status });
    } else {
      // Refused: a bulk with one invalid item writes none of them.
      const items = [
        { external_ref: `r-${tag}-1`, heading: 'Refused', text: 'This piece must never be written.' },
        { external_ref: `r-${tag}-2`, heading: '', text: 'Nor this one: its heading is empty.' },
      ];
      const headers = { ...auth, 'idempotency-key': randomUUID() };
      const r = await settle(recorder, `${api}/knowledge/bulk`, {
        method: 'POST',
        headers,
        json: { items },
        what: 'POST /knowledge/bulk (invalid)',
      });
      model.refused.push({ kind: 'bulk', accountId, refs: items.map((i) => i.external_ref), status: r.status });
    }
  }
}

/** The SSE stream of one conversation, reconnecting with Last-Event-ID: every message event in arrival order. */
export class VisitorStream {
  /** @type {number[]} */
  arrivals = [];
  /** @type {Map<number, ChatMessage>} */
  seen = new Map();
  reconnects = 0;
  opens = 0;
  closed = false;
  /** @type {AbortController | null} */
  abort = null;

  /**
   * @param {string} base
   * @param {string} token
   * @param {Recorder} recorder
   * @param {Record<string, string>} [headers]
   */
  constructor(base, token, recorder, headers = {}) {
    this.base = base;
    this.token = token;
    this.headers = headers;
    this.recorder = recorder;
    this.done = this.run();
  }

  get lastId() {
    return Math.max(0, ...this.seen.keys());
  }

  async run() {
    while (!this.closed) {
      const abort = new AbortController();
      this.abort = abort;
      const lastId = this.lastId;
      let lastByte = Date.now();
      // No byte in 40 s (pings come every 15 s): the connection is dead or held; open another.
      const watchdog = setInterval(() => Date.now() - lastByte > 40_000 && abort.abort(), 2000);
      try {
        this.opens += 1;
        const response = await fetch(`${this.base}/chat/v1/stream`, {
          headers: { ...this.headers, authorization: `Bearer ${this.token}`, ...(lastId > 0 ? { 'last-event-id': String(lastId) } : {}) },
          signal: abort.signal,
        });
        if (response.status !== 200) {
          const text = await response.text().catch(() => '');
          let body = null;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          this.recorder.note(response.status, body, Date.now(), 'GET /chat/v1/stream');
        } else {
          this.recorder.note(200, null);
          const decoder = new TextDecoder();
          let buffer = '';
          for await (const chunk of /** @type {ReadableStream<Uint8Array>} */ (response.body)) {
            lastByte = Date.now();
            buffer += decoder.decode(chunk, { stream: true });
            for (let end; (end = buffer.indexOf('\n\n')) !== -1;) {
              this.onBlock(buffer.slice(0, end));
              buffer = buffer.slice(end + 2);
            }
          }
        }
      } catch {
        // dropped (a replica killed, a timeout, closed by us)
      } finally {
        clearInterval(watchdog);
      }
      if (this.closed) break;
      this.reconnects += 1;
      await sleep(500 + Math.random() * 1500);
    }
  }

  /** @param {string} block */
  onBlock(block) {
    let event = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data += line.slice(5).trim();
    }
    if (event !== 'message' || !data) return;
    const message = JSON.parse(data);
    this.arrivals.push(message.id);
    if (!this.seen.has(message.id)) this.seen.set(message.id, message);
  }

  async close() {
    this.closed = true;
    this.abort?.abort();
    await this.done;
  }
}

const QUESTIONS = [
  'Can I return the {p}?',
  'How long does delivery of the {p} take?',
  'When does the shop open?',
  'Is the {p} refundable?',
];

/**
 * A chat visitor: one conversation after another, a message every few seconds, waiting for each reply on the stream.
 * @param {Pick<ClientOptions, 'accountId' | 'random' | 'recorder' | 'stop' | 'paceS'>
 *   & { base: string, widget: string | undefined, name: string, address: string, conversations: Conversation[] }} options
 */
export async function visitor({ base, widget, accountId, name, address, random, recorder, conversations, stop, paceS }) {
  // The visitor's own address, as the load balancer (HAProxy, like an Ingress) passes it on in X-Forwarded-For.
  const from = { 'x-forwarded-for': address };
  while (!stop()) {
    const session = await settle(
      recorder,
      `${base}/chat/v1/sessions`,
      { method: 'POST', headers: from, json: { widget }, what: 'POST /chat/v1/sessions' },
      stop,
    );
    if (session.outcome !== 'acked') {
      await sleep(1000);
      continue;
    }
    const token = session.body.token;
    /** @type {Conversation} */
    const conversation = {
      accountId,
      visitor: name,
      id: session.body.conversation.id,
      token,
      sent: [],
      unknown: [],
      stream: new VisitorStream(base, token, recorder, from),
    };
    conversations.push(conversation);
    const length = 6 + Math.floor(random() * 8);
    for (let n = 0; n < length && !stop(); n += 1) {
      await pause(random, paceS[0], paceS[1], stop);
      if (stop()) break;
      const text = `${pickOf(random, QUESTIONS).replace('{p}', pickOf(random, PRODUCTS))} [${name}-${conversation.id}-${n}]`;
      const auth = { ...from, authorization: `Bearer ${token}` };
      const r = await settle(
        recorder,
        `${base}/chat/v1/messages`,
        { method: 'POST', headers: auth, json: { text }, what: 'POST /chat/v1/messages' },
        stop,
      );
      if (r.outcome !== 'acked') {
        conversation.unknown.push({ text, attempts: r.attempts, outcome: r.outcome, status: r.status });
        continue;
      }
      recorder.ack('message');
      const id = r.body.message.id;
      conversation.sent.push({ id, text, attempts: r.attempts });
      for (const end = Date.now() + 45_000; Date.now() < end && !stop(); await sleep(100))
        if ([...conversation.stream.seen.values()].some((m) => m.author === 'assistant' && m.id > id)) break;
    }
  }
}

/** A feed reader: pages through `GET /events` with `after`, noting every id in the order it saw them. */
export class FeedReader {
  /** @type {number[]} */
  ids = [];
  /** @type {FeedEvent[]} */
  events = [];
  cursor = 0;
  repeats = 0;
  backwards = 0;

  /** @param {{ api: string, key: string, recorder: Recorder }} options */
  constructor({ api, key, recorder }) {
    this.api = api;
    this.auth = { authorization: `Bearer ${key}` };
    this.recorder = recorder;
    /** @type {Set<number>} */
    this.seen = new Set();
  }

  /** One pass to the end of the feed as it is now; false when a call failed. */
  async catchUp() {
    for (;;) {
      const r = await call(this.recorder, `${this.api}/events?after=${this.cursor}&limit=100`, { headers: this.auth, what: 'GET /events' });
      if (r.status !== 200) return false;
      for (const event of r.body.events) {
        if (this.seen.has(event.id)) this.repeats += 1;
        else this.events.push(event);
        if (event.id <= (this.ids.at(-1) ?? 0)) this.backwards += 1;
        this.seen.add(event.id);
        this.ids.push(event.id);
      }
      this.cursor = r.body.next_after;
      if (!r.body.more) return true;
    }
  }

  /** @param {Stop} stop */
  async run(stop) {
    while (!stop()) {
      if (!(await this.catchUp())) await sleep(500);
      await sleepUnless(1, stop);
    }
  }
}

/**
 * An AI agent over MCP (the official SDK's Streamable HTTP client): reads events and contacts, upserts its own contacts.
 * @param {ClientOptions & { base: string }} options
 */
export async function mcpAgent({ base, key, accountId, random, recorder, model, stop, paceS }) {
  // Every HTTP answer the SDK gets is recorded like the others.
  /** @type {import('@modelcontextprotocol/sdk/shared/transport.js').FetchLike} */
  const recordingFetch = async (url, init) => {
    try {
      const response = await fetch(url, {
        ...init,
        signal: AbortSignal.any([AbortSignal.timeout(REQUEST_TIMEOUT_MS), ...(init?.signal ? [init.signal] : [])]),
      });
      if (response.status >= 500) {
        const body = /** @type {ErrorBody} */ (
          await response
            .clone()
            .json()
            .catch(() => null)
        );
        recorder.note(response.status, body, Date.now(), 'POST /mcp');
      } else recorder.note(response.status, null);
      return response;
    } catch (err) {
      recorder.transportErrors += 1;
      throw err;
    }
  };
  /** @type {Client | null} */
  let client = null;
  const connect = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: recordingFetch,
    });
    const c = new Client({ name: 'chaos-agent', version: '1.0.0' });
    await c.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    return c;
  };
  /**
   * A tool call until it settles: `acked` with the result, `refused` (a 4xx error in the result), or `unknown`.
   * @param {string} name
   * @param {Record<string, unknown>} args
   * @returns {Promise<{ outcome: Outcome, result?: unknown }>}
   */
  const tool = async (name, args) => {
    const deadline = Date.now() + GIVE_UP_MS;
    for (let attempt = 0; ; attempt += 1) {
      try {
        client ??= await connect();
        const result = await client.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });
        if (!result.isError) return { outcome: 'acked', result };
        // The API's error shape, in structuredContent or as the text of the first content block.
        const failed = /** @type {{ structuredContent?: ErrorBody, content?: { text?: string }[] }} */ (result);
        const code = failed.structuredContent?.error?.code ?? JSON.parse(failed.content?.[0]?.text ?? '{}')?.error?.code;
        if (code !== 'unavailable' && code !== 'rate_limited' && code !== 'internal_error') return { outcome: 'refused', result };
      } catch {
        client?.close().catch(() => undefined);
        client = null;
      }
      if (Date.now() > deadline || stop()) return { outcome: 'unknown' };
      await sleep(Math.min(5000, 200 * 2 ** attempt) * (0.75 + Math.random() / 2));
    }
  };
  for (let seq = 0; !stop(); seq += 1) {
    await pause(random, paceS[0], paceS[1], stop);
    if (stop()) break;
    const roll = random();
    if (roll < 0.4) {
      const ref = `m-${Math.floor(random() * 6)}`;
      const value = { name: `Agent ${seq}-${randomUUID().slice(0, 8)}`, email: `m${seq}-${randomUUID().slice(0, 6)}@example.com` };
      const r = await tool('upsert_contact', { ref, ...value });
      model.record(`${accountId}|contact|${ref}`, r.outcome, value);
      if (r.outcome === 'acked') recorder.ack('mcp-write');
    } else {
      const r = await (roll < 0.7 ? tool('list_events', { limit: 5 }) : tool('get_contact', { ref: `m-${Math.floor(random() * 6)}` }));
      if (r.outcome !== 'unknown') recorder.ack('mcp');
    }
  }
  // `tool` sets it (flow analysis does not see assignments in closures)
  await /** @type {Client | null} */ (client)?.close().catch(() => undefined);
}

/**
 * The businesses' https webhook receiver (`ca`: the test CA's server certificate). Answers 500 to the
 * first attempt of about 8% of deliveries and holds about 4% past the dispatcher's timeout (10 s),
 * decided by a hash of `seed` and the delivery; everything else 200. Records every request.
 * @param {{ key: string, cert: string }} ca
 * @param {number} seed
 */
export async function startReceiver(ca, seed) {
  /** @type {ReceivedRequest[]} */
  const requests = [];
  /** @type {Map<string, number>} */
  const attempts = new Map();
  const server = createServer({ key: ca.key, cert: ca.cert, keepAliveTimeout: 30_000 });
  server.on('request', (req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const eventId = req.headers['x-svc-event-id'];
      const key = `${req.url}|${eventId}`;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      const roll = createHash('sha256').update(`${seed}|${key}`).digest().readUInt32BE(0) % 100;
      const answer = attempt === 1 && roll < 8 ? 500 : 200;
      const stall = attempt === 1 && roll >= 8 && roll < 12;
      requests.push({ path: req.url, headers: req.headers, body, attempt, answered: stall ? 'stalled' : answer, at: Date.now() });
      const send = () => !res.destroyed && res.writeHead(answer).end();
      if (stall) setTimeout(send, 10_000).unref();
      else send();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    requests,
    /** @param {string} path */
    url: (path) => `https://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}${path}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

export { call, settle, sleepUnless };
