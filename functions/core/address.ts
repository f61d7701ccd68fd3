// Client addresses and device MACs as the budgets count them (an IPv4 address, an IPv6 /64, a MAC folded).

import { isIPv4, isIPv6 } from 'node:net';

/**
 * Client addresses as budgets count them (functions/auth/otp-budgets.ts, functions/radius/guesses.ts):
 * who a per-address limit falls on.
 */

/** The eight 16-bit groups of an IPv6 address, `::` expanded (undefined when it is not one). */
function ipv6Groups(address: string): string[] | undefined {
  if (!isIPv6(address)) return undefined;
  let text = address.split('%')[0] as string;
  // A trailing dotted quad (::ffff:1.2.3.4) is two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}

/**
 * Whom a per-address limit counts a request against: the IPv4 address, or the /64 of an IPv6
 * one (a single subscriber line holds a whole /64). Undefined for a loopback address: only the
 * local server gives one (API Gateway always gives the caller's public address), where every
 * client is the developer's own machine and SMS go to the outbox file. An address that is not
 * one (absent) counts against one shared `unknown` subject rather than against nothing.
 */
export function addressSubject(sourceIp: string | undefined): string | undefined {
  const ip = sourceIp?.trim() ?? '';
  if (isIPv4(ip)) return ip.startsWith('127.') ? undefined : ip;
  const groups = ipv6Groups(ip);
  if (!groups) return 'unknown';
  const mapped = groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff';
  if (mapped) {
    const [hi, lo] = [Number.parseInt(groups[6] as string, 16), Number.parseInt(groups[7] as string, 16)];
    return addressSubject(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  if (groups.slice(0, 7).every((g) => g === '0') && groups[7] === '1') return undefined;
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** A MAC address as routers write it (`AA:BB:..`, `aa-bb-..`, `aabb..`), as 12 lower-case hex digits. */
export function macSubject(mac: string | undefined): string | undefined {
  const hex = mac?.trim().toLowerCase().replace(/[:.-]/g, '') ?? '';
  return /^[0-9a-f]{12}$/.test(hex) ? hex : undefined;
}

/**
 * The key of an address for budgets that also count loopback callers (the wrong-code budgets of
 * the portal, the addresses routers send from, which the local stack's routers have):
 * `addressSubject`, else the address as given.
 */
export function addressKey(sourceIp: string | undefined): string {
  return addressSubject(sourceIp) ?? (sourceIp?.trim() || 'unknown');
}
