// What a reseller hands its agents (codes, float) and takes back (cash), each a handover the agent's history keeps and may undo.

import { randomUUID } from 'node:crypto';
import { forfaitForSale } from '../billing/ledger.js';
import { assertManagesAgent, assertSeesAgent } from '../core/access.js';
import { clock } from '../core/clock.js';
import { AppError, notFound, validation } from '../core/errors.js';
import type { AgentScopePrincipal, OperatorPrincipal } from '../core/principal.js';
import { type Agent, getAgent } from '../store/agents.js';
import {
  agentHandovers,
  HANDOVER_UNDO_S,
  type Handover,
  type HandoverOutcome,
  recordHandovers,
  sidesOf,
  undoHandovers,
} from '../store/handovers.js';
import { untilSettled } from '../store/retry.js';

/**
 * What a reseller hands its agents and takes back, each a handover in the agent's history that
 * may be undone for HANDOVER_UNDO_S (functions/store/handovers.ts): float or codes given, cash
 * received, float or codes moved to another of its agents or back to the reseller.
 */

/** What a handover answers: the agent after it, and the handover (with until when it may be undone). */
async function answer(h: Handover) {
  const agent = (await getAgent(h.agent_id)) as Agent;
  return { ...agent, handover: shown(h) };
}

const undoUntil = (h: Handover) => clock.iso(Date.parse(h.at) + HANDOVER_UNDO_S * 1000);

const shown = (h: Handover) => {
  const { reseller_id: _r, agent_id: _a, ...rest } = h;
  return { ...rest, undo_until: undoUntil(h) };
};

function settled(outcome: HandoverOutcome, short: AppError) {
  if (outcome === 'short') throw short;
  if (outcome === 'conflict')
    throw new AppError('ERR_UNAVAILABLE', 'The agent is busy selling: try again', {
      headers: { 'retry-after': '1' },
    });
}

/**
 * Records handovers, again on a conflict (another sale or handover of the agent at the same
 * instant: the write is conditional on balances, not on a read, so trying again is safe).
 */
const record = (sides: Handover[]): Promise<HandoverOutcome> =>
  untilSettled(
    async () => {
      const outcome = await recordHandovers(sides);
      return outcome === 'conflict' ? undefined : outcome;
    },
    () => 'conflict' as const,
    21,
  );

const base = (principal: OperatorPrincipal, agent: Agent) => ({
  agent_id: agent.id,
  reseller_id: agent.reseller_id,
  id: randomUUID(),
  at: clock.iso(),
  by: principal.sub,
});

/** Float, or codes of a forfait, given to an agent. */
export async function give(
  principal: OperatorPrincipal,
  id: string,
  body: { float_fcfa?: number; forfait_id?: string; count?: number },
) {
  const agent = await getAgent(id);
  assertManagesAgent(principal, agent);
  // A stock of its reseller's own forfait (or the platform's); the hotspot is checked at each sale.
  if (body.forfait_id !== undefined)
    await forfaitForSale(body.forfait_id, { resellerId: agent.reseller_id, anyHotspot: true });
  const h: Handover =
    body.float_fcfa !== undefined
      ? { ...base(principal, agent), kind: 'float', float_fcfa: body.float_fcfa }
      : { ...base(principal, agent), kind: 'stock', forfait_id: body.forfait_id, count: body.count };
  settled(await record([h]), notFound('Agent'));
  return answer(h);
}

/** Cash the agent handed over: it owes that much less, never below zero. */
export async function receiveCash(principal: OperatorPrincipal, id: string, amountFcfa: number) {
  const agent = await getAgent(id);
  assertManagesAgent(principal, agent);
  const h: Handover = { ...base(principal, agent), kind: 'cash', cash_fcfa: amountFcfa };
  settled(
    await record([h]),
    new AppError('ERR_AGENT_CASH_OVER_OWED', `More than the agent owes (${agent.owed_fcfa} FCFA)`),
  );
  return answer(h);
}

/**
 * Float, or codes of a forfait, moved from an agent to another agent of the same reseller
 * (`to_agent_id`) or back to the reseller (none): never more than the agent holds.
 */
export async function move(
  principal: OperatorPrincipal,
  id: string,
  body: { to_agent_id?: string; float_fcfa?: number; forfait_id?: string; count?: number },
) {
  const agent = await getAgent(id);
  assertManagesAgent(principal, agent);
  if (body.to_agent_id !== undefined) {
    if (body.to_agent_id === id)
      throw validation('Invalid request', [{ path: 'body.to_agent_id', message: 'must be another agent' }]);
    const to = await getAgent(body.to_agent_id);
    // Another reseller's agent is not found, as it is anywhere else.
    if (!to || to.reseller_id !== agent.reseller_id) throw notFound('Agent');
  }
  const h: Handover = {
    ...base(principal, agent),
    kind: 'move',
    ...(body.float_fcfa !== undefined
      ? { float_fcfa: -body.float_fcfa }
      : { forfait_id: body.forfait_id, count: -(body.count as number) }),
    ...(body.to_agent_id ? { to_agent_id: body.to_agent_id } : {}),
  };
  settled(
    await record(sidesOf(h)),
    body.float_fcfa !== undefined
      ? new AppError('ERR_AGENT_FLOAT_EXHAUSTED', `The agent holds ${agent.float_fcfa} FCFA of float`)
      : new AppError('ERR_AGENT_STOCK_EXHAUSTED', 'The agent holds fewer codes of this forfait'),
  );
  return answer(h);
}

/**
 * Undoes a handover of the last HANDOVER_UNDO_S: its balances as before it, both sides of a
 * move. 409 ERR_UNDO_TOO_LATE past that or when undone already; 409 ERR_AGENT_FLOAT_EXHAUSTED
 * (or STOCK) when the float or codes given were sold meanwhile.
 */
export async function undo(principal: OperatorPrincipal, id: string, handoverId: string) {
  const agent = await getAgent(id);
  assertManagesAgent(principal, agent);
  const h = (await agentHandovers(id, 100)).find((x) => x.id === handoverId);
  if (!h) throw notFound('Handover');
  const now = clock.now();
  const outcome = await undoHandovers(sidesOf(h), clock.iso(now), clock.iso(now - HANDOVER_UNDO_S * 1000));
  if (outcome === 'late') throw new AppError('ERR_UNDO_TOO_LATE', 'This handover can no longer be undone');
  settled(
    outcome,
    h.cash_fcfa
      ? new AppError('ERR_CONFLICT', 'The cash cannot be undone')
      : h.count
        ? new AppError('ERR_AGENT_STOCK_EXHAUSTED', 'The codes given were sold meanwhile')
        : new AppError('ERR_AGENT_FLOAT_EXHAUSTED', 'The float given was spent meanwhile'),
  );
  return answer({ ...h, undone_at: clock.iso(now) });
}

/** An agent's handovers, newest first (the agent itself, its reseller, an admin). */
export async function history(principal: AgentScopePrincipal, id: string) {
  assertSeesAgent(principal, await getAgent(id));
  return { items: (await agentHandovers(id, 100)).map(shown) };
}
