// Deploy-time settings read from the CDK context (a cell's own in cdk.json), each mapped to a function's environment variable.

import { GATEWAY_NAMES, gatewayNamed } from '../functions/billing/gateways/registry.js';
import { routes as ROUTES } from '../functions/routes.js';
import type { CanaryTargets } from './canary.js';

/** An Elastic IP the cell already holds, adopted by the stack instead of a new one. */
export interface HeldAddress {
  /** `eipalloc-…` (`aws ec2 describe-addresses`). */
  allocationId: string;
  /** Its address, which the routers' scripts carry. */
  publicIp: string;
}

/** The table's provisioned capacity: auto scaled between a floor and a ceiling, per table and index. */
export interface TableCapacity {
  /** Read and write units of the table itself (the ceiling is what it may scale to). */
  table: { minRead: number; maxRead: number; minWrite: number; maxWrite: number };
  /** Read and write units of each global secondary index. */
  index: { minRead: number; maxRead: number; minWrite: number; maxWrite: number };
  /** The utilization auto scaling keeps (percent of what is provisioned). */
  targetPct: number;
}

/**
 * Deploy-time settings (CDK context, `-c key=value` or cdk.json). Each one that a function reads
 * maps to one environment variable in SETTINGS below: adding a setting is one line there.
 *
 * A cell's own context may sit in cdk.json under `cells.<cell>` (region, availability zones,
 * time zone, VLAN pool...): `-c cell=ci` then reads those, and a key given on the command line
 * wins over the cell's. `cells` lists every cell of the deployment in order: the first (or
 * `accountAlarmsCell`) is the one that alarms on the account's own metrics (SMS spend and
 * delivery, the account's Lambda concurrency and throttles), which every cell of an account
 * shares.
 */
export interface HotspotSettings {
  stage: string;
  /**
   * The cell this deployment is (a country or a gateway site, at most 400 resellers: one VLAN
   * pool): part of the stack's name and a tag on every resource, CELL_ID in every function.
   */
  cell?: string;
  /**
   * Where it deploys: context `account`/`region` (or the cell's entry), else the CLI's
   * CDK_DEFAULT_ACCOUNT/REGION. A cell's region is its own: the CLI's default region does not
   * replace it.
   */
  account?: string;
  region?: string;
  /**
   * The availability zones of its RADIUS front's VPC, given in context: a stack with an account
   * synthesizes with no AZ lookup (offline, without credentials). Without them an
   * account-specific synth asks AWS (and caches the answer in cdk.context.json).
   */
  availabilityZones?: string[];
  /**
   * Minute of the UTC day at which the cell's nightly maintenance starts (03:00 in its
   * `timeZone`, or its `utcOffset`): the front's certificate renewal and rolling replacement.
   */
  maintenanceUtcMinute: number;
  /** Whether this cell alarms on the account-wide metrics (one cell per account and stage does). */
  accountAlarms: boolean;
  /** The API's own domain (`api.ci.example.com`) and its ACM certificate's ARN, in this region. */
  domain?: { name: string; certificateArn: string };
  throttleRate: number;
  throttleBurst: number;
  /**
   * Route throttles below the stage's, by the route's `throttle.context` (functions/routes.ts
   * gives the sizes; context `<name>Rate|Burst` resizes them). Requests per second and burst.
   */
  routeThrottles?: Record<string, { rate: number; burst: number }>;
  /**
   * Reserved concurrency of every function URL, instead of its route's `reservedConcurrency`.
   * 0: no reservation (for an account whose concurrency quota is still the new-account 10).
   */
  webhookReservedConcurrency?: number;
  /**
   * An AWS Backup vault in another region (its ARN): the table is backed up every
   * `backupEveryDays` (default 7) into a vault of this stack (kept until the next one) and each
   * backup copied there, kept `backupCopyKeepDays` (default 14: the last two). Point-in-time
   * recovery (35 days) is the in-region restore; these copies are for a region lost.
   */
  backupCopyVaultArn?: string;
  backupEveryDays: 1 | 7;
  backupCopyKeepDays: number;
  /** The table's capacity: provisioned and auto scaled (default), or on demand. */
  tableCapacity: TableCapacity | 'on-demand';
  /**
   * The router-facing addresses the front adopts (one per AZ) instead of making new ones: a cell
   * redeployed after a deletion keeps its routers' addresses (docs/network.md).
   */
  radiusAddresses?: HeldAddress[];
  /** The addresses the front's NAT gateways adopt (one per AZ): where Disconnect-Requests leave from. */
  radiusEgressAddresses?: HeldAddress[];
  /** The account's Lambda concurrency quota (alarm at 80 % of it). Default 1,000. */
  concurrencyQuota?: number;
  /** Alarm when more OTPs than this are sent in an hour (counted per 15 minutes). */
  otpSentAlarmPerHour?: number;
  smsSpendAlarmUsd: number;
  opsEmails: string[];
  canary?: Omit<CanaryTargets, 'apiUrl'>;
  /** Values for the functions' environment, by variable name (see SETTINGS). */
  env: Record<string, string>;
}

/** Context key -> environment variable read by functions/core/config.ts. */
const SETTINGS: Record<string, string> = {
  providerFeeRate: 'PROVIDER_FEE_RATE',
  operatorShareRate: 'OPERATOR_SHARE_RATE',
  vlanFirstId: 'VLAN_FIRST_ID',
  vlanPoolSize: 'VLAN_POOL_SIZE',
  aggregatorBaseUrl: 'AGGREGATOR_BASE_URL',
  aggregatorTimeoutMs: 'AGGREGATOR_TIMEOUT_MS',
  publicBaseUrl: 'PUBLIC_BASE_URL',
  /**
   * The RADIUS front's addresses for the routers' setup scripts, comma-separated. Default: the
   * front's own Elastic IPs, from the same deploy (the `RadiusAddresses` output).
   */
  radiusHost: 'RADIUS_HOST',
  smsSenderId: 'SMS_SENDER_ID',
  jwtIssuer: 'JWT_ISSUER',
  jwtAudience: 'JWT_AUDIENCE',
  // OTP budgets (functions/auth/settings.ts).
  otpRequestsPerAddressPerHour: 'OTP_REQUESTS_PER_ADDRESS_PER_HOUR',
  otpRequestsPerHour: 'OTP_REQUESTS_PER_HOUR',
  otpGuessesPerAddressPerHour: 'OTP_GUESSES_PER_ADDRESS_PER_HOUR',
  // Payments (docs/payments.md): the gateway of new payments and each gateway's settings.
  paymentGateway: 'PAYMENT_GATEWAY',
  /** Deprecated alias of `paymentGateway`. */
  paymentProvider: 'PAYMENT_PROVIDER',
  defaultCountry: 'DEFAULT_COUNTRY',
  paymentReturnUrl: 'PAYMENT_RETURN_URL',
  cinetpaySiteId: 'CINETPAY_SITE_ID',
  cinetpayBaseUrl: 'CINETPAY_BASE_URL',
  fedapayBaseUrl: 'FEDAPAY_BASE_URL',
};

/** The platform's OTP budget per clock hour when `otpRequestsPerHour` is not given (functions/auth/settings.ts). */
const OTP_REQUESTS_PER_HOUR_DEFAULT = 2000;

/** The cell's local hour its nightly maintenance starts at. */
const MAINTENANCE_LOCAL_HOUR = 3;

/**
 * The table's capacity by default: a cell's peak is about 1,000 write units a second over the
 * table and its indexes (docs/scale.md), most on the table and gsi2; the floors are a quiet
 * night's, the ceilings well above the peak. Target 70 %: about 40 % of headroom while auto
 * scaling catches up with the evening's rise, which takes hours.
 */
export const TABLE_CAPACITY_DEFAULT: TableCapacity = {
  table: { minRead: 50, maxRead: 4000, minWrite: 50, maxWrite: 4000 },
  index: { minRead: 10, maxRead: 3000, minWrite: 10, maxWrite: 3000 },
  targetPct: 70,
};

/** A list from context: an array, or a comma-separated string from `-c key=a,b`. */
const listOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === 'string' && v ? v.split(',').map((s) => s.trim()) : [];

/** A JSON value from context: an object in cdk.json, or a JSON string from `-c key='...'`. */
const jsonOf = (v: unknown): unknown => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v);

/** Adopted addresses from context, each `{ allocationId, publicIp }`; a malformed one fails the synth. */
function heldAddresses(key: string, raw: unknown): HeldAddress[] | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = jsonOf(raw);
  const ok = (a: unknown): a is HeldAddress =>
    typeof a === 'object' &&
    a !== null &&
    /^eipalloc-[0-9a-f]{8,17}$/.test(String((a as HeldAddress).allocationId)) &&
    /^\d{1,3}(\.\d{1,3}){3}$/.test(String((a as HeldAddress).publicIp));
  if (!Array.isArray(value) || value.length === 0 || !value.every(ok))
    throw new Error(
      `context "${key}" must be a list of { "allocationId": "eipalloc-…", "publicIp": "a.b.c.d" }`,
    );
  return value.map((a) => ({ allocationId: a.allocationId, publicIp: a.publicIp }));
}

/**
 * Minutes east of UTC of a time zone, which must keep one offset all year (the cells' countries
 * do: West and Central Africa keep no summer time). A zone that changes would move the window
 * by an hour twice a year: the synth refuses it rather than pretend.
 */
function fixedOffsetMinutes(timeZone: string): number {
  const offsetAt = (utcMs: number) => {
    const parts = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    }).formatToParts(utcMs);
    const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    const local = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'));
    return Math.round((local - utcMs) / 60_000);
  };
  const january = offsetAt(Date.UTC(2026, 0, 15));
  if (offsetAt(Date.UTC(2026, 6, 15)) !== january)
    throw new Error(
      `context "timeZone": ${timeZone} changes its offset during the year; give "utcOffset" instead`,
    );
  return january;
}

/** `+01:00`, `-03:30`, `0`: minutes east of UTC. */
function utcOffsetMinutes(raw: string): number {
  const m = /^([+-])?(\d{1,2})(?::?(\d{2}))?$/.exec(raw.trim());
  if (!m) throw new Error('context "utcOffset" must look like +01:00');
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  if (minutes > 14 * 60) throw new Error('context "utcOffset" must be within ±14:00');
  return m[1] === '-' ? -minutes : minutes;
}

export function settingsFromContext(given: (key: string) => unknown): HotspotSettings {
  const cell = given('cell');
  if (cell !== undefined && !/^[a-z0-9][a-z0-9-]{0,30}$/.test(String(cell)))
    throw new Error('context "cell" must be lowercase letters, digits and dashes (a stack name part)');
  // The deployment's cells and their own context (cdk.json `cells`), in order.
  const cellsRaw = jsonOf(given('cells'));
  const cells = (
    cellsRaw && typeof cellsRaw === 'object' && !Array.isArray(cellsRaw) ? cellsRaw : {}
  ) as Record<string, Record<string, unknown> | undefined>;
  const cellIds = Array.isArray(cellsRaw) ? cellsRaw.map(String) : Object.keys(cells);
  if (cell !== undefined && cellIds.length && !cellIds.includes(String(cell)))
    throw new Error(`context "cell": ${String(cell)} is not one of the cells (${cellIds.join(', ')})`);
  const own = cell !== undefined ? (cells[String(cell)] ?? {}) : {};
  // A key on the command line (or at the top of cdk.json) wins over the cell's own.
  const get = (key: string): unknown => given(key) ?? own[key];

  const env: Record<string, string> = {};
  for (const [key, name] of Object.entries(SETTINGS)) {
    const v = get(key);
    if (v !== undefined && v !== null && v !== '') env[name] = String(v);
  }
  // `-c key=value` gives strings: a value that is not a number fails the synth, not the deploy.
  const num = (key: string, fallback: number) => {
    const v = Number(get(key) ?? fallback);
    if (!Number.isFinite(v)) throw new Error(`context "${key}" must be a number`);
    return v;
  };
  // A typo here would open every payment with the default gateway: fail the synth instead.
  for (const [key, name] of [
    ['paymentGateway', 'PAYMENT_GATEWAY'],
    ['paymentProvider', 'PAYMENT_PROVIDER'],
  ] as const) {
    if (env[name] !== undefined && !gatewayNamed(env[name])) {
      throw new Error(`context "${key}" must be one of ${GATEWAY_NAMES.join(', ')}`);
    }
  }
  const domainName = get('domainName');
  const certificateArn = get('certificateArn');
  if (Boolean(domainName) !== Boolean(certificateArn))
    throw new Error('context "domainName" and "certificateArn" go together (the certificate of that name)');
  // One cell, one VLAN pool of at most 400 ids (a reseller each), within 802.1Q's 1..4094.
  const vlanFirst = num('vlanFirstId', 10);
  const vlanSize = num('vlanPoolSize', 400);
  if (vlanSize < 1 || vlanSize > 400 || vlanFirst < 2 || vlanFirst + vlanSize - 1 > 4094)
    throw new Error('context "vlanFirstId"/"vlanPoolSize": at most 400 ids, within 2..4094');

  // The account's own metrics are alarmed by one cell: the one named, else the first listed.
  const owner = get('accountAlarmsCell') ?? cellIds[0];
  if (owner !== undefined && cellIds.length && !cellIds.includes(String(owner)))
    throw new Error(`context "accountAlarmsCell": ${String(owner)} is not one of the cells`);
  const accountAlarms = owner === undefined || cell === undefined || String(owner) === String(cell);

  const timeZone = get('timeZone');
  const offset =
    timeZone !== undefined
      ? fixedOffsetMinutes(String(timeZone))
      : get('utcOffset') !== undefined
        ? utcOffsetMinutes(String(get('utcOffset')))
        : 0;
  const maintenanceUtcMinute = (((MAINTENANCE_LOCAL_HOUR * 60 - offset) % 1440) + 1440) % 1440;

  const backupEveryDays = num('backupEveryDays', 7);
  if (backupEveryDays !== 1 && backupEveryDays !== 7)
    throw new Error('context "backupEveryDays" must be 1 (daily) or 7 (weekly)');
  const capacity = get('tableCapacity');
  const tableCapacity: TableCapacity | 'on-demand' =
    capacity === 'on-demand'
      ? 'on-demand'
      : {
          ...TABLE_CAPACITY_DEFAULT,
          ...((capacity ? jsonOf(capacity) : {}) as Partial<TableCapacity>),
        };
  const zones = listOf(get('availabilityZones'));
  const account = get('account') ?? process.env.CDK_DEFAULT_ACCOUNT;
  const region = get('region') ?? process.env.CDK_DEFAULT_REGION;
  const radiusAddresses = heldAddresses('radiusAddresses', get('radiusAddresses'));
  const radiusEgressAddresses = heldAddresses('radiusEgressAddresses', get('radiusEgressAddresses'));
  if (zones.length && radiusAddresses && radiusAddresses.length !== zones.length)
    throw new Error('context "radiusAddresses": one per availability zone');
  return {
    stage: String(get('stage') ?? 'prod'),
    ...(cell ? { cell: String(cell) } : {}),
    ...(account ? { account: String(account) } : {}),
    ...(region ? { region: String(region) } : {}),
    ...(zones.length ? { availabilityZones: zones } : {}),
    maintenanceUtcMinute,
    accountAlarms,
    ...(domainName ? { domain: { name: String(domainName), certificateArn: String(certificateArn) } } : {}),
    // Every other route: about 250/s spread over some sixty routes at peak; the busiest (the
    // portal page, /access/mine, /forfaits) about 50/s each.
    throttleRate: num('throttleRate', 100),
    throttleBurst: num('throttleBurst', 200),
    routeThrottles: Object.fromEntries(
      ROUTES.flatMap((r) =>
        r.throttle
          ? [
              [
                r.throttle.context,
                {
                  rate: num(`${r.throttle.context}Rate`, r.throttle.rate),
                  burst: num(`${r.throttle.context}Burst`, r.throttle.burst),
                },
              ],
            ]
          : [],
      ),
    ),
    ...(get('webhookReservedConcurrency') !== undefined
      ? { webhookReservedConcurrency: num('webhookReservedConcurrency', 0) }
      : {}),
    // Half the platform's hourly budget: operations hear of a flood before it is refused.
    otpSentAlarmPerHour: num(
      'otpSentAlarmPerHour',
      Math.ceil(num('otpRequestsPerHour', OTP_REQUESTS_PER_HOUR_DEFAULT) / 2),
    ),
    smsSpendAlarmUsd: num('smsSpendAlarmUsd', 50),
    concurrencyQuota: num('concurrencyQuota', 1000),
    ...(get('backupCopyVaultArn') ? { backupCopyVaultArn: String(get('backupCopyVaultArn')) } : {}),
    backupEveryDays,
    backupCopyKeepDays: num('backupCopyKeepDays', 14),
    tableCapacity,
    ...(radiusAddresses ? { radiusAddresses } : {}),
    ...(radiusEgressAddresses ? { radiusEgressAddresses } : {}),
    opsEmails: listOf(get('opsEmails')),
    ...(get('canary') !== undefined ? { canary: parseCanary(get('canary')) } : {}),
    env,
  };
}

/** The `canary` context: an object in cdk.json, or a JSON string from `-c canary='{...}'`. */
function parseCanary(raw: unknown): Omit<CanaryTargets, 'apiUrl'> {
  const value = jsonOf(raw);
  if (typeof value !== 'object' || value === null) throw new Error('context "canary" must be an object');
  return value as Omit<CanaryTargets, 'apiUrl'>;
}
