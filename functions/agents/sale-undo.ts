// An agent's sale undone: the float or stock back, the books reversed, the code revoked, once under any race.

import { agentCashSale, bookings } from '../billing/ledger.js';
import { assertSeesAgent } from '../core/access.js';
import { clock } from '../core/clock.js';
import { AppError, notFound } from '../core/errors.js';
import type { AgentScopePrincipal } from '../core/principal.js';
import { accessCodeRevokeUnused } from '../store/access-codes.js';
import { agentSales, getAgent, type SaleUndoOutcome, undoAgentSale } from '../store/agents.js';
import { HANDOVER_UNDO_S } from '../store/handovers.js';
import { untilSettled } from '../store/retry.js';
import { shownSale } from './agent-reports.js';

/**
 * Undoing a sale made by mistake (the wrong forfait, a buyer who changed its mind): within the
 * minutes a handover may be undone (HANDOVER_UNDO_S), while its code was never used, the agent
 * itself, its reseller or an admin undoes it. One transaction (functions/store/agents.ts): the
 * float or the stock's code given back, the sale's money taken back from the agent's books and
 * its day and month, the code revoked, and the ledger's reversal of the sale booked
 * (functions/billing/ledger.ts: the sale's own numbers, signed -1), all once, however many
 * undos race.
 */
const ATTEMPTS = 20;

const refusal = (outcome: Exclude<SaleUndoOutcome, 'undone' | 'conflict'>) =>
  ({
    late: new AppError(
      'ERR_UNDO_TOO_LATE',
      'This sale can no longer be undone (past its minutes, or undone already)',
    ),
    code_used: new AppError('ERR_CODE_IN_USE', 'The code was used already: the sale stands'),
    settled: new AppError('ERR_CONFLICT', 'The cash of this sale was handed over already'),
  })[outcome];

export async function undoSale(principal: AgentScopePrincipal, agentId: string, code: string) {
  const agent = await getAgent(agentId);
  assertSeesAgent(principal, agent);
  const now = clock.now();
  // The day's sales are read to tell a sale too old to undo (409) from none at all (404).
  const sale = (await agentSales(agentId, clock.iso(now - 86_400_000), clock.iso(now))).find(
    (s) => s.code === code && !s.topup,
  );
  if (!sale) throw notFound('Sale');
  return untilSettled(
    async () => {
      const at = clock.iso();
      const since = clock.iso(Date.parse(at) - HANDOVER_UNDO_S * 1000);
      const { monthBooks, dayBooks } = bookings(agentCashSale(sale), at, -1);
      const outcome = await undoAgentSale(sale, { nowIso: at, since }, accessCodeRevokeUnused(code, at), {
        monthBooks,
        dayBooks,
      });
      if (outcome === 'undone') {
        const after = await getAgent(agentId);
        return {
          answer: {
            sale: { ...shownSale(sale), undone_at: at },
            float_fcfa: after?.float_fcfa ?? 0,
            stock_left: after?.stock[sale.forfait_id] ?? 0,
          },
          facts: {
            agent_name: agent.name ?? '',
            forfait_id: sale.forfait_id,
            price_fcfa: sale.price_fcfa,
          },
        };
      }
      if (outcome !== 'conflict') throw refusal(outcome);
      // Another sale or handover of the agent at the same instant: the write is conditional, again.
      return undefined;
    },
    () => {
      throw new AppError('ERR_UNAVAILABLE', 'The agent is busy selling: try again', {
        headers: { 'retry-after': '1' },
      });
    },
    ATTEMPTS,
  );
}
