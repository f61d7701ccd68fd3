// Vouchers' writes and reads: a batch put, a voucher redeemed, a reseller's listed by status, a batch listed.

import type { Currency } from '../core/currency.js';
import { Access, type AccessCode, type AccessOffer, accessCodeActivate } from './access-codes.js';
import { type Entitlement, EntitlementEntity } from './entitlements.js';
import { allOf, batchGet, cancelled, type Expr, entity, type Item, type TxItem, transact } from './entity.js';
import { voucherCountsMove } from './voucher-counts.js';

export type VoucherStatus = 'active' | 'redeemed' | 'expired';

export interface Voucher {
  code: string;
  forfait_id: string;
  /** The forfait's name when the voucher was made (what the CSV and the printed cards say). */
  forfait_name?: string;
  /** The forfait's price when the voucher was made: what its redemption adds to revenue. */
  price_fcfa: number;
  /** Its reseller's currency when it was made. */
  currency: Currency;
  reseller_id: string;
  batch_id: string;
  /** Stored `active` or `redeemed`; a redeemed voucher whose access has ended reads `expired`. */
  status: VoucherStatus;
  /** What the voucher grants, as the forfait was when the voucher was made (printed and sold). */
  offer: AccessOffer;
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
 * A voucher is an access code sold in advance, and is stored as one: the `CODE#<code>` item
 * with its voucher fields (`voucher_status`, `currency`, `redeemed_*`: functions/store/
 * access-codes.ts), listed through that entity's `vouchersByStatus` index. One item, so that a
 * generation writes one item a voucher under one condition (its code free), a redemption or a
 * first login changes one item, and a revocation marks the voucher with the code.
 */
export const voucherOf = (a: AccessCode): Voucher => ({
  code: a.code,
  forfait_id: a.forfait_id,
  ...(a.forfait_name ? { forfait_name: a.forfait_name } : {}),
  price_fcfa: a.price_fcfa ?? 0,
  currency: a.currency ?? 'XOF',
  reseller_id: a.reseller_id,
  batch_id: a.source_id,
  status: a.voucher_status ?? 'active',
  offer: a.offer,
  created_at: a.created_at,
  ...(a.redeemed_at ? { redeemed_at: a.redeemed_at } : {}),
  ...(a.redeemed_by ? { redeemed_by: a.redeemed_by } : {}),
  ...(a.expires_at ? { access_expires_at: a.expires_at } : {}),
  ...(a.use_by ? { use_by: a.use_by } : {}),
  ...(a.revoked_at ? { revoked_at: a.revoked_at } : {}),
});

/**
 * The codes of a generation batch, a part per transaction of it (`BATCH#<batch>` / `PART#<n>`):
 * what the batch's CSV reads, written in the transaction of the codes it lists.
 */
interface BatchPart {
  batch_id: string;
  part: number;
  reseller_id: string;
  codes: string[];
}

const BatchPartEntity = entity<BatchPart>('voucher_batch_part')({
  key: (p: Pick<BatchPart, 'batch_id' | 'part'>) => ({
    pk: `BATCH#${p.batch_id}`,
    sk: `PART#${String(p.part).padStart(4, '0')}`,
  }),
});

/**
 * Vouchers per transaction: one item each, plus the reseller's counts and the batch's part;
 * DynamoDB takes 100 items.
 */
export const VOUCHER_CHUNK = 98;

const unusedVoucher: Expr = /* @__PURE__ */ allOf(
  Access.where.is('voucher_status', 'active'),
  Access.where.lacks('started_at'),
);

/** Active and not revoked: what a redemption needs (a revoke between its read and its write loses). */
const redeemable: Expr = /* @__PURE__ */ allOf(
  Access.where.is('voucher_status', 'active'),
  Access.where.lacks('revoked_at'),
);

/** The name of a voucher's item in a transaction, by which a cancellation tells it apart. */
const txName = (code: string) => `code:${code}`;

/**
 * Writes up to VOUCHER_CHUNK new vouchers (access codes of source `voucher`, all of one batch
 * and reseller) in one transaction, each only if its code is free, with the reseller's counts
 * and the batch's part `part`. Returns the codes that were taken (nothing was written then:
 * the caller regenerates them and retries).
 */
// Access: TransactWriteItems of [Put CODE#<code> attribute_not_exists(pk)] (enters vouchersByStatus, gsi5), + Put BATCH#<batch>/PART#<part>, + ADD VOUCHERCOUNT#<reseller>/COUNTS#<shard> active.
export async function putVouchers(
  vouchers: AccessCode[],
  /** The count shard of the caller's lane: parallel transactions never share a count item. */
  shard = 0,
  /** The batch part this transaction writes (one per transaction of a generation). */
  part = 0,
): Promise<string[]> {
  if (vouchers.length > VOUCHER_CHUNK) throw new Error('too many vouchers for one transaction');
  const first = vouchers[0];
  if (
    !first ||
    vouchers.some((v) => v.reseller_id !== first.reseller_id || v.source_id !== first.source_id)
  ) {
    throw new Error('one transaction writes the vouchers of one batch');
  }
  if (vouchers.some((v) => v.source !== 'voucher' || v.voucher_status !== 'active')) {
    throw new Error('a voucher is written active, as a code of source voucher');
  }
  try {
    await transact({
      ...Object.fromEntries(vouchers.map((v) => [txName(v.code), Access.tx.create(v)])),
      part: BatchPartEntity.tx.put({
        batch_id: first.source_id,
        part,
        reseller_id: first.reseller_id,
        codes: vouchers.map((v) => v.code),
      }),
      counts: voucherCountsMove(first.reseller_id, { active: vouchers.length }, shard),
    });
    return [];
  } catch (error) {
    const c = cancelled(error);
    if (!c?.failedItems.length) throw error;
    return vouchers.filter((v) => c.failed(txName(v.code))).map((v) => v.code);
  }
}

/**
 * Takes back vouchers of a generation that failed part way, so that a batch is all or nothing,
 * with the batch's parts. Only vouchers still active and never used are removed (none can have
 * been sold yet: their codes were never returned to anyone).
 */
// Access: TransactWriteItems of [Delete CODE#<code> voucher_status = active, never started], 98 at a time, + ADD VOUCHERCOUNT#<reseller> active -n; Query pk=BATCH#<batch>, then Delete each part.
export async function deleteVouchers(resellerId: string, batchId: string, codes: string[]): Promise<void> {
  for (let start = 0; start < codes.length; start += VOUCHER_CHUNK) {
    const chunk = codes.slice(start, start + VOUCHER_CHUNK);
    await transact({
      ...Object.fromEntries(chunk.map((code) => [txName(code), Access.tx.delete({ code }, unusedVoucher)])),
      counts: voucherCountsMove(resellerId, { active: -chunk.length }),
    });
  }
  const parts = await BatchPartEntity.queryAll({
    pk: BatchPartEntity.key({ batch_id: batchId, part: 0 }).pk,
  });
  for (const p of parts) await BatchPartEntity.delete(p);
}

/**
 * Redeems an active voucher: active -> redeemed and its clock started (one item: the code), the
 * entitlement, the sale's bookings (functions/billing/ledger.ts) and the reseller's voucher
 * counts in one transaction. `taken` when the voucher is no longer active (another redeem or a
 * first login won), was revoked, or its entitlement exists already.
 */
// Access: TransactWriteItems [Update CODE#<code> voucher_status = active, not revoked (moves in vouchersByStatus; enters bySubscriber), Put SUB#<sub>/ENT#<id> attribute_not_exists(pk), the ledger's bookings, ADD VOUCHERCOUNT#<reseller>].
export async function redeemVoucher(input: {
  /** The voucher's code as read. */
  access: AccessCode;
  subscriberId: string;
  entitlement: Entitlement;
  /** The sale's entries in its month's and day's books. */
  bookings: Record<string, TxItem>;
  nowIso: string;
}): Promise<'redeemed' | 'taken' | 'conflict'> {
  const a = input.access;
  try {
    await transact({
      code: accessCodeActivate(a, input.subscriberId, input.nowIso, input.entitlement.expires_at, {
        set: { voucher_status: 'redeemed', redeemed_at: input.nowIso, redeemed_by: input.subscriberId },
        condition: redeemable,
      }),
      entitlement: EntitlementEntity.tx.create(input.entitlement),
      counts: voucherCountsMove(a.reseller_id, { active: -1, redeemed: 1 }),
      ...input.bookings,
    });
    return 'redeemed';
  } catch (error) {
    const c = cancelled<'code' | 'entitlement'>(error);
    if (!c) throw error;
    if (c.failed('code') || c.failed('entitlement')) return 'taken';
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
  return {
    // The sort key of an empty code is the prefix of every voucher of that status.
    sk: stored && { beginsWith: Access.indexes.vouchersByStatus.sk({ voucher_status: stored, code: '' }) },
    filter:
      status === 'expired'
        ? Access.where.compare('expires_at', '<=', nowIso)
        : status === 'redeemed'
          ? Access.where.lacksOr('expires_at', Access.where.compare('expires_at', '>', nowIso))
          : undefined,
  };
}

/**
 * How many of a reseller's redeemed vouchers read `status` (`redeemed` or `expired`) at `nowIso`:
 * the counts kept on write know redeemed vouchers only as a whole, the split moves with time.
 */
// Access: Query vouchersByStatus (gsi5) gsi5pk=VOUCHERS#<reseller_id> AND begins_with(gsi5sk, 'redeemed#') Filter expires_at vs now, Select=COUNT.
export const countRedeemedByEnd = (
  resellerId: string,
  status: 'redeemed' | 'expired',
  nowIso: string,
): Promise<number> =>
  Access.countIndex('vouchersByStatus', { reseller_id: resellerId }, byStatus(status, nowIso));

/** Queries filling a filtered page (`redeemed`, `expired`) at most, before answering it short. */
const MAX_FILL_QUERIES = 4;

/**
 * One page of a reseller's vouchers, in code order within a status, from `start` (a page's
 * LastEvaluatedKey): one Query, or a few when a filter (redeemed/expired) drops items. `next`
 * is where the following page starts.
 */
// Access: Query vouchersByStatus (gsi5) gsi5pk=VOUCHERS#<reseller_id> [AND begins_with(gsi5sk, 'active#'|'redeemed#')] [Filter expires_at vs now], Limit, ExclusiveStartKey.
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
    const out = await Access.queryIndex(
      'vouchersByStatus',
      { reseller_id: resellerId },
      { ...byStatus(status, nowIso), limit: pageSize - items.length, ...(from ? { start: from } : {}) },
    );
    items.push(...out.items.map(voucherOf));
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
// Access: Query vouchersByStatus (gsi5) gsi5pk=VOUCHERS#<reseller_id> [AND begins_with(...)] [Filter], Limit up to 1000, skipping.
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
    const out = await Access.queryIndex(
      'vouchersByStatus',
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

/**
 * Every voucher of a generation batch (at most 1000), in code order: the codes its parts list,
 * read by key, 100 a BatchGetItem.
 */
// Access: Query pk=BATCH#<batch_id>, then BatchGetItem CODE#<code> (100 a call).
export async function listBatch(batchId: string): Promise<Voucher[]> {
  const parts = await BatchPartEntity.queryAll({
    pk: BatchPartEntity.key({ batch_id: batchId, part: 0 }).pk,
  });
  const codes = parts.flatMap((p) => p.codes).sort();
  const out: Voucher[] = [];
  for (let start = 0; start < codes.length; start += 100) {
    const read = await batchGet(codes.slice(start, start + 100).map((code) => [Access, { code }] as const));
    for (const a of read) if (a?.source === 'voucher') out.push(voucherOf(a));
  }
  return out;
}
