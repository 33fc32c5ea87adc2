import { Inject, Injectable } from '@nestjs/common';
import type { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import ipaddr from 'ipaddr.js';
import { lookup } from 'node:dns/promises';
import { WEBHOOK_DISPATCHER_CONFIG } from '../webhook-dispatcher.config';

/** IPv6 global unicast: anything outside it (IPv4-compatible `::a.b.c.d`, unassigned space) is not a receiver. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * The special-purpose range `address` belongs to (`loopback`, `private`, `carrierGradeNat`,
 * `uniqueLocal`, …, from ipaddr.js's IANA tables), or `unicast` for an ordinary public address.
 * IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries. Not an address: `invalid`.
 */
export function addressRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  const range = v6.range();
  if (range !== 'unicast') return range;
  return v6.match(GLOBAL_UNICAST_V6) ? 'unicast' : 'reserved';
}

export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}

/** The host part of a URL as an address or name: `[::1]` → `::1`. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Why a receiver may not be called at `address` (one of `host`'s addresses), for messages and attempt records. */
export function refusal(host: string, address: string): string {
  const named = host === address ? address : `${host} (${address})`;
  return `${named} is not a public address (${addressRange(address)}); receivers must be on the public internet`;
}

/** Raised at connect time when a receiver's name resolves to a refused address. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
}

/**
 * Which receivers may be called. Without `allowPrivateNetworks`, only public addresses: checked at
 * registration here and again on every connection by the sender (`guardedLookup`), because a name
 * may resolve elsewhere later (DNS rebinding).
 */
@Injectable()
export class AddressPolicy {
  readonly allowPrivateNetworks: boolean;

  constructor(@Inject(WEBHOOK_DISPATCHER_CONFIG) config: Pick<WebhookDispatcherConfig, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'>) {
    this.allowPrivateNetworks = config.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  }

  /** Undefined when `url` may be registered; otherwise why not. Resolves names (all their addresses). */
  async registrationProblem(url: URL): Promise<string | undefined> {
    if (this.allowPrivateNetworks) return undefined;
    const host = hostOf(url);
    if (ipaddr.isValid(host)) return isPublicAddress(host) ? undefined : `url ${refusal(host, host)}`;
    let addresses: Array<{ address: string }>;
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      return `url host ${host} does not resolve`;
    }
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    return refused ? `url ${refusal(host, refused.address)}` : undefined;
  }
}
