// The local sandbox gateway's own record of a payment (local mode only).

import { entity } from './entity.js';

/**
 * The local sandbox aggregator's own record of a payment (local mode only): what its page
 * decided (the buyer pressed Pay or Decline), kept apart from our payment as a real gateway
 * keeps its own. Its status API (functions/billing/gateways/sandbox.ts) answers from it.
 */
export interface SandboxPayment {
  reference: string;
  status: 'completed' | 'failed';
  amount_fcfa: number;
  currency: string;
  provider: string;
  decided_at: string;
}

const SandboxEntity = entity<SandboxPayment>('sandbox_payment')({
  key: (p: Pick<SandboxPayment, 'reference'>) => ({ pk: `SANDBOX#${p.reference}`, sk: 'PAYMENT' }),
  // As long as a late completion may still be asked about, and then some.
  ttl: (p) => Math.floor(Date.parse(p.decided_at) / 1000) + 35 * 86400,
});

/** The sandbox's decision on a payment (a later one replaces it: the buyer paid after declining). */
// Access: PutItem pk=SANDBOX#<reference>, sk=PAYMENT.
export const recordSandboxPayment = async (p: SandboxPayment): Promise<void> => {
  await SandboxEntity.put(p);
};

// Access: GetItem pk=SANDBOX#<reference>, sk=PAYMENT (ConsistentRead).
export const getSandboxPayment = (reference: string): Promise<SandboxPayment | undefined> =>
  SandboxEntity.get({ reference }, { consistent: true });
