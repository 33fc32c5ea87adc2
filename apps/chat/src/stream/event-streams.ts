import { BeforeApplicationShutdown } from '@nestjs/common';
import { WakeLoop } from '@svc/jobs';
import type { ServerResponse } from 'node:http';

/** A comment line this often keeps proxies and the visitor's connection from timing out. */
export const PING_INTERVAL_MS = 15_000;
/** While the LISTEN connection is down, streams read this often instead. */
const POLL_INTERVAL_MS = 2_000;

/** What one stream follows and how it reads it. */
export interface StreamSource {
  /** Calls `wake` whenever what the stream follows may have changed; returns the unsubscribe. */
  subscribe(wake: () => void): () => void;
  /** False while the LISTEN connection is down: the stream then polls. */
  isListening(): boolean;
  /** Reads what came since the last read: the events to write, and whether a full batch came (read again at once). */
  read(): Promise<{ chunk: string; more: boolean }>;
  /** A read failed: the next wake-up reads again. */
  onError(err: unknown): void;
  onClose?(): void;
}

/**
 * Server-Sent Events read from PostgreSQL: each stream reads after every wake-up (one read at a
 * time; wake-ups during a read make one more), polls while the listener is down, and writes
 * `: ping` every ping interval. On shutdown every stream ends: the client reconnects (to another
 * replica) with Last-Event-ID.
 */
export abstract class EventStreams implements BeforeApplicationShutdown {
  private readonly open = new Set<ServerResponse>();

  constructor(private readonly pingIntervalMs: number) {}

  get openStreams(): number {
    return this.open.size;
  }

  protected openStream(raw: ServerResponse, headers: Record<string, string>, source: StreamSource): void {
    raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    raw.flushHeaders();
    this.open.add(raw);
    let closed = false;
    // A source may end the stream itself (its token rotated): nothing is written after that, and its 'close' follows.
    const write = (text: string) => {
      if (!closed && !raw.writableEnded) raw.write(text);
    };
    const reads = new WakeLoop(
      async () => {
        const { chunk, more } = await source.read();
        if (closed || raw.writableEnded) return false;
        if (chunk) write(chunk);
        return more;
      },
      (err) => source.onError(err),
    );
    const unsubscribe = source.subscribe(() => reads.wake());
    const ping = setInterval(() => write(': ping\n\n'), this.pingIntervalMs);
    const poll = setInterval(() => {
      if (!source.isListening()) reads.wake();
    }, POLL_INTERVAL_MS);
    raw.once('close', () => {
      closed = true;
      reads.stop();
      unsubscribe();
      clearInterval(ping);
      clearInterval(poll);
      this.open.delete(raw);
      source.onClose?.();
    });
    reads.wake();
  }

  beforeApplicationShutdown(): void {
    for (const raw of this.open) raw.end();
  }
}
