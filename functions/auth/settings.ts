// The login flow's settings: OTP budgets per address, hotspot, device, block, country and platform.

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
     * Codes sent per client address (an IPv4 address, an IPv6 /64) in any hour (sliding window):
     * every request counts against its address, whatever its body says. An office NAT of a few
     * dozen people logging in once or twice a day stays under it; a spray of numbers does not.
     */
    OTP_REQUESTS_PER_ADDRESS_PER_HOUR: z._default(int, 30),
    /**
     * Codes sent per device (the client MAC the portal passes) behind one hotspot address in any
     * hour (sliding window): a phone that asks again and again, whatever numbers it types. A MAC
     * in the body only ever adds this limit; it never lifts another.
     */
    OTP_REQUESTS_PER_DEVICE_PER_HOUR: z._default(int, 5),
    /**
     * Codes sent per clock hour from the address a registered router sends from (its hotspot's
     * public address, which every subscriber there shares), unless the NAS record of one of its
     * hotspots says more (`otp_requests_per_hour`): the raised per-address budget. A busy
     * hotspot serves about 200 logins an evening hour (docs/scale.md). Numbers verified before
     * are not counted against it: whoever empties it at the hotspot denies only first logins.
     */
    OTP_REQUESTS_PER_HOTSPOT_PER_HOUR: z._default(int, 400),
    /**
     * Codes sent per clock hour to one block of numbers (all but the last four digits: 10,000
     * numbers), numbers verified before excepted: a spray of a range stops here.
     */
    OTP_REQUESTS_PER_BLOCK_PER_HOUR: z._default(int, 200),
    /**
     * Codes sent per clock hour to one country's numbers (sharded as the platform's budget):
     * a spray aimed at one country leaves the others their SMS.
     */
    OTP_REQUESTS_PER_COUNTRY_PER_HOUR: z._default(int, 100_000),
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
    ...(v.OTP_REQUESTS_PER_BLOCK_PER_HOUR >= 1 ? [] : ['OTP_REQUESTS_PER_BLOCK_PER_HOUR']),
    ...(v.OTP_REQUESTS_PER_COUNTRY_PER_HOUR >= 1 ? [] : ['OTP_REQUESTS_PER_COUNTRY_PER_HOUR']),
    ...(v.OTP_BUDGET_SHARDS >= 1 && v.OTP_BUDGET_SHARDS <= 100 ? [] : ['OTP_BUDGET_SHARDS']),
  ],
);

export { addressSubject, macSubject } from '../core/address.js';
