// How a phone number becomes a reseller's agent: invited, then accepted, in one transaction each.

import { AccountEntity } from './accounts.js';
import { type Agent, AgentEntity } from './agents.js';
import { allOf, cancelled, type Expr, notExists, type TxItem, transact } from './entity.js';

/**
 * How a number becomes a reseller's agent: the reseller invites it, and the number's holder
 * accepts (its account turns into the agent's in the same transaction), or a tool that stands for
 * both sides creates it at once.
 */

/** The account update that makes a number an agent's (a subscriber keeps its id). */
function agentAccountItem(agent: Agent, accountId: string, nowIso: string, condition: Expr): TxItem {
  return AccountEntity.tx.upsert(
    { msisdn: agent.msisdn },
    {
      set: {
        msisdn: agent.msisdn,
        role: 'agent',
        reseller_id: agent.reseller_id,
        agent_id: agent.id,
        // An agent is kept until removed: no TTL, even on a subscriber it was before.
        keep_until: undefined,
      },
      ifAbsent: { id: accountId, created_at: nowIso },
    },
    condition,
  );
}

/** Records an invitation: the agent, `invited`; its number's account is not touched. */
// Access: PutItem AGENT#<id> attribute_not_exists(pk) (enters byReseller).
export async function inviteAgent(agent: Agent & { status: 'invited' }): Promise<void> {
  const { stock, ...rest } = agent;
  await AgentEntity.put({ ...rest }, notExists);
}

/**
 * The number's holder accepts an invitation: the agent leaves `invited` and the account (the
 * caller's own, `accountId`, still a subscriber's) becomes the agent's, together. `gone` when
 * the invitation was accepted or withdrawn meanwhile, or the account changed role.
 */
// Access: TransactWriteItems [Update AGENT#<id> REMOVE status SET accepted_at (condition status = invited), Update ACCOUNT#<msisdn> (condition role = subscriber AND id = accountId)].
export async function acceptAgent(
  agent: Agent,
  accountId: string,
  nowIso: string,
): Promise<'accepted' | 'gone'> {
  try {
    await transact({
      agent: AgentEntity.tx.update(
        { id: agent.id },
        { set: { status: undefined, accepted_at: nowIso } },
        AgentEntity.where.is('status', 'invited'),
      ),
      account: agentAccountItem(
        agent,
        accountId,
        nowIso,
        allOf(AccountEntity.where.is('role', 'subscriber'), AccountEntity.where.is('id', accountId)),
      ),
    });
    return 'accepted';
  } catch (error) {
    const c = cancelled<'agent' | 'account'>(error);
    if (c?.failed('account') || c?.failed('agent')) return 'gone';
    throw error;
  }
}
