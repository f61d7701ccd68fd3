// Vouchers: a batch generated (each its own access code), a voucher redeemed, a reseller's vouchers listed and exported.

import { randomUUID } from 'node:crypto';
import { assertActsFor } from '../core/access.js';
import { clock } from '../core/clock.js';
import { type CsvLang, csvDate, csvText } from '../core/csv.js';
import { currencyOf } from '../core/currency.js';
import { openCursor, sealCursor } from '../core/cursor.js';
import { AppError, notFound, validation } from '../core/errors.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { pick } from '../core/pick.js';
import type { OperatorPrincipal } from '../core/principal.js';
import { gateAccountGuess } from '../radius/guesses.js';
import { type AccessCode, getAccessCode } from '../store/access-codes.js';
import type { Item } from '../store/entity.js';
import { getReseller } from '../store/resellers.js';
import { untilSettled } from '../store/retry.js';
import { getVoucherCounts } from '../store/voucher-counts.js';
import {
  countRedeemedByEnd,
  deleteVouchers,
  listBatch,
  listVouchersFrom,
  putVouchers,
  redeemVoucher,
  startOfPage,
  VOUCHER_CHUNK,
  type Voucher,
  type VoucherStatus,
  voucherOf,
} from '../store/vouchers.js';
import { typedCode } from './codes.js';
import { bookings, forfaitForSale, grant, newAccessCode, offerOf, voucherSale } from './ledger.js';
import { billingSettings, useByFrom } from './settings.js';

const MAX_COLLISION_ROUNDS = 10;
/**
 * Transactions of one generation in flight at once (each on its own count shard). Four: the
 * 11 transactions of a thousand vouchers go in three waves. Eight measured no faster on
 * DynamoDB Local (its transactions queue on the emulator's two cores), and in DynamoDB three
 * waves of tens of milliseconds are well within the request's time.
 */
const GENERATION_LANES = 4;

/**
 * Makes `n` vouchers of a forfait for a reseller the platform knows (its profile: recorded by
 * the operator CLI or a VLAN allocation; else 404, so that no voucher is sold for nobody), in
 * transactions of 98, four in flight; one batch id. Each is valid unused until VOUCHER_VALIDITY_DAYS from now.
 */
export async function generateVouchers(input: {
  forfaitId: string;
  resellerId: string;
  n: number;
  /** The codes' length and prefix (functions/billing/codes.ts); 10 and none by default. */
  codeLength?: number;
  prefix?: string;
}) {
  if (!Number.isInteger(input.n) || input.n < 1 || input.n > 1000) throw validation('n must be 1..1000');
  // A voucher carries no hotspot: a reseller's own forfait makes vouchers only when it is sold
  // at all of that reseller's hotspots (docs/billing.md).
  const [forfait, reseller] = await Promise.all([
    forfaitForSale(input.forfaitId, { resellerId: input.resellerId }),
    getReseller(input.resellerId),
  ]);
  if (!reseller) throw notFound('Reseller');
  const currency = currencyOf(reseller.country ?? billingSettings().DEFAULT_COUNTRY);
  const batchId = randomUUID();
  const now = clock.now();
  const createdAt = clock.iso(now);
  const useBy = useByFrom(now);
  const offer = offerOf(forfait);
  // A voucher is an access code sold in advance, stored as one item (functions/store/vouchers.ts).
  const make = (): AccessCode =>
    newAccessCode(
      {
        reseller_id: input.resellerId,
        source: 'voucher',
        source_id: batchId,
        forfait_id: forfait.id,
        forfait_name: forfait.name,
        offer,
      },
      createdAt,
      { price_fcfa: forfait.price_fcfa, currency, voucher_status: 'active', use_by: useBy },
      { length: input.codeLength, prefix: input.prefix?.toUpperCase() },
    );
  // Every code of the batch distinct first (in memory), then unique against the table by the
  // chunks' conditional writes; a chunk whose codes are taken is regenerated and written again.
  const seen = new Set<string>();
  const fresh = () => {
    let v = make();
    while (seen.has(v.code)) v = make();
    seen.add(v.code);
    return v;
  };
  const chunks = Array.from({ length: Math.ceil(input.n / VOUCHER_CHUNK) }, (_, i) =>
    Array.from({ length: Math.min(VOUCHER_CHUNK, input.n - i * VOUCHER_CHUNK) }, fresh),
  );
  // What each chunk wrote, in chunk order (the answer lists the codes as generated).
  const written: AccessCode[][] = [];
  const writeChunk = async (index: number, lane: number) => {
    let chunk = chunks[index] as AccessCode[];
    for (let round = 0; ; round++) {
      // The chunk's index is its batch part: a chunk written again replaces nothing else.
      const taken = new Set(await putVouchers(chunk, lane, index));
      if (!taken.size) break;
      if (round >= MAX_COLLISION_ROUNDS) throw new AppError('ERR_INTERNAL', 'Could not find free codes');
      chunk = chunk.map((v) => (taken.has(v.code) ? fresh() : v));
    }
    written[index] = chunk;
  };
  const all = () => written.flatMap((c) => c ?? []);
  try {
    // GENERATION_LANES transactions in flight, each lane on its own count shard: no two
    // transactions of the batch write one item (a shared item would make them conflict).
    let next = 0;
    let failed = false;
    const lanes = Array.from({ length: Math.min(GENERATION_LANES, chunks.length) }, async (_, lane) => {
      while (!failed && next < chunks.length) {
        try {
          await writeChunk(next++, lane);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    });
    // Every lane settled before a rollback, so that nothing is written after it.
    const outcomes = await Promise.allSettled(lanes);
    const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (rejected) throw rejected.reason;
  } catch (error) {
    // All or nothing: a batch cut short (DynamoDB throttled, say) takes back what it wrote.
    try {
      await deleteVouchers(
        input.resellerId,
        batchId,
        all().map((v) => v.code),
      );
    } catch (cleanup) {
      log.error('voucher batch left partial', {
        batch_id: batchId,
        written: all().length,
        error: String(cleanup),
      });
    }
    throw error;
  }
  const made = all();
  return {
    items: made.map((v) => ({
      code: v.code,
      forfait_id: v.forfait_id,
      status: 'active' as const,
      ...(v.use_by ? { use_by: v.use_by } : {}),
    })),
    total: made.length,
    batch_id: batchId,
  };
}

/** The status a reader sees: a redeemed voucher whose access has ended reads `expired`. */
export function visibleVoucherStatus(v: Voucher, nowMs: number): VoucherStatus {
  return v.status === 'redeemed' && v.access_expires_at && Date.parse(v.access_expires_at) <= nowMs
    ? 'expired'
    : v.status;
}

/**
 * Redeems a code for the caller: one transaction flips it active -> redeemed, grants the
 * entitlement and counts the reseller's revenue; of parallel redeems exactly one wins (409 else).
 * The access granted is the offer as it was when the voucher was made.
 */
export async function redeem(rawCode: string, subscriberId: string) {
  const code = typedCode(rawCode);
  // The voucher is its access code: one read, then the account's guess budget (any answer but a
  // 404 tells a card exists).
  const first = await getAccessCode(code);
  await gateAccountGuess(subscriberId, clock.now(), first?.source === 'voucher' ? 'hit' : 'miss');
  let read: AccessCode | undefined = first;
  // Another write of the voucher between the read and the redemption: read again.
  return untilSettled(
    async () => {
      const access = read ?? (await getAccessCode(code));
      read = undefined;
      if (access?.source !== 'voucher') throw notFound('Voucher');
      const v = voucherOf(access);
      if (v.status !== 'active') {
        throw new AppError('ERR_CONFLICT', `Voucher already ${visibleVoucherStatus(v, clock.now())}`);
      }
      const now = clock.now();
      const nowIso = clock.iso(now);
      if (v.use_by && Date.parse(v.use_by) <= now)
        throw new AppError('ERR_CONFLICT', 'Voucher expired unused');
      if (v.revoked_at) throw new AppError('ERR_CONFLICT', 'Voucher revoked');
      const entitlement = grant(subscriberId, v.forfait_id, v.offer, 'voucher', code, now);
      const outcome = await redeemVoucher({
        access,
        subscriberId,
        entitlement,
        bookings: bookings(voucherSale(access), nowIso),
        nowIso,
      });
      if (outcome === 'redeemed') {
        countMetric('VoucherRedeemed');
        return entitlement;
      }
      if (outcome === 'taken') throw new AppError('ERR_CONFLICT', 'Voucher already redeemed');
      return undefined;
    },
    () => {
      throw new AppError('ERR_CONFLICT', 'Voucher already redeemed');
    },
    8,
  );
}

/** What a cursor carries: the query it continues, the page it starts and where, signed. */
interface CursorState {
  r: string;
  s: string;
  p: number;
  k: Item;
}

// Cursors are sealed for this list and this very query (reseller and status): core/cursor.ts.
const cursorScope = (resellerId: string, status: string) => `${resellerId}:${status}`;

/** A voucher as a list shows it. */
const listed = (v: Voucher, now: number) => ({
  ...pick(v, 'code', 'forfait_id', 'batch_id', 'created_at', 'use_by', 'redeemed_at', 'revoked_at'),
  status: visibleVoucherStatus(v, now),
});

/**
 * A page of a reseller's vouchers. `cursor` (the previous page's `next_cursor`) reads exactly
 * one page; `page` alone still works (its earlier pages' keys are read and dropped). `total`
 * comes from the counts kept on write (one GetItem); `redeemed`/`expired` are told apart by the
 * time, so their total is counted over the reseller's redeemed vouchers.
 */
export async function listVouchers(
  resellerId: string,
  status: VoucherStatus | undefined,
  page: number,
  pageSize: number,
  cursor?: string,
) {
  const now = clock.now();
  const nowIso = clock.iso(now);
  const state = await openCursor<CursorState>('vouchers', cursorScope(resellerId, status ?? ''), cursor);
  const pageNo = state?.p ?? page;
  const totalOf = async () => {
    if (status === 'redeemed' || status === 'expired') return countRedeemedByEnd(resellerId, status, nowIso);
    const counts = await getVoucherCounts(resellerId);
    return status === 'active' ? counts.active : counts.active + counts.redeemed;
  };
  const pageOf = async () => {
    if (state) return listVouchersFrom(resellerId, status, pageSize, nowIso, state.k);
    const from =
      pageNo > 1 ? await startOfPage(resellerId, status, pageNo, pageSize, nowIso) : { exhausted: false };
    if (from.exhausted) return { items: [] as Voucher[] };
    return listVouchersFrom(
      resellerId,
      status,
      pageSize,
      nowIso,
      'start' in from ? from.start : undefined,
      'full',
    );
  };
  const [total, found] = await Promise.all([totalOf(), pageOf()]);
  return {
    items: found.items.map((v) => listed(v, now)),
    total,
    page: pageNo,
    pages: Math.ceil(total / pageSize),
    ...(found.next
      ? {
          next_cursor: await sealCursor('vouchers', cursorScope(resellerId, status ?? ''), {
            r: resellerId,
            s: status ?? '',
            p: pageNo + 1,
            k: found.next,
          }),
        }
      : {}),
  };
}

/** A batch as CSV for a caller of the API: the owning reseller or an admin, in its language. */
export async function exportBatchCsv(
  batchId: string,
  principal: OperatorPrincipal,
  lang: CsvLang = 'fr',
): Promise<string> {
  const vouchers = await listBatch(batchId);
  if (!vouchers[0]) throw notFound('Batch');
  assertActsFor(principal, vouchers[0].reseller_id);
  return batchCsv(vouchers, lang);
}

/** A batch as CSV for the operator CLI, which runs with the operator's own AWS credentials. */
export async function operatorBatchCsv(batchId: string, lang: CsvLang = 'fr'): Promise<string> {
  const vouchers = await listBatch(batchId);
  if (!vouchers[0]) throw notFound('Batch');
  return batchCsv(vouchers, lang);
}

const BATCH_CSV = {
  fr: {
    head: [
      'Code',
      'Forfait',
      'Prix (FCFA)',
      'Statut',
      'Revendeur',
      'Créé le',
      'Utilisé le',
      'À utiliser avant le',
      'Devise',
    ],
    status: { active: 'disponible', redeemed: 'utilisé', expired: 'expiré' },
  },
  en: {
    head: ['Code', 'Plan', 'Price (FCFA)', 'Status', 'Reseller', 'Created', 'Used', 'Use by', 'Currency'],
    status: { active: 'available', redeemed: 'used', expired: 'expired' },
  },
} as const;

/**
 * Code, forfait (by its name, as the cards print it), price, status, the reseller by its name,
 * created, used, use-by (in the reseller's country's time) and currency: one line a voucher, in
 * the reader's language and its spreadsheet's form (functions/core/csv.ts).
 */
async function batchCsv(vouchers: Voucher[], lang: CsvLang): Promise<string> {
  const reseller = await getReseller(vouchers[0]?.reseller_id ?? '');
  const words = BATCH_CSV[lang];
  const when = (iso: string | undefined) => csvDate(iso, reseller?.country, lang);
  const now = clock.now();
  return csvText(
    [
      words.head,
      ...vouchers.map((v) => [
        v.code,
        v.forfait_name ?? v.forfait_id,
        v.price_fcfa,
        words.status[visibleVoucherStatus(v, now)],
        reseller?.reseller_name ?? '',
        when(v.created_at),
        when(v.redeemed_at),
        when(v.use_by),
        v.currency,
      ]),
    ],
    lang,
  );
}
