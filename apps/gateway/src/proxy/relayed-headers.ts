import type { IncomingHttpHeaders } from 'node:http';

/** Response headers that describe one hop and must not be relayed. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'date',
  'x-request-id',
]);

/** The response headers of a service relayed to the caller. */
export function relayedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const relayed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) relayed[name] = value;
  }
  return relayed;
}

/** Why a service could not be reached, for the log: the connection error's code where there is one. */
export const unreachableReason = (err: unknown): string => (err as { code?: string }).code ?? String(err);
