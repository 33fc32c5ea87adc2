import { Inject, Injectable, Optional } from '@nestjs/common';
import { ApiError, RedisClient, unavailableError } from '@svc/platform';
import type { GatewayConfig } from '../gateway.config';
import { REDIS_CLIENT } from '../redis/redis-client';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GATEWAY_CONFIG } from '../gateway.config';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
/** How long a first answer is kept and replayed (the contract's 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** 1 to 255 printable ASCII characters (space included; HTTP trims it at either end). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** How often a request waiting for the first one with its key looks again. */
const POLL_MS = 50;

/** A service's final answer, as relayed to the caller and replayed later. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** What Redis holds per (API key, Idempotency-Key): the request's fingerprint; the answer once there is one. */
interface StoredRecord {
  fingerprint: string;
  /** Which request holds the key while it runs (only that one may complete or release it). */
  owner?: string;
  answer?: { status: number; headers: Record<string, string | string[]>; body: string };
}

/** Sets KEYS[1] to ARGV[2] (for ARGV[3] ms; deletes it when ARGV[2] is empty) only while it is still held by owner ARGV[1]. */
const SETTLE = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if not ok or record.owner ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1
`;

type IdempotencyRedis = RedisClient & { settleIdempotent(key: string, owner: string, value: string, ttlMs: number): Promise<number> };

export interface IdempotencyTiming {
  /** How long a claim holds without an answer: longer than any upstream call, so that a run never outlives its claim. */
  claimMs: number;
  /** How long a second request waits for the first one's answer before 409. */
  waitMs: number;
}

/** A claim outlives the longest upstream call; a second request with the key waits as long as the first may take. */
export function idempotencyTiming({ UPSTREAM_TIMEOUT_MS }: Pick<GatewayConfig, 'UPSTREAM_TIMEOUT_MS'>): IdempotencyTiming {
  return { claimMs: UPSTREAM_TIMEOUT_MS + 5_000, waitMs: UPSTREAM_TIMEOUT_MS + 5_000 };
}

export interface IdempotentRequest {
  /** The API key's id: keys are per API key, another key's identical Idempotency-Key is independent. */
  scope: string;
  key: string;
  method: string;
  /** The canonical path and query string. */
  url: string;
  body: Buffer | undefined;
}

/** The Idempotency-Key header of a request: undefined when absent, 400 `invalid_parameter` when malformed. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    throw new ApiError('invalid_parameter', 'The Idempotency-Key header is not valid.', [
      { path: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters, such as a UUID' },
    ]);
  }
  return header;
}

/** The request an Idempotency-Key stands for: method, canonical path and query, and the exact body bytes. */
export function fingerprintOf(request: Pick<IdempotentRequest, 'method' | 'url' | 'body'>): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n`)
    .update(request.body ?? Buffer.alloc(0))
    .digest('base64url');
}

/**
 * `Idempotency-Key` on POSTs, in Redis (shared by every gateway process, one key per API key and
 * Idempotency-Key, expiring after 24 hours). The first request claims the key (SET NX) and runs;
 * its final answer (any status below 500) is stored and replayed to later requests with the same
 * fingerprint; a 5xx or an unreachable service releases the key so that a retry runs again.
 * A request that finds the key claimed by one still running waits for that answer (polling) and
 * replays it; if the first one fails with a 5xx it claims the key and runs itself. A request whose
 * fingerprint differs from the stored one is 409 `conflict`. Without Redis nothing can be promised:
 * 503, as for every write.
 */
@Injectable()
export class IdempotencyStore {
  private readonly redis: IdempotencyRedis;

  constructor(
    @Inject(REDIS_CLIENT) redis: RedisClient,
    @Inject(GATEWAY_CONFIG) config: Pick<GatewayConfig, 'UPSTREAM_TIMEOUT_MS'>,
    /** From UPSTREAM_TIMEOUT_MS unless a test shortens the wait. */
    @Optional() private readonly timing: IdempotencyTiming = idempotencyTiming(config),
  ) {
    redis.defineCommand('settleIdempotent', { numberOfKeys: 1, lua: SETTLE });
    this.redis = redis as IdempotencyRedis;
  }

  /** The first answer for this request and whether it is a replay; `run` is called at most once per key at a time. */
  async answer(request: IdempotentRequest, run: () => Promise<Answer>): Promise<{ answer: Answer; replayed: boolean }> {
    const redisKey = `idempotency:${request.scope}:${createHash('sha256').update(request.key).digest('base64url')}`;
    const fingerprint = fingerprintOf(request);
    const owner = randomUUID();
    const deadline = Date.now() + this.timing.waitMs;
    for (;;) {
      const claimed = await this.redis
        .set(redisKey, JSON.stringify({ fingerprint, owner } satisfies StoredRecord), 'PX', this.timing.claimMs, 'NX')
        .catch(() => {
          throw unavailableError();
        });
      if (claimed === 'OK') return { answer: await this.runClaimed(redisKey, owner, fingerprint, run), replayed: false };
      const stored = await this.redis.get(redisKey).catch(() => {
        throw unavailableError();
      });
      // Gone between the two commands (expired, or released after a 5xx): try to claim it again.
      if (stored === null) continue;
      const record = JSON.parse(stored) as StoredRecord;
      if (record.fingerprint !== fingerprint) {
        throw new ApiError(
          'conflict',
          'This Idempotency-Key was already used with another request (method, path or body); use a new key for a new request.',
        );
      }
      if (record.answer) {
        return {
          answer: { status: record.answer.status, headers: record.answer.headers, body: Buffer.from(record.answer.body, 'base64') },
          replayed: true,
        };
      }
      if (Date.now() >= deadline) {
        throw new ApiError('conflict', 'A request with this Idempotency-Key is still in progress; retry later.');
      }
      await sleep(POLL_MS);
    }
  }

  private async runClaimed(redisKey: string, owner: string, fingerprint: string, run: () => Promise<Answer>): Promise<Answer> {
    let answer: Answer;
    try {
      answer = await run();
    } catch (err) {
      await this.settle(redisKey, owner, '');
      throw err;
    }
    if (answer.status >= 500) {
      await this.settle(redisKey, owner, '');
    } else {
      const record: StoredRecord = {
        fingerprint,
        answer: { status: answer.status, headers: answer.headers, body: answer.body.toString('base64') },
      };
      await this.settle(redisKey, owner, JSON.stringify(record));
    }
    return answer;
  }

  /**
   * Stores the answer (or releases the key) if the claim is still this request's. If Redis fails
   * here the answer is still given; the claim then expires by itself and a retry runs again.
   */
  private async settle(redisKey: string, owner: string, value: string): Promise<void> {
    await this.redis.settleIdempotent(redisKey, owner, value, IDEMPOTENCY_TTL_MS).catch(() => undefined);
  }
}
