// One spelling per IP address, so that two spellings of one address compare equal.

import { isIP } from 'node:net';

/**
 * One spelling per address, so that two spellings of one address compare equal: an IPv4
 * address as is, an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, `::FFFF:c000:201`) as the
 * IPv4 address it carries, any other IPv6 address in lower case with its zeros compressed (RFC
 * 5952, as the WHATWG URL parser writes it; a zone `%eth0` is no address of ours). Undefined for
 * anything that is not an IP address.
 */
export function canonicalIp(ip: string | undefined): string | undefined {
  const text = ip?.trim() ?? '';
  const kind = isIP(text);
  if (kind === 4) return text;
  if (kind !== 6 || text.includes('%')) return undefined;
  const compressed = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (!mapped) return compressed;
  const [hi, lo] = [Number.parseInt(mapped[1] as string, 16), Number.parseInt(mapped[2] as string, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}
