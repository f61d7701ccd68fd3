import type { Summary } from './answers.js';

/** One line of a month's statement: its label (an i18n key), its amount, how it prints. */
export interface StatementLine {
  key:
    | 'total'
    | 'channel_mobile_money'
    | 'channel_voucher'
    | 'channel_cash'
    | 'channel_counter'
    | 'split_fees'
    | 'split_operator'
    | 'split_reseller'
    | 'agents_commission'
    | 'reseller_after_commission';
  fcfa: number;
  /** Taken off the line above (printed with a minus). */
  minus?: boolean;
  /** Part of the line above (printed indented): the total by how it was paid. */
  part?: boolean;
  /** A sum line. */
  sum?: boolean;
}

/**
 * A month's statement from the billing summary, as the console prints it: the total and how it
 * was paid, the providers' fee (on mobile money only) and the operator's share taken off, the
 * reseller's share, then, when its agents sold for cash, their commission and what is left.
 * Each sum line is the line above it less the minus lines between (test/integration/ledger.property.test.ts).
 */
export function statementLines(s: Summary): StatementLine[] {
  const lines: StatementLine[] = [
    { key: 'total', fcfa: s.total_fcfa },
    { key: 'channel_mobile_money', fcfa: s.by_channel.mobile_money, part: true },
    { key: 'channel_voucher', fcfa: s.by_channel.voucher, part: true },
    { key: 'channel_cash', fcfa: s.by_channel.cash, part: true },
    // The reseller's own top-ups, paid to it in cash: a line only when there were some.
    ...(s.by_channel.counter
      ? [{ key: 'channel_counter', fcfa: s.by_channel.counter, part: true } as StatementLine]
      : []),
    { key: 'split_fees', fcfa: s.split.provider_fee_fcfa, minus: true },
    { key: 'split_operator', fcfa: s.split.operator_fcfa, minus: true },
    { key: 'split_reseller', fcfa: s.split.reseller_fcfa, sum: true },
  ];
  if (s.agents.commission_fcfa === 0) return lines;
  return [
    ...lines,
    { key: 'agents_commission', fcfa: s.agents.commission_fcfa, minus: true },
    { key: 'reseller_after_commission', fcfa: s.agents.reseller_after_commission_fcfa, sum: true },
  ];
}
