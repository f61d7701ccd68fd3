// The payments the checks work through: pending and closed ones to ask their gateway about again, completed ones by hour.

import { absentOrBelow, allOf, type Expr, exists } from './entity.js';
import { completedHour, type Payment, PaymentEntity } from './payments.js';

/** Completed payments whose completion falls in [fromIso, toIso), oldest first (hour buckets). */
// Access: Query completedByHour (gsi3) gsi3pk=PAYMENTS#COMPLETED#<hour> AND gsi3sk BETWEEN, one per hour of the window.
export async function listCompletedBetween(fromIso: string, toIso: string): Promise<Payment[]> {
  const out: Payment[] = [];
  for (let h = Date.parse(`${completedHour(fromIso)}:00:00.000Z`); h < Date.parse(toIso); h += 3600_000) {
    const hour = new Date(h).toISOString();
    const items = await PaymentEntity.queryIndexAll(
      'completedByHour',
      { completed_at: hour },
      { sk: { between: [fromIso, toIso] } },
    );
    out.push(...items.filter((p) => (p.completed_at ?? '') < toIso));
  }
  return out;
}

/** Pending payments created before `beforeIso`, oldest first: what reconciliation re-checks. */
// Access: Query pending (gsi1) gsi1pk=PAYMENTS#PENDING AND gsi1sk < <beforeIso>, ascending, Limit.
export const listPendingPayments = (beforeIso: string, limit: number): Promise<Payment[]> =>
  listUnsettled('pending', { lt: beforeIso }, limit);

/**
 * Failed or expired payments created between `sinceIso` and `beforeIso` and not asked about
 * since `checkedBeforeIso`, oldest first: those reconciliation asks the gateway about again, for
 * a late completion.
 */
// Access: Query pending (gsi1) gsi1pk=PAYMENTS#CLOSED AND gsi1sk BETWEEN <sinceIso> AND <beforeIso>, filter last_checked_at < <checkedBeforeIso>, ascending, Limit.
export const listClosedPayments = (
  sinceIso: string,
  beforeIso: string,
  checkedBeforeIso: string,
  limit: number,
): Promise<Payment[]> =>
  listUnsettled(
    'failed',
    { between: [sinceIso, beforeIso] },
    limit,
    absentOrBelow('last_checked_at', checkedBeforeIso),
  );

async function listUnsettled(
  status: 'pending' | 'failed',
  sk: { lt: string } | { between: [string, string] },
  limit: number,
  filter?: Expr,
): Promise<Payment[]> {
  const out: Payment[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await PaymentEntity.queryIndex(
      'pending',
      { status },
      {
        sk,
        limit: limit - out.length,
        forward: true,
        ...(filter ? { filter } : {}),
        ...(start ? { start } : {}),
      },
    );
    out.push(...page.items);
    start = page.next;
  } while (start && out.length < limit);
  return out;
}

/**
 * Claims the right to ask the provider about a pending payment now: true for one caller per
 * `since` window, so that a client polling its status every second costs one provider call per
 * 30 s, whatever the number of readers.
 */
// Access: UpdateItem pk=PAYMENT#<id> SET last_checked_at, condition status <> completed AND (no last_checked_at OR last_checked_at < :since).
export const claimStatusCheck = (id: string, nowIso: string, sinceIso: string): Promise<boolean> =>
  PaymentEntity.update(
    { id },
    { set: { last_checked_at: nowIso } },
    allOf(
      exists,
      PaymentEntity.where.isNot('status', 'completed'),
      absentOrBelow('last_checked_at', sinceIso),
    ),
  );
