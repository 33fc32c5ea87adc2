import { makeValidator } from 'envalid';
import { isIP } from 'node:net';

// The client's address behind proxies: the `TRUST_PROXY` setting of the apps that face clients
// (the gateway, the chat), and what per-client limits count by.

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR range, or one of proxy-addr's names for a range. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/** Fastify's `trustProxy`: empty trusts nobody, a number that many proxies, else their addresses (never everyone). */
export const trustProxy = makeValidator<number | string>((value) => {
  const setting = value.trim();
  if (setting === '') return '';
  if (/^\d+$/.test(setting)) return Number(setting);
  const entries = setting.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isProxyAddress(entry));
  if (bad.length > 0)
    throw new Error(
      `must be empty, a number of proxies, or addresses and CIDR ranges (loopback, linklocal, uniquelocal allowed); not ${bad.join(', ')}`,
    );
  return entries.join(',');
});

/** TRUST_PROXY as Fastify takes it: false (the default) trusts no proxy. */
export function trustProxyOption(setting: number | string): false | number | string {
  return setting === '' ? false : setting;
}

/** What a client is counted by: an IPv4 address as is, an IPv6 address by its /64 (one subscriber's block). */
export function clientOf(address: string): string {
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4) return lower.slice(7);
  if (isIP(lower) !== 6) return address;
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])));
  const [head = '', tail] = lower.split('::');
  const [left, right] = [groupsOf(head), groupsOf(tail ?? '')];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
