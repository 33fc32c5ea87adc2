import { Inject, Injectable, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { clientOf, createRedisClient, InjectLogger, ReadinessService, RedisClient } from '@svc/platform';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ChatConfig } from '../chat.config';
import { CHAT_CONFIG } from '../chat.config';

/** At most 5 streams per visitor token (the contract's limit). */
export const STREAMS_PER_TOKEN = 5;
/** How long a slot outlives its last refresh: a replica that dies frees its slots within this. */
export const SLOT_TTL_MS = 30_000;

/** How long the start waits for Redis: while it is away the chat starts anyway and refuses new streams. */
const CONNECT_WAIT_MS = 2_000;

/** One limit a stream counts against: its Redis key, its limit and what a refusal says. */
interface SlotLimit {
  key: string;
  limit: number;
  refusal: string;
}

/** A stream's slots, to release when it closes. */
export interface StreamLease {
  id: string;
  keys: string[];
}

/**
 * One slot of a limit: a sorted set per key, member = the stream's lease id, score = when the slot
 * expires (Redis's clock, so every replica agrees). Atomically: drop the expired slots, and add
 * this one if fewer than the limit are left. One key per script, so it runs on a cluster too.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`;

/** Pushes a slot's expiry on, if it is still held (a slot that expired meanwhile is not taken back). */
const REFRESH = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + ttl, ARGV[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`;

type SlotRedis = RedisClient & {
  takeSlot(key: string, lease: string, limit: number, ttlMs: number): Promise<number>;
  refreshSlot(key: string, lease: string, ttlMs: number): Promise<number>;
};

/**
 * The open visitor streams of every chat replica, counted in Redis: per visitor token (5), per
 * client address (an IPv6 /64) and per account. A stream holds a slot of each while it is open; the
 * slot is released when it closes and refreshed every third of SLOT_TTL_MS meanwhile, so the slots
 * of a replica that died expire within SLOT_TTL_MS. The slots are taken one after the other (the
 * token's first) and given back when a later one is refused: never more than a limit open, at
 * worst a stream refused while another gives back a slot it could not use.
 *
 * Redis down: a new stream is refused with 503 `unavailable` (fails closed); the streams already
 * open go on, and their slots expire if Redis stays away longer than SLOT_TTL_MS.
 */
@Injectable()
export class StreamSlots implements OnModuleInit, OnApplicationShutdown {
  private readonly redis: SlotRedis;
  private readonly open = new Map<string, StreamLease>();
  /** Releases on their way, awaited before the client closes on shutdown. */
  private readonly releasing = new Set<Promise<unknown>>();
  private readonly refresher: NodeJS.Timeout;
  private down = false;
  private closing = false;

  constructor(
    @Inject(CHAT_CONFIG)
    private readonly config: Pick<ChatConfig, 'REDIS_URL' | 'VISITOR_STREAMS_PER_ADDRESS' | 'VISITOR_STREAMS_PER_ACCOUNT'>,
    private readonly readiness: ReadinessService,
    @InjectLogger('streams') private readonly logger: Logger,
    @Optional() private readonly ttlMs: number = SLOT_TTL_MS,
  ) {
    // No offline queue and a command timeout: while Redis is away a stream gets its 503 at once.
    const redis = createRedisClient(config.REDIS_URL, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: 1_000,
      connectionName: 'chat',
    });
    redis.defineCommand('takeSlot', { numberOfKeys: 1, lua: TAKE });
    redis.defineCommand('refreshSlot', { numberOfKeys: 1, lua: REFRESH });
    // One line when Redis goes away and one when it is back; an error event nobody listens to would be printed by ioredis.
    redis.on('error', (err: Error) => this.lost(err.message));
    redis.on('close', () => this.lost('connection closed'));
    redis.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      this.logger.info('Redis available again: new visitor streams accepted');
    });
    this.redis = redis as SlotRedis;
    this.refresher = setInterval(() => void this.refresh(), ttlMs / 3);
    this.refresher.unref();
  }

  /** Reported for readiness, not required (the rest of the chat works without it); waits a moment for the first connection. */
  async onModuleInit(): Promise<void> {
    this.readiness.register('redis', () => this.redis.ping(), { critical: false });
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, CONNECT_WAIT_MS);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.redis.once('ready', done);
    });
  }

  /** Takes a slot of each limit for a stream of `conversation` from `address`; when a limit is full, what the refusal says. */
  async take(conversation: { id: number; account_id: string }, address: string): Promise<StreamLease | { refused: string }> {
    const limits: SlotLimit[] = [
      {
        key: `chat:streams:token:${conversation.account_id}:${conversation.id}`,
        limit: STREAMS_PER_TOKEN,
        refusal: `At most ${STREAMS_PER_TOKEN} open streams per visitor token; close one first.`,
      },
      {
        key: `chat:streams:address:${clientOf(address)}`,
        limit: this.config.VISITOR_STREAMS_PER_ADDRESS,
        refusal: `At most ${this.config.VISITOR_STREAMS_PER_ADDRESS} open streams per address; close one first.`,
      },
      {
        key: `chat:streams:account:${conversation.account_id}`,
        limit: this.config.VISITOR_STREAMS_PER_ACCOUNT,
        refusal: 'This chat has as many open streams as it may; try again shortly.',
      },
    ];
    const lease: StreamLease = { id: randomUUID(), keys: [] };
    try {
      for (const { key, limit, refusal } of limits) {
        if ((await this.redis.takeSlot(key, lease.id, limit, this.ttlMs)) !== 1) {
          await this.release(lease);
          return { refused: refusal };
        }
        lease.keys.push(key);
      }
    } catch (err) {
      await this.release(lease);
      throw err;
    }
    this.open.set(lease.id, lease);
    return lease;
  }

  /** Gives a stream's slots back (if Redis is away, they expire). */
  async release(lease: StreamLease): Promise<void> {
    this.open.delete(lease.id);
    if (lease.keys.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const key of lease.keys) pipeline.zrem(key, lease.id);
    const done = pipeline.exec().catch((err: Error) => this.logger.warn({ err: err.message }, 'stream slots not released; they expire'));
    this.releasing.add(done);
    await done;
    this.releasing.delete(done);
  }

  /** Keeps the slots of this replica's open streams from expiring. */
  private async refresh(): Promise<void> {
    if (this.open.size === 0 || this.down) return;
    try {
      await Promise.all(
        [...this.open.values()].flatMap((lease) => lease.keys.map((key) => this.redis.refreshSlot(key, lease.id, this.ttlMs))),
      );
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'stream slots not refreshed; the next refresh tries again');
    }
  }

  private lost(reason: string): void {
    if (this.down || this.closing) return;
    this.down = true;
    this.logger.error({ reason }, 'Redis unavailable: new visitor streams answer 503 until it is back; open ones go on');
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.refresher);
    await Promise.all(this.releasing);
    this.redis.disconnect();
  }
}
