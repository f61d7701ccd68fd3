// A reseller's payments, newest first, a completed one whose code was never used flagged "paid, not connected".

import { openCursor, sealCursor } from '../core/cursor.js';
import { maskMsisdn } from '../core/log.js';
import { pick } from '../core/pick.js';
import { Access } from '../store/access-codes.js';
import { batchGet, type Item } from '../store/entity.js';
import { paymentsOfReseller } from '../store/reseller-payments.js';

/**
 * A reseller's payments, newest first, each with its status; a completed one whose access code
 * was never used (no login, no redemption since) is flagged "paid, not connected", the case
 * resellers are asked about most. The page's codes are one BatchGetItem.
 */
export async function resellerPayments(resellerId: string, limit: number, cursor: string | undefined) {
  const start = await openCursor<Item>('payments', resellerId, cursor);
  const page = await paymentsOfReseller(resellerId, start, limit);
  const codes = [...new Set(page.items.map((p) => p.access_code).filter((c): c is string => !!c))];
  const read = codes.length ? await batchGet(codes.map((code) => [Access, { code }] as const)) : [];
  const used = new Map(read.filter((c) => c !== undefined).map((c) => [c.code, !!c.last_login_at]));
  return {
    items: page.items.map((p) => ({
      ...pick(p, 'id', 'forfait_name', 'amount_fcfa', 'status', 'provider', 'created_at', 'nas_id'),
      ...(p.msisdn ? { msisdn: maskMsisdn(p.msisdn) } : {}),
      ...(p.access_code ? { access_code: p.access_code } : {}),
      refusal_count: p.refusal_count ?? 0,
      paid_not_connected: p.status === 'completed' && !!p.access_code && !used.get(p.access_code),
    })),
    ...(page.next ? { next_cursor: await sealCursor('payments', resellerId, page.next) } : {}),
  };
}
