import { isIPv4, isIPv6 } from 'node:net';
import * as z from 'zod/mini';
import { defineSettings } from '../core/config.js';
import { intSetting as int } from '../core/schemas.js';

/**
 * Settings of the login flow: what one device at a hotspot, one hotspot, one client address and
 * the whole platform may spend on SMS, and how many guesses without the request's `otp_token`
 * one client address may make. Sized from docs/scale.md.
 */
export const authSettings = defineSettings(
  z.object({
    /**
     * Codes sent per client address in any hour (sliding window), for a request that names no
     * hotspot and device (a reseller's console, a script). An office NAT of a few dozen people
     * logging in once or twice a day stays under it; a spray of numbers from one address does not.
     */
    OTP_REQUESTS_PER_ADDRESS_PER_HOUR: z._default(int, 30),
    /**
     * Codes sent per device (the client MAC the router passes) at one hotspot in any hour
     * (sliding window): a phone that asks again and again, whatever numbers it types.
     */
    OTP_REQUESTS_PER_DEVICE_PER_HOUR: z._default(int, 5),
    /**
     * Codes sent per hotspot per clock hour, unless its NAS record says otherwise
     * (`otp_requests_per_hour`): every subscriber of a hotspot shares one public address, so the
     * hotspot, not the address, is budgeted. A busy hotspot serves about 200 logins an evening
     * hour (docs/scale.md); random MACs from one hotspot stop here.
     */
    OTP_REQUESTS_PER_HOTSPOT_PER_HOUR: z._default(int, 400),
    /**
     * Codes sent by the whole platform per clock hour: the SMS spend bound. The model's peak is
     * 50 codes a second (180,000 an hour) if every purchase needed one; returning devices need
     * none (docs/decisions.md, "SMS per sale"), so this leaves headroom above the peak.
     */
    OTP_REQUESTS_PER_HOUR: z._default(int, 200_000),
    /**
     * Items the platform budget is split over: each request counts on one at random, so no item
     * sits in every OTP transaction (at 50 a second, 32 shards take about 1.6 a second each).
     */
    OTP_BUDGET_SHARDS: z._default(int, 32),
    /** Verifications without `otp_token` per client address in any hour (sliding window). */
    OTP_GUESSES_PER_ADDRESS_PER_HOUR: z._default(int, 20),
    /**
     * Retention of subscriber accounts (docs/decisions.md, "Retention"): one that an OTP request
     * created is removed by DynamoDB's TTL this many hours later unless its code is verified; a
     * verified one, this many days after its last verification.
     */
    UNVERIFIED_ACCOUNT_HOURS: z._default(int, 24),
    SUBSCRIBER_RETENTION_DAYS: z._default(int, 365),
  }),
  (v) => [
    // A sliding window keeps one attribute per allowed event on one item: keep it small.
    ...(v.OTP_REQUESTS_PER_ADDRESS_PER_HOUR >= 1 && v.OTP_REQUESTS_PER_ADDRESS_PER_HOUR <= 100
      ? []
      : ['OTP_REQUESTS_PER_ADDRESS_PER_HOUR']),
    ...(v.OTP_GUESSES_PER_ADDRESS_PER_HOUR >= 1 && v.OTP_GUESSES_PER_ADDRESS_PER_HOUR <= 100
      ? []
      : ['OTP_GUESSES_PER_ADDRESS_PER_HOUR']),
    ...(v.OTP_REQUESTS_PER_DEVICE_PER_HOUR >= 1 && v.OTP_REQUESTS_PER_DEVICE_PER_HOUR <= 100
      ? []
      : ['OTP_REQUESTS_PER_DEVICE_PER_HOUR']),
    ...(v.OTP_REQUESTS_PER_HOTSPOT_PER_HOUR >= 1 ? [] : ['OTP_REQUESTS_PER_HOTSPOT_PER_HOUR']),
    ...(v.OTP_REQUESTS_PER_HOUR >= 1 ? [] : ['OTP_REQUESTS_PER_HOUR']),
    ...(v.OTP_BUDGET_SHARDS >= 1 && v.OTP_BUDGET_SHARDS <= 100 ? [] : ['OTP_BUDGET_SHARDS']),
  ],
);

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
