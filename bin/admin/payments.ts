// The operator CLI's `payments refund` command.

import { refundByOperator } from '../../functions/billing/payments/refund.js';
import { UsageError } from './context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** `payments refund --payment-id <uuid>`: refunds a completed payment at its gateway, takes its code back. */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  const id = flags['payment-id'];
  if (command !== 'refund' || !id || !UUID.test(id)) {
    throw new UsageError('payments refund --payment-id <uuid>');
  }
  const settlement = await refundByOperator(id);
  process.stdout.write(`payment ${id}: ${settlement}\n`);
}
