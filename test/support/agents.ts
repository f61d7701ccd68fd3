import { randomUUID } from 'node:crypto';
import { AccountEntity } from '../../functions/store/accounts.js';
import { acceptAgent, inviteAgent } from '../../functions/store/agent-accounts.js';
import type { Agent } from '../../functions/store/agents.js';

/**
 * An agent as an invitation and its acceptance leave it (functions/agents/agents.ts), made
 * through the store's own two steps: its number's subscriber account (what a first login
 * makes), the invitation, then the acceptance, which makes that account the agent's.
 */
export async function acceptedAgent(agent: Agent): Promise<void> {
  const accountId = randomUUID();
  const now = new Date().toISOString();
  await AccountEntity.put({ id: accountId, msisdn: agent.msisdn, role: 'subscriber', created_at: now });
  await inviteAgent({ ...agent, status: 'invited' });
  if ((await acceptAgent(agent, accountId, now)) !== 'accepted')
    throw new Error(`agent ${agent.id} not accepted`);
}
