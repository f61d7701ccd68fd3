// An agent tops up a guest's access code for cash, from its own float.

import { bookings, offerOf, toppedUp, topupSale } from '../billing/ledger.js';
import { assertLive, tooBusy, toppedUpView, topupForfait } from '../billing/topups.js';
import { assertIsAgent, assertSeesAgent } from '../core/access.js';
import { clock } from '../core/clock.js';
import { forbidden, notFound } from '../core/errors.js';
import type { AgentScopePrincipal } from '../core/principal.js';
import { normalizeCode } from '../radius/attributes.js';
import { accessCodeExtend, getAccessCode } from '../store/access-codes.js';
import { type Agent, type AgentSale, getAgent, recordAgentSale } from '../store/agents.js';
import type { StoredForfait } from '../store/forfaits.js';
import { getReseller } from '../store/resellers.js';
import { untilSettled } from '../store/retry.js';
import { shownSale } from './agent-reports.js';
import { commissionOf, covers, exhausted } from './agents.js';

const ATTEMPTS = 40;

/**
 * An agent tops up a guest's code for cash: the forfait's time and data added to a live code of
 * its reseller (functions/billing/topups.ts says which codes and what grows), paid as a sale is,
 * from the agent's stock of that forfait when it holds one, else from its float, with its
 * commission. One transaction (functions/store/agents.ts, `recordAgentSale`) writes the agent's
 * float or stock, the code's new limits (while the code is as read), the sale (marked `topup`),
 * the agent's day and month and the ledger's bookings; a race with a login, another top-up or
 * another sale of the agent reads again.
 */
export async function agentTopUp(
  principal: AgentScopePrincipal,
  agentId: string,
  input: { code: string; forfait_id: string },
) {
  const first = await getAgent(agentId);
  assertSeesAgent(principal, first);
  assertIsAgent(principal, first);
  let agent: Agent = first;
  if (agent.status === 'invited') throw forbidden('This invitation is not accepted yet');
  if ((await getReseller(agent.reseller_id))?.removed_at !== undefined)
    throw forbidden('This reseller no longer sells');
  let forfait: StoredForfait | undefined;
  return untilSettled(
    async () => {
      const code = await getAccessCode(normalizeCode(input.code));
      // Another reseller's code is unknown here, as any code of another reseller is.
      if (code?.reseller_id !== agent.reseller_id) throw notFound('Code');
      const nowMs = clock.now();
      assertLive(code, nowMs);
      forfait ??= await topupForfait(code, input.forfait_id);
      const price = forfait.price_fcfa;
      const at = clock.iso(nowMs);
      const next = toppedUp(code, offerOf(forfait), nowMs);
      const sale: AgentSale = {
        agent_id: agent.id,
        reseller_id: agent.reseller_id,
        at,
        code: code.code,
        forfait_id: forfait.id,
        forfait_name: forfait.name,
        price_fcfa: price,
        commission_fcfa: commissionOf(price, agent.commission_bp),
        paid_from: (agent.stock[forfait.id] ?? 0) > 0 ? 'stock' : 'float',
        ...(code.last_nas_id ? { nas_id: code.last_nas_id } : {}),
        topup: true,
        topup_n: (code.topups ?? 0) + 1,
      };
      const paid = {
        channel: 'cash' as const,
        agent: { id: agent.id, commissionFcfa: sale.commission_fcfa },
      };
      const booked = bookings(topupSale(code, forfait, paid), at);
      const outcome = await recordAgentSale(sale, accessCodeExtend(code, next, at), booked);
      if (outcome === 'sold') {
        const after = await getAgent(agent.id);
        return {
          sale: shownSale(sale),
          topup: toppedUpView(code, forfait, next),
          float_fcfa: after?.float_fcfa ?? 0,
          stock_left: after?.stock[forfait.id] ?? 0,
        };
      }
      const fresh = await getAgent(agent.id);
      if (!fresh) throw notFound('Agent');
      if ((outcome === 'float_exhausted' || outcome === 'stock_exhausted') && !covers(fresh, forfait))
        throw exhausted(fresh, forfait);
      // The code changed (a login, another top-up) or the agent sold meanwhile: read both again.
      agent = fresh;
      return undefined;
    },
    () => {
      throw tooBusy();
    },
    ATTEMPTS,
  );
}
