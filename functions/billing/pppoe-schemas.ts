// The PPPoE routes' request and answer schemas (plans, subscribers, renewals).

import * as z from 'zod/mini';
import { schema, uuid } from '../core/schemas.js';
import { PLAN_PERIODS } from '../store/pppoe.js';

export const PppoeQuery = /* @__PURE__ */ schema(() => z.strictObject({ reseller_id: z.optional(uuid()) }));
export const PppoeIdParams = /* @__PURE__ */ schema(() => z.strictObject({ id: uuid() }));

const kbps = /* @__PURE__ */ schema(() => z.int().check(z.gte(64), z.lte(10_000_000)));
const planName = /* @__PURE__ */ schema(() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(60),
    z.refine(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it refuses.
      (s) => !/[<>\u0000-\u001f\u007f-\u009f]/.test(s),
      'must not contain < or >, nor control characters',
    ),
  ),
);
const FairUse = /* @__PURE__ */ schema(() =>
  z.strictObject({
    /** Counted in the period (download and upload), in GB: past it, the slower speeds. */
    gb: z.int().check(z.gte(1), z.lte(100_000)),
    down_kbps: kbps,
    up_kbps: kbps,
  }),
);
const planFields = /* @__PURE__ */ schema(() => ({
  name: planName,
  price_fcfa: z.int().check(z.gte(1), z.lte(10_000_000)),
  period: z.enum(PLAN_PERIODS),
  down_kbps: kbps,
  up_kbps: kbps,
  fair_use: z.optional(FairUse),
  /** Sessions at once (default 1). */
  max_devices: z.optional(z.int().check(z.gte(1), z.lte(10))),
  /** Days after the end of a period during which the plan's service goes on unpaid. */
  grace_days: z.int().check(z.gte(0), z.lte(15)),
  hidden: z.optional(z.boolean()),
}));
const slowerStep = (p: {
  down_kbps?: number;
  up_kbps?: number;
  fair_use?: { down_kbps: number; up_kbps: number };
}) =>
  !p.fair_use ||
  p.down_kbps === undefined ||
  p.up_kbps === undefined ||
  (p.fair_use.down_kbps <= p.down_kbps && p.fair_use.up_kbps <= p.up_kbps);

export const PppoePlanCreateBody = /* @__PURE__ */ schema(() =>
  z
    .strictObject(planFields)
    .check(z.refine(slowerStep, { message: 'the fair-use step must not be faster', path: ['fair_use'] })),
);
export const PppoePlanUpdateBody = /* @__PURE__ */ schema(() =>
  z.partial(z.strictObject(planFields)).check(
    z.refine((b) => Object.keys(b).length > 0, 'nothing to change'),
    z.refine(slowerStep, { message: 'the fair-use step must not be faster', path: ['fair_use'] }),
  ),
);
export const PppoePlanSchema = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    price_fcfa: z.int(),
    period: z.enum(PLAN_PERIODS),
    down_kbps: z.int(),
    up_kbps: z.int(),
    fair_use: z.optional(z.object({ gb: z.int(), down_kbps: z.int(), up_kbps: z.int() })),
    max_devices: z.int(),
    grace_days: z.int(),
    hidden: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export const PppoePlansList = /* @__PURE__ */ schema(() => z.object({ items: z.array(PppoePlanSchema) }));

/** A PPPoE user name: what a subscriber types on its router, lower case. */
const username = /* @__PURE__ */ schema(() =>
  z.string().check(z.regex(/^[a-z0-9][a-z0-9._-]{2,31}$/, 'must be 3..32 of a-z 0-9 . _ - (lower case)')),
);
/** A password typed on a router: printable ASCII without spaces, 8..32 characters. */
const password = /* @__PURE__ */ schema(() =>
  z.string().check(z.regex(/^[\x21-\x7e]{8,32}$/, 'must be 8..32 printable characters without spaces')),
);
const msisdn = /* @__PURE__ */ schema(() => z.string().check(z.minLength(6), z.maxLength(32)));
const ipv4 = /* @__PURE__ */ schema(() =>
  z
    .string()
    .check(
      z.regex(
        /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/,
        'must be an IPv4 address',
      ),
    ),
);
const subscriberName = /* @__PURE__ */ schema(() => planName);
const nasIds = /* @__PURE__ */ schema(() =>
  z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.minLength(1), z.maxLength(20)),
);

export const PppoeSubscriberCreateBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    plan_id: uuid(),
    /** Where reminders go (international, or as written in the reseller's country). */
    msisdn,
    name: subscriberName,
    /** The hotspots whose PPPoE server it logs in through. */
    nas_ids: nasIds,
    /** A fixed address (absent: the router's pool). */
    address: z.optional(ipv4),
    /** Absent: generated (`pp` and 8 printable characters). */
    username: z.optional(username),
    /** Absent: generated (10 printable characters). */
    password: z.optional(password),
  }),
);
export const PppoeSubscriberUpdateBody = /* @__PURE__ */ schema(() =>
  z
    .strictObject({
      plan_id: z.optional(uuid()),
      msisdn: z.optional(msisdn),
      name: z.optional(subscriberName),
      nas_ids: z.optional(nasIds),
      /** null: back to the router's pool. */
      address: z.optional(z.nullable(ipv4)),
      username: z.optional(username),
      password: z.optional(password),
      /** true: a fresh generated password (the card is printed again). */
      new_password: z.optional(z.literal(true)),
      /** true: refused at login whatever is paid; false: back. */
      suspended: z.optional(z.boolean()),
    })
    .check(
      z.refine((b) => Object.keys(b).length > 0, 'nothing to change'),
      z.refine((b) => !(b.password && b.new_password), 'password and new_password exclude each other'),
    ),
);

const SUBSCRIBER_STATES = ['new', 'active', 'grace', 'expired', 'suspended'] as const;
const subscriberFields = /* @__PURE__ */ schema(() => ({
  id: z.string(),
  plan_id: z.string(),
  msisdn: z.string(),
  name: z.string(),
  username: z.string(),
  nas_ids: z.array(z.string()),
  address: z.optional(z.string()),
  /** new (never paid), active, grace (ended, within the plan's grace days), expired, suspended. */
  state: z.enum(SUBSCRIBER_STATES),
  periods: z.int(),
  paid_until: z.optional(z.string()),
  /** Counted in the current period (bytes, both ways). */
  period_bytes: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
}));
/** One subscriber, with its PPPoE password (answered to its reseller and admins only). */
export const PppoeSubscriberSchema = /* @__PURE__ */ schema(() =>
  z.object({ ...subscriberFields, password: z.string() }),
);
/** One subscriber as GET answers it: with the periods sold, oldest first. */
export const PppoeSubscriberDetail = /* @__PURE__ */ schema(() =>
  z.object({
    ...subscriberFields,
    password: z.string(),
    renewals: z.array(
      z.object({
        period: z.int(),
        starts_at: z.string(),
        ends_at: z.string(),
        channel: z.enum(['cash', 'mobile_money']),
        amount_fcfa: z.int(),
        payment_id: z.optional(z.string()),
        at: z.string(),
      }),
    ),
  }),
);
/** The list leaves the passwords out. */
export const PppoeSubscribersList = /* @__PURE__ */ schema(() =>
  z.object({ items: z.array(z.object(subscriberFields)) }),
);

export const PppoeCashRenewalBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    /** The period sold: the subscriber's `periods + 1` as the console read it (a repeat is refused). */
    period: z.int().check(z.gte(1), z.lte(100_000)),
  }),
);
export const PppoeRenewalSchema = /* @__PURE__ */ schema(() =>
  z.object({ subscriber_id: z.string(), period: z.int(), starts_at: z.string(), ends_at: z.string() }),
);
export const PppoePaymentBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    subscriber_id: uuid(),
    provider: z.enum(['orange_money', 'mtn_momo', 'moov_money', 'wave']),
  }),
);
