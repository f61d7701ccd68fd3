import * as z from 'zod/mini';
import { validation } from '../core/errors.js';
import { maskMsisdn } from '../core/log.js';
import { Access } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { type PaymentPosition, paymentsOfReseller } from '../store/reseller-payments.js';

const Position = z.strictObject({
  at: z.string().check(z.maxLength(40)),
  id: z.string().check(z.maxLength(64)),
});
const encode = (p: PaymentPosition) => Buffer.from(JSON.stringify(p)).toString('base64url');
function decode(cursor: string | undefined): PaymentPosition | undefined {
  if (!cursor) return undefined;
  try {
    return Position.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw validation('Invalid cursor', [{ path: 'query.cursor', message: 'not a cursor of this list' }]);
  }
}

/**
 * A reseller's payments, newest first, each with its status; a completed one whose access code
 * was never used (no login, no redemption since) is flagged "paid, not connected", the case
 * resellers are asked about most. The page's codes are one BatchGetItem.
 */
export async function resellerPayments(resellerId: string, limit: number, cursor: string | undefined) {
  const page = await paymentsOfReseller(resellerId, decode(cursor), limit);
  const codes = [...new Set(page.items.map((p) => p.access_code).filter((c): c is string => !!c))];
  const read = codes.length ? await batchGet(codes.map((code) => [Access, { code }] as const)) : [];
  const used = new Map(read.filter((c) => c !== undefined).map((c) => [c.code, !!c.last_login_at]));
  return {
    items: page.items.map((p) => ({
      id: p.id,
      forfait_name: p.forfait_name,
      amount_fcfa: p.amount_fcfa,
      status: p.status,
      provider: p.provider,
      created_at: p.created_at,
      ...(p.nas_id ? { nas_id: p.nas_id } : {}),
      ...(p.msisdn ? { msisdn: maskMsisdn(p.msisdn) } : {}),
      ...(p.access_code ? { access_code: p.access_code } : {}),
      paid_not_connected: p.status === 'completed' && !!p.access_code && !used.get(p.access_code),
    })),
    ...(page.next ? { next_cursor: encode(page.next) } : {}),
  };
}
