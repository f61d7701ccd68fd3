import type { Currency } from '../core/currency.js';
import { Access, type AccessCode, accessCodeActivate } from './access-codes.js';
import { type Entitlement, EntitlementEntity } from './entitlements.js';
import { cancelled, type Expr, entity, type Item, statusIs, transact } from './entity.js';
import type { Offer } from './forfaits.js';
import { revenueIncrement } from './revenue.js';
import { salesIncrement } from './sales.js';
import { voucherCountsMove } from './voucher-counts.js';

export type VoucherStatus = 'active' | 'redeemed' | 'expired';

export interface Voucher {
  code: string;
  forfait_id: string;
  /** The forfait's price when the voucher was made: what its redemption adds to revenue. */
  price_fcfa: number;
  /** Its reseller's currency when it was made (absent on older vouchers: XOF). */
  currency?: Currency;
  reseller_id: string;
  batch_id: string;
  /** Stored `active` or `redeemed`; a redeemed voucher whose access has ended reads `expired`. */
  status: VoucherStatus;
  /** What the voucher grants, as the forfait was when the voucher was made (printed and sold). */
  offer?: Offer;
  created_at: string;
  redeemed_at?: string;
  redeemed_by?: string;
  /** End of the access its redemption granted. */
  access_expires_at?: string;
  /** An unused voucher is refused after this (ISO). */
  use_by?: string;
  /** When its access code was revoked (POST /access/{code}/revoke): refused from then on. */
  revoked_at?: string;
}

/**
 * Vouchers per transaction: each is two items (voucher, access code), plus the reseller's
 * counts; DynamoDB takes 100 items.
 */
export const VOUCHER_CHUNK = 49;

export const VoucherEntity = entity<Voucher>('voucher')({
  key: (v: Pick<Voucher, 'code'>) => ({ pk: `VOUCHER#${v.code}`, sk: 'VOUCHER' }),
  indexes: {
    /** A reseller's vouchers by stored status, then code: the sort key changes on redemption. */
    byStatus: { gsi: 'gsi1', pk: 'VOUCHERS#{reseller_id}', sk: '{status}#{code}' },
    /** The vouchers of a generation batch, by code. */
    byBatch: { gsi: 'gsi2', pk: 'BATCH#{batch_id}', sk: '{code}' },
  },
});

const stillActive = statusIs('active');

/** Active and not revoked: what a redemption needs (a revoke between its read and its write loses). */
const redeemable: Expr = {
  expression: '#status = :active AND attribute_not_exists(#revoked)',
  names: { '#status': 'status', '#revoked': 'revoked_at' },
  values: { ':active': 'active' },
};

/**
 * Marks a voucher whose access code was revoked, so that lists show it and redemption refuses
 * it (idempotent: the first time stays). A code that is no voucher (a paid code): nothing.
 */
// Access: UpdateItem pk=VOUCHER#<code> SET revoked_at if not set, condition attribute_exists(pk).
export async function markVoucherRevoked(code: string, nowIso: string): Promise<void> {
  await VoucherEntity.updateReturning(
    { code },
    { expression: 'SET revoked_at = if_not_exists(revoked_at, :now)', values: { ':now': nowIso } },
    { expression: 'attribute_exists(pk)' },
  );
}

/** The name of a voucher's item in a transaction, by which a cancellation tells it apart. */
const txName = (code: string) => `voucher:${code}`;

const codeTxName = (code: string) => `code:${code}`;

/**
 * Writes up to 50 new vouchers with their access codes in one transaction, each only if its
 * code is free (as a voucher and as an access code). Returns the codes that were taken (nothing
 * was written then: the caller regenerates them and retries).
 */
// Access: TransactWriteItems of [Put VOUCHER#<code>, Put CODE#<code>] with attribute_not_exists(pk), + ADD VOUCHERCOUNT#<reseller>/COUNTS#<shard> active.
export async function putVouchers(
  vouchers: { voucher: Voucher; access: AccessCode }[],
  /** The count shard of the caller's lane: parallel transactions never share a count item. */
  shard = 0,
): Promise<string[]> {
  if (vouchers.length > VOUCHER_CHUNK) throw new Error('too many vouchers for one transaction');
  const resellerId = vouchers[0]?.voucher.reseller_id;
  if (!resellerId || vouchers.some((v) => v.voucher.reseller_id !== resellerId)) {
    throw new Error('one transaction writes the vouchers of one reseller');
  }
  try {
    await transact({
      ...Object.fromEntries(
        vouchers.flatMap(({ voucher, access }) => [
          [txName(voucher.code), VoucherEntity.tx.create(voucher)],
          [codeTxName(access.code), Access.tx.create(access)],
        ]),
      ),
      counts: voucherCountsMove(resellerId, { active: vouchers.length }, shard),
    });
    return [];
  } catch (error) {
    const c = cancelled(error);
    if (!c?.failedItems.length) throw error;
    return vouchers
      .filter(({ voucher }) => c.failed(txName(voucher.code)) || c.failed(codeTxName(voucher.code)))
      .map(({ voucher }) => voucher.code);
  }
}

/**
 * Takes back vouchers of a generation that failed part way, so that a batch is all or nothing.
 * Only vouchers still active are removed (none can have been sold yet: their codes were never
 * returned to anyone).
 */
// Access: TransactWriteItems of [Delete VOUCHER#<code> with status = active, Delete CODE#<code> never started], 49 at a time, + ADD VOUCHERCOUNT#<reseller> active -n.
export async function deleteVouchers(resellerId: string, codes: string[]): Promise<void> {
  const active: Expr = {
    expression: '#s = :active',
    names: { '#s': 'status' },
    values: { ':active': 'active' },
  };
  const unused: Expr = { expression: 'attribute_not_exists(started_at)' };
  for (let start = 0; start < codes.length; start += VOUCHER_CHUNK) {
    const chunk = codes.slice(start, start + VOUCHER_CHUNK);
    await transact({
      ...Object.fromEntries(
        chunk.flatMap((code) => [
          [txName(code), VoucherEntity.tx.delete({ code }, active)],
          [codeTxName(code), Access.tx.delete({ code }, unused)],
        ]),
      ),
      counts: voucherCountsMove(resellerId, { active: -chunk.length }),
    });
  }
}

/**
 * A voucher's first login at a hotspot: active -> redeemed, as a redemption through the API
 * would, so that its price counts in the reseller's revenue once, whichever comes first. For
 * the login's transaction.
 */
// Access: UpdateItem pk=VOUCHER#<code> SET status = redeemed, moving it in byStatus (condition status = active) (in a transaction).
export function voucherFirstUse(v: Pick<Voucher, 'code' | 'reseller_id'>, nowIso: string, until: string) {
  return VoucherEntity.tx.update(
    v,
    { set: { status: 'redeemed', redeemed_at: nowIso, access_expires_at: until } },
    stillActive,
  );
}

// Access: GetItem pk=VOUCHER#<code>, sk=VOUCHER (ConsistentRead).
export const getVoucher = (code: string): Promise<Voucher | undefined> =>
  VoucherEntity.get({ code }, { consistent: true });

/**
 * Redeems an active voucher: active -> redeemed, the entitlement and the reseller's monthly
 * aggregate in one transaction. `taken` when the voucher is no longer active (another redeem
 * won) or its entitlement exists already.
 */
// Access: TransactWriteItems [Update VOUCHER#<code> status = active (moves in byStatus), Put SUB#<sub>/ENT#<id> attribute_not_exists(pk), Update REVENUE#<reseller>/MONTH#<month> ADD, Update SALES#<reseller>/DAY#<day> ADD].
export async function redeemVoucher(input: {
  voucher: Voucher;
  /** Its access code as read: its clock starts now and it is bound to the subscriber. */
  access: AccessCode;
  subscriberId: string;
  entitlement: Entitlement;
  month: string;
  nowIso: string;
}): Promise<'redeemed' | 'taken' | 'conflict'> {
  const v = input.voucher;
  try {
    await transact({
      voucher: VoucherEntity.tx.update(
        v,
        {
          set: {
            status: 'redeemed',
            redeemed_at: input.nowIso,
            redeemed_by: input.subscriberId,
            access_expires_at: input.entitlement.expires_at,
          },
          read: v,
        },
        redeemable,
      ),
      entitlement: EntitlementEntity.tx.create(input.entitlement),
      revenue: revenueIncrement(v.reseller_id, input.month, v.price_fcfa),
      sales: salesIncrement({
        resellerId: v.reseller_id,
        at: input.nowIso,
        nasId: undefined,
        forfaitId: v.forfait_id,
        amountFcfa: v.price_fcfa,
      }),
      code: accessCodeActivate(input.access, input.subscriberId, input.nowIso, input.entitlement.expires_at),
      counts: voucherCountsMove(v.reseller_id, { active: -1, redeemed: 1 }),
    });
    return 'redeemed';
  } catch (error) {
    const c = cancelled<'voucher' | 'entitlement' | 'revenue' | 'sales' | 'code' | 'counts'>(error);
    if (!c) throw error;
    if (c.failed('voucher') || c.failed('entitlement')) return 'taken';
    if (c.conflict) return 'conflict';
    throw error;
  }
}

/**
 * The byStatus query of a reseller's vouchers of one visible status. `expired` and `redeemed` share
 * the stored `redeemed` status and are told apart by the end of the access granted, at `nowIso`.
 */
function byStatus(
  status: VoucherStatus | undefined,
  nowIso: string,
): { sk?: { beginsWith: string }; filter?: Expr } {
  const stored = status === 'expired' ? 'redeemed' : status;
  const until = { names: { '#until': 'access_expires_at' }, values: { ':now': nowIso } };
  return {
    // The sort key of an empty code is the prefix of every voucher of that status.
    sk: stored && { beginsWith: VoucherEntity.indexes.byStatus.sk({ status: stored, code: '' }) },
    filter:
      status === 'expired'
        ? { expression: '#until <= :now', ...until }
        : status === 'redeemed'
          ? { expression: 'attribute_not_exists(#until) OR #until > :now', ...until }
          : undefined,
  };
}

/**
 * How many of a reseller's redeemed vouchers read `status` (`redeemed` or `expired`) at `nowIso`:
 * the counts kept on write know redeemed vouchers only as a whole, the split moves with time.
 */
// Access: Query byStatus (gsi1) gsi1pk=VOUCHERS#<reseller_id> AND begins_with(gsi1sk, 'redeemed#') Filter access_expires_at vs now, Select=COUNT.
export const countRedeemedByEnd = (
  resellerId: string,
  status: 'redeemed' | 'expired',
  nowIso: string,
): Promise<number> =>
  VoucherEntity.countIndex('byStatus', { reseller_id: resellerId }, byStatus(status, nowIso));

/** Queries filling a filtered page (`redeemed`, `expired`) at most, before answering it short. */
const MAX_FILL_QUERIES = 4;

/**
 * One page of a reseller's vouchers, in code order within a status, from `start` (a page's
 * LastEvaluatedKey): one Query, or a few when a filter (redeemed/expired) drops items. `next`
 * is where the following page starts.
 */
// Access: Query byStatus (gsi1) gsi1pk=VOUCHERS#<reseller_id> [AND begins_with(gsi1sk, 'active#'|'redeemed#')] [Filter access_expires_at vs now], Limit, ExclusiveStartKey.
export async function listVouchersFrom(
  resellerId: string,
  status: VoucherStatus | undefined,
  pageSize: number,
  nowIso: string,
  start: Item | undefined,
  /**
   * `full`: fill the page whatever it takes. A client paging by number needs full pages (the
   * next page starts after (page - 1) x size vouchers); one following `next_cursor` does not.
   */
  fill: 'bounded' | 'full' = 'bounded',
): Promise<{ items: Voucher[]; next?: Item }> {
  const items: Voucher[] = [];
  let from = start;
  let queries = 0;
  do {
    const out = await VoucherEntity.queryIndex(
      'byStatus',
      { reseller_id: resellerId },
      { ...byStatus(status, nowIso), limit: pageSize - items.length, ...(from ? { start: from } : {}) },
    );
    items.push(...out.items);
    from = out.next;
    queries += 1;
  } while (from && items.length < pageSize && (fill === 'full' || queries < MAX_FILL_QUERIES));
  return { items, ...(from ? { next: from } : {}) };
}

/**
 * Where page `page` starts, for a client that asks by page number: the keys of the earlier
 * pages are read and dropped (cost grows with `page`; a client that follows `next_cursor` reads
 * one page a request).
 */
// Access: Query byStatus (gsi1) gsi1pk=VOUCHERS#<reseller_id> [AND begins_with(...)] [Filter], Limit up to 1000, skipping.
export async function startOfPage(
  resellerId: string,
  status: VoucherStatus | undefined,
  page: number,
  pageSize: number,
  nowIso: string,
): Promise<{ start?: Item; exhausted: boolean }> {
  let skip = (page - 1) * pageSize;
  let start: Item | undefined;
  while (skip > 0) {
    const out = await VoucherEntity.queryIndex(
      'byStatus',
      { reseller_id: resellerId },
      { ...byStatus(status, nowIso), limit: Math.min(skip, 1000), ...(start ? { start } : {}) },
    );
    // Limit counts items read, the filter drops some: only those kept count as skipped, and
    // the ones it dropped before LastEvaluatedKey would not have been on any page either.
    skip -= out.items.length;
    // Past the last voucher: the page asked is empty.
    if (!out.next) return { exhausted: true };
    start = out.next;
  }
  return { ...(start ? { start } : {}), exhausted: false };
}

/** Every voucher of a generation batch (at most 1000), in code order. */
// Access: Query byBatch (gsi2) gsi2pk=BATCH#<batch_id>.
export const listBatch = (batchId: string): Promise<Voucher[]> =>
  VoucherEntity.queryIndexAll('byBatch', { batch_id: batchId });
