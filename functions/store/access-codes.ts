// The access code's record and its writes: created, activated, extended, revoked, its devices claimed.

import type { Currency } from '../core/currency.js';
import { allOf, cancelled, type Expr, entity, exists, type TxItem, transact, type Update } from './entity.js';
import type { Offer } from './forfaits.js';
import { voucherCountsMove } from './voucher-counts.js';

/**
 * An access code: what a hotspot router lets in. Every entitlement has one: a voucher is an
 * access code sold in advance, a completed mobile-money payment creates one. The subscriber
 * types it on the captive portal (User-Name = User-Password = the code, as hotspot vouchers
 * work on MikroTik), and RADIUS enforces what it carries: time, data, rates and devices.
 *
 * The code's clock starts at its first login (or, for a purchase, when the payment completes),
 * not when it is made. Its data is counted across every session of every device.
 */
/** The offer of a code, with how many devices may hold a session at once. */
export type AccessOffer = Offer & { max_devices: number };

export interface AccessCode {
  code: string;
  reseller_id: string;
  /** `agent`: sold for cash by a reseller's agent, counted in revenue when sold (functions/store/agents.ts). */
  source: 'voucher' | 'payment' | 'agent';
  /** The voucher's batch, the payment or the agent that made the code. */
  source_id: string;
  /** The buyer, when known (payments; a voucher redeemed through the API). */
  subscriber_id?: string;
  forfait_id: string;
  forfait_name?: string;
  offer: AccessOffer;
  /** What a voucher's first use adds to its reseller's revenue. */
  price_fcfa?: number;
  created_at: string;
  /** A code never used is refused after this (ISO). */
  use_by?: string;
  /** When its clock started (ISO): first login, redemption or payment. */
  started_at?: string;
  /** End of its access (ISO), set when its clock starts. */
  expires_at?: string;
  /** Bytes used by all its sessions (input + output). */
  used_bytes: number;
  /** Devices holding a session: device key (MAC, else NAS port) -> lease end, epoch seconds. */
  devices: Record<string, number>;
  /**
   * Data reservations of the devices holding a lease: device key -> bytes its sessions may
   * still use (granted at its logins, lowered by accounting). Absent on a code never logged in.
   */
  grants?: Record<string, number>;
  /**
   * The devices of `devices` whose lease a MAC login took (device key -> 1): a device typing the
   * code may take such a lease over when the code has no free place (a copied MAC never keeps
   * the code's owner out).
   */
  mac_leases?: Record<string, number>;
  /** Raised by each change of `devices` and by each top-up: the optimistic lock of a login. */
  devices_version: number;
  /** How many top-ups were added to it, and when the last one was (functions/billing/topups.ts). */
  topups?: number;
  topped_up_at?: string;
  /** Devices remembered for MAC login with their subscriber's consent (functions/store/mac-bindings.ts). */
  bound_devices?: number;
  last_login_at?: string;
  last_nas_id?: string;
  /** Revoked by its reseller or an admin (ISO): refused from then on, its live sessions cut; or
   * when the payment that made it was refunded (its `expires_at` set to that instant too). */
  revoked_at?: string;
  /**
   * A voucher's own fields (`source` voucher: the code is the voucher, one item; see
   * functions/store/vouchers.ts). Stored `active` until its redemption through the API or its
   * first login, then `redeemed` (it reads `expired` once `expires_at` has passed).
   */
  voucher_status?: 'active' | 'redeemed';
  /** Its reseller's currency when the voucher was made. */
  currency?: Currency;
  redeemed_at?: string;
  /** The subscriber who redeemed it through the API (none for a first login at a hotspot). */
  redeemed_by?: string;
  /**
   * The in-country edges' replica (`replicaChanges`): when what an edge decides on last changed
   * (its sale is `created_at`; its first use, a top-up, a revocation, a step of its data), and
   * its used bytes as of then (`used_bytes` moves with every report: copied in steps only).
   */
  replica_at?: string;
  replica_bytes?: number;
  /** Out of the replica's index: found ended by a first sync (a top-up brings it back). */
  replica_gone?: string;
}

/** Access codes are kept this long after their end (support questions, disputes). */
const KEEP_AFTER_END_S = 90 * 24 * 3600;

/** A code sold to a subscriber (a voucher's has none until its redeemer logs in). */
const sold = (a: AccessCode) => a.subscriber_id !== undefined;

/**
 * Partitions of a reseller's live codes in the replica's index: each write of one goes to one
 * of them (by its code), so no partition takes every sale or first login of a busy reseller.
 */
export const REPLICA_SHARDS = 16;

/** The shard of a code (a sum of its characters: codes are random). */
function replicaShard(code: string): number {
  let n = 0;
  for (let i = 0; i < code.length; i++) n = (n * 31 + code.charCodeAt(i)) % 65_521;
  return n % REPLICA_SHARDS;
}

/** The partition of a reseller's shard in `replicaChanges`. */
export const replicaPartition = (resellerId: string, shard: number): string =>
  `REPLICA#${resellerId}#${String(shard).padStart(2, '0')}`;

export const Access = entity<AccessCode>('access_code')({
  key: (a: Pick<AccessCode, 'code'>) => ({ pk: `CODE#${a.code}`, sk: 'CODE' }),
  indexes: {
    /** A subscriber's codes, newest first (the portal's "you have time left"). */
    bySubscriber: { gsi: 'gsi1', pk: 'SUBSCRIBER#{subscriber_id}#CODES', sk: '{created_at}', when: sold },
    /**
     * A reseller's vouchers by stored status, then code (the voucher lists). On gsi5, which
     * projects only what a list shows: a login after the first and every accounting report
     * change none of it, so they write no copy there.
     */
    vouchersByStatus: {
      gsi: 'gsi5',
      pk: 'VOUCHERS#{reseller_id}',
      sk: '{voucher_status}#{code}',
      // Only vouchers carry a voucher status: no other code is in this index.
      sparse: { voucher_status: ['active', 'redeemed'] },
    },
    /**
     * A reseller's codes that may still log in, by shard then change time (the edges' replica:
     * a first sync reads the shards whole, a later one only past its cursor). Every code enters
     * at its sale; one found ended leaves (`replica_gone`) until a top-up brings it back.
     */
    replicaChanges: {
      gsi: 'gsi6',
      composite: ['reseller_id', 'code', 'created_at', 'replica_at', 'replica_gone'],
      pk: (a: Pick<AccessCode, 'reseller_id' | 'code'>) =>
        replicaPartition(a.reseller_id, replicaShard(a.code)),
      sk: (a: Pick<AccessCode, 'created_at' | 'replica_at' | 'code'>) =>
        `${a.replica_at ?? a.created_at}#${a.code}`,
      when: (a: Pick<AccessCode, 'replica_gone'>) => a.replica_gone === undefined,
    },
  },
  ttl: (a) => {
    // A voucher is kept, as a reseller's stock and its history (the counts of its lists
    // include it); another code goes some time after its end.
    if (a.source === 'voucher') return undefined;
    const end = a.expires_at ?? a.use_by;
    return end ? Math.floor(Date.parse(end) / 1000) + KEEP_AFTER_END_S : undefined;
  },
  ttlFrom: ['source', 'expires_at', 'use_by'],
});

/** Bytes of a number of megabytes (1 MB = 1,048,576 bytes, as hotspot routers count). */
export const bytesOfMb = (mb: number): number => mb * 1024 * 1024;

// Access: GetItem pk=CODE#<code> (strongly consistent: a login decides on it).
export const getAccessCode = (code: string): Promise<AccessCode | undefined> =>
  Access.get({ code }, { consistent: true });

/** The Put of a new code, for the transaction that sells it (voucher batch, payment). */
// Access: PutItem pk=CODE#<code> attribute_not_exists(pk) (in a transaction).
export const accessCodeCreate = (a: AccessCode): TxItem => Access.tx.create(a);

/**
 * Starts the clock of a code not started yet and binds it to its buyer (voucher redeemed
 * through the API): for a transaction. `also`: more attributes set with it (a voucher's
 * redemption), and the condition instead of the code's mere existence.
 */
// Access: UpdateItem pk=CODE#<code> SET started_at/expires_at if not set, subscriber_id (enters bySubscriber).
export function accessCodeActivate(
  a: AccessCode,
  subscriberId: string,
  nowIso: string,
  expiresAt: string,
  also: { set?: Partial<AccessCode>; condition?: Expr } = {},
): TxItem {
  return Access.tx.update(
    a,
    {
      set: { ...also.set, subscriber_id: subscriberId, replica_at: nowIso },
      ifAbsent: { started_at: nowIso, expires_at: expiresAt },
      read: a,
    },
    also.condition ?? exists,
  );
}

/**
 * A top-up's new limits (`functions/billing/ledger.ts`, `toppedUp`), for the transaction that
 * books its sale: written only while the code is as read (`devices_version`: a login or another
 * top-up since the read refuses it, and the caller reads again) and not revoked. Its lifetime
 * follows its new end.
 */
// Access: UpdateItem pk=CODE#<code> SET offer, expires_at, ttl, topped_up_at, devices_version + 1, ADD topups 1, condition devices_version = as read AND not revoked (in a transaction).
export function accessCodeExtend(
  read: AccessCode,
  next: Pick<AccessCode, 'offer' | 'expires_at'>,
  nowIso: string,
  /** -1: a refunded top-up taken back. */
  count: 1 | -1 = 1,
): TxItem {
  return Access.tx.update(
    read,
    {
      set: {
        offer: next.offer,
        ...(next.expires_at ? { expires_at: next.expires_at } : {}),
        topped_up_at: nowIso,
        devices_version: read.devices_version + 1,
        replica_at: nowIso,
        replica_gone: undefined,
      },
      add: { topups: count },
      read,
    },
    allOf(Access.where.is('devices_version', read.devices_version), Access.where.lacks('revoked_at')),
  );
}

/** Every code of a subscriber (an account removed: each is revoked). */
// Access: Query bySubscriber (gsi1) gsi1pk=SUBSCRIBER#<id>#CODES, every page.
export const allCodesOf = (subscriberId: string): Promise<AccessCode[]> =>
  Access.queryIndexAll('bySubscriber', { subscriber_id: subscriberId });

/**
 * Revokes a code nobody has used yet (its sale undone), for the transaction that undoes the
 * sale: refused once its clock started (a login) or when it is revoked already.
 */
// Access: UpdateItem pk=CODE#<code> SET revoked_at (condition: exists, no started_at, no revoked_at; in a transaction).
export const accessCodeRevokeUnused = (code: string, nowIso: string): TxItem =>
  Access.tx.update(
    { code },
    { set: { revoked_at: nowIso } },
    {
      expression:
        'attribute_exists(pk) AND attribute_not_exists(started_at) AND attribute_not_exists(revoked_at)',
    },
  );

/**
 * Revokes a code (idempotent: the first revocation's time stays). The code as stored after,
 * undefined when there is no such code.
 */
// Access: UpdateItem pk=CODE#<code> SET revoked_at if not set, replica_at (moves it in replicaChanges, gsi6), condition attribute_exists(pk), ALL_NEW.
export async function revokeAccessCode(code: string, nowIso: string): Promise<AccessCode | undefined> {
  const read = await getAccessCode(code);
  if (!read) return undefined;
  return Access.updateReturning(
    { code },
    { ifAbsent: { revoked_at: nowIso }, set: { replica_at: nowIso }, read },
    exists,
  );
}

/** A subscriber's codes, newest first (at most `limit`). */
// Access: Query bySubscriber (gsi1) gsi1pk=SUBSCRIBER#<id>#CODES, descending, Limit.
export async function listCodesOf(subscriberId: string, limit = 20): Promise<AccessCode[]> {
  const page = await Access.queryIndex(
    'bySubscriber',
    { subscriber_id: subscriberId },
    { forward: false, limit },
  );
  return page.items;
}

/**
 * A login: the device's lease is written with the devices map as read (pruned of stale
 * leases), and the clock starts if it has not. False when another login changed the devices
 * meanwhile (read again and decide again).
 */
// Access: UpdateItem pk=CODE#<code> SET devices, grants, mac_leases, devices_version + 1, started_at/expires_at if not set, condition devices_version = as read;
// on a voucher's first use, in a transaction with its reseller's revenue and counts, SET voucher_status = redeemed (moves it in vouchersByStatus, gsi5) if still active.
export async function claimDevice(input: {
  code: AccessCode;
  devices: Record<string, number>;
  /** The reservations after this login (see functions/radius/login.ts). */
  grants?: Record<string, number>;
  /** The leases MAC logins hold after this login. */
  macLeases?: Record<string, number>;
  nowIso: string;
  expiresAt: string;
  nasId: string;
  /** Items that must change with the first use (the voucher, the revenue). */
  firstUse?: Record<string, TxItem>;
}): Promise<boolean> {
  const read = input.code.devices_version;
  const update: Update<AccessCode> = {
    set: {
      devices: input.devices,
      grants: input.grants ?? {},
      mac_leases: input.macLeases ?? {},
      devices_version: read + 1,
      last_login_at: input.nowIso,
      last_nas_id: input.nasId,
      // Its first use starts its clock: the edges' replica learns it (a later login changes
      // nothing an edge decides on, and writes nothing to that index).
      ...(input.code.started_at ? {} : { replica_at: input.nowIso }),
    },
    ifAbsent: { started_at: input.nowIso, expires_at: input.expiresAt },
    read: input.code,
  };
  const asRead = Access.where.is('devices_version', read);
  if (!input.firstUse) return Access.update(input.code, update, asRead);
  // A voucher's first login redeems it (the code is the voucher): active -> redeemed, moving it
  // in its reseller's lists, only while still active (a redemption through the API wins else).
  const redeems = input.code.source === 'voucher';
  const claim = redeems
    ? Access.tx.update(
        input.code,
        { ...update, set: { ...update.set, voucher_status: 'redeemed', redeemed_at: input.nowIso } },
        allOf(asRead, Access.where.is('voucher_status', 'active')),
      )
    : Access.tx.update(input.code, update, asRead);
  try {
    const items: Record<string, TxItem> = { claim, ...input.firstUse };
    // Its reseller's counts follow (voucher lists' totals).
    if (redeems) items.voucherCounts = voucherCountsMove(input.code.reseller_id, { active: -1, redeemed: 1 });
    await transact(items);
    return true;
  } catch (error) {
    // Another login or a redemption changed the code or its voucher since the read: decide again.
    if (cancelled(error)) return false;
    throw error;
  }
}
