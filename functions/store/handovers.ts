// Handovers between a reseller and its agents, kept in the agent's history and undone within a while.

import { AgentEntity, CashEntity, STOCK } from './agents.js';
import { allOf, cancelled, type Expr, entity, exists, type TxItem, transact } from './entity.js';

/**
 * A handover between a reseller and its agent, or between two of its agents, kept in the
 * agent's history (under its partition, by time): float or codes given, cash received, float
 * or codes moved to another agent or back to the reseller. Each is written in the same
 * transaction as the agent's balance it changes, and may be undone once, within
 * HANDOVER_UNDO_S of it, by the same conditional kind of transaction.
 *
 * Amounts are what the handover did to THIS agent: `float_fcfa` and `count` signed (a move out
 * is negative), `cash_fcfa` the cash it handed over. A move between two agents is two items of
 * one id, one in each agent's history (`to_agent_id` on the giver's, `from_agent_id` on the
 * taker's); a move back to the reseller has neither.
 */
export interface Handover {
  agent_id: string;
  reseller_id: string;
  id: string;
  at: string;
  kind: 'float' | 'stock' | 'cash' | 'move';
  float_fcfa?: number;
  forfait_id?: string;
  count?: number;
  cash_fcfa?: number;
  to_agent_id?: string;
  from_agent_id?: string;
  /** The account (reseller or admin) that made it. */
  by: string;
  undone_at?: string;
}

/** How long a handover may be undone (seconds). */
export const HANDOVER_UNDO_S = 300;

export const HandoverEntity = entity<Handover>('agent_handover')({
  key: (h: Pick<Handover, 'agent_id' | 'at' | 'id'>) => ({
    pk: `AGENT#${h.agent_id}`,
    sk: `HANDOVER#${h.at}#${h.id}`,
  }),
});

/**
 * What a handover does to its agent's item, as an update and the condition that it may: what
 * it takes away (float, codes) must be there; `sign` -1 undoes it.
 */
function balanceChange(h: Handover, sign: 1 | -1): TxItem {
  const add: Record<string, number> = {};
  const covers: Expr[] = [exists];
  const take = (
    attr: 'float_fcfa' | 'owed_fcfa' | 'cash_received_fcfa' | `${string}:${string}`,
    delta: number,
  ) => {
    add[attr] = delta;
    if (delta < 0) covers.push(AgentEntity.where.compare(attr, '>=', -delta));
  };
  if (h.float_fcfa) take('float_fcfa', sign * h.float_fcfa);
  if (h.count && h.forfait_id) take(`${STOCK}${h.forfait_id}`, sign * h.count);
  if (h.cash_fcfa) {
    // Cash received lowers what the agent owes (never below zero); undone, it owes it again.
    take('owed_fcfa', -sign * h.cash_fcfa);
    take('cash_received_fcfa', sign * h.cash_fcfa);
  }
  return AgentEntity.tx.update({ id: h.agent_id }, { add }, allOf(...covers));
}

/**
 * Both sides of a handover from either: a move between two agents is an item in each one's
 * history; any other handover is one item.
 */
export function sidesOf(h: Handover): Handover[] {
  const other = h.to_agent_id ?? h.from_agent_id;
  if (h.kind !== 'move' || !other) return [h];
  const { to_agent_id: _to, from_agent_id: _from, undone_at: _undone, ...common } = h;
  const mirror: Handover = {
    ...common,
    agent_id: other,
    ...(h.float_fcfa ? { float_fcfa: -h.float_fcfa } : {}),
    ...(h.count ? { count: -h.count } : {}),
    ...(h.to_agent_id ? { from_agent_id: h.agent_id } : { to_agent_id: h.agent_id }),
  };
  return [h, mirror];
}

/** The cash item the agent's statement lists, for a cash handover. */
const cashKey = (h: Handover) => ({ agent_id: h.agent_id, at: h.at, id: h.id });

export type HandoverOutcome = 'done' | 'short' | 'conflict';

/**
 * Records handovers (one, or the two sides of a move) with their agents' balances in one
 * transaction: `short` when an agent does not hold what one takes away (the float or codes
 * moved, more cash than it owes).
 */
// Access: TransactWriteItems [Update AGENT#<id> ADD float/stock/owed/cash (condition: covers) and Put AGENT#<id>/HANDOVER#<at>#<id>, per side; a cash handover also Put AGENT#<id>/CASH#<at>#<id>].
export async function recordHandovers(sides: Handover[]): Promise<HandoverOutcome> {
  const items: Record<string, TxItem> = {};
  sides.forEach((h, i) => {
    items[`agent${i}`] = balanceChange(h, 1);
    items[`handover${i}`] = HandoverEntity.tx.create(h);
    if (h.kind === 'cash')
      items[`cash${i}`] = CashEntity.tx.create({
        ...cashKey(h),
        reseller_id: h.reseller_id,
        amount_fcfa: h.cash_fcfa as number,
        recorded_by: h.by,
      });
  });
  return (await run(items)) as HandoverOutcome;
}

/**
 * Undoes handovers (one, or both sides of a move) recorded at `at`: each marked undone under the
 * condition that it is not yet and was made at or after `since`, and its balance change reversed
 * under the condition that the agent still holds what it gave (`short` otherwise: the float was
 * spent). `late`: one was undone already or is older than `since`.
 */
// Access: TransactWriteItems [Update AGENT#<id>/HANDOVER#<at>#<id> SET undone_at (condition: not undone, at >= since), Update AGENT#<id> ADD the reverse (condition: covers), per side; a cash handover also Delete AGENT#<id>/CASH#<at>#<id>].
export async function undoHandovers(
  sides: Handover[],
  nowIso: string,
  since: string,
): Promise<HandoverOutcome | 'late'> {
  const items: Record<string, TxItem> = {};
  sides.forEach((h, i) => {
    items[`handover${i}`] = HandoverEntity.tx.update(
      h,
      { set: { undone_at: nowIso } },
      allOf(exists, HandoverEntity.where.lacks('undone_at'), HandoverEntity.where.compare('at', '>=', since)),
    );
    items[`agent${i}`] = balanceChange(h, -1);
    if (h.kind === 'cash') items[`cash${i}`] = CashEntity.tx.delete(cashKey(h));
  });
  return run(items, (failed) => failed.some((n) => n.startsWith('handover')));
}

async function run(
  items: Record<string, TxItem>,
  late?: (failed: string[]) => boolean,
): Promise<HandoverOutcome | 'late'> {
  try {
    await transact(items);
    return 'done';
  } catch (error) {
    const c = cancelled<string>(error);
    if (!c) throw error;
    if (late?.(c.failedItems)) return 'late';
    if (c.failedItems.some((n) => n.startsWith('agent'))) return 'short';
    if (c.conflict) return 'conflict';
    throw error;
  }
}

/** An agent's handovers, newest first. */
// Access: Query pk=AGENT#<id> AND begins_with(sk, HANDOVER#), newest first.
export async function agentHandovers(agentId: string, limit = 50): Promise<Handover[]> {
  const { pk } = HandoverEntity.key({ agent_id: agentId, at: '', id: '' });
  return (await HandoverEntity.query({ pk, sk: { beginsWith: 'HANDOVER#' }, forward: false, limit })).items;
}
